// Unary elementwise ops: validation and result dtype (Note [Unary dtypes] in primitives/unary.h),
// then one Unary primitive through dispatch. In-place variants write into self after the checks
// PyTorch makes (no internal overlap, result dtype castable to self's dtype).
#include "primitives/unary.h"

#include <cmath>

#include "ember/ops/elementwise.h"
#include "ops/util.h"

namespace ember {
namespace {

void check_input(const Tensor& x, const char* op) {
  EMBER_CHECK(x.defined(), "[", op, "] expected a defined tensor but got an undefined one");
  ops::check_implemented(x.dtype(), op);
}

[[noreturn]] void not_implemented(const char* op, ScalarType dt) {
  EMBER_THROW(TypeError, "[", op, "] \"", op, "_cpu\" not implemented for '", dtype_name(dt), "'");
}

// Note [Unary dtypes]: the primitive keeps its input's dtype (predicates give bool), so an op
// that computes in floating point on integers converts them first, visibly.
Tensor apply(const Tensor& x, UnaryOp op, ScalarType out_dtype, UnaryArgs args = {}) {
  const bool convert = out_dtype != kBool && out_dtype != x.dtype();
  return dispatch(Unary(op, std::move(args)), {convert ? x.to(out_dtype) : x})[0];
}

/// Writes op(self) into self (the checks are done by the caller).
Tensor& apply_(Tensor& self, UnaryOp op, UnaryArgs args = {}) {
  dispatch(in_place(Unary(op, std::move(args))), {self}, {self});
  return self;
}

void check_inplace(const Tensor& self, const char* name) {
  check_input(self, name);
  ops::check_no_internal_overlap(self, name);
}

// ---- ops that compute in floating point: integral and bool inputs give the default dtype.
ScalarType float_result(ScalarType t) { return is_floating_point(t) ? t : get_default_dtype(); }

Tensor float_op(const Tensor& x, UnaryOp op, UnaryArgs args = {}) {
  check_input(x, unary_op_name(op));
  return apply(x, op, float_result(x.dtype()), std::move(args));
}

Tensor& float_op_(Tensor& self, UnaryOp op, const char* name, UnaryArgs args = {}) {
  check_inplace(self, name);
  const ScalarType r = float_result(self.dtype());
  EMBER_CHECK(r == self.dtype(), "[", name, "] result type ", dtype_name(r),
              " can't be cast to the desired output type ", dtype_name(self.dtype()));
  return apply_(self, op, std::move(args));
}

// ---- ops defined for floating dtypes only (the activations, frac).
void check_floating(ScalarType t, const char* op) {
  if (!is_floating_point(t)) not_implemented(op, t);
}

Tensor floating_only(const Tensor& x, UnaryOp op, UnaryArgs args = {}) {
  const char* name = unary_op_name(op);
  check_input(x, name);
  check_floating(x.dtype(), name);
  return apply(x, op, x.dtype(), std::move(args));
}

Tensor& floating_only_(Tensor& self, UnaryOp op, const char* name, UnaryArgs args = {}) {
  check_inplace(self, name);
  check_floating(self.dtype(), unary_op_name(op));
  return apply_(self, op, std::move(args));
}

// ---- floor, ceil, trunc, round: identity on integers (as PyTorch since gh-70918), bool rejected.
Tensor rounding(const Tensor& x, UnaryOp op, int64_t decimals = 0) {
  const char* name = unary_op_name(op);
  check_input(x, name);
  if (is_integral(x.dtype(), /*include_bool=*/false) && decimals == 0) return x.clone();
  check_floating(x.dtype(), name);
  UnaryArgs args;
  args.decimals = decimals;
  return apply(x, op, x.dtype(), args);
}

Tensor& rounding_(Tensor& self, UnaryOp op, const char* name, int64_t decimals = 0) {
  check_inplace(self, name);
  if (is_integral(self.dtype(), /*include_bool=*/false) && decimals == 0) {
    self.unsafeGetTensorImpl()->bump_version();  // a no-op write, still a write for autograd
    return self;
  }
  check_floating(self.dtype(), unary_op_name(op));
  UnaryArgs args;
  args.decimals = decimals;
  return apply_(self, op, args);
}

// ---- abs, neg, sign, relu: dtype-preserving, defined for integers too.
void check_numeric(ScalarType t, UnaryOp op, const char* name) {
  if (t != kBool || op == UnaryOp::Sign) return;  // sign of a bool is itself
  EMBER_CHECK(op != UnaryOp::Neg, "[", name,
              "] Negation, the `-` operator, on a bool tensor is not supported. If you are "
              "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  EMBER_CHECK(op != UnaryOp::Relu, "[", name, "] Boolean inputs not supported for relu");
  not_implemented("abs", t);
}

Tensor numeric(const Tensor& x, UnaryOp op) {
  const char* name = unary_op_name(op);
  check_input(x, name);
  check_numeric(x.dtype(), op, name);
  return apply(x, op, x.dtype());
}

Tensor& numeric_(Tensor& self, UnaryOp op, const char* name) {
  check_inplace(self, name);
  check_numeric(self.dtype(), op, name);
  return apply_(self, op);
}

UnaryArgs logit_args(std::optional<double> eps) {
  UnaryArgs args;
  if (eps) args.a = *eps;
  return args;
}

}  // namespace

// ---- functions computing in floating point (int/bool -> default dtype)
#define EMBER_FLOAT_UNARY(name, Op)                                    \
  Tensor name(const Tensor& x) { return float_op(x, UnaryOp::Op); }    \
  Tensor Tensor::name() const { return float_op(*this, UnaryOp::Op); } \
  const Tensor& Tensor::name##_() const {                              \
    return float_op_(mutable_self(), UnaryOp::Op, #name "_");          \
  }
EMBER_FLOAT_UNARY(exp, Exp)
EMBER_FLOAT_UNARY(exp2, Exp2)
EMBER_FLOAT_UNARY(expm1, Expm1)
EMBER_FLOAT_UNARY(log, Log)
EMBER_FLOAT_UNARY(log2, Log2)
EMBER_FLOAT_UNARY(log10, Log10)
EMBER_FLOAT_UNARY(log1p, Log1p)
EMBER_FLOAT_UNARY(sqrt, Sqrt)
EMBER_FLOAT_UNARY(rsqrt, Rsqrt)
EMBER_FLOAT_UNARY(reciprocal, Reciprocal)
EMBER_FLOAT_UNARY(sin, Sin)
EMBER_FLOAT_UNARY(cos, Cos)
EMBER_FLOAT_UNARY(tan, Tan)
EMBER_FLOAT_UNARY(asin, Asin)
EMBER_FLOAT_UNARY(acos, Acos)
EMBER_FLOAT_UNARY(atan, Atan)
EMBER_FLOAT_UNARY(sinh, Sinh)
EMBER_FLOAT_UNARY(cosh, Cosh)
EMBER_FLOAT_UNARY(tanh, Tanh)
EMBER_FLOAT_UNARY(sigmoid, Sigmoid)
EMBER_FLOAT_UNARY(erf, Erf)
EMBER_FLOAT_UNARY(erfc, Erfc)
EMBER_FLOAT_UNARY(erfinv, Erfinv)
#undef EMBER_FLOAT_UNARY

Tensor logit(const Tensor& x, std::optional<double> eps) {
  return float_op(x, UnaryOp::Logit, logit_args(eps));
}
Tensor Tensor::logit(std::optional<double> eps) const { return ember::logit(*this, eps); }

// ---- dtype-preserving arithmetic
Tensor abs(const Tensor& x) { return numeric(x, UnaryOp::Abs); }
Tensor neg(const Tensor& x) { return numeric(x, UnaryOp::Neg); }
Tensor negative(const Tensor& x) { return neg(x); }
Tensor sign(const Tensor& x) { return numeric(x, UnaryOp::Sign); }
Tensor relu(const Tensor& x) { return numeric(x, UnaryOp::Relu); }
Tensor Tensor::abs() const { return ember::abs(*this); }
Tensor Tensor::neg() const { return ember::neg(*this); }
Tensor Tensor::sign() const { return ember::sign(*this); }
Tensor Tensor::relu() const { return ember::relu(*this); }
const Tensor& Tensor::abs_() const { return numeric_(mutable_self(), UnaryOp::Abs, "abs_"); }
const Tensor& Tensor::neg_() const { return numeric_(mutable_self(), UnaryOp::Neg, "neg_"); }
const Tensor& Tensor::sign_() const { return numeric_(mutable_self(), UnaryOp::Sign, "sign_"); }
const Tensor& Tensor::relu_() const { return numeric_(mutable_self(), UnaryOp::Relu, "relu_"); }
Tensor operator-(const Tensor& a) { return neg(a); }

// ---- rounding
Tensor floor(const Tensor& x) { return rounding(x, UnaryOp::Floor); }
Tensor ceil(const Tensor& x) { return rounding(x, UnaryOp::Ceil); }
Tensor trunc(const Tensor& x) { return rounding(x, UnaryOp::Trunc); }
Tensor round(const Tensor& x, int64_t decimals) { return rounding(x, UnaryOp::Round, decimals); }
Tensor Tensor::floor() const { return ember::floor(*this); }
Tensor Tensor::ceil() const { return ember::ceil(*this); }
Tensor Tensor::trunc() const { return ember::trunc(*this); }
Tensor Tensor::round(int64_t decimals) const { return ember::round(*this, decimals); }
const Tensor& Tensor::floor_() const { return rounding_(mutable_self(), UnaryOp::Floor, "floor_"); }
const Tensor& Tensor::ceil_() const { return rounding_(mutable_self(), UnaryOp::Ceil, "ceil_"); }
const Tensor& Tensor::trunc_() const { return rounding_(mutable_self(), UnaryOp::Trunc, "trunc_"); }
const Tensor& Tensor::round_(int64_t decimals) const {
  return rounding_(mutable_self(), UnaryOp::Round, "round_", decimals);
}
Tensor frac(const Tensor& x) { return floating_only(x, UnaryOp::Frac); }
Tensor Tensor::frac() const { return ember::frac(*this); }
const Tensor& Tensor::frac_() const {
  return floating_only_(mutable_self(), UnaryOp::Frac, "frac_");
}

// ---- activations (floating dtypes only, except relu above and hardtanh)
Tensor gelu(const Tensor& x, const std::string& approximate) {
  EMBER_CHECK(approximate == "none" || approximate == "tanh",
              "[gelu] approximate argument must be either none or tanh.");
  UnaryArgs args;
  args.tanh_approx = approximate == "tanh";
  return floating_only(x, UnaryOp::Gelu, args);
}
Tensor silu(const Tensor& x) { return floating_only(x, UnaryOp::Silu); }
Tensor mish(const Tensor& x) { return floating_only(x, UnaryOp::Mish); }
Tensor hardsigmoid(const Tensor& x) { return floating_only(x, UnaryOp::Hardsigmoid); }
Tensor hardswish(const Tensor& x) { return floating_only(x, UnaryOp::Hardswish); }

Tensor softplus(const Tensor& x, const Scalar& beta, const Scalar& threshold) {
  UnaryArgs args;
  args.a = beta;
  args.b = threshold;
  return floating_only(x, UnaryOp::Softplus, args);
}

Tensor elu(const Tensor& x, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  UnaryArgs args;
  args.a = alpha;
  args.b = scale;
  args.c = input_scale;
  return floating_only(x, UnaryOp::Elu, args);
}

Tensor leaky_relu(const Tensor& x, const Scalar& negative_slope) {
  UnaryArgs args;
  args.a = negative_slope;
  return floating_only(x, UnaryOp::LeakyRelu, args);
}

Tensor hardtanh(const Tensor& x, const Scalar& min_val, const Scalar& max_val) {
  check_input(x, "hardtanh");
  EMBER_CHECK(x.dtype() != kBool, "[hardtanh] Bool inputs not supported for hardtanh");
  UnaryArgs args;
  if (is_integral(x.dtype(), /*include_bool=*/false)) {
    // As PyTorch: integer inputs clamp to the limits truncated to integers, without promotion.
    const int64_t lo = min_val.toLong(), hi = max_val.toLong();
    EMBER_CHECK(x.dtype() != kUInt8 || (lo >= 0 && hi >= 0),
                "[hardtanh] cannot do hardtanh on an unsigned type with negative limits");
    args.a = lo;
    args.b = hi;
  } else {
    args.a = min_val;
    args.b = max_val;
  }
  return apply(x, UnaryOp::Hardtanh, x.dtype(), args);
}

// ---- special values
Tensor nan_to_num(const Tensor& x, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  check_input(x, "nan_to_num");
  if (!is_floating_point(x.dtype())) return x.clone();  // integers and bools have no NaN / inf
  UnaryArgs args;
  if (nan) args.a = *nan;
  if (posinf) args.b = *posinf;
  if (neginf) args.c = *neginf;
  return apply(x, UnaryOp::NanToNum, x.dtype(), args);
}
Tensor Tensor::nan_to_num(std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf) const {
  return ember::nan_to_num(*this, nan, posinf, neginf);
}

#define EMBER_PREDICATE(name, Op)        \
  Tensor name(const Tensor& x) {         \
    check_input(x, #name);               \
    return apply(x, UnaryOp::Op, kBool); \
  }                                      \
  Tensor Tensor::name() const { return ember::name(*this); }
EMBER_PREDICATE(isnan, IsNan)
EMBER_PREDICATE(isinf, IsInf)
EMBER_PREDICATE(isfinite, IsFinite)
EMBER_PREDICATE(logical_not, LogicalNot)
#undef EMBER_PREDICATE

const Tensor& Tensor::logical_not_() const {
  check_inplace(mutable_self(), "logical_not_");
  return apply_(mutable_self(), UnaryOp::LogicalNot);
}

// ---- bitwise_not: integral and bool only
Tensor bitwise_not(const Tensor& x) {
  check_input(x, "bitwise_not");
  if (is_floating_point(x.dtype())) not_implemented("bitwise_not", x.dtype());
  return apply(x, UnaryOp::BitwiseNot, x.dtype());
}
Tensor Tensor::bitwise_not() const { return ember::bitwise_not(*this); }
const Tensor& Tensor::bitwise_not_() const {
  check_inplace(mutable_self(), "bitwise_not_");
  if (ember::is_floating_point(dtype())) not_implemented("bitwise_not", dtype());
  return apply_(mutable_self(), UnaryOp::BitwiseNot);
}
Tensor operator~(const Tensor& a) { return bitwise_not(a); }

}  // namespace ember
