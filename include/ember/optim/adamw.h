#pragma once
// AdamW: Adam with decoupled weight decay (torch.optim.AdamW; libtorch's torch::optim::AdamW).
#include <optional>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct AdamWOptions : public OptimizerCloneableOptions<AdamWOptions> {
  AdamWOptions(double lr = 1e-3);  // NOLINT
  EMBER_ARG(double, lr);
  using betas_t = std::tuple<double, double>;
  EMBER_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 1e-2;
  EMBER_ARG(bool, amsgrad) = false;
  EMBER_ARG(bool, maximize) = false;
  /// Note [Fused Adam]: nullopt (the default) runs the fused step for float32 and float64
  /// parameters, true for every floating dtype (16-bit ones computed in float, rounded once),
  /// false never. Not part of the options' state_dict.
  EMBER_ARG(std::optional<bool>, fused) = std::nullopt;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { lr_ = lr; }
  void visit(OptionsVisitor& v) override;
  void validate() const override;
};

struct AdamWParamState : public OptimizerCloneableParamState<AdamWParamState> {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, exp_avg);
  EMBER_ARG(Tensor, exp_avg_sq);
  EMBER_ARG(Tensor, max_exp_avg_sq);

 public:
  void visit(StateVisitor& v) override;
};

/// Adam's update with the weight decay applied to the parameter first: p *= 1 - lr * weight_decay
/// (the gradient is left alone).
class AdamW : public Optimizer {
 public:
  explicit AdamW(const std::vector<OptimizerParamGroup>& param_groups, AdamWOptions defaults = {});
  explicit AdamW(std::vector<Tensor> params, AdamWOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_state() const override {
    return std::make_unique<AdamWParamState>();
  }
};

}  // namespace ember::optim
