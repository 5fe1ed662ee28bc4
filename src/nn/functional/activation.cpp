// Activation functions: softmax/log_softmax through the fused Softmax primitive, the rest as
// composites of Ember ops (which get gradients from their parts).
#include "ember/nn/functional/activation.h"

#include <cmath>

#include "ember/ops/elementwise.h"
#include "ember/ops/shape.h"
#include "nn/functional/common.h"
#include "primitives/softmax.h"

namespace ember {
namespace {

Tensor softmax_impl(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  nn::detail::check_defined(x, op);
  Tensor in = dtype.has_value() ? x.to(*dtype) : x;
  const int64_t d = ops::wrap_dim(dim, in.dim(), op);
  EMBER_CHECK_TYPE(is_floating_point(in.dtype()) && is_implemented(in.dtype()), "[", op, "] \"", op,
                   "_lastdim_kernel_impl\" not implemented for '", dtype_name(in.dtype()), "'");
  in = in.contiguous();
  return dispatch(Softmax(in.dim() == 0 ? 0 : d, log), {in})[0];
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl(x, dim, dtype, false);
}
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl(x, dim, dtype, true);
}
Tensor Tensor::softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return softmax_impl(*this, dim, dtype, false);
}
Tensor Tensor::log_softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return softmax_impl(*this, dim, dtype, true);
}

namespace nn::functional {

using nn::detail::check_floating;
using nn::detail::from_opmath;
using nn::detail::maybe_inplace;
using nn::detail::to_opmath;

Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& o) {
  return ember::softmax(input, o.dim(), o.dtype());
}
Tensor softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  return ember::softmax(input, dim, dtype);
}
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& o) {
  return ember::log_softmax(input, o.dim(), o.dtype());
}
Tensor log_softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  return ember::log_softmax(input, dim, dtype);
}
Tensor softmin(const Tensor& input, const SoftminFuncOptions& o) {
  return softmin(input, o.dim(), o.dtype());
}
Tensor softmin(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  nn::detail::check_defined(input, "softmin");
  Tensor x = dtype.has_value() ? input.to(*dtype) : input;
  check_floating(x, "softmin", "softmax_lastdim_kernel_impl");
  return ember::softmax(-x, dim);
}

Tensor relu(Tensor input, const ReLUFuncOptions& o) {
  if (o.inplace()) return input.relu_();
  return ember::relu(input);
}

Tensor relu6(Tensor input, const ReLU6FuncOptions& o) {
  return maybe_inplace(input, ember::hardtanh(input, 0, 6), o.inplace());
}

Tensor elu(Tensor input, const ELUFuncOptions& o) {
  return maybe_inplace(input, ember::elu(input, o.alpha()), o.inplace());
}

Tensor selu(Tensor input, const SELUFuncOptions& o) {
  constexpr double kAlpha = 1.6732632423543772848170429916717;
  constexpr double kScale = 1.0507009873554804934193349852946;
  return maybe_inplace(input, ember::elu(input, kAlpha, kScale), o.inplace());
}

Tensor celu(Tensor input, const CELUFuncOptions& o) {
  EMBER_CHECK(o.alpha() != 0, "[celu] ZeroDivisionError: alpha cannot be 0 for CELU");
  return maybe_inplace(input, ember::elu(input, o.alpha(), 1, 1.0 / o.alpha()), o.inplace());
}

Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& o) {
  return maybe_inplace(input, ember::leaky_relu(input, o.negative_slope()), o.inplace());
}

Tensor hardtanh(Tensor input, const HardtanhFuncOptions& o) {
  EMBER_CHECK(o.min_val() <= o.max_val(), "[hardtanh] max_val cannot be less than min_val");
  return maybe_inplace(input, ember::hardtanh(input, o.min_val(), o.max_val()), o.inplace());
}

