// Note [Compiled optimizer step]: compile(optimizer) is torch.compile(optimizer.step). Each step
// does the eager step's bookkeeping on the host (the closure, which parameters have gradients,
// state created on first use, step counts incremented) and then calls one compiled function (a
// CompiledFunction, Note [Compile]) that updates every parameter with gradients:
//  - Its inputs are, per parameter, p, its gradient and its state tensors (exp_avg, exp_avg_sq,
//    max_exp_avg_sq; SGD's momentum_buffer), and one coefficient tensor per dtype holding every
//    number the update uses, per parameter: the learning rate, betas, eps, weight decay, and the
//    bias corrections of its own step count, computed in double on the host as eager computes
//    them. So nothing that changes between steps is a constant of the graph (PyTorch's
//    "capturable" optimizers feed the step as a tensor for the same reason); only the structure
//    is: which parameters have gradients (and their dtypes), and per group the options that
//    change the algorithm. A step whose structure is new traces a new function (a recompile);
//    its guards cover the tensors' shapes.
//  - The traced update writes p and the state in place with the eager step's arithmetic (lerp,
//    addcmul and addcdiv spelled as their formulas, in their order; Adam's division by the
//    second bias correction's root is a product with its reciprocal), so the scheduler fuses each
//    parameter's update into one kernel that stores p, exp_avg and exp_avg_sq straight into
//    their buffers (Note [In-place stores]). Parameters are traced grouped by shape, so each run
//    of parameters of one shape shares one kernel.
//  - 16-bit parameters (bfloat16, float16): eager computes each of its ops in float and rounds
//    the result to the parameter's dtype (Note [Reduced-float scalars] in ops/binary.cpp for how
//    the numbers enter). Their traced update computes in float32 and rounds wherever an eager op
//    stores a value (Rounding below), so it gives eager's values; their numbers sit in the
//    float32 coefficient tensor, eps rounded to the parameter's dtype as eager's add_(eps) does.
//  - The state stays as eager keeps it (step counts as integers, state tensors of the
//    parameter's layout), so eager and compiled steps alternate freely, and state_dict() and
//    load_state_dict() see no difference.
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>

#include "compiler/compile_stats.h"
#include "compiler/logs.h"
#include "compiler/lowering_ops.h"
#include "ember/autograd.h"
#include "ember/compiler.h"
#include "ember/ops/factory.h"
#include "ember/optim/adam.h"
#include "ember/optim/adamw.h"
#include "ember/optim/sgd.h"
#include "ember/profiler.h"
#include "optim/util.h"

