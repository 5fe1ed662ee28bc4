#include "ember/optim/optimizer.h"
#include "ember/profiler.h"

#include <charconv>
#include <map>
#include <set>

#include "ember/autograd.h"
#include "ember/ops/factory.h"
#include "ops/util.h"

namespace ember::optim {

namespace detail {
std::string fmt(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}
}  // namespace detail

// ---- OptimizerParamGroup

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup& other)
    : params_(other.params_),
      options_(other.options_ ? other.options_->clone() : nullptr),
      initial_lr_(other.initial_lr_) {}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& other) {
  if (this != &other) {
    params_ = other.params_;
    options_ = other.options_ ? other.options_->clone() : nullptr;
    initial_lr_ = other.initial_lr_;
  }
  return *this;
}

OptimizerParamGroup::OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}

OptimizerParamGroup::OptimizerParamGroup(std::vector<Tensor> params,
                                         std::unique_ptr<OptimizerOptions> options)
    : params_(std::move(params)), options_(std::move(options)) {}

OptimizerOptions& OptimizerParamGroup::options() {
  EMBER_CHECK(options_ != nullptr, "[OptimizerParamGroup] the group has no options");
  return *options_;
}
const OptimizerOptions& OptimizerParamGroup::options() const {
  EMBER_CHECK(options_ != nullptr, "[OptimizerParamGroup] the group has no options");
  return *options_;
}
void OptimizerParamGroup::set_options(std::unique_ptr<OptimizerOptions> options) {
  options_ = std::move(options);
}

// ---- Optimizer

Optimizer::Optimizer(std::vector<OptimizerParamGroup> param_groups,
                     std::unique_ptr<OptimizerOptions> defaults, const char* name)
    : defaults_(std::move(defaults)), name_(name) {
  defaults_->validate();
  EMBER_CHECK_VALUE(!param_groups.empty(), "[", name_, "] optimizer got an empty parameter list");
  for (const auto& g : param_groups) add_param_group(g);
}

void Optimizer::add_param_group(const OptimizerParamGroup& param_group) {
  std::set<const TensorImpl*> seen;
  for (const auto& g : param_groups_) {
    for (const auto& p : g.params()) seen.insert(p.unsafeGetTensorImpl());
  }
  std::set<const TensorImpl*> mine;
  for (const auto& p : param_group.params()) {
    EMBER_CHECK_VALUE(p.defined(), "[", name(), "] optimizer got an undefined tensor");
    EMBER_CHECK_VALUE(p.is_leaf(), "[", name(), "] can't optimize a non-leaf Tensor");
    EMBER_CHECK_VALUE(!seen.count(p.unsafeGetTensorImpl()), "[", name(),
                      "] some parameters appear in more than one parameter group");
    // PyTorch warns about duplicates inside one group; they would be updated twice: refuse.
    EMBER_CHECK_VALUE(mine.insert(p.unsafeGetTensorImpl()).second, "[", name(),
                      "] optimizer contains a parameter group with duplicate parameters");
  }
  OptimizerParamGroup group(param_group.params());
  group.set_options(param_group.has_options() ? param_group.options().clone() : defaults_->clone());
  group.options().validate();
  group.initial_lr() = param_group.initial_lr();
  param_groups_.push_back(std::move(group));
}

void Optimizer::add_parameters(const std::vector<Tensor>& parameters) {
  EMBER_CHECK(!param_groups_.empty(), "[", name(), "] the optimizer has no parameter group");
  // Validate through add_param_group's checks, then merge into the first group.
  add_param_group(OptimizerParamGroup(parameters));
  param_groups_.pop_back();
  auto& first = param_groups_.front().params();
  first.insert(first.end(), parameters.begin(), parameters.end());
}

void Optimizer::zero_grad(bool set_to_none) {
  auto profile = profiler::record_function::optimizer_zero_grad(name());
  for (auto& group : param_groups_) {
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      if (set_to_none) {
        p.mutable_grad() = Tensor();
        continue;
      }
      Tensor g = p.grad();
      if (g.grad_fn()) {
        g.detach_();
      } else if (g.requires_grad()) {
        g.requires_grad_(false);
      }
      NoGradGuard no_grad;
      g.zero_();
    }
  }
}