Tensor threshold(Tensor input, const ThresholdFuncOptions& o) {
  return threshold(std::move(input), o.threshold(), o.value(), o.inplace());
}
Tensor threshold(Tensor input, double threshold, double value, bool inplace) {
  nn::detail::check_defined(input, "threshold");
  EMBER_CHECK_TYPE(input.dtype() != kBool && is_implemented(input.dtype()),
                   "[threshold] \"threshold_cpu\" not implemented for '", dtype_name(input.dtype()),
                   "'");
  // x <= threshold ? value : x, in the input's dtype (NaN stays NaN).
  Tensor r = input.masked_fill(input <= threshold, value);
  return maybe_inplace(input, r, inplace);
}

Tensor gelu(const Tensor& input, const GELUFuncOptions& o) {
  return ember::gelu(input, o.approximate());
}
Tensor silu(const Tensor& input) { return ember::silu(input); }
Tensor mish(const Tensor& input) { return ember::mish(input); }
Tensor hardswish(const Tensor& input) { return ember::hardswish(input); }
Tensor hardsigmoid(const Tensor& input) { return ember::hardsigmoid(input); }
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& o) {
  return ember::softplus(input, o.beta(), o.threshold());
}

Tensor softsign(const Tensor& input) {
  nn::detail::check_defined(input, "softsign");
  Tensor x = to_opmath(input);
  return from_opmath(x / (x.abs() + 1), input.dtype());
}

Tensor tanhshrink(const Tensor& input) {
  nn::detail::check_defined(input, "tanhshrink");
  Tensor x = to_opmath(input);
  return from_opmath(x - x.tanh(), input.dtype());
}

Tensor logsigmoid(const Tensor& input) {
  check_floating(input, "log_sigmoid", "log_sigmoid_forward");
  Tensor x = to_opmath(input);
  // log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)): no overflow for large |x|.
  return from_opmath(x.clamp_max(0) - (-x.abs()).exp().log1p(), input.dtype());
}

Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& o) {
  check_floating(input, "hardshrink");
  return input.masked_fill(input.abs() <= o.lambda(), 0);
}

Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& o) {
  check_floating(input, "softshrink");
  EMBER_CHECK(o.lambda() >= 0,
              "[softshrink] lambda must be greater or equal to 0, but found to be ", o.lambda(),
              ".");
  Tensor x = to_opmath(input);
  return from_opmath(x - x.clamp(-o.lambda(), o.lambda()), input.dtype());
}

Tensor prelu(const Tensor& input, const Tensor& weight) {
  check_floating(input, "prelu");
  nn::detail::check_defined(weight, "prelu", "weight");
  EMBER_CHECK(
      weight.dim() <= 1,
      "[prelu] Expected `weight` to be a scalar or 1D tensor, but got: ndim = ", weight.dim());
  const int64_t channels = input.dim() >= 2 ? input.size(1) : 1;
  const int64_t n = weight.numel();
  EMBER_CHECK(n == 1 || n == channels,
              "[prelu] Mismatch of parameter numbers and input channel size. Found parameter "
              "numbers = ",
              n, " and channel size = ", channels, ".");
  Tensor w = weight;
  if (n != 1 || input.dim() >= 2) {
    std::vector<int64_t> shape(std::max<int64_t>(input.dim(), 1), 1);
    if (input.dim() >= 2) shape[1] = n;
    w = weight.reshape(shape);
  }
  if (input.dim() == 0) w = weight.reshape({});
  return ember::where(input > 0, input, w * input);
}

Tensor glu(const Tensor& input, const GLUFuncOptions& o) {
  nn::detail::check_defined(input, "glu");
  EMBER_CHECK(input.dim() > 0,
              "[glu] glu does not support scalars because halving size must be even");
  const int64_t d = ops::wrap_dim(o.dim(), input.dim(), "glu");
  EMBER_CHECK(input.size(d) % 2 == 0, "[glu] Halving dimension must be even, but dimension ", d,
              " is size ", input.size(d));
  check_floating(input, "glu", "glu");
  auto halves = input.chunk(2, d);
  return halves[0] * halves[1].sigmoid();
}

}  // namespace nn::functional
}  // namespace ember
