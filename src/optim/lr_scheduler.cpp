// LR schedulers: torch.optim.lr_scheduler's chainable forms and closed forms.
#include "ember/optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>

#include "ember/ops/factory.h"

namespace ember::optim {

using detail::fmt;

namespace {

// Python's floor division and modulo for a positive divisor.
int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t py_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

// Finds a hyper-parameter by name in an options object.
class FieldFinder : public OptionsVisitor {
 public:
  explicit FieldFinder(const char* want) : want_(want) {}
  void field(const char* name, double& v) override {
    if (std::strcmp(name, want_) == 0) number = &v;
  }
  void field(const char*, bool&) override {}
  void field(const char* name, std::tuple<double, double>& v) override {
    if (std::strcmp(name, want_) == 0) pair = &v;
  }
  double* number = nullptr;
  std::tuple<double, double>* pair = nullptr;

 private:
  const char* want_;
};

bool has_field(OptimizerOptions& o, const char* name) {
  FieldFinder f(name);
  o.visit(f);
  return f.number || f.pair;
}

// Sets the group's momentum, or beta1 for Adam-style optimizers.
void set_momentum(OptimizerOptions& o, bool use_beta1, double value) {
  FieldFinder f(use_beta1 ? "betas" : "momentum");
  o.visit(f);
  if (use_beta1 && f.pair) std::get<0>(*f.pair) = value;
  if (!use_beta1 && f.number) *f.number = value;
}

Tensor doubles(const std::vector<double>& v) {
  Tensor t = ember::empty({static_cast<int64_t>(v.size())}, TensorOptions(kFloat64));
  std::copy(v.begin(), v.end(), t.data_ptr<double>());
  return t;
}
Tensor scalar64(double v) { return ember::full({}, v, TensorOptions(kFloat64)); }

// A float64 tensor's values from a scheduler state dict; ValueError naming the key.
std::vector<double> read(const StateDict& sd, const std::string& key, const char* who,
                         std::optional<size_t> n = std::nullopt) {
  const Tensor* t = sd.find(key);
  EMBER_CHECK_VALUE(t && t->defined(), "[", who, ".load_state_dict] missing key '", key, "'");
  const bool ok = n ? (t->dim() == 1 && t->size(0) == static_cast<int64_t>(*n)) : t->dim() == 0;
  EMBER_CHECK_VALUE(ok && t->dtype() != kBool, "[", who, ".load_state_dict] key '", key,
                    "' has the wrong shape or dtype");
  return t->to(kFloat64).contiguous().tolist<double>();
}
int64_t read_int(const StateDict& sd, const std::string& key, const char* who) {
  const double d = read(sd, key, who)[0];
  EMBER_CHECK_VALUE(std::abs(d) <= 9007199254740992.0 && d == std::floor(d), "[", who,
                    ".load_state_dict] key '", key, "' must hold an integer, got ", fmt(d));
  return static_cast<int64_t>(d);
}

StateDict prefixed(const StateDict& sd, const std::string& prefix) {
  StateDict out;
  for (const auto& item : sd) {
    if (item.key().rfind(prefix, 0) == 0)
      out.insert(item.key().substr(prefix.size()), item.value());
  }
  return out;
}

}  // namespace

// ---- LRScheduler

LRScheduler::LRScheduler(Optimizer& optimizer, int64_t last_epoch, const char* name)
    : optimizer_(optimizer), name_(name), last_epoch_(last_epoch) {
  auto& groups = optimizer.param_groups();
  for (size_t i = 0; i < groups.size(); ++i) {
    if (last_epoch == -1) {
      if (!groups[i].initial_lr()) groups[i].initial_lr() = groups[i].options().get_lr();
    } else {
      EMBER_CHECK_VALUE(groups[i].initial_lr().has_value(), "[", name,
                        "] param 'initial_lr' is not specified in param_groups[", i,
                        "] when resuming an optimizer");
    }
    base_lrs_.push_back(*groups[i].initial_lr());
  }
}

void LRScheduler::initial_step() {
  step_count_ = 0;
  struct Initial {
    bool& flag;
    explicit Initial(bool& f) : flag(f) { flag = true; }
    ~Initial() { flag = false; }
  } initial(is_initial_);
  step();
}

void LRScheduler::step() {
  ++step_count_;
  update_lr(std::nullopt);
}

void LRScheduler::step(int64_t epoch) {
  ++step_count_;
  update_lr(epoch);
}

void LRScheduler::update_lr(std::optional<int64_t> epoch) {
  std::vector<double> values;
  if (!epoch) {
    ++last_epoch_;
    values = get_lr();
  } else {
    last_epoch_ = *epoch;
    auto closed = closed_form_lr();
    values = closed ? std::move(*closed) : get_lr();
  }
  auto& groups = optimizer_.param_groups();
  for (size_t i = 0; i < std::min(groups.size(), values.size()); ++i) {
    groups[i].options().set_lr(values[i]);
  }
  last_lr_ = group_lrs();
}

std::vector<double> LRScheduler::group_lrs() const {
  std::vector<double> out;
  for (const auto& g : optimizer_.param_groups()) out.push_back(g.options().get_lr());
  return out;
}

StateDict LRScheduler::state_dict() const {
  StateDict sd;
  sd.insert("last_epoch", scalar64(static_cast<double>(last_epoch_)));
  sd.insert("_step_count", scalar64(static_cast<double>(step_count_)));
  sd.insert("base_lrs", doubles(base_lrs_));
  sd.insert("_last_lr", doubles(last_lr_));
  return sd;
}

void LRScheduler::load_state_dict(const StateDict& sd) {
  const int64_t last_epoch = read_int(sd, "last_epoch", name_);
  const int64_t step_count = read_int(sd, "_step_count", name_);
  auto base = read(sd, "base_lrs", name_, base_lrs_.size());
  const Tensor* last = sd.find("_last_lr");
  EMBER_CHECK_VALUE(last && last->defined() && last->dim() == 1, "[", name_,
                    ".load_state_dict] missing key '_last_lr'");
  auto last_lr = read(sd, "_last_lr", name_, static_cast<size_t>(last->size(0)));
  last_epoch_ = last_epoch;
  step_count_ = step_count;
  base_lrs_ = std::move(base);
  last_lr_ = std::move(last_lr);
}

// ---- StepLR

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch, "StepLR"), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK_VALUE(step_size > 0, "[StepLR] step_size must be a positive integer, got ",
                    step_size);
  initial_step();
}