namespace ember {

namespace detail {

namespace {

enum class StepKind : uint8_t { Adam, AdamW, SGD };

// A parameter's numbers in its coefficient tensor, at offset kCoefs * (its index).
constexpr int64_t kCoefs = 9;
// Adam and AdamW.
enum AdamCoef : int64_t {
  kDecay,        // AdamW: 1 - lr * weight_decay
  kWeightDecay,  // Adam: weight_decay
  kLerpW,        // 1 - beta1 (lerp's weight), or beta1 (1 - w) on lerp's other side
  kBeta2,
  kOneMinusBeta2,
  kNegStepSize,   // -lr / (1 - beta1^t)
  kInvBias2Sqrt,  // 1 / sqrt(1 - beta2^t)
  kEps,
  kBias2Sqrt,  // sqrt(1 - beta2^t): 16-bit parameters divide by it, as eager does
};
// SGD.
enum SgdCoef : int64_t {
  kNegLr,
  kSgdWeightDecay,
  kBufferScale,  // momentum, 0 on the first step (the buffer starts as zeros)
  kGradScale,    // 1 - dampening, 1 on the first step (so the buffer becomes the gradient)
  kMomentum,     // Nesterov's
};

// What the traced update of one parameter does.
struct Slot {
  int64_t first = 0;  // inputs[first]: p, then its gradient, then its state tensors
  int64_t coef = 0;   // offset in its dtype's coefficient tensor
  int dtype = 0;      // coefficients: 0 float32 (inputs[0], also 16-bit), 1 float64 (inputs[1])
  bool maximize = false, weight_decay = false;
  bool amsgrad = false, lerp_low = true;    // Adam(W)
  bool momentum = false, nesterov = false;  // SGD
};

struct Plan {
  StepKind kind = StepKind::Adam;
  std::vector<Slot> slots;  // in traced order: grouped by shape
};

// Where a 16-bit parameter's update holds its values: in float32, rounded to the parameter's
// dtype wherever an eager op stores one. For float32 and float64 both are the identity (the
// update runs in place on the inputs).
struct Rounding {
  ScalarType dtype;  // the parameter's
  bool widened() const { return compiler::is_reduced_float(dtype); }
  Tensor load(const Tensor& t) const { return widened() ? t.to(kFloat32) : t; }
  Tensor operator()(const Tensor& t) const { return widened() ? t.to(dtype).to(kFloat32) : t; }
  // Writes a widened working value back into its input.
  void store(const Tensor& input, const Tensor& value) const {
    if (widened()) input.copy_(value);
  }
};

// The eager step's arithmetic (src/optim/adam.cpp, sgd.cpp) on tensors.
void adam_update(const Slot& s, const std::vector<Tensor>& xs, bool decoupled) {
  const Tensor& coefs = xs[s.dtype];
  auto c = [&](int64_t j) { return coefs.select(0, s.coef + j); };
  const Rounding r{xs[s.first].dtype()};
  Tensor p = r.load(xs[s.first]), m = r.load(xs[s.first + 2]), v = r.load(xs[s.first + 3]);
  Tensor g = r.load(xs[s.first + 1]);
  if (s.maximize) g = g.neg();
  if (s.weight_decay) {
    if (decoupled) {
      p = r(p.mul_(c(kDecay)));
    } else {
      g = r(g + c(kWeightDecay) * p);
    }
  }
  // lerp(m, g, w), two-sided as eager's.
  if (s.lerp_low) {
    m = r(m.add_(c(kLerpW) * (g - m)));
  } else {
    m = r(m.copy_(g - (g - m) * c(kLerpW)));
  }
  v = r(r(v.mul_(c(kBeta2))).add_(c(kOneMinusBeta2) * g * g));
  Tensor second = v, vmax;
  if (s.amsgrad) {
    vmax = r.load(xs[s.first + 4]);
    vmax.copy_(vmax.maximum(v));
    second = vmax;
  }
  // float32 and float64: a product with the reciprocal instead of eager's quotient (the kernel
  // is bound by its divisions and square root; 1 ulp of the denominator's rounding at most).
  // 16-bit: eager's quotient, each op rounded.
  const Tensor scaled =
      r.widened() ? r(r(second.sqrt()) / c(kBias2Sqrt)) : second.sqrt() * c(kInvBias2Sqrt);
  const Tensor denom = r(scaled + c(kEps));
  p = r(p.add_(c(kNegStepSize) * m / denom));
  r.store(xs[s.first], p);
  r.store(xs[s.first + 2], m);
  r.store(xs[s.first + 3], v);
  if (s.amsgrad) r.store(xs[s.first + 4], vmax);
}

void sgd_update(const Slot& s, const std::vector<Tensor>& xs) {
  const Tensor& coefs = xs[s.dtype];
  auto c = [&](int64_t j) { return coefs.select(0, s.coef + j); };
  const Rounding r{xs[s.first].dtype()};
  Tensor p = r.load(xs[s.first]);
  Tensor g = r.load(xs[s.first + 1]);
  if (s.maximize) g = g.neg();
  if (s.weight_decay) g = r(g + c(kSgdWeightDecay) * p);
  if (s.momentum) {
    Tensor buf = r.load(xs[s.first + 2]);
    buf = r(r(buf.mul_(c(kBufferScale))).add_(c(kGradScale) * g));
    r.store(xs[s.first + 2], buf);
    g = s.nesterov ? r(g + c(kMomentum) * buf) : buf;
  }
  p = r(p.add_(c(kNegLr) * g));
  r.store(xs[s.first], p);
}

std::vector<Tensor> traced_step(const Plan& plan, const std::vector<Tensor>& xs) {
  for (const Slot& s : plan.slots) {
    if (plan.kind == StepKind::SGD) {
      sgd_update(s, xs);
    } else {
      adam_update(s, xs, plan.kind == StepKind::AdamW);
    }
  }
  return {};
}

const char* dtype_key(ScalarType t) {
  return t == kFloat64 ? "d" : t == kBFloat16 ? "b" : t == kFloat16 ? "h" : "f";
}

}  // namespace

class OptimizerStepState {
 public:
  OptimizerStepState(optim::Optimizer& optimizer, CompileOptions options)
      : opt_(optimizer), options_(std::move(options)) {
    EMBER_CHECK_VALUE(options_.dynamic.empty(),
                      "[compile] an optimizer's step takes no dynamic spec (its tensors' shapes "
                      "are the parameters')");
    if (dynamic_cast<optim::AdamW*>(&opt_)) {
      kind_ = StepKind::AdamW;
    } else if (dynamic_cast<optim::Adam*>(&opt_)) {
      kind_ = StepKind::Adam;
    } else if (dynamic_cast<optim::SGD*>(&opt_)) {
      kind_ = StepKind::SGD;
    } else {
      EMBER_THROW(NotImplementedError, "[compile] compiling the step of ", opt_.name(),
                  " is not supported; compile(optimizer) handles Adam, AdamW and SGD (run its "
                  "step() eagerly)");
    }
    // The options' own errors now, as compile(fn) raises them.
    compile_function([](const std::vector<Tensor>& xs) { return xs; }, options_);
  }