std::vector<Tensor> Optimizer::parameters() const {
  std::vector<Tensor> out;
  for (const auto& g : param_groups_) out.insert(out.end(), g.params().begin(), g.params().end());
  return out;
}

size_t Optimizer::size() const {
  size_t n = 0;
  for (const auto& g : param_groups_) n += g.params().size();
  return n;
}

Tensor Optimizer::grad_of(const Tensor& p) const {
  const Tensor& g = p.grad();
  if (!g.defined()) return g;
  EMBER_CHECK(g.sizes() == p.sizes(), "[", name(), "] a parameter of shape ",
              ops::shape_str(p.sizes()), " has a gradient of shape ", ops::shape_str(g.sizes()));
  EMBER_CHECK(g.dtype() == p.dtype(), "[", name(), "] a parameter of dtype ", dtype_name(p.dtype()),
              " has a gradient of dtype ", dtype_name(g.dtype()));
  EMBER_CHECK_TYPE(p.is_floating_point(), "[", name(), "] can only optimize floating-point ",
                   "parameters, got ", dtype_name(p.dtype()));
  return g;
}

Tensor Optimizer::run_closure(const LossClosure& closure) {
  if (!closure) return Tensor();
  AutoGradMode enable_grad(true);
  return closure();
}

// ---- state dicts

namespace {

Tensor scalar64(double v) { return ember::full({}, v, TensorOptions(kFloat64)); }

// Writes options into a StateDict under `prefix`.
class OptionsWriter : public OptionsVisitor {
 public:
  OptionsWriter(StateDict& out, std::string prefix) : out_(out), prefix_(std::move(prefix)) {}
  void field(const char* name, double& v) override { out_.insert(prefix_ + name, scalar64(v)); }
  void field(const char* name, bool& v) override {
    out_.insert(prefix_ + name, scalar64(v ? 1.0 : 0.0));
  }
  void field(const char* name, std::tuple<double, double>& v) override {
    Tensor t = ember::empty({2}, TensorOptions(kFloat64));
    t.data_ptr<double>()[0] = std::get<0>(v);
    t.data_ptr<double>()[1] = std::get<1>(v);
    out_.insert(prefix_ + name, t);
  }

 private:
  StateDict& out_;
  std::string prefix_;
};

// The value of a 0-d (or 1-d of n) numeric tensor as doubles; ValueError naming the key.
std::vector<double> read_numbers(const StateDict& sd, const std::string& key, int64_t n,
                                 const char* who) {
  const Tensor* t = sd.find(key);
  EMBER_CHECK_VALUE(t != nullptr, "[", who, ".load_state_dict] missing key '", key, "'");
  EMBER_CHECK_VALUE(t->defined(), "[", who, ".load_state_dict] key '", key, "' is undefined");
  const bool ok = n < 0 ? t->dim() == 0 : (t->dim() == 1 && t->size(0) == n);
  EMBER_CHECK_VALUE(ok, "[", who, ".load_state_dict] key '", key, "' has shape ",
                    ops::shape_str(t->sizes()), ", expected ",
                    ops::shape_str(n < 0 ? std::vector<int64_t>{} : std::vector<int64_t>{n}));
  EMBER_CHECK_VALUE(t->dtype() != kBool, "[", who, ".load_state_dict] key '", key,
                    "' must be numeric");
  return t->to(kFloat64).contiguous().tolist<double>();
}

class OptionsReader : public OptionsVisitor {
 public:
  OptionsReader(const StateDict& sd, std::string prefix, const char* who,
                std::set<std::string>& used)
      : sd_(sd), prefix_(std::move(prefix)), who_(who), used_(used) {}
  void field(const char* name, double& v) override { v = get(name, -1)[0]; }
  void field(const char* name, bool& v) override {
    const double d = get(name, -1)[0];
    EMBER_CHECK_VALUE(d == 0 || d == 1, "[", who_, ".load_state_dict] key '", prefix_ + name,
                      "' must be 0 or 1, got ", detail::fmt(d));
    v = d == 1;
  }
  void field(const char* name, std::tuple<double, double>& v) override {
    auto d = get(name, 2);
    v = {d[0], d[1]};
  }

