// Tensor methods, in-place variants and operators of the binary elementwise ops.
#include "ember/ops/elementwise.h"
#include "ops/binary.h"
#include "ops/util.h"

namespace ember {

using ops::binary_op;
using ops::binary_op_;
using ops::wrapped_scalar;

Tensor Tensor::add(const Tensor& other, const Scalar& alpha) const {
  return ember::add(*this, other, alpha);
}
Tensor Tensor::add(const Scalar& other, const Scalar& alpha) const {
  return ember::add(*this, other, alpha);
}
const Tensor& Tensor::add_(const Tensor& other, const Scalar& alpha) const {
  return binary_op_(BinaryOp::Add, mutable_self(), other, alpha, "add_");
}
const Tensor& Tensor::add_(const Scalar& other, const Scalar& alpha) const {
  return binary_op_(BinaryOp::Add, mutable_self(), wrapped_scalar(other), alpha, "add_");
}
Tensor Tensor::sub(const Tensor& other, const Scalar& alpha) const {
  return ember::sub(*this, other, alpha);
}
Tensor Tensor::sub(const Scalar& other, const Scalar& alpha) const {
  return ember::sub(*this, other, alpha);
}
const Tensor& Tensor::sub_(const Tensor& other, const Scalar& alpha) const {
  return binary_op_(BinaryOp::Sub, mutable_self(), other, alpha, "sub_");
}
const Tensor& Tensor::sub_(const Scalar& other, const Scalar& alpha) const {
  return binary_op_(BinaryOp::Sub, mutable_self(), wrapped_scalar(other), alpha, "sub_");
}
Tensor Tensor::div(const Tensor& other, std::optional<std::string> rounding_mode) const {
  return ember::div(*this, other, std::move(rounding_mode));
}
Tensor Tensor::div(const Scalar& other, std::optional<std::string> rounding_mode) const {
  return ember::div(*this, other, std::move(rounding_mode));
}
const Tensor& Tensor::div_(const Tensor& other, std::optional<std::string> rounding_mode) const {
  return binary_op_(ops::div_mode(rounding_mode), mutable_self(), other, 1, "div_");
}
const Tensor& Tensor::div_(const Scalar& other, std::optional<std::string> rounding_mode) const {
  return binary_op_(ops::div_mode(rounding_mode), mutable_self(), wrapped_scalar(other), 1, "div_");
}

#define EMBER_DEFINE_BINARY_METHOD(fn, OP)                                         \
  Tensor Tensor::fn(const Tensor& other) const { return ember::fn(*this, other); } \
  Tensor Tensor::fn(const Scalar& other) const { return ember::fn(*this, other); } \
  const Tensor& Tensor::fn##_(const Tensor& other) const {                         \
    return binary_op_(OP, mutable_self(), other, 1, #fn "_");                      \
  }                                                                                \
  const Tensor& Tensor::fn##_(const Scalar& other) const {                         \
    return binary_op_(OP, mutable_self(), wrapped_scalar(other), 1, #fn "_");      \
  }
EMBER_DEFINE_BINARY_METHOD(mul, BinaryOp::Mul)
EMBER_DEFINE_BINARY_METHOD(floor_divide, BinaryOp::DivFloor)
EMBER_DEFINE_BINARY_METHOD(remainder, BinaryOp::Remainder)
EMBER_DEFINE_BINARY_METHOD(fmod, BinaryOp::Fmod)
EMBER_DEFINE_BINARY_METHOD(atan2, BinaryOp::Atan2)
EMBER_DEFINE_BINARY_METHOD(hypot, BinaryOp::Hypot)
EMBER_DEFINE_BINARY_METHOD(copysign, BinaryOp::Copysign)
EMBER_DEFINE_BINARY_METHOD(eq, BinaryOp::Eq)
EMBER_DEFINE_BINARY_METHOD(ne, BinaryOp::Ne)
EMBER_DEFINE_BINARY_METHOD(lt, BinaryOp::Lt)
EMBER_DEFINE_BINARY_METHOD(le, BinaryOp::Le)
EMBER_DEFINE_BINARY_METHOD(gt, BinaryOp::Gt)
EMBER_DEFINE_BINARY_METHOD(ge, BinaryOp::Ge)
EMBER_DEFINE_BINARY_METHOD(logical_and, BinaryOp::LogicalAnd)
EMBER_DEFINE_BINARY_METHOD(logical_or, BinaryOp::LogicalOr)
EMBER_DEFINE_BINARY_METHOD(logical_xor, BinaryOp::LogicalXor)
EMBER_DEFINE_BINARY_METHOD(bitwise_and, BinaryOp::BitwiseAnd)
EMBER_DEFINE_BINARY_METHOD(bitwise_or, BinaryOp::BitwiseOr)
EMBER_DEFINE_BINARY_METHOD(bitwise_xor, BinaryOp::BitwiseXor)
EMBER_DEFINE_BINARY_METHOD(bitwise_left_shift, BinaryOp::LeftShift)
EMBER_DEFINE_BINARY_METHOD(bitwise_right_shift, BinaryOp::RightShift)
#undef EMBER_DEFINE_BINARY_METHOD

Tensor Tensor::pow(const Tensor& other) const { return ember::pow(*this, other); }
Tensor Tensor::pow(const Scalar& other) const { return ember::pow(*this, other); }
const Tensor& Tensor::pow_(const Tensor& other) const {
  return binary_op_(BinaryOp::Pow, mutable_self(), other, 1, "pow_");
}
const Tensor& Tensor::pow_(const Scalar& other) const {
  EMBER_CHECK(
      !(defined() && is_integral(dtype(), true) && other.isIntegral(true) && other.toLong() < 0),
      "[pow_] Integers to negative integer powers are not allowed.");
  return binary_op_(BinaryOp::Pow, mutable_self(), wrapped_scalar(other), 1, "pow_");
}

Tensor Tensor::maximum(const Tensor& other) const { return ember::maximum(*this, other); }
Tensor Tensor::minimum(const Tensor& other) const { return ember::minimum(*this, other); }
Tensor Tensor::fmax(const Tensor& other) const { return ember::fmax(*this, other); }
Tensor Tensor::fmin(const Tensor& other) const { return ember::fmin(*this, other); }
Tensor Tensor::logaddexp(const Tensor& other) const { return ember::logaddexp(*this, other); }

// Operators: a Scalar on either side is a wrapped number, so `2 - t` promotes like `t - 2`.
// `s * t` is `t.mul(s)`, as libtorch's operator spells it (and Python's __rmul__): in bfloat16
// and float16 the scalar is then read at float precision (Note [Reduced-float scalars]).
#define EMBER_DEFINE_OPERATOR(op, OP)                                                  \
  Tensor operator op(const Tensor& a, const Tensor& b) { return binary_op(OP, a, b); } \
  Tensor operator op(const Tensor& a, const Scalar& b) {                               \
    return binary_op(OP, a, wrapped_scalar(b));                                        \
  }                                                                                    \
  Tensor operator op(const Scalar& a, const Tensor& b) {                               \
    if (OP == BinaryOp::Mul) return binary_op(OP, b, wrapped_scalar(a));               \
    return binary_op(OP, wrapped_scalar(a), b);                                        \
  }
EMBER_DEFINE_OPERATOR(+, BinaryOp::Add)
EMBER_DEFINE_OPERATOR(-, BinaryOp::Sub)
EMBER_DEFINE_OPERATOR(*, BinaryOp::Mul)
EMBER_DEFINE_OPERATOR(/, BinaryOp::Div)
EMBER_DEFINE_OPERATOR(%, BinaryOp::Remainder)
EMBER_DEFINE_OPERATOR(==, BinaryOp::Eq)
EMBER_DEFINE_OPERATOR(!=, BinaryOp::Ne)
EMBER_DEFINE_OPERATOR(<, BinaryOp::Lt)
EMBER_DEFINE_OPERATOR(<=, BinaryOp::Le)
EMBER_DEFINE_OPERATOR(>, BinaryOp::Gt)
EMBER_DEFINE_OPERATOR(>=, BinaryOp::Ge)
EMBER_DEFINE_OPERATOR(&, BinaryOp::BitwiseAnd)
EMBER_DEFINE_OPERATOR(|, BinaryOp::BitwiseOr)
EMBER_DEFINE_OPERATOR(^, BinaryOp::BitwiseXor)
EMBER_DEFINE_OPERATOR(<<, BinaryOp::LeftShift)
EMBER_DEFINE_OPERATOR(>>, BinaryOp::RightShift)
#undef EMBER_DEFINE_OPERATOR

Tensor& operator+=(Tensor& a, const Tensor& b) {
  a.add_(b);
  return a;
}
Tensor& operator+=(Tensor& a, const Scalar& b) {
  a.add_(b);
  return a;
}
Tensor& operator-=(Tensor& a, const Tensor& b) {
  a.sub_(b);
  return a;
}
Tensor& operator-=(Tensor& a, const Scalar& b) {
  a.sub_(b);
  return a;
}
Tensor& operator*=(Tensor& a, const Tensor& b) {
  a.mul_(b);
  return a;
}
Tensor& operator*=(Tensor& a, const Scalar& b) {
  a.mul_(b);
  return a;
}
Tensor& operator/=(Tensor& a, const Tensor& b) {
  a.div_(b);
  return a;
}
Tensor& operator/=(Tensor& a, const Scalar& b) {
  a.div_(b);
  return a;
}

}  // namespace ember
