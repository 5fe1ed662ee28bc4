// Binary elementwise ops: argument checks, broadcasting, type promotion, dispatch.
#include "ops/binary.h"

#include "ember/ops/elementwise.h"
#include "ops/promotion.h"
#include "ops/util.h"

namespace ember::ops {

namespace {

// How an op turns the promoted type of its inputs into the type it computes in.
enum class Promo {
  Common,      // result_type(a, b)
  IntToFloat,  // as Common, but integral and bool results become the default float dtype
  ToBool,      // logical ops: each input is converted to bool
};

struct OpSpec {
  Promo promo;
  bool allow_bool, allow_int, allow_float;
  const char* kernel;  // PyTorch's kernel name, for "not implemented for 'Bool'" messages
};

OpSpec spec(BinaryOp op) {
  using B = BinaryOp;
  switch (op) {
    case B::Add:
      return {Promo::Common, true, true, true, "add_cpu"};
    case B::Sub:
      return {Promo::Common, false, true, true, "sub_cpu"};
    case B::Mul:
      return {Promo::Common, true, true, true, "mul_cpu"};
    case B::Div:
      return {Promo::IntToFloat, true, true, true, "div_true_cpu"};
    case B::DivTrunc:
      return {Promo::Common, false, true, true, "div_trunc_cpu"};
    case B::DivFloor:
      return {Promo::Common, false, true, true, "div_floor_cpu"};
    case B::Remainder:
      return {Promo::Common, false, true, true, "remainder_cpu"};
    case B::Fmod:
      return {Promo::Common, false, true, true, "fmod_cpu"};
    case B::Pow:
      return {Promo::Common, false, true, true, "pow"};
    case B::Atan2:
      return {Promo::IntToFloat, true, true, true, "atan2_cpu"};
    case B::Hypot:
      return {Promo::Common, false, false, true, "hypot_cpu"};
    case B::Copysign:
      return {Promo::IntToFloat, true, true, true, "copysign_cpu"};
    case B::Logaddexp:
      return {Promo::Common, false, false, true, "logaddexp_cpu"};
    case B::Maximum:
    case B::Minimum:
    case B::Fmax:
    case B::Fmin:
      return {Promo::Common, true, true, true, "max_min_cpu"};
    case B::Eq:
    case B::Ne:
    case B::Lt:
    case B::Le:
    case B::Gt:
    case B::Ge:
      return {Promo::Common, true, true, true, "comparison_cpu"};
    case B::LogicalAnd:
    case B::LogicalOr:
    case B::LogicalXor:
      return {Promo::ToBool, true, true, true, "logical_cpu"};
    case B::BitwiseAnd:
      return {Promo::Common, true, true, false, "bitwise_and_cpu"};
    case B::BitwiseOr:
      return {Promo::Common, true, true, false, "bitwise_or_cpu"};
    case B::BitwiseXor:
      return {Promo::Common, true, true, false, "bitwise_xor_cpu"};
    case B::LeftShift:
      return {Promo::Common, false, true, false, "lshift_cpu"};
    case B::RightShift:
      return {Promo::Common, false, true, false, "rshift_cpu"};
  }
  return {Promo::Common, true, true, true, "binary"};
}

// PyTorch's sub_check: any bool operand (a wrapped True included) is rejected.
void sub_check(const Tensor& a, const Tensor& b, const char* name) {
  EMBER_CHECK(a.dtype() != kBool || b.dtype() != kBool, "[", name,
              "] Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
              "`^` or `logical_xor()` operator instead.");
  EMBER_CHECK(a.dtype() != kBool && b.dtype() != kBool, "[", name,
              "] Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
              "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}

// PyTorch's alpha_check, plus the overflow check of alpha.to<scalar_t>().
void alpha_check(ScalarType dtype, const Scalar& alpha, const char* name) {
  EMBER_CHECK(!alpha.isBoolean() || dtype == kBool, "[", name,
              "] Boolean alpha only supported for Boolean results.");
  EMBER_CHECK(is_floating_point(dtype) || alpha.isIntegral(true), "[", name,
              "] For integral input tensors, argument alpha must not be a floating point number.");
  check_scalar_fits(alpha, dtype, name);
}

// Validates the operands and returns the dtype the kernel computes in.
ScalarType compute_dtype(BinaryOp op, const Tensor& a, const Tensor& b, const Scalar& alpha,
                         const char* name) {
  const OpSpec s = spec(op);
  if (s.promo == Promo::ToBool) {
    check_implemented(a.dtype(), name);
    check_implemented(b.dtype(), name);
    return kBool;
  }
  if (op == BinaryOp::Sub) sub_check(a, b, name);
  // Operands of one dtype promote to it (the tiny-op path skips the general rule).
  ScalarType t = a.dtype() == b.dtype() ? a.dtype() : result_type({a, b});
  check_implemented(t, name);
  if (s.promo == Promo::IntToFloat && !is_floating_point(t)) t = get_default_dtype();
  const bool ok = t == kBool ? s.allow_bool : (is_floating_point(t) ? s.allow_float : s.allow_int);
  if (!ok) throw_not_implemented(name, s.kernel, t);
  if (op == BinaryOp::Add || op == BinaryOp::Sub) alpha_check(t, alpha, name);
  return t;
}

// x.to(t), still marked as a wrapped number when x is one: autograd names the node of a
// tensor-scalar op after the scalar overload (Note [Overload suffix]).
Tensor to_compute(const Tensor& x, ScalarType t) {
  if (x.dtype() == t) return x;  // never write to the caller's tensor: others may read it
  Tensor r = x.to(t);
  if (x.unsafeGetTensorImpl()->is_wrapped_number())
    r.unsafeGetTensorImpl()->set_wrapped_number(true);
  return r;
}

// Note [Reduced-float scalars]: computing in bfloat16 or float16, PyTorch's mul and div kernels
// read a single-element second operand at float precision (its value before the cast to the
// compute dtype: a Python number 1.003 multiplies as 1.003f, not as its bfloat16 rounding 1.0),
// where add and sub narrow it to the compute dtype first. That operand enters the kernel as
// float32.
ScalarType second_operand_dtype(BinaryOp op, const Tensor& b, ScalarType t) {
  const bool reads_float = op == BinaryOp::Mul || op == BinaryOp::Div || op == BinaryOp::DivTrunc ||
                           op == BinaryOp::DivFloor;
  const bool one_element = !b.unsafeGetTensorImpl()->is_symbolic() && b.numel() == 1;
  return reads_float && (t == kBFloat16 || t == kFloat16) && one_element && b.dtype() != t
             ? kFloat32
             : t;
}

}  // namespace

BinaryOp div_mode(const std::optional<std::string>& mode) {
  if (!mode) return BinaryOp::Div;
  if (*mode == "trunc") return BinaryOp::DivTrunc;
  if (*mode == "floor") return BinaryOp::DivFloor;
  EMBER_THROW(RuntimeError,
              "[div] div expected rounding_mode to be one of None, 'trunc', or "
              "'floor' but found '",
              *mode, "'");
}

Tensor binary_op(BinaryOp op, const Tensor& a, const Tensor& b, const Scalar& alpha,
                 const char* name) {
  if (!name) name = binary_op_name(op);
  check_defined(a, name, "input");
  check_defined(b, name, "other");
  check_broadcastable(a, b, name);
  const ScalarType t = compute_dtype(op, a, b, alpha, name);
  // The operands are moved into the list (a braced list would be copied, each copy an atomic
  // reference count) and the result out of the returned vector: the tiny-op path.
  std::vector<Tensor> inputs;
  inputs.reserve(2);
  inputs.push_back(to_compute(a, t));
  inputs.push_back(to_compute(b, second_operand_dtype(op, b, t)));
  return std::move(dispatch(Binary(op, alpha, name), inputs)[0]);
}

Tensor& binary_op_(BinaryOp op, Tensor& self, const Tensor& other, const Scalar& alpha,
                   const char* name) {
  if (!name) name = binary_op_name(op);
  check_defined(self, name, "self");
  check_defined(other, name, "other");
  auto shape = broadcast_pair(self.sizes(), other.sizes(), name);
  const ScalarType t = compute_dtype(op, self, other, alpha, name);
  const ScalarType result = binary_op_returns_bool(op) ? kBool : t;
  check_inplace_cast(result, self, name);
  check_inplace_shape(self, shape, name);
  Tensor o = to_compute(inplace_input(self, other, name), second_operand_dtype(op, other, t));
  if (result == self.dtype()) {
    // Each output element reads only the same element of self: safe to write in place.
    std::vector<Tensor> outs = {self};
    dispatch(in_place(Binary(op, alpha, name)), {self.to(t), o}, outs);
  } else {
    Tensor tmp = empty_tensor(shape, result, name, self.device());
    dispatch(Binary(op, alpha, name), {self.to(t), o}, {tmp});
    self.copy_(tmp);
  }
  return self;
}

}  // namespace ember::ops

namespace ember {

using ops::binary_op;
using ops::wrapped_scalar;

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return binary_op(BinaryOp::Add, a, b, alpha);
}
Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha) {
  return binary_op(BinaryOp::Add, a, wrapped_scalar(b), alpha);
}
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return binary_op(BinaryOp::Sub, a, b, alpha);
}
Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha) {
  return binary_op(BinaryOp::Sub, a, wrapped_scalar(b), alpha);
}
Tensor subtract(const Tensor& a, const Tensor& b, const Scalar& alpha) { return sub(a, b, alpha); }

