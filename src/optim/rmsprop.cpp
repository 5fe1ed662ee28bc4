#include "ember/optim/rmsprop.h"
#include "ember/profiler.h"

#include "ember/autograd.h"
#include "ember/ops/factory.h"
#include "optim/util.h"

namespace ember::optim {

using detail::fmt;

RMSpropOptions::RMSpropOptions(double lr) : lr_(lr) {}

void RMSpropOptions::visit(OptionsVisitor& v) {
  v.field("lr", lr_);
  v.field("alpha", alpha_);
  v.field("eps", eps_);
  v.field("weight_decay", weight_decay_);
  v.field("momentum", momentum_);
  v.field("centered", centered_);
  v.field("maximize", maximize_);
}

void RMSpropOptions::validate() const {
  EMBER_CHECK_VALUE(0.0 <= lr_, "[RMSprop] Invalid learning rate: ", fmt(lr_));
  EMBER_CHECK_VALUE(0.0 <= eps_, "[RMSprop] Invalid epsilon value: ", fmt(eps_));
  EMBER_CHECK_VALUE(0.0 <= momentum_, "[RMSprop] Invalid momentum value: ", fmt(momentum_));
  EMBER_CHECK_VALUE(0.0 <= weight_decay_,
                    "[RMSprop] Invalid weight_decay value: ", fmt(weight_decay_));
  EMBER_CHECK_VALUE(0.0 <= alpha_, "[RMSprop] Invalid alpha value: ", fmt(alpha_));
}

void RMSpropParamState::visit(StateVisitor& v) {
  v.field("step", step_);
  v.field("square_avg", square_avg_);
  v.field("momentum_buffer", momentum_buffer_);
  v.field("grad_avg", grad_avg_);
}

RMSprop::RMSprop(const std::vector<OptimizerParamGroup>& param_groups, RMSpropOptions defaults)
    : Optimizer(param_groups, std::make_unique<RMSpropOptions>(defaults), "RMSprop") {}
RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions defaults)
    : RMSprop(detail::single_group(std::move(params)), defaults) {}

Tensor RMSprop::step(LossClosure closure) {
  NoGradGuard no_grad;
  auto profile = profiler::record_function::optimizer_step(name());
  Tensor loss = run_closure(closure);
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const RMSpropOptions&>(group.options());
    for (auto& p : group.params()) {
      Tensor g = grad_of(p);
      if (!g.defined()) continue;
      auto& st = detail::state_of<RMSpropParamState>(state_, p, [](RMSpropParamState&) {});
      if (!st.square_avg().defined()) st.square_avg(ember::zeros_like(p));
      if (o.momentum() > 0 && !st.momentum_buffer().defined()) {
        st.momentum_buffer(ember::zeros_like(p));
      }
      if (o.centered() && !st.grad_avg().defined()) st.grad_avg(ember::zeros_like(p));

      if (o.maximize()) g = -g;
      st.step(st.step() + 1);
      if (o.weight_decay() != 0) g = g.add(p, o.weight_decay());
      Tensor& v = st.square_avg();
      v.mul_(o.alpha()).addcmul_(g, g, 1 - o.alpha());
      Tensor avg;
      if (o.centered()) {
        Tensor& ga = st.grad_avg();
        ga.mul_(o.alpha()).add_(g, 1 - o.alpha());
        avg = v.addcmul(ga, ga, -1).sqrt_();
      } else {
        avg = v.sqrt();
      }
      avg.add_(o.eps());
      if (o.momentum() > 0) {
        Tensor& buf = st.momentum_buffer();
        buf.mul_(o.momentum()).addcdiv_(g, avg);
        p.add_(buf, -o.lr());
      } else {
        p.addcdiv_(g, avg, -o.lr());
      }
    }
  }
  return loss;
}

}  // namespace ember::optim
