#pragma once
// Elementwise ops with broadcasting and PyTorch's type promotion (src/ops/elementwise*.cpp).
// A Scalar argument behaves like a Python number (a "wrapped number") in promotion.
#include <optional>
#include <string>

#include "ember/core/tensor.h"

namespace ember {

#define EMBER_UNARY_FN(name) Tensor name(const Tensor& x);
EMBER_UNARY_FN(abs)
EMBER_UNARY_FN(neg)
EMBER_UNARY_FN(negative)
EMBER_UNARY_FN(sign)
EMBER_UNARY_FN(exp)
EMBER_UNARY_FN(exp2)
EMBER_UNARY_FN(expm1)
EMBER_UNARY_FN(log)
EMBER_UNARY_FN(log2)
EMBER_UNARY_FN(log10)
EMBER_UNARY_FN(log1p)
EMBER_UNARY_FN(sqrt)
EMBER_UNARY_FN(rsqrt)
EMBER_UNARY_FN(reciprocal)
EMBER_UNARY_FN(sin)
EMBER_UNARY_FN(cos)
EMBER_UNARY_FN(tan)
EMBER_UNARY_FN(asin)
EMBER_UNARY_FN(acos)
EMBER_UNARY_FN(atan)
EMBER_UNARY_FN(sinh)
EMBER_UNARY_FN(cosh)
EMBER_UNARY_FN(tanh)
EMBER_UNARY_FN(sigmoid)
EMBER_UNARY_FN(erf)
EMBER_UNARY_FN(erfc)
EMBER_UNARY_FN(erfinv)
EMBER_UNARY_FN(floor)
EMBER_UNARY_FN(ceil)
EMBER_UNARY_FN(trunc)
EMBER_UNARY_FN(frac)
EMBER_UNARY_FN(relu)
EMBER_UNARY_FN(silu)
EMBER_UNARY_FN(mish)
EMBER_UNARY_FN(hardsigmoid)
EMBER_UNARY_FN(hardswish)
EMBER_UNARY_FN(isnan)
EMBER_UNARY_FN(isinf)
EMBER_UNARY_FN(isfinite)
EMBER_UNARY_FN(logical_not)
EMBER_UNARY_FN(bitwise_not)
#undef EMBER_UNARY_FN
Tensor round(const Tensor& x, int64_t decimals = 0);
Tensor logit(const Tensor& x, std::optional<double> eps = std::nullopt);
/// approximate: "none" or "tanh".
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
Tensor softplus(const Tensor& x, const Scalar& beta = 1, const Scalar& threshold = 20);
Tensor elu(const Tensor& x, const Scalar& alpha = 1, const Scalar& scale = 1,
           const Scalar& input_scale = 1);
Tensor leaky_relu(const Tensor& x, const Scalar& negative_slope = 0.01);
Tensor hardtanh(const Tensor& x, const Scalar& min_val = -1, const Scalar& max_val = 1);
Tensor nan_to_num(const Tensor& x, std::optional<double> nan = 0.0,
                  std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt);

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha = 1);
Tensor subtract(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
/// rounding_mode: none (true division), "trunc" or "floor".
Tensor div(const Tensor& a, const Tensor& b,
           std::optional<std::string> rounding_mode = std::nullopt);
Tensor div(const Tensor& a, const Scalar& b,
           std::optional<std::string> rounding_mode = std::nullopt);
Tensor divide(const Tensor& a, const Tensor& b,
              std::optional<std::string> rounding_mode = std::nullopt);
#define EMBER_BINARY_FN(name)                    \
  Tensor name(const Tensor& a, const Tensor& b); \
  Tensor name(const Tensor& a, const Scalar& b);
EMBER_BINARY_FN(mul)
EMBER_BINARY_FN(multiply)
EMBER_BINARY_FN(floor_divide)
EMBER_BINARY_FN(remainder)
EMBER_BINARY_FN(fmod)
EMBER_BINARY_FN(pow)
EMBER_BINARY_FN(atan2)
EMBER_BINARY_FN(maximum)
EMBER_BINARY_FN(minimum)
EMBER_BINARY_FN(fmax)
EMBER_BINARY_FN(fmin)
EMBER_BINARY_FN(hypot)
EMBER_BINARY_FN(copysign)
EMBER_BINARY_FN(logaddexp)
EMBER_BINARY_FN(eq)
EMBER_BINARY_FN(ne)
EMBER_BINARY_FN(lt)
EMBER_BINARY_FN(le)
EMBER_BINARY_FN(gt)
EMBER_BINARY_FN(ge)
EMBER_BINARY_FN(logical_and)
EMBER_BINARY_FN(logical_or)
EMBER_BINARY_FN(logical_xor)
EMBER_BINARY_FN(bitwise_and)
EMBER_BINARY_FN(bitwise_or)
EMBER_BINARY_FN(bitwise_xor)
EMBER_BINARY_FN(bitwise_left_shift)
EMBER_BINARY_FN(bitwise_right_shift)
#undef EMBER_BINARY_FN
Tensor pow(const Scalar& base, const Tensor& exponent);
/// other - alpha * self (src/ops/binary_composite.cpp).
Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor rsub(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
/// self * log(other), 0 where self == 0 unless other is NaN; integers promote to the default
/// floating dtype.
Tensor xlogy(const Tensor& self, const Tensor& other);
Tensor xlogy(const Tensor& self, const Scalar& other);
Tensor xlogy(const Scalar& self, const Tensor& other);
/// pow computed in float64 (the result is float64 whatever the operands' dtypes).
Tensor float_power(const Tensor& self, const Tensor& exponent);
Tensor float_power(const Tensor& self, const Scalar& exponent);
Tensor float_power(const Scalar& self, const Tensor& exponent);

Tensor where(const Tensor& condition, const Tensor& input, const Tensor& other);
Tensor where(const Tensor& condition, const Scalar& input, const Tensor& other);
Tensor where(const Tensor& condition, const Tensor& input, const Scalar& other);
Tensor where(const Tensor& condition, const Scalar& input, const Scalar& other);
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor clamp(const Tensor& x, const std::optional<Tensor>& min,
             const std::optional<Tensor>& max = std::nullopt);
Tensor clip(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor clamp_min(const Tensor& x, const Scalar& min);
Tensor clamp_min(const Tensor& x, const Tensor& min);
Tensor clamp_max(const Tensor& x, const Scalar& max);
Tensor clamp_max(const Tensor& x, const Tensor& max);
Tensor lerp(const Tensor& start, const Tensor& end, const Scalar& weight);
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight);
Tensor addcmul(const Tensor& x, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor addcdiv(const Tensor& x, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value);
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value);

/// torch.result_type over tensors (0-d and wrapped numbers follow PyTorch's category rules).
ScalarType result_type(const Tensor& a, const Tensor& b);
ScalarType result_type(const Tensor& a, const Scalar& b);
/// torch.can_cast.
bool can_cast(ScalarType from, ScalarType to);

}  // namespace ember