std::vector<double> StepLR::get_lr() {
  auto lrs = group_lrs();
  if (last_epoch_ == 0 || py_mod(last_epoch_, step_size_) != 0) return lrs;
  for (auto& lr : lrs) lr *= gamma_;
  return lrs;
}

std::optional<std::vector<double>> StepLR::closed_form_lr() {
  std::vector<double> out;
  for (double b : base_lrs_) {
    out.push_back(b * std::pow(gamma_, static_cast<double>(floor_div(last_epoch_, step_size_))));
  }
  return out;
}

// ---- MultiStepLR

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma,
                         int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch, "MultiStepLR"),
      milestones_(std::move(milestones)),
      gamma_(gamma) {
  std::sort(milestones_.begin(), milestones_.end());
  initial_step();
}

std::vector<double> MultiStepLR::get_lr() {
  auto lrs = group_lrs();
  const auto count = std::count(milestones_.begin(), milestones_.end(), last_epoch_);
  if (count == 0) return lrs;
  for (auto& lr : lrs) lr *= std::pow(gamma_, static_cast<double>(count));
  return lrs;
}

std::optional<std::vector<double>> MultiStepLR::closed_form_lr() {
  const auto passed =
      std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin();
  std::vector<double> out;
  for (double b : base_lrs_) out.push_back(b * std::pow(gamma_, static_cast<double>(passed)));
  return out;
}

// ---- ExponentialLR

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch, "ExponentialLR"), gamma_(gamma) {
  initial_step();
}

std::vector<double> ExponentialLR::get_lr() {
  auto lrs = group_lrs();
  if (is_initial_) return lrs;
  for (auto& lr : lrs) lr *= gamma_;
  return lrs;
}

std::optional<std::vector<double>> ExponentialLR::closed_form_lr() {
  std::vector<double> out;
  for (double b : base_lrs_) out.push_back(b * std::pow(gamma_, static_cast<double>(last_epoch_)));
  return out;
}

// ---- CosineAnnealingLR

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min,
                                     int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch, "CosineAnnealingLR"), T_max_(T_max), eta_min_(eta_min) {
  EMBER_CHECK_VALUE(T_max > 0, "[CosineAnnealingLR] T_max must be a positive integer, got ", T_max);
  initial_step();
}