Tensor div(const Tensor& a, const Tensor& b, std::optional<std::string> rounding_mode) {
  return binary_op(ops::div_mode(rounding_mode), a, b);
}
Tensor div(const Tensor& a, const Scalar& b, std::optional<std::string> rounding_mode) {
  return binary_op(ops::div_mode(rounding_mode), a, wrapped_scalar(b));
}
Tensor divide(const Tensor& a, const Tensor& b, std::optional<std::string> rounding_mode) {
  return div(a, b, std::move(rounding_mode));
}

#define EMBER_DEFINE_BINARY_FN(fn, OP, NAME)                                           \
  Tensor fn(const Tensor& a, const Tensor& b) { return binary_op(OP, a, b, 1, NAME); } \
  Tensor fn(const Tensor& a, const Scalar& b) {                                        \
    return binary_op(OP, a, wrapped_scalar(b), 1, NAME);                               \
  }
EMBER_DEFINE_BINARY_FN(mul, BinaryOp::Mul, nullptr)
EMBER_DEFINE_BINARY_FN(multiply, BinaryOp::Mul, nullptr)
EMBER_DEFINE_BINARY_FN(floor_divide, BinaryOp::DivFloor, "floor_divide")
EMBER_DEFINE_BINARY_FN(remainder, BinaryOp::Remainder, nullptr)
EMBER_DEFINE_BINARY_FN(fmod, BinaryOp::Fmod, nullptr)
EMBER_DEFINE_BINARY_FN(atan2, BinaryOp::Atan2, nullptr)
EMBER_DEFINE_BINARY_FN(maximum, BinaryOp::Maximum, nullptr)
EMBER_DEFINE_BINARY_FN(minimum, BinaryOp::Minimum, nullptr)
EMBER_DEFINE_BINARY_FN(fmax, BinaryOp::Fmax, nullptr)
EMBER_DEFINE_BINARY_FN(fmin, BinaryOp::Fmin, nullptr)
EMBER_DEFINE_BINARY_FN(hypot, BinaryOp::Hypot, nullptr)
EMBER_DEFINE_BINARY_FN(copysign, BinaryOp::Copysign, nullptr)
EMBER_DEFINE_BINARY_FN(logaddexp, BinaryOp::Logaddexp, nullptr)
EMBER_DEFINE_BINARY_FN(eq, BinaryOp::Eq, nullptr)
EMBER_DEFINE_BINARY_FN(ne, BinaryOp::Ne, nullptr)
EMBER_DEFINE_BINARY_FN(lt, BinaryOp::Lt, nullptr)
EMBER_DEFINE_BINARY_FN(le, BinaryOp::Le, nullptr)
EMBER_DEFINE_BINARY_FN(gt, BinaryOp::Gt, nullptr)
EMBER_DEFINE_BINARY_FN(ge, BinaryOp::Ge, nullptr)
EMBER_DEFINE_BINARY_FN(logical_and, BinaryOp::LogicalAnd, nullptr)
EMBER_DEFINE_BINARY_FN(logical_or, BinaryOp::LogicalOr, nullptr)
EMBER_DEFINE_BINARY_FN(logical_xor, BinaryOp::LogicalXor, nullptr)
EMBER_DEFINE_BINARY_FN(bitwise_and, BinaryOp::BitwiseAnd, nullptr)
EMBER_DEFINE_BINARY_FN(bitwise_or, BinaryOp::BitwiseOr, nullptr)
EMBER_DEFINE_BINARY_FN(bitwise_xor, BinaryOp::BitwiseXor, nullptr)
EMBER_DEFINE_BINARY_FN(bitwise_left_shift, BinaryOp::LeftShift, nullptr)
EMBER_DEFINE_BINARY_FN(bitwise_right_shift, BinaryOp::RightShift, nullptr)
#undef EMBER_DEFINE_BINARY_FN

namespace {
void check_pow_exponent(const Tensor& base, const Scalar& exp) {
  EMBER_CHECK(!(is_integral(base.dtype(), true) && exp.isIntegral(true) && exp.toLong() < 0),
              "[pow] Integers to negative integer powers are not allowed.");
}
}  // namespace

Tensor pow(const Tensor& a, const Tensor& b) { return binary_op(BinaryOp::Pow, a, b); }
Tensor pow(const Tensor& a, const Scalar& b) {
  ops::check_defined(a, "pow", "input");
  check_pow_exponent(a, b);
  return binary_op(BinaryOp::Pow, a, wrapped_scalar(b));
}
Tensor pow(const Scalar& base, const Tensor& exponent) {
  return binary_op(BinaryOp::Pow, wrapped_scalar(base), exponent);
}

}  // namespace ember