  optim::Optimizer& optimizer() const { return opt_; }

  Tensor step(const CompiledOptimizer::LossClosure& closure) {
    NoGradGuard no_grad;
    auto profile = profiler::record_function::optimizer_step(opt_.name());
    Tensor loss;
    if (closure) {
      AutoGradMode enable_grad(true);
      loss = closure();
    }
    std::lock_guard<std::mutex> lock(mu_);
    Call call = kind_ == StepKind::SGD ? sgd_call() : adam_call();
    if (call.inputs.size() == 2) return loss;  // no parameter has a gradient
    run(call);
    return loss;
  }

 private:
  struct Call {
    std::string key;  // the traced structure
    std::vector<Slot> slots;
    std::vector<std::vector<double>> coefs = {{}, {}};  // by dtype
    std::vector<Tensor> inputs = {Tensor(), Tensor()};  // the coefficient tensors first
  };

  // The parameter's gradient for the step (undefined: skipped, as eager skips it), checked as
  // eager checks it; the slot gets its inputs' place and its coefficients' offset.
  Tensor begin_slot(Call& call, const Tensor& p, Slot& slot) const {
    Tensor g = opt_.grad_of(p);
    if (!g.defined()) {
      call.key += '-';
      return g;
    }
    slot.dtype = p.dtype() == kFloat64 ? 1 : 0;
    slot.first = static_cast<int64_t>(call.inputs.size());
    slot.coef = static_cast<int64_t>(call.coefs[slot.dtype].size());
    call.coefs[slot.dtype].resize(call.coefs[slot.dtype].size() + kCoefs, 0.0);
    call.key += dtype_key(p.dtype());
    call.inputs.push_back(p);
    call.inputs.push_back(g);
    return g;
  }

  template <typename Options, typename State>
  void adam_group(Call& call, optim::OptimizerParamGroup& group) {
    const auto& o = static_cast<const Options&>(group.options());
    const double lr = o.lr(), b1 = std::get<0>(o.betas()), b2 = std::get<1>(o.betas());
    const double w = 1 - b1;
    Slot proto;
    proto.maximize = o.maximize();
    proto.weight_decay = o.weight_decay() != 0;
    proto.amsgrad = o.amsgrad();
    proto.lerp_low = std::abs(w) < 0.5;
    call.key += std::string("|") + (proto.maximize ? "M" : "") + (proto.weight_decay ? "W" : "") +
                (proto.amsgrad ? "A" : "") + (proto.lerp_low ? "" : "L") + ":";
    for (const Tensor& p : group.params()) {
      Slot s = proto;
      if (!begin_slot(call, p, s).defined()) continue;
      auto& st = optim::detail::state_of<State>(opt_.state(), p, [](State&) {});
      optim::detail::init_adam_state(st, p, s.amsgrad);
      st.step(st.step() + 1);
      call.inputs.push_back(st.exp_avg());
      call.inputs.push_back(st.exp_avg_sq());
      if (s.amsgrad) call.inputs.push_back(st.max_exp_avg_sq());
      const auto t = static_cast<double>(st.step());
      double* c = call.coefs[s.dtype].data() + s.coef;
      c[kDecay] = 1 - lr * o.weight_decay();
      c[kWeightDecay] = o.weight_decay();
      c[kLerpW] = s.lerp_low ? w : 1 - w;
      c[kBeta2] = b2;
      c[kOneMinusBeta2] = 1 - b2;
      c[kNegStepSize] = -(lr / (1 - std::pow(b1, t)));
      c[kInvBias2Sqrt] = 1 / std::sqrt(1 - std::pow(b2, t));
      // eps as eager's add_(eps) adds it: converted to the parameter's dtype first.
      c[kEps] = compiler::fill_value(o.eps(), p.dtype())->f;
      c[kBias2Sqrt] = std::sqrt(1 - std::pow(b2, t));
      call.slots.push_back(s);
    }
  }

  Call adam_call() {
    Call call;
    call.key = kind_ == StepKind::AdamW ? "AdamW" : "Adam";
    for (auto& group : opt_.param_groups()) {
      if (kind_ == StepKind::AdamW) {
        adam_group<optim::AdamWOptions, optim::AdamWParamState>(call, group);
      } else {
        adam_group<optim::AdamOptions, optim::AdamParamState>(call, group);
      }
    }
    return call;
  }