std::vector<double> CosineAnnealingLR::get_lr() {
  constexpr double pi = std::numbers::pi;
  auto lrs = group_lrs();
  const auto e = static_cast<double>(last_epoch_);
  const auto T = static_cast<double>(T_max_);
  if (is_initial_) return lrs;
  const size_t n = std::min(lrs.size(), base_lrs_.size());
  lrs.resize(n);
  if (step_count_ == 1 && last_epoch_ > 0) {
    for (size_t i = 0; i < n; ++i) {
      lrs[i] = eta_min_ + (base_lrs_[i] - eta_min_) * (1 + std::cos(e * pi / T)) / 2;
    }
  } else if (py_mod(last_epoch_ - 1 - T_max_, 2 * T_max_) == 0) {
    for (size_t i = 0; i < n; ++i) {
      lrs[i] = lrs[i] + (base_lrs_[i] - eta_min_) * (1 - std::cos(pi / T)) / 2;
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      lrs[i] = (1 + std::cos(pi * e / T)) / (1 + std::cos(pi * (e - 1) / T)) * (lrs[i] - eta_min_) +
               eta_min_;
    }
  }
  return lrs;
}

std::optional<std::vector<double>> CosineAnnealingLR::closed_form_lr() {
  std::vector<double> out;
  for (double b : base_lrs_) {
    out.push_back(eta_min_ + (b - eta_min_) *
                                 (1 + std::cos(std::numbers::pi * static_cast<double>(last_epoch_) /
                                               static_cast<double>(T_max_))) /
                                 2);
  }
  return out;
}

// ---- LinearLR

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor,
                   int64_t total_iters, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch, "LinearLR"),
      start_factor_(start_factor),
      end_factor_(end_factor),
      total_iters_(total_iters) {
  EMBER_CHECK_VALUE(!(start_factor > 1.0 || start_factor <= 0),
                    "[LinearLR] Starting "
                    "multiplicative factor expected to be greater than 0 and less or equal to 1.");
  EMBER_CHECK_VALUE(!(end_factor > 1.0 || end_factor < 0),
                    "[LinearLR] Ending multiplicative factor expected to be between 0 and 1.");
  EMBER_CHECK_VALUE(total_iters > 0, "[LinearLR] total_iters must be a positive integer, got ",
                    total_iters);
  initial_step();
}

std::vector<double> LinearLR::get_lr() {
  auto lrs = group_lrs();
  if (last_epoch_ == 0) {
    for (auto& lr : lrs) lr *= start_factor_;
    return lrs;
  }
  if (is_initial_ || last_epoch_ > total_iters_) return lrs;
  const double d = end_factor_ - start_factor_;
  const double factor = 1.0 + d / (static_cast<double>(total_iters_) * start_factor_ +
                                   static_cast<double>(last_epoch_ - 1) * d);
  for (auto& lr : lrs) lr *= factor;
  return lrs;
}

std::optional<std::vector<double>> LinearLR::closed_form_lr() {
  std::vector<double> out;
  const auto e = static_cast<double>(std::min(total_iters_, last_epoch_));
  for (double b : base_lrs_) {
    out.push_back(b * (start_factor_ +
                       (end_factor_ - start_factor_) * e / static_cast<double>(total_iters_)));
  }
  return out;
}

// ---- LambdaLR

LambdaLR::LambdaLR(Optimizer& optimizer, Lambda lr_lambda, int64_t last_epoch)
    : LambdaLR(optimizer,
               std::vector<Lambda>(optimizer.param_groups().size(), std::move(lr_lambda)),
               last_epoch) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch, "LambdaLR"), lr_lambdas_(std::move(lr_lambdas)) {
  EMBER_CHECK_VALUE(lr_lambdas_.size() == optimizer.param_groups().size(), "[LambdaLR] Expected ",
                    optimizer.param_groups().size(), " lr_lambdas, but got ", lr_lambdas_.size());
  for (const auto& f : lr_lambdas_) {
    EMBER_CHECK_TYPE(static_cast<bool>(f), "[LambdaLR] lr_lambda should be a function");
  }
  initial_step();
}

std::vector<double> LambdaLR::get_lr() {
  std::vector<double> out;
  for (size_t i = 0; i < std::min(base_lrs_.size(), lr_lambdas_.size()); ++i) {
    out.push_back(base_lrs_[i] * lr_lambdas_[i](last_epoch_));
  }
  return out;
}

