#pragma once
// Adam (torch.optim.Adam; libtorch's torch::optim::Adam).
#include <optional>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct AdamOptions : public OptimizerCloneableOptions<AdamOptions> {
  AdamOptions(double lr = 1e-3);  // NOLINT
  EMBER_ARG(double, lr);
  using betas_t = std::tuple<double, double>;
  EMBER_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
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

struct AdamParamState : public OptimizerCloneableParamState<AdamParamState> {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, exp_avg);
  EMBER_ARG(Tensor, exp_avg_sq);
  EMBER_ARG(Tensor, max_exp_avg_sq);

 public:
  void visit(StateVisitor& v) override;
};

/// PyTorch's algorithm, per parameter p with gradient g at step t:
///   g += weight_decay * p;  m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;
///   vmax = max(vmax, v) (amsgrad);
///   p -= lr / (1 - b1^t) * m / (sqrt(v or vmax) / sqrt(1 - b2^t) + eps)
class Adam : public Optimizer {
 public:
  explicit Adam(const std::vector<OptimizerParamGroup>& param_groups, AdamOptions defaults = {});
  explicit Adam(std::vector<Tensor> params, AdamOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_state() const override {
    return std::make_unique<AdamParamState>();
  }
};

}  // namespace ember::optim
