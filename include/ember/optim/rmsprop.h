#pragma once
// RMSprop (torch.optim.RMSprop; libtorch's torch::optim::RMSprop).
#include "ember/optim/optimizer.h"

namespace ember::optim {

struct RMSpropOptions : public OptimizerCloneableOptions<RMSpropOptions> {
  RMSpropOptions(double lr = 1e-2);  // NOLINT
  EMBER_ARG(double, lr);
  EMBER_ARG(double, alpha) = 0.99;
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(bool, centered) = false;
  EMBER_ARG(bool, maximize) = false;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { lr_ = lr; }
  void visit(OptionsVisitor& v) override;
  void validate() const override;
};

struct RMSpropParamState : public OptimizerCloneableParamState<RMSpropParamState> {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, square_avg);
  EMBER_ARG(Tensor, momentum_buffer);
  EMBER_ARG(Tensor, grad_avg);

 public:
  void visit(StateVisitor& v) override;
};

/// PyTorch's algorithm, per parameter p with gradient g:
///   g += weight_decay * p;  v = alpha v + (1 - alpha) g^2;
///   centered: ga = alpha ga + (1 - alpha) g, avg = sqrt(v - ga^2) + eps; else sqrt(v) + eps;
///   momentum > 0: b = momentum b + g / avg, p -= lr b;  else p -= lr g / avg
class RMSprop : public Optimizer {
 public:
  explicit RMSprop(const std::vector<OptimizerParamGroup>& param_groups,
                   RMSpropOptions defaults = {});
  explicit RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_state() const override {
    return std::make_unique<RMSpropParamState>();
  }
};

}  // namespace ember::optim
