#pragma once
// Parameter initialisation (torch.nn.init): in place, without recording gradients, drawing from
// the global generator.
#include <cstdint>
#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

enum class FanMode { FanIn, FanOut };
inline constexpr FanMode kFanIn = FanMode::FanIn;
inline constexpr FanMode kFanOut = FanMode::FanOut;

// (kLinear is the interpolation-mode tag of ember/nn/enum_conv.h; use Nonlinearity::Linear.)
enum class Nonlinearity {
  Linear,
  Conv1D,
  Conv2D,
  Conv3D,
  ConvTranspose1D,
  ConvTranspose2D,
  ConvTranspose3D,
  Sigmoid,
  Tanh,
  ReLU,
  LeakyReLU,
  SELU,
};
inline constexpr Nonlinearity kConv1D = Nonlinearity::Conv1D;
inline constexpr Nonlinearity kConv2D = Nonlinearity::Conv2D;
inline constexpr Nonlinearity kSigmoid = Nonlinearity::Sigmoid;
inline constexpr Nonlinearity kTanh = Nonlinearity::Tanh;
inline constexpr Nonlinearity kReLU = Nonlinearity::ReLU;
inline constexpr Nonlinearity kLeakyReLU = Nonlinearity::LeakyReLU;
inline constexpr Nonlinearity kSELU = Nonlinearity::SELU;

namespace nn::init {

/// The recommended gain for a nonlinearity (param: negative slope for LeakyReLU, default 0.01).
double calculate_gain(Nonlinearity nonlinearity, double param = 0.01);
/// (fan_in, fan_out) of a weight of at least 2 dims: [out, in, *receptive field].
std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor uniform_(Tensor tensor, double low = 0, double high = 1);
Tensor normal_(Tensor tensor, double mean = 0, double std = 1);
Tensor constant_(Tensor tensor, const Scalar& value);
Tensor ones_(Tensor tensor);
Tensor zeros_(Tensor tensor);
Tensor eye_(Tensor matrix);
Tensor dirac_(Tensor tensor);
Tensor xavier_uniform_(Tensor tensor, double gain = 1.0);
Tensor xavier_normal_(Tensor tensor, double gain = 1.0);
Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanMode mode = kFanIn,
                        Nonlinearity nonlinearity = kLeakyReLU);
Tensor kaiming_normal_(Tensor tensor, double a = 0, FanMode mode = kFanIn,
                       Nonlinearity nonlinearity = kLeakyReLU);
/// Normal(mean, std) truncated to [a, b] by inverse-CDF sampling, as PyTorch.
Tensor trunc_normal_(Tensor tensor, double mean = 0, double std = 1, double a = -2, double b = 2);
/// A (semi-)orthogonal matrix times gain; tensors of more dims are flattened after dim 0.
Tensor orthogonal_(Tensor tensor, double gain = 1);

}  // namespace nn::init
}  // namespace ember
