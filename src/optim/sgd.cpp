#include "ember/optim/sgd.h"

#include "ember/autograd.h"
#include "ember/profiler.h"
#include "ops/optimizer.h"
#include "optim/util.h"

namespace ember::optim {

using detail::fmt;

SGDOptions::SGDOptions(double lr) : lr_(lr) {}

void SGDOptions::visit(OptionsVisitor& v) {
  v.field("lr", lr_);
  v.field("momentum", momentum_);
  v.field("dampening", dampening_);
  v.field("weight_decay", weight_decay_);
  v.field("nesterov", nesterov_);
  v.field("maximize", maximize_);
}

void SGDOptions::validate() const {
  EMBER_CHECK_VALUE(!(lr_ < 0), "[SGD] Invalid learning rate: ", fmt(lr_));
  EMBER_CHECK_VALUE(!(momentum_ < 0), "[SGD] Invalid momentum value: ", fmt(momentum_));
  EMBER_CHECK_VALUE(!(weight_decay_ < 0), "[SGD] Invalid weight_decay value: ", fmt(weight_decay_));
  EMBER_CHECK_VALUE(!nesterov_ || (momentum_ > 0 && dampening_ == 0),
                    "[SGD] Nesterov momentum requires a momentum and zero dampening");
}

SGD::SGD(const std::vector<OptimizerParamGroup>& param_groups, SGDOptions defaults)
    : Optimizer(param_groups, std::make_unique<SGDOptions>(defaults), "SGD") {}

SGD::SGD(std::vector<Tensor> params, SGDOptions defaults)
    : SGD(detail::single_group(std::move(params)), defaults) {}

Tensor SGD::step(LossClosure closure) {
  NoGradGuard no_grad;
  auto profile = profiler::record_function::optimizer_step(name());
  Tensor loss = run_closure(closure);
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const SGDOptions&>(group.options());
    for (auto& p : group.params()) {
      Tensor g = grad_of(p);
      if (!g.defined()) continue;
      SGDParamState* st = nullptr;
      if (o.momentum() != 0)
        st = &detail::state_of<SGDParamState>(state_, p, [](SGDParamState&) {});
      const FusedSgdParams fp{o.lr(),           o.momentum(), o.dampening(),
                              o.weight_decay(), o.nesterov(), o.maximize()};
      if (detail::uses_fused(o.fused(), p) &&
          ops::fused_sgd_step(fp, p, g, st ? &st->momentum_buffer() : nullptr)) {
        continue;
      }
      if (o.maximize()) g = -g;
      if (o.weight_decay() != 0) g = g.add(p, o.weight_decay());
      if (st) {
        Tensor& buf = st->momentum_buffer();
        if (!buf.defined()) {
          buf = g.clone();
        } else {
          buf.mul_(o.momentum()).add_(g, 1 - o.dampening());
        }
        g = o.nesterov() ? g.add(buf, o.momentum()) : buf;
      }
      p.add_(g, -o.lr());
    }
  }
  return loss;
}

}  // namespace ember::optim