// ---- OneCycleLR

namespace {
enum { kInitialLr, kMaxLr, kMinLr, kMaxMomentum, kBaseMomentum };

int64_t one_cycle_total_steps(const OneCycleLROptions& o) {
  if (o.total_steps()) {
    EMBER_CHECK_VALUE(*o.total_steps() > 0,
                      "[OneCycleLR] Expected positive integer total_steps, but got ",
                      *o.total_steps());
    return *o.total_steps();
  }
  EMBER_CHECK_VALUE(o.epochs() && o.steps_per_epoch(),
                    "[OneCycleLR] You must define either total_steps OR (epochs AND "
                    "steps_per_epoch)");
  EMBER_CHECK_VALUE(*o.epochs() > 0, "[OneCycleLR] Expected positive integer epochs, but got ",
                    *o.epochs());
  EMBER_CHECK_VALUE(*o.steps_per_epoch() > 0,
                    "[OneCycleLR] Expected positive integer steps_per_epoch, but got ",
                    *o.steps_per_epoch());
  int64_t total = 0;
  EMBER_CHECK_VALUE(!__builtin_mul_overflow(*o.epochs(), *o.steps_per_epoch(), &total),
                    "[OneCycleLR] epochs * steps_per_epoch overflows");
  return total;
}
}  // namespace

OneCycleLR::OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& o)
    : LRScheduler(optimizer, o.last_epoch(), "OneCycleLR"),
      total_steps_(one_cycle_total_steps(o)),
      cos_(o.anneal_strategy() == "cos"),
      cycle_momentum_(o.cycle_momentum()) {
  const auto total = static_cast<double>(total_steps_);
  if (o.three_phase()) {
    phases_ = {{o.pct_start() * total - 1, kInitialLr, kMaxLr, kMaxMomentum, kBaseMomentum},
               {2 * o.pct_start() * total - 2, kMaxLr, kInitialLr, kBaseMomentum, kMaxMomentum},
               {total - 1, kInitialLr, kMinLr, kMaxMomentum, kMaxMomentum}};
  } else {
    phases_ = {{o.pct_start() * total - 1, kInitialLr, kMaxLr, kMaxMomentum, kBaseMomentum},
               {total - 1, kMaxLr, kMinLr, kBaseMomentum, kMaxMomentum}};
  }
  EMBER_CHECK_VALUE(!(o.pct_start() < 0 || o.pct_start() > 1),
                    "[OneCycleLR] Expected float between 0 and 1 pct_start, but got ",
                    fmt(o.pct_start()));
  EMBER_CHECK_VALUE(o.anneal_strategy() == "cos" || o.anneal_strategy() == "linear",
                    "[OneCycleLR] anneal_strategy must be one of 'cos' or 'linear', instead got ",
                    o.anneal_strategy());
  auto& groups = optimizer.param_groups();
  std::vector<double> max_lrs = o.max_lrs();
  if (max_lrs.size() == 1) max_lrs.assign(groups.size(), max_lrs[0]);
  EMBER_CHECK_VALUE(max_lrs.size() == groups.size(), "[OneCycleLR] expected ", groups.size(),
                    " values for max_lr, got ", o.max_lrs().size());
  if (cycle_momentum_) {
    const bool momentum = has_field(optimizer.defaults(), "momentum");
    use_beta1_ = has_field(optimizer.defaults(), "betas");
    EMBER_CHECK_VALUE(momentum || use_beta1_,
                      "[OneCycleLR] optimizer must support momentum or beta1 with "
                      "`cycle_momentum` option enabled");
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    const double initial = max_lrs[i] / o.div_factor();
    values_.push_back(
        {initial, max_lrs[i], initial / o.final_div_factor(), o.max_momentum(), o.base_momentum()});
    if (o.last_epoch() == -1) {
      groups[i].initial_lr() = initial;
      base_lrs_[i] = initial;
      if (cycle_momentum_) set_momentum(groups[i].options(), use_beta1_, o.max_momentum());
    }
  }
  initial_step();
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (cos_) return end + (start - end) / 2.0 * (std::cos(std::numbers::pi * pct) + 1);
  return (end - start) * pct + start;
}