 private:
  std::vector<double> get(const char* name, int64_t n) {
    const std::string key = prefix_ + name;
    used_.insert(key);
    return read_numbers(sd_, key, n, who_);
  }
  const StateDict& sd_;
  std::string prefix_;
  const char* who_;
  std::set<std::string>& used_;
};

class StateWriter : public StateVisitor {
 public:
  StateWriter(StateDict& out, std::string prefix) : out_(out), prefix_(std::move(prefix)) {}
  void field(const char* name, Tensor& t) override {
    if (t.defined()) out_.insert(prefix_ + name, t.detach().clone());
  }
  void field(const char* name, int64_t& v) override {
    out_.insert(prefix_ + name, scalar64(static_cast<double>(v)));
  }

 private:
  StateDict& out_;
  std::string prefix_;
};

class StateReader : public StateVisitor {
 public:
  StateReader(const StateDict& sd, std::string prefix, const Tensor& param, const char* who,
              std::set<std::string>& used)
      : sd_(sd), prefix_(std::move(prefix)), param_(param), who_(who), used_(used) {}
  void field(const char* name, Tensor& t) override {
    const std::string key = prefix_ + name;
    const Tensor* v = sd_.find(key);
    if (!v) return;  // optional buffers (momentum_buffer without momentum, ...)
    used_.insert(key);
    EMBER_CHECK_VALUE(v->defined() && v->sizes() == param_.sizes(), "[", who_,
                      ".load_state_dict] key '", key, "' has shape ",
                      v->defined() ? ops::shape_str(v->sizes()) : std::string("undefined"),
                      " but its parameter has shape ", ops::shape_str(param_.sizes()));
    EMBER_CHECK_VALUE(v->is_floating_point(), "[", who_, ".load_state_dict] key '", key,
                      "' must be floating point, got ", dtype_name(v->dtype()));
    t = v->detach().to(param_.dtype(), false, /*copy=*/true).contiguous();
  }
  void field(const char* name, int64_t& v) override {
    const std::string key = prefix_ + name;
    used_.insert(key);
    const double d = read_numbers(sd_, key, -1, who_)[0];
    EMBER_CHECK_VALUE(
        d >= 0 && d <= 9007199254740992.0 && d == static_cast<double>(static_cast<int64_t>(d)), "[",
        who_, ".load_state_dict] key '", key, "' must hold a non-negative integer, got ",
        detail::fmt(d));
    v = static_cast<int64_t>(d);
  }

 private:
  const StateDict& sd_;
  std::string prefix_;
  const Tensor& param_;
  const char* who_;
  std::set<std::string>& used_;
};

}  // namespace

StateDict Optimizer::state_dict() const {
  StateDict sd;
  int64_t index = 0;
  std::vector<std::pair<int64_t, const OptimizerParamState*>> states;
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const auto& group = param_groups_[g];
    const std::string prefix = "param_groups." + std::to_string(g) + ".";
    Tensor ids = ember::empty({static_cast<int64_t>(group.params().size())}, TensorOptions(kInt64));
    for (size_t k = 0; k < group.params().size(); ++k) {
      const auto& p = group.params()[k];
      ids.data_ptr<int64_t>()[k] = index;
      auto it = state_.find(p.unsafeGetTensorImpl());
      if (it != state_.end()) states.emplace_back(index, it->second.get());
      ++index;
    }
    sd.insert(prefix + "params", ids);
    auto options = group.options().clone();
    OptionsWriter w(sd, prefix);
    options->visit(w);
    if (group.initial_lr()) sd.insert(prefix + "initial_lr", scalar64(*group.initial_lr()));
  }
  for (const auto& [i, st] : states) {
    auto copy = st->clone();
    StateWriter w(sd, "state." + std::to_string(i) + ".");
    copy->visit(w);
  }
  return sd;
}

