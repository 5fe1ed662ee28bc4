#include "ember/optim/adagrad.h"

#include "ember/autograd.h"
#include "ember/ops/factory.h"
#include "ember/profiler.h"
#include "ops/optimizer.h"
#include "optim/util.h"

namespace ember::optim {

using detail::fmt;

AdagradOptions::AdagradOptions(double lr) : lr_(lr) {}

void AdagradOptions::visit(OptionsVisitor& v) {
  v.field("lr", lr_);
  v.field("lr_decay", lr_decay_);
  v.field("weight_decay", weight_decay_);
  v.field("initial_accumulator_value", initial_accumulator_value_);
  v.field("eps", eps_);
  v.field("maximize", maximize_);
}

void AdagradOptions::validate() const {
  EMBER_CHECK_VALUE(0.0 <= lr_, "[Adagrad] Invalid learning rate: ", fmt(lr_));
  EMBER_CHECK_VALUE(0.0 <= lr_decay_, "[Adagrad] Invalid lr_decay value: ", fmt(lr_decay_));
  EMBER_CHECK_VALUE(0.0 <= weight_decay_,
                    "[Adagrad] Invalid weight_decay value: ", fmt(weight_decay_));
  EMBER_CHECK_VALUE(
      0.0 <= initial_accumulator_value_,
      "[Adagrad] Invalid initial_accumulator_value value: ", fmt(initial_accumulator_value_));
  EMBER_CHECK_VALUE(0.0 <= eps_, "[Adagrad] Invalid epsilon value: ", fmt(eps_));
}

void AdagradParamState::visit(StateVisitor& v) {
  v.field("sum", sum_);
  v.field("step", step_);
}

Adagrad::Adagrad(const std::vector<OptimizerParamGroup>& param_groups, AdagradOptions defaults)
    : Optimizer(param_groups, std::make_unique<AdagradOptions>(defaults), "Adagrad") {
  init_state();
}
Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions defaults)
    : Adagrad(detail::single_group(std::move(params)), defaults) {}

// As PyTorch, the accumulators exist from construction (they appear in state_dict() at once).
void Adagrad::init_state() {
  for (auto& group : param_groups_) {
    const double init =
        static_cast<const AdagradOptions&>(group.options()).initial_accumulator_value();
    for (auto& p : group.params()) {
      auto& st = detail::state_of<AdagradParamState>(state_, p, [](AdagradParamState&) {});
      if (!st.sum().defined()) st.sum(ember::full_like(p, init));
    }
  }
}

Tensor Adagrad::step(LossClosure closure) {
  NoGradGuard no_grad;
  auto profile = profiler::record_function::optimizer_step(name());
  Tensor loss = run_closure(closure);
  init_state();  // groups added after construction
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const AdagradOptions&>(group.options());
    for (auto& p : group.params()) {
      Tensor g = grad_of(p);
      if (!g.defined()) continue;
      auto& st = static_cast<AdagradParamState&>(*state_.at(p.unsafeGetTensorImpl()));
      st.step(st.step() + 1);
      const double clr = o.lr() / (1 + static_cast<double>(st.step() - 1) * o.lr_decay());
      if (detail::uses_fused(o.fused(), p) &&
          ops::fused_adagrad_step({clr, o.weight_decay(), o.eps(), o.maximize()}, p, g, st.sum())) {
        continue;
      }
      if (o.maximize()) g = -g;
      if (o.weight_decay() != 0) g = g.add(p, o.weight_decay());
      Tensor& sum = st.sum();
      sum.addcmul_(g, g, 1);
      Tensor denom = sum.sqrt().add_(o.eps());
      p.addcdiv_(g, denom, -clr);
    }
  }
  return loss;
}

}  // namespace ember::optim
