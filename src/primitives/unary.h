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

// Note [Unary op table]: the unary ops without parameters that compute in floating point are
// declared here, once each: X(Op, name, Functor, Reads, vjp) gives the UnaryOp value, PyTorch's
// name, the functor of src/backend/cpu/unary_functors.h that the kernel (and the code generator)
// runs on every floating dtype, what the vjp reads (the Input x, the Output y, or Nothing), and
// the vjp itself: an expression of the gradient g and of x or y, written with Ember ops (so it is
// differentiable again; `fused(v)` is the op's one-kernel backward, Note [Fused unary backward]).
// Each consumer expands the table with its own X; switches over UnaryOp
// have no `default:`, so an op missing from one is a compile error (-Wswitch). The three groups
// only split the kernels over three files (compile time). Ops with parameters or other dtype
// rules are listed in EMBER_UNARY_OTHER_OPS and written out by hand where they are used.
// clang-format off
#define EMBER_UNARY_MATH_OPS(X)                                                           \
  X(Exp, exp, ExpF, Output, g * y)                                                        \
  X(Exp2, exp2, Exp2F, Output, g * y * std::numbers::ln2)                                 \
  X(Expm1, expm1, Expm1F, Output, g * (y + 1))                                            \
  X(Log, log, LogF, Input, g / x)                                                         \
  X(Log2, log2, Log2F, Input, g / (x * std::numbers::ln2))                                \
  X(Log10, log10, Log10F, Input, g / (x * std::numbers::ln10))                            \
  X(Log1p, log1p, Log1pF, Input, g / (x + 1))                                             \
  X(Sqrt, sqrt, SqrtF, Output, g / (y * 2))                                               \
  X(Rsqrt, rsqrt, RsqrtF, Output, g * y * y * y * -0.5)                                   \
  X(Reciprocal, reciprocal, ReciprocalF, Output, -g * y * y)                              \
  X(Erf, erf, ErfF, Input, g * (-x * x).exp() * (2 / std::sqrt(std::numbers::pi)))        \
  X(Erfc, erfc, ErfcF, Input, g * (-x * x).exp() * -(2 / std::sqrt(std::numbers::pi)))    \
  X(Erfinv, erfinv, ErfinvF, Output, g * (y * y).exp() * (std::sqrt(std::numbers::pi) / 2))
#define EMBER_UNARY_TRIG_OPS(X)                                                           \
  X(Sin, sin, SinF, Input, g * x.cos())                                                   \
  X(Cos, cos, CosF, Input, -g * x.sin())                                                  \
  X(Tan, tan, TanF, Output, g * (y * y + 1))                                              \
  X(Asin, asin, AsinF, Input, g * (1 - x * x).rsqrt())                                    \
  X(Acos, acos, AcosF, Input, -g * (1 - x * x).rsqrt())                                   \
  X(Atan, atan, AtanF, Input, g / (x * x + 1))                                            \
  X(Sinh, sinh, SinhF, Input, g * x.cosh())                                               \
  X(Cosh, cosh, CoshF, Input, g * x.sinh())                                               \
  X(Tanh, tanh, TanhF, Output, fused(y))                                                  \
  X(Floor, floor, FloorF, Nothing, zeros_like(g))                                         \
  X(Ceil, ceil, CeilF, Nothing, zeros_like(g))                                            \
  X(Trunc, trunc, TruncF, Nothing, zeros_like(g))                                         \
  X(Frac, frac, FracF, Nothing, g)
#define EMBER_UNARY_ACTIVATION_OPS(X)                                                     \
  X(Sigmoid, sigmoid, SigmoidF, Output, fused(y))                                         \
  X(Silu, silu, SiluF, Input, fused(x))                                                   \
  X(Mish, mish, MishF, Input, g * mish_slope(x))                                          \
  X(Hardsigmoid, hardsigmoid, HardsigmoidF, Input,                                        \
    (g / 6).masked_fill((x <= -3) | (x >= 3), 0))                                         \
  X(Hardswish, hardswish, HardswishF, Input,                                              \
    where(x < -3, zeros_like(g), where(x <= 3, g * (x / 3 + 0.5), g)))