  Call sgd_call() {
    Call call;
    call.key = "SGD";
    for (auto& group : opt_.param_groups()) {
      const auto& o = static_cast<const optim::SGDOptions&>(group.options());
      Slot proto;
      proto.maximize = o.maximize();
      proto.weight_decay = o.weight_decay() != 0;
      proto.momentum = o.momentum() != 0;
      proto.nesterov = o.nesterov();
      call.key += std::string("|") + (proto.maximize ? "M" : "") + (proto.weight_decay ? "W" : "") +
                  (proto.momentum ? "P" : "") + (proto.nesterov ? "N" : "") + ":";
      for (const Tensor& p : group.params()) {
        Slot s = proto;
        const Tensor g = begin_slot(call, p, s);
        if (!g.defined()) continue;
        bool first = false;
        if (s.momentum) {
          auto& st = optim::detail::state_of<optim::SGDParamState>(opt_.state(), p,
                                                                   [](optim::SGDParamState&) {});
          first = !st.momentum_buffer().defined();
          // Eager's first step clones the gradient; zeros * 0 + g * 1 is that value.
          if (first) st.momentum_buffer(ember::zeros_like(g));
          call.inputs.push_back(st.momentum_buffer());
        }
        double* c = call.coefs[s.dtype].data() + s.coef;
        c[kNegLr] = -o.lr();
        c[kSgdWeightDecay] = o.weight_decay();
        c[kBufferScale] = first ? 0 : o.momentum();
        c[kGradScale] = first ? 1 : 1 - o.dampening();
        c[kMomentum] = o.momentum();
        call.slots.push_back(s);
      }
    }
    return call;
  }

  // The compiled function of this structure (a new one traces it), or null when the
  // recompile limit is reached (the step runs eagerly).
  const CompiledFunction* function_for(const Call& call) {
    if (auto it = functions_.find(call.key); it != functions_.end()) return &it->second;
    if (!functions_.empty()) {
      if (static_cast<int64_t>(functions_.size()) > options_.recompile_limit) {
        if (!warned_limit_) {
          warned_limit_ = true;
          compiler::warn("[compile] the compiled " + std::string(opt_.name()) +
                         " step hit recompile_limit (" + std::to_string(options_.recompile_limit) +
                         "); steps of new structures now run eagerly");
        }
        return nullptr;
      }
      compiler::detail::count_recompile(
          std::string("the compiled ") + opt_.name() + " step",
          "the parameters with gradients, their dtypes or the options that change the algorithm "
          "changed (" +
              functions_.begin()->first + " -> " + call.key + ")");
    }
    // Traced grouped by shape, so that parameters of one shape share a kernel.
    auto plan = std::make_shared<Plan>();
    plan->kind = kind_;
    plan->slots = call.slots;
    std::stable_sort(plan->slots.begin(), plan->slots.end(), [&](const Slot& a, const Slot& b) {
      return std::make_pair(a.dtype, call.inputs[a.first].sizes()) <
             std::make_pair(b.dtype, call.inputs[b.first].sizes());
    });
    TracedFn fn = [plan](const std::vector<Tensor>& xs) { return traced_step(*plan, xs); };
    return &functions_.emplace(call.key, compile_function(std::move(fn), options_)).first->second;
  }

  void run(Call& call) {
    for (int d = 0; d < 2; ++d) {
      const std::vector<double>& c = call.coefs[d];
      const ScalarType dt = d == 0 ? kFloat32 : kFloat64;
      Tensor t = ember::empty({std::max<int64_t>(1, static_cast<int64_t>(c.size()))},
                              TensorOptions().dtype(dt));
      if (d == 0) {
        std::copy(c.begin(), c.end(), t.data_ptr<float>());
      } else {
        std::copy(c.begin(), c.end(), t.data_ptr<double>());
      }
      call.inputs[d] = t;
    }
    const CompiledFunction* fn = function_for(call);
    if (fn) {
      (*fn)(call.inputs);
      return;
    }
    compiler::detail::count_eager_fallback();
    const Plan plan{kind_, call.slots};
    traced_step(plan, call.inputs);
  }

  optim::Optimizer& opt_;
  CompileOptions options_;
  StepKind kind_ = StepKind::Adam;
  std::mutex mu_;
  std::map<std::string, CompiledFunction> functions_;
  bool warned_limit_ = false;
};

}  // namespace detail

CompiledOptimizer::CompiledOptimizer(std::shared_ptr<detail::OptimizerStepState> state)
    : state_(std::move(state)) {}

Tensor CompiledOptimizer::step(const LossClosure& closure) const { return state_->step(closure); }

optim::Optimizer& CompiledOptimizer::optimizer() const { return state_->optimizer(); }

CompiledOptimizer compile(optim::Optimizer& optimizer, const CompileOptions& options) {
  return CompiledOptimizer(std::make_shared<detail::OptimizerStepState>(optimizer, options));
}

}  // namespace ember
