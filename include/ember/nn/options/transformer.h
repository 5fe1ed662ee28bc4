#pragma once
// Options of the Transformer layers (torch/nn/options/transformerlayer.h).
//   nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(16, 4).dim_feedforward(32)
//                                   .activation("gelu").norm_first(true).batch_first(true))
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>

#include "ember/core/tensor.h"
#include "ember/nn/arg.h"
#include "ember/nn/init.h"

namespace ember::nn {

/// The feed-forward activation: ember::kReLU / "relu" (default), "gelu", or any Tensor -> Tensor
/// function (libtorch's activation_t). Another name is a RuntimeError, as PyTorch.
class TransformerActivation {
 public:
  TransformerActivation(Nonlinearity nonlinearity);  // NOLINT (kReLU only)
  TransformerActivation(const std::string& name);    // NOLINT ("relu" or "gelu")
  TransformerActivation(const char* name) : TransformerActivation(std::string(name)) {}  // NOLINT
  TransformerActivation(std::function<Tensor(const Tensor&)> fn);                        // NOLINT
  template <typename Fn,
            typename = std::enable_if_t<
                std::is_invocable_r_v<Tensor, Fn, const Tensor&> &&
                !std::is_same_v<std::decay_t<Fn>, std::function<Tensor(const Tensor&)>>>>
  TransformerActivation(Fn fn)  // NOLINT
      : TransformerActivation(std::function<Tensor(const Tensor&)>(std::move(fn))) {}
  Tensor operator()(const Tensor& x) const;
  /// "relu", "gelu" or "function".
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::function<Tensor(const Tensor&)> fn_;
};

struct TransformerEncoderLayerOptions {
  TransformerEncoderLayerOptions(int64_t d_model, int64_t nhead)
      : d_model_(d_model), nhead_(nhead) {}
  EMBER_ARG(int64_t, d_model);
  EMBER_ARG(int64_t, nhead);
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(TransformerActivation, activation) = Nonlinearity::ReLU;
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  EMBER_ARG(bool, batch_first) = false;
  /// Pre-norm (x + f(norm(x))) instead of post-norm (norm(x + f(x))).
  EMBER_ARG(bool, norm_first) = false;
  /// Biases of the attention, feed-forward and layer-norm parameters.
  EMBER_ARG(bool, bias) = true;
};

struct TransformerDecoderLayerOptions {
  TransformerDecoderLayerOptions(int64_t d_model, int64_t nhead)
      : d_model_(d_model), nhead_(nhead) {}
  EMBER_ARG(int64_t, d_model);
  EMBER_ARG(int64_t, nhead);
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(TransformerActivation, activation) = Nonlinearity::ReLU;
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(bool, norm_first) = false;
  EMBER_ARG(bool, bias) = true;
};

}  // namespace ember::nn