#define EMBER_UNARY_TABLE_OPS(X) \
  EMBER_UNARY_MATH_OPS(X) EMBER_UNARY_TRIG_OPS(X) EMBER_UNARY_ACTIVATION_OPS(X)

// X(Op, name): the other unary ops (their arguments in UnaryArgs are listed on the right).
#define EMBER_UNARY_OTHER_OPS(X)                                                          \
  X(Abs, abs)                                                                             \
  X(Neg, neg)                                                                             \
  X(Sign, sign)                                                                           \
  X(Logit, logit)            /* a: eps (absent: no clamping) */                          \
  X(Round, round)            /* decimals */                                               \
  X(Relu, relu)                                                                           \
  X(Gelu, gelu)              /* tanh_approx */                                            \
  X(Softplus, softplus)      /* a: beta, b: threshold */                                  \
  X(Elu, elu)                /* a: alpha, b: scale, c: input_scale */                     \
  X(LeakyRelu, leaky_relu)   /* a: negative_slope */                                      \
  X(Hardtanh, hardtanh)      /* a: min_val, b: max_val */                                 \
  X(NanToNum, nan_to_num)    /* a: nan, b: posinf, c: neginf (absent: dtype's max/lowest) */ \
  X(IsNan, isnan)                                                                         \
  X(IsInf, isinf)                                                                         \
  X(IsFinite, isfinite)                                                                   \
  X(LogicalNot, logical_not)                                                              \
  X(BitwiseNot, bitwise_not)
// clang-format on

#define EMBER_UNARY_ENUMERATOR(Op, ...) Op,
enum class UnaryOp : uint8_t {
  EMBER_UNARY_TABLE_OPS(EMBER_UNARY_ENUMERATOR) EMBER_UNARY_OTHER_OPS(EMBER_UNARY_ENUMERATOR)
};
#undef EMBER_UNARY_ENUMERATOR
/// The value names ("Exp", "LeakyRelu"), for printing and JSON.
EnumInfo enum_info(UnaryOp);

/// What a unary op's vjp reads besides the gradient.
enum class UnaryReads : uint8_t { Input, Output, Nothing };

/// The non-tensor arguments of a unary op; which ones an op reads is listed on UnaryOp.
struct UnaryArgs {
  std::optional<Scalar> a, b, c;
  int64_t decimals = 0;
  bool tanh_approx = false;
  EMBER_FIELDS(a, b, c, decimals, tanh_approx)
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
  const char* default_name() const override { return unary_op_name(p_.op); }
  EMBER_CPU_DISPATCHED_KERNEL;
  std::string describe() const override;
  UnaryOp op() const { return p_.op; }
  const UnaryArgs& args() const { return p_.args; }
};

/// Note [Fused unary backward] (src/backend/cpu/unary_functors.h): grad_input = g * f'(x) in one
/// kernel, as PyTorch's sigmoid_backward and tanh_backward (inputs g and the output y) and
/// silu_backward and gelu_backward (g and the input x), for the ops has_fused_backward names. The
/// op's vjp (`fused` in the unary table) runs it; its own vjp gives double backward, and it
/// decomposes into the same formula written with Ember ops for the compiler.
bool has_fused_backward(UnaryOp op);

class UnaryBackward : public PrimitiveOf<UnaryBackward, UnaryParams, PrimitiveKind::UnaryBackward> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit UnaryBackward(UnaryOp op, UnaryArgs args = {}) : PrimitiveOf({op, std::move(args)}) {}
  EMBER_VJP
  EMBER_INFER
  EMBER_DECOMPOSE
  const char* default_name() const override;  // "silu_backward", ...
  EMBER_CPU_DISPATCHED_KERNEL;
  std::string describe() const override { return Unary(p_.op, p_.args).describe(); }
  UnaryOp op() const { return p_.op; }
  const UnaryArgs& args() const { return p_.args; }
};

/// g * f'(v) for the unary op `op` (v: its input x, or its output y where the op's vjp reads y):
/// UnaryBackward where it applies (has_fused_backward, g and v of one shape and dtype), else the
/// same formula with Ember ops.
Tensor unary_backward(UnaryOp op, const UnaryArgs& args, const Tensor& g, const Tensor& v);

}  // namespace ember
