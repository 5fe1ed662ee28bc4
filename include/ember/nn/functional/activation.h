#pragma once
// Activation functions, torch::nn::functional spelling (src/nn/functional/activation.cpp).
//   namespace F = ember::nn::functional;
//   F::softmax(x, F::SoftmaxFuncOptions(1));  F::log_softmax(x, -1);  F::elu(x,
//   F::ELUFuncOptions().alpha(2));
// Functions whose options carry `inplace` take the input by value, as libtorch, and return it
// written in place when inplace(true) is set.
#include <cstdint>
#include <optional>

#include "ember/core/tensor.h"
#include "ember/nn/options/activation.h"

namespace ember {

/// torch.softmax / torch.log_softmax: `dtype` casts the input first. Floating dtypes only.
Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);

}  // namespace ember

namespace ember::nn::functional {

Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options);
Tensor softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options);
Tensor log_softmax(const Tensor& input, int64_t dim,
                   std::optional<ScalarType> dtype = std::nullopt);
/// softmax(-input).
Tensor softmin(const Tensor& input, const SoftminFuncOptions& options);
Tensor softmin(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);

Tensor relu(Tensor input, const ReLUFuncOptions& options = {});
/// min(max(0, x), 6).
Tensor relu6(Tensor input, const ReLU6FuncOptions& options = {});
Tensor elu(Tensor input, const ELUFuncOptions& options = {});
/// scale * elu(x, alpha) with PyTorch's SELU constants.
Tensor selu(Tensor input, const SELUFuncOptions& options = {});
/// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); alpha != 0.
Tensor celu(Tensor input, const CELUFuncOptions& options = {});
Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options = {});
Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options = {});
/// x > threshold ? x : value (the input's dtype is kept).
Tensor threshold(Tensor input, const ThresholdFuncOptions& options);
Tensor threshold(Tensor input, double threshold, double value, bool inplace = false);
Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {});
Tensor silu(const Tensor& input);
Tensor mish(const Tensor& input);
Tensor hardswish(const Tensor& input);
Tensor hardsigmoid(const Tensor& input);
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {});
/// x / (1 + |x|).
Tensor softsign(const Tensor& input);
/// x - tanh(x).
Tensor tanhshrink(const Tensor& input);
/// log(sigmoid(x)), computed stably as min(x, 0) - log1p(exp(-|x|)).
Tensor logsigmoid(const Tensor& input);
/// |x| > lambda ? x : 0.
Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options = {});
/// x - clamp(x, -lambda, lambda); lambda >= 0.
Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options = {});
/// x >= 0 ? x : weight * x, weight of one element or one per channel (dim 1).
Tensor prelu(const Tensor& input, const Tensor& weight);
/// a * sigmoid(b) where a, b are the halves of `input` along dim.
Tensor glu(const Tensor& input, const GLUFuncOptions& options = {});

}  // namespace ember::nn::functional
