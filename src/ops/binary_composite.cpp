// rsub, xlogy and float_power: PyTorch ops written with other ops (no primitive of their own).
#include "ember/autograd.h"
#include "ember/ops/compare.h"
#include "ember/ops/elementwise.h"
#include "ops/binary.h"
#include "ops/promotion.h"
#include "ops/util.h"

namespace ember {

using ops::wrapped_scalar;

// rsub(self, other, alpha) = other - alpha * self: sub with its operands swapped, so promotion,
// the alpha checks and the gradient are sub's; the node is named rsub (RsubBackward0/1).
Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  ops::check_defined(self, "rsub", "input");
  return ops::binary_op(BinaryOp::Sub, other, self, alpha, "rsub");
}
Tensor rsub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  ops::check_defined(self, "rsub", "input");
  return ops::binary_op(BinaryOp::Sub, wrapped_scalar(other), self, alpha, "rsub");
}

namespace {

// xlogy's operands in their common floating dtype (integers and bool promote to the default).
ScalarType xlogy_dtype(const Tensor& x, const Tensor& y) {
  ops::check_defined(x, "xlogy", "self");
  ops::check_defined(y, "xlogy", "other");
  ops::check_broadcastable(x.sizes(), y.sizes(), "xlogy");
  const ScalarType t = ops::result_type({x, y});
  ops::check_implemented(t, "xlogy");
  return is_floating_point(t) ? t : get_default_dtype();
}

// x * log(y), and 0 where x == 0 unless y is NaN. Through where, the gradients are PyTorch's:
// log(y) (0 where x == 0) for x, x / y for y.
Tensor xlogy_impl(const Tensor& x, const Tensor& y, ScalarType t) {
  const Tensor xt = x.to(t), yt = y.to(t);
  return where(xt.eq(0).logical_and(yt.isnan().logical_not()), 0, xt * log(yt));
}

}  // namespace

Tensor xlogy(const Tensor& self, const Tensor& other) {
  return xlogy_impl(self, other, xlogy_dtype(self, other));
}
Tensor xlogy(const Tensor& self, const Scalar& other) {
  const Tensor o = wrapped_scalar(other);
  return xlogy_impl(self, o, xlogy_dtype(self, o));
}
Tensor xlogy(const Scalar& self, const Tensor& other) {
  const Tensor s = wrapped_scalar(self);
  return xlogy_impl(s, other, xlogy_dtype(s, other));
}
const Tensor& Tensor::xlogy_(const Tensor& other) const {
  const ScalarType t = xlogy_dtype(*this, other);
  ops::check_inplace_cast(t, *this, "xlogy_");
  ops::check_inplace_shape(*this, ops::broadcast_pair(sizes(), other.sizes(), "xlogy_"), "xlogy_");
  return copy_(xlogy_impl(*this, other, t));
}
const Tensor& Tensor::xlogy_(const Scalar& other) const { return xlogy_(wrapped_scalar(other)); }
Tensor Tensor::xlogy(const Tensor& other) const { return ember::xlogy(*this, other); }
Tensor Tensor::xlogy(const Scalar& other) const { return ember::xlogy(*this, other); }

// float_power computes in float64 whatever the operands' dtypes: pow of the operands converted
// (ATen's own composition, so the gradient and the PowBackward names are pow's).
Tensor float_power(const Tensor& self, const Tensor& exponent) {
  ops::check_defined(self, "float_power", "self");
  ops::check_defined(exponent, "float_power", "exponent");
  return pow(self.to(kFloat64), exponent.to(kFloat64));
}
Tensor float_power(const Tensor& self, const Scalar& exponent) {
  ops::check_defined(self, "float_power", "self");
  return pow(self.to(kFloat64), exponent.toDouble());
}
Tensor float_power(const Scalar& self, const Tensor& exponent) {
  ops::check_defined(exponent, "float_power", "exponent");
  return pow(self.toDouble(), exponent.to(kFloat64));
}
namespace {
void check_float_power_base(const Tensor& self) {
  ops::check_defined(self, "float_power_", "self");
  EMBER_CHECK(self.dtype() == kFloat64, "[float_power_] the base given to float_power_ has dtype ",
              scalar_type_name(self.dtype()), " but the operation's result requires dtype Double");
}
}  // namespace
const Tensor& Tensor::float_power_(const Tensor& exponent) const {
  check_float_power_base(*this);
  ops::check_defined(exponent, "float_power_", "exponent");
  return pow_(exponent.to(kFloat64));
}
const Tensor& Tensor::float_power_(const Scalar& exponent) const {
  check_float_power_base(*this);
  return pow_(exponent.toDouble());
}
Tensor Tensor::float_power(const Tensor& exponent) const {
  return ember::float_power(*this, exponent);
}
Tensor Tensor::float_power(const Scalar& exponent) const {
  return ember::float_power(*this, exponent);
}

}  // namespace ember
