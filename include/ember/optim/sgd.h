#pragma once
// Stochastic gradient descent with momentum, dampening, weight decay and Nesterov momentum
// (torch.optim.SGD; libtorch's torch::optim::SGD).
#include <optional>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct SGDOptions : public OptimizerCloneableOptions<SGDOptions> {
  SGDOptions(double lr = 1e-3);  // NOLINT: SGDOptions(0.1)
  EMBER_ARG(double, lr);
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(double, dampening) = 0;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, nesterov) = false;
  EMBER_ARG(bool, maximize) = false;
  /// Note [Fused Adam]: nullopt (the default) runs the fused step (PyTorch's _fused_sgd_) for
  /// float32 and float64 parameters, true for every floating dtype (16-bit ones computed in
  /// float, rounded once), false never. Not part of the options' state_dict.
  EMBER_ARG(std::optional<bool>, fused) = std::nullopt;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { lr_ = lr; }
  void visit(OptionsVisitor& v) override;
  void validate() const override;
};

struct SGDParamState : public OptimizerCloneableParamState<SGDParamState> {
  EMBER_ARG(Tensor, momentum_buffer);

 public:
  void visit(StateVisitor& v) override { v.field("momentum_buffer", momentum_buffer_); }
};

/// PyTorch's algorithm, per parameter p with gradient g:
///   g += weight_decay * p;  b = g (first step) or b = momentum * b + (1 - dampening) * g;
///   g = nesterov ? g + momentum * b : b  (when momentum != 0);  p -= lr * g
class SGD : public Optimizer {
 public:
  explicit SGD(const std::vector<OptimizerParamGroup>& param_groups, SGDOptions defaults = {});
  explicit SGD(std::vector<Tensor> params, SGDOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_state() const override {
    return std::make_unique<SGDParamState>();
  }
};

}  // namespace ember::optim
