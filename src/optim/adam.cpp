// Adam and AdamW: one update, with the weight decay coupled (L2 in the gradient) or decoupled.
#include "ember/optim/adam.h"

#include <cmath>

#include "ember/autograd.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/optim/adamw.h"
#include "ember/profiler.h"
#include "ops/optimizer.h"
#include "optim/util.h"

namespace ember::optim {

using detail::fmt;

namespace {

struct AdamHyper {
  double lr, beta1, beta2, eps, weight_decay;
  bool amsgrad, maximize, decoupled;
  std::optional<bool> fused;
};

template <typename Options>
AdamHyper hyper(const Options& o, bool decoupled) {
  return {o.lr(),
          std::get<0>(o.betas()),
          std::get<1>(o.betas()),
          o.eps(),
          o.weight_decay(),
          o.amsgrad(),
          o.maximize(),
          decoupled,
          o.fused()};
}

template <typename Options>
void validate_adam(const Options& o, const char* who) {
  const double b1 = std::get<0>(o.betas()), b2 = std::get<1>(o.betas());
  EMBER_CHECK_VALUE(0.0 <= o.lr(), "[", who, "] Invalid learning rate: ", fmt(o.lr()));
  EMBER_CHECK_VALUE(0.0 <= o.eps(), "[", who, "] Invalid epsilon value: ", fmt(o.eps()));
  EMBER_CHECK_VALUE(0.0 <= b1 && b1 < 1.0, "[", who,
                    "] Invalid beta parameter at index 0: ", fmt(b1));
  EMBER_CHECK_VALUE(0.0 <= b2 && b2 < 1.0, "[", who,
                    "] Invalid beta parameter at index 1: ", fmt(b2));
  EMBER_CHECK_VALUE(0.0 <= o.weight_decay(), "[", who,
                    "] Invalid weight_decay value: ", fmt(o.weight_decay()));
}

template <typename Options>
void visit_adam(Options& o, OptionsVisitor& v) {
  v.field("lr", o.lr());
  v.field("betas", o.betas());
  v.field("eps", o.eps());
  v.field("weight_decay", o.weight_decay());
  v.field("amsgrad", o.amsgrad());
  v.field("maximize", o.maximize());
}

// torch.optim.adam._single_tensor_adam (PyTorch 2.x) for one parameter, or its fused step.
template <typename State>
void adam_update(Tensor& p, Tensor g, State& st, const AdamHyper& h) {
  detail::init_adam_state(st, p, h.amsgrad);
  st.step(st.step() + 1);
  const auto t = static_cast<double>(st.step());
  const double bias_correction1 = 1 - std::pow(h.beta1, t);
  const double bias_correction2_sqrt = std::sqrt(1 - std::pow(h.beta2, t));
  if (detail::uses_fused(h.fused, p)) {
    const FusedAdamParams fp{h.lr,
                             h.beta1,
                             h.beta2,
                             h.eps,
                             h.weight_decay,
                             bias_correction1,
                             bias_correction2_sqrt,
                             h.amsgrad,
                             h.maximize,
                             h.decoupled};
    if (ops::fused_adam_step(fp, p, g, st.exp_avg(), st.exp_avg_sq(),
                             h.amsgrad ? &st.max_exp_avg_sq() : nullptr)) {
      return;
    }
  }
  if (h.maximize) g = -g;
  if (h.weight_decay != 0) {
    if (h.decoupled) {
      p.mul_(1 - h.lr * h.weight_decay);
    } else {
      g = g.add(p, h.weight_decay);
    }
  }
  Tensor& m = st.exp_avg();
  Tensor& v = st.exp_avg_sq();
  m.lerp_(g, 1 - h.beta1);  // PyTorch 2's form: one pass instead of mul_ then add_
  v.mul_(h.beta2).addcmul_(g, g, 1 - h.beta2);
  const double step_size = h.lr / bias_correction1;
  Tensor denom;
  if (h.amsgrad) {
    Tensor& vmax = st.max_exp_avg_sq();
    vmax.copy_(ember::maximum(vmax, v));
    denom = (vmax.sqrt() / bias_correction2_sqrt).add_(h.eps);
  } else {
    denom = (v.sqrt() / bias_correction2_sqrt).add_(h.eps);
  }
  p.addcdiv_(m, denom, -step_size);
}

template <typename State>
void adam_step(std::vector<OptimizerParamGroup>& groups,
               std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& state,
               const std::function<Tensor(const Tensor&)>& grad_of, bool decoupled) {
  for (auto& group : groups) {
    using Options =
        std::conditional_t<std::is_same_v<State, AdamParamState>, AdamOptions, AdamWOptions>;
    const AdamHyper h = hyper(static_cast<const Options&>(group.options()), decoupled);
    for (auto& p : group.params()) {
      Tensor g = grad_of(p);
      if (!g.defined()) continue;
      adam_update(p, g, detail::state_of<State>(state, p, [](State&) {}), h);
    }
  }
}

template <typename State>
void visit_adam_state(State& s, StateVisitor& v) {
  v.field("step", s.step());
  v.field("exp_avg", s.exp_avg());
  v.field("exp_avg_sq", s.exp_avg_sq());
  v.field("max_exp_avg_sq", s.max_exp_avg_sq());
}

}  // namespace

// ---- Adam

AdamOptions::AdamOptions(double lr) : lr_(lr) {}
void AdamOptions::visit(OptionsVisitor& v) { visit_adam(*this, v); }
void AdamOptions::validate() const { validate_adam(*this, "Adam"); }
void AdamParamState::visit(StateVisitor& v) { visit_adam_state(*this, v); }

Adam::Adam(const std::vector<OptimizerParamGroup>& param_groups, AdamOptions defaults)
    : Optimizer(param_groups, std::make_unique<AdamOptions>(defaults), "Adam") {}
Adam::Adam(std::vector<Tensor> params, AdamOptions defaults)
    : Adam(detail::single_group(std::move(params)), defaults) {}

Tensor Adam::step(LossClosure closure) {
  NoGradGuard no_grad;
  auto profile = profiler::record_function::optimizer_step(name());
  Tensor loss = run_closure(closure);
  adam_step<AdamParamState>(
      param_groups_, state_, [this](const Tensor& p) { return grad_of(p); }, false);
  return loss;
}

// ---- AdamW

AdamWOptions::AdamWOptions(double lr) : lr_(lr) {}
void AdamWOptions::visit(OptionsVisitor& v) { visit_adam(*this, v); }
void AdamWOptions::validate() const { validate_adam(*this, "AdamW"); }
void AdamWParamState::visit(StateVisitor& v) { visit_adam_state(*this, v); }

AdamW::AdamW(const std::vector<OptimizerParamGroup>& param_groups, AdamWOptions defaults)
    : Optimizer(param_groups, std::make_unique<AdamWOptions>(defaults), "AdamW") {}
AdamW::AdamW(std::vector<Tensor> params, AdamWOptions defaults)
    : AdamW(detail::single_group(std::move(params)), defaults) {}

Tensor AdamW::step(LossClosure closure) {
  NoGradGuard no_grad;
  auto profile = profiler::record_function::optimizer_step(name());
  Tensor loss = run_closure(closure);
  adam_step<AdamWParamState>(
      param_groups_, state_, [this](const Tensor& p) { return grad_of(p); }, true);
  return loss;
}

}  // namespace ember::optim