void Optimizer::load_state_dict(const StateDict& sd) {
  const std::string who = std::string(name());
  const char* w = who.c_str();
  std::set<std::string> used;

  // Groups: same count, same sizes; saved parameter numbers map to ours in order.
  size_t ngroups = 0;
  while (sd.contains("param_groups." + std::to_string(ngroups) + ".params")) ++ngroups;
  EMBER_CHECK_VALUE(ngroups == param_groups_.size(), "[", w,
                    ".load_state_dict] loaded state dict has a different number of parameter "
                    "groups (",
                    ngroups, " instead of ", param_groups_.size(), ")");
  std::map<int64_t, Tensor> id_to_param;
  std::vector<std::unique_ptr<OptimizerOptions>> new_options;
  std::vector<std::optional<double>> new_initial;
  for (size_t g = 0; g < ngroups; ++g) {
    const std::string prefix = "param_groups." + std::to_string(g) + ".";
    const std::string key = prefix + "params";
    used.insert(key);
    const Tensor& ids = sd[key];
    const auto& params = param_groups_[g].params();
    EMBER_CHECK_VALUE(ids.defined() && ids.dim() == 1 && is_integral(ids.dtype(), false), "[", w,
                      ".load_state_dict] key '", key, "' must be a 1-d integer tensor");
    EMBER_CHECK_VALUE(ids.size(0) == static_cast<int64_t>(params.size()), "[", w,
                      ".load_state_dict] loaded state dict contains a parameter group that "
                      "doesn't match the size of optimizer's group (key '",
                      key, "' has ", ids.size(0), " parameters, the group ", params.size(), ")");
    auto values = ids.to(kInt64).contiguous().tolist<int64_t>();
    for (size_t k = 0; k < params.size(); ++k) {
      EMBER_CHECK_VALUE(values[k] >= 0 && id_to_param.emplace(values[k], params[k]).second, "[", w,
                        ".load_state_dict] key '", key, "' repeats or misnumbers parameter ",
                        values[k]);
    }
    auto options = param_groups_[g].options().clone();
    OptionsReader r(sd, prefix, w, used);
    options->visit(r);
    options->validate();
    new_options.push_back(std::move(options));
    std::optional<double> initial;
    if (sd.contains(prefix + "initial_lr")) {
      used.insert(prefix + "initial_lr");
      initial = read_numbers(sd, prefix + "initial_lr", -1, w)[0];
    }
    new_initial.push_back(initial);
  }

  // Per-parameter state.
  std::set<int64_t> with_state;
  for (const auto& item : sd) {
    const auto& key = item.key();
    if (key.rfind("state.", 0) != 0) continue;
    const auto dot = key.find('.', 6);
    const std::string num = key.substr(6, dot == std::string::npos ? std::string::npos : dot - 6);
    int64_t id = -1;
    auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), id);
    EMBER_CHECK_VALUE(dot != std::string::npos && ec == std::errc() &&
                          ptr == num.data() + num.size() && id_to_param.count(id),
                      "[", w, ".load_state_dict] unexpected key '", key,
                      "' (no such parameter in the optimizer)");
    with_state.insert(id);
  }
  std::unordered_map<void*, std::unique_ptr<OptimizerParamState>> new_state;
  for (int64_t id : with_state) {
    const Tensor& p = id_to_param.at(id);
    auto st = make_state();
    StateReader r(sd, "state." + std::to_string(id) + ".", p, w, used);
    st->visit(r);
    new_state.emplace(p.unsafeGetTensorImpl(), std::move(st));
  }
  for (const auto& item : sd) {
    EMBER_CHECK_VALUE(used.count(item.key()), "[", w, ".load_state_dict] unexpected key '",
                      item.key(), "'");
  }

  // Everything checked: commit.
  for (size_t g = 0; g < ngroups; ++g) {
    param_groups_[g].set_options(std::move(new_options[g]));
    param_groups_[g].initial_lr() = new_initial[g];
  }
  state_ = std::move(new_state);
}

}  // namespace ember::optim