std::vector<double> OneCycleLR::get_lr() {
  const int64_t step_num = last_epoch_;
  EMBER_CHECK_VALUE(step_num <= total_steps_, "[OneCycleLR] Tried to step ", step_num,
                    " times. The specified number of total steps is ", total_steps_);
  auto& groups = optimizer_.param_groups();
  std::vector<double> lrs;
  for (size_t g = 0; g < std::min(groups.size(), values_.size()); ++g) {
    const auto& v = values_[g];
    double start_step = 0, lr = 0, momentum = 0;
    for (size_t i = 0; i < phases_.size(); ++i) {
      const auto& ph = phases_[i];
      if (static_cast<double>(step_num) <= ph.end_step || i == phases_.size() - 1) {
        EMBER_CHECK_VALUE(ph.end_step != start_step,
                          "[OneCycleLR] float division by zero: ", "phase ", i,
                          " has no steps (total_steps ", total_steps_, ")");
        const double pct =
            (static_cast<double>(step_num) - start_step) / (ph.end_step - start_step);
        lr = anneal(v[ph.start_lr], v[ph.end_lr], pct);
        momentum = anneal(v[ph.start_momentum], v[ph.end_momentum], pct);
        break;
      }
      start_step = ph.end_step;
    }
    lrs.push_back(lr);
    if (cycle_momentum_) set_momentum(groups[g].options(), use_beta1_, momentum);
  }
  return lrs;
}

// ---- SequentialLR

SequentialLR::SequentialLR(Optimizer& optimizer,
                           std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<int64_t> milestones, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch, "SequentialLR"),
      schedulers_(std::move(schedulers)),
      milestones_(std::move(milestones)) {
  EMBER_CHECK_VALUE(!schedulers_.empty(),
                    "[SequentialLR] SequentialLR expects at least one scheduler, but got no "
                    "scheduler.");
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    EMBER_CHECK_VALUE(schedulers_[i] != nullptr, "[SequentialLR] the scheduler at index ", i,
                      " is null");
    EMBER_CHECK_VALUE(&schedulers_[i]->optimizer() == &optimizer,
                      "[SequentialLR] SequentialLR expects all schedulers to belong to the same "
                      "optimizer, but got scheduler ",
                      schedulers_[i]->name_, " at index ", i, " with a different optimizer");
  }
  EMBER_CHECK_VALUE(milestones_.size() + 1 == schedulers_.size(),
                    "[SequentialLR] Sequential Schedulers expects number of schedulers provided "
                    "to be one more than the number of milestone points, but got number of "
                    "schedulers ",
                    schedulers_.size(), " and the number of milestones to be equal to ",
                    milestones_.size());
  last_epoch_ = last_epoch + 1;
  // Back to the initial learning rates, undo the sub-schedulers' initial steps, and start the
  // first one.
  for (auto& g : optimizer.param_groups()) g.options().set_lr(*g.initial_lr());
  for (auto& s : schedulers_) recursive_undo(*s);
  schedulers_[0]->initial_step();
  last_lr_ = schedulers_[0]->get_last_lr();
}

void SequentialLR::recursive_undo(LRScheduler& s) {
  if (auto* seq = dynamic_cast<SequentialLR*>(&s)) {
    for (auto& inner : seq->schedulers_) recursive_undo(*inner);
  } else {
    s.last_epoch_ -= 1;
  }
}

void SequentialLR::step() {
  ++last_epoch_;
  const auto idx = static_cast<size_t>(
      std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin());
  auto& s = *schedulers_[std::min(idx, schedulers_.size() - 1)];
  if (idx > 0 && milestones_[idx - 1] == last_epoch_) {
    s.update_lr(0);
  } else {
    s.step();
  }
  last_lr_ = s.get_last_lr();
}

StateDict SequentialLR::state_dict() const {
  StateDict sd = LRScheduler::state_dict();
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    for (const auto& item : schedulers_[i]->state_dict()) {
      sd.insert("_schedulers." + std::to_string(i) + "." + item.key(), item.value());
    }
  }
  return sd;
}

void SequentialLR::load_state_dict(const StateDict& sd) {
  StateDict own;
  for (const auto& item : sd) {
    if (item.key().rfind("_schedulers.", 0) != 0) own.insert(item.key(), item.value());
  }
  LRScheduler::load_state_dict(own);
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    schedulers_[i]->load_state_dict(prefixed(sd, "_schedulers." + std::to_string(i) + "."));
  }
}

