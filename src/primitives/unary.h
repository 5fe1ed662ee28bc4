#pragma once
// The unary elementwise family: outputs[0] = f(inputs[0]) elementwise, same shape. Note [Unary
// dtypes]: the op builders (src/ops/unary.cpp) choose the output dtype as PyTorch does; the kernel
// computes in the output's dtype (16-bit floats through float, rounded once), first converting an
// integral input when the output is floating (exp of an int64 tensor is float32).
#include <cstdint>
#include <optional>
#include <string>

#include "dispatch/primitive.h"

namespace ember {

// clang-format off
EMBER_ENUM(UnaryOp, uint8_t,
  Abs,
  Neg,
  Sign,
  Exp,
  Exp2,
  Expm1,
  Log,
  Log2,
  Log10,
  Log1p,
  Sqrt,
  Rsqrt,
  Reciprocal,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Tanh,
  Sigmoid,
  Logit,  // a: eps (absent: no clamping)
  Erf,
  Erfc,
  Erfinv,
  Floor,
  Ceil,
  Round,  // decimals
  Trunc,
  Frac,
  Relu,
  Gelu,  // tanh_approx
  Silu,
  Mish,
  Softplus,   // a: beta, b: threshold
  Elu,        // a: alpha, b: scale, c: input_scale
  LeakyRelu,  // a: negative_slope
  Hardtanh,   // a: min_val, b: max_val
  Hardsigmoid,
  Hardswish,
  NanToNum,  // a: nan, b: posinf, c: neginf (absent posinf/neginf: the dtype's max/lowest)
  IsNan,
  IsInf,
  IsFinite,
  LogicalNot,
  BitwiseNot);
// clang-format on

/// The non-tensor arguments of a unary op; which ones an op reads is listed on UnaryOp.
struct UnaryArgs {
  std::optional<Scalar> a, b, c;
  int64_t decimals = 0;
  bool tanh_approx = false;
  /// Gelu only: compute the derivative gelu'(x) instead (what its vjp multiplies the gradient
  /// by; one fused kernel instead of a chain of ops).
  bool derivative = false;
  EMBER_FIELDS(a, b, c, decimals, tanh_approx, derivative)
};

struct UnaryParams {
  UnaryOp op = UnaryOp::Abs;
  UnaryArgs args;
  EMBER_FIELDS(op, args)
};

/// PyTorch's name of a unary op ("abs", "leaky_relu", ...).
const char* unary_op_name(UnaryOp op);

class Unary : public PrimitiveOf<Unary, UnaryParams, PrimitiveKind::Unary> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit Unary(UnaryOp op, UnaryArgs args = {}) : PrimitiveOf({op, std::move(args)}) {}
  EMBER_VJP
  EMBER_INFER
  bool saves_input(size_t) const override;
  bool saves_output(size_t) const override;
  const char* default_name() const override {
    return p_.args.derivative ? "gelu_backward" : unary_op_name(p_.op);
  }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override;
  UnaryOp op() const { return p_.op; }
  const UnaryArgs& args() const { return p_.args; }
};

}  // namespace ember
