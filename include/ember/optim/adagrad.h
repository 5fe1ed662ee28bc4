#pragma once
// Adagrad (torch.optim.Adagrad; libtorch's torch::optim::Adagrad).
#include <optional>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct AdagradOptions : public OptimizerCloneableOptions<AdagradOptions> {
  AdagradOptions(double lr = 1e-2);  // NOLINT
  EMBER_ARG(double, lr);
  EMBER_ARG(double, lr_decay) = 0;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, initial_accumulator_value) = 0;
  EMBER_ARG(double, eps) = 1e-10;
  EMBER_ARG(bool, maximize) = false;
  /// Note [Fused Adam]: nullopt (the default) runs the fused step (PyTorch's _fused_adagrad_)
  /// for float32 and float64 parameters, true for every floating dtype (16-bit ones computed in
  /// float, rounded once), false never. Not part of the options' state_dict.
  EMBER_ARG(std::optional<bool>, fused) = std::nullopt;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { lr_ = lr; }
  void visit(OptionsVisitor& v) override;
  void validate() const override;
};

struct AdagradParamState : public OptimizerCloneableParamState<AdagradParamState> {
  EMBER_ARG(Tensor, sum);
  EMBER_ARG(int64_t, step) = 0;

 public:
  void visit(StateVisitor& v) override;
};

/// PyTorch's algorithm, per parameter p with gradient g at step t (the state starts at
/// construction, sum = initial_accumulator_value):
///   g += weight_decay * p;  clr = lr / (1 + (t - 1) lr_decay);  sum += g^2;
///   p -= clr * g / (sqrt(sum) + eps)
class Adagrad : public Optimizer {
 public:
  explicit Adagrad(const std::vector<OptimizerParamGroup>& param_groups,
                   AdagradOptions defaults = {});
  explicit Adagrad(std::vector<Tensor> params, AdagradOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_state() const override {
    return std::make_unique<AdagradParamState>();
  }

 private:
  void init_state();
};

}  // namespace ember::optim