// ---- ReduceLROnPlateau

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, const ReduceLROnPlateauOptions& o)
    : optimizer_(optimizer), options_(o) {
  EMBER_CHECK_VALUE(o.factor() < 1.0, "[ReduceLROnPlateau] Factor should be < 1.0.");
  const size_t n = optimizer.param_groups().size();
  default_min_lr_ = o.min_lrs().empty();
  if (default_min_lr_) {
    min_lrs_.assign(n, o.min_lr());
  } else {
    EMBER_CHECK_VALUE(o.min_lrs().size() == n, "[ReduceLROnPlateau] expected ", n, " min_lrs, got ",
                      o.min_lrs().size());
    min_lrs_ = o.min_lrs();
  }
  EMBER_CHECK_VALUE(o.mode() == "min" || o.mode() == "max", "[ReduceLROnPlateau] mode ", o.mode(),
                    " is unknown!");
  EMBER_CHECK_VALUE(o.threshold_mode() == "rel" || o.threshold_mode() == "abs",
                    "[ReduceLROnPlateau] threshold mode ", o.threshold_mode(), " is unknown!");
  best_ = o.mode() == "min" ? std::numeric_limits<double>::infinity()
                            : -std::numeric_limits<double>::infinity();
  for (const auto& g : optimizer.param_groups()) last_lr_.push_back(g.options().get_lr());
}

bool ReduceLROnPlateau::is_better(double a, double best) const {
  const double t = options_.threshold();
  const bool rel = options_.threshold_mode() == "rel";
  if (options_.mode() == "min") return rel ? a < best * (1.0 - t) : a < best - t;
  return rel ? a > best * (t + 1.0) : a > best + t;
}

void ReduceLROnPlateau::step(double metrics) {
  last_epoch_ += 1;
  if (is_better(metrics, best_)) {
    best_ = metrics;
    num_bad_epochs_ = 0;
  } else {
    num_bad_epochs_ += 1;
  }
  if (in_cooldown()) {
    cooldown_counter_ -= 1;
    num_bad_epochs_ = 0;  // bad epochs in cooldown do not count
  }
  if (num_bad_epochs_ > options_.patience()) {
    reduce_lr();
    cooldown_counter_ = options_.cooldown();
    num_bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (const auto& g : optimizer_.param_groups()) last_lr_.push_back(g.options().get_lr());
}

void ReduceLROnPlateau::reduce_lr() {
  auto& groups = optimizer_.param_groups();
  if (groups.size() != min_lrs_.size()) {
    EMBER_CHECK(default_min_lr_, "[ReduceLROnPlateau] The number of param groups in the ",
                "`optimizer` (", groups.size(), ") differs from when `ReduceLROnPlateau` was ",
                "initialized (", min_lrs_.size(), "), usually due to a new param group being ",
                "added to the optimizer. Please modify the `min_lrs` field to match the length ",
                "of the `optimizer` param groups.");
    min_lrs_.assign(groups.size(), options_.min_lr());
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    const double old_lr = groups[i].options().get_lr();
    const double new_lr = std::max(old_lr * options_.factor(), min_lrs_[i]);
    if (old_lr - new_lr > options_.eps()) groups[i].options().set_lr(new_lr);
  }
}

StateDict ReduceLROnPlateau::state_dict() const {
  StateDict sd;
  sd.insert("last_epoch", scalar64(static_cast<double>(last_epoch_)));
  sd.insert("best", scalar64(best_));
  sd.insert("num_bad_epochs", scalar64(static_cast<double>(num_bad_epochs_)));
  sd.insert("cooldown_counter", scalar64(static_cast<double>(cooldown_counter_)));
  sd.insert("min_lrs", doubles(min_lrs_));
  sd.insert("_last_lr", doubles(last_lr_));
  return sd;
}

void ReduceLROnPlateau::load_state_dict(const StateDict& sd) {
  const char* who = "ReduceLROnPlateau";
  const int64_t last_epoch = read_int(sd, "last_epoch", who);
  const double best = read(sd, "best", who)[0];
  const int64_t bad = read_int(sd, "num_bad_epochs", who);
  const int64_t cooldown = read_int(sd, "cooldown_counter", who);
  auto min_lrs = read(sd, "min_lrs", who, min_lrs_.size());
  auto last_lr = read(sd, "_last_lr", who, last_lr_.size());
  last_epoch_ = last_epoch;
  best_ = best;
  num_bad_epochs_ = bad;
  cooldown_counter_ = cooldown;
  min_lrs_ = std::move(min_lrs);
  last_lr_ = std::move(last_lr);
}

}  // namespace ember::optim
