#include "compiler/lowering_ops.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "primitives/binary.h"
#include "primitives/copy.h"
#include "primitives/reduction.h"
#include "primitives/ternary.h"
#include "primitives/unary.h"

namespace ember::compiler {

bool is_float(ScalarType t) { return t == kFloat32 || t == kFloat64 || is_reduced_float(t); }

bool is_reduced_float(ScalarType t) { return t == kBFloat16 || t == kFloat16; }

ScalarType compute_dtype(ScalarType t) { return is_reduced_float(t) ? kFloat32 : t; }

const char* vtype(ScalarType t) { return ctype(compute_dtype(t)); }

const char* ctype(ScalarType t) {
  switch (t) {
    case kFloat32:
      return "float";
    case kFloat64:
      return "double";
    case kBFloat16:
      return "ember::BFloat16";
    case kFloat16:
      return "ember::Half";
    case kBool:
      return "bool";
    case kInt64:
      return "int64_t";
    case kInt32:
      return "int32_t";
    default:
      return nullptr;
  }
}

namespace {

bool handled(ScalarType t) { return ctype(t) != nullptr; }

// A double as an exact C++ literal (hexadecimal), infinities and NaN included.
std::string double_literal(double d) {
  if (std::isnan(d)) return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(d)) {
    return d > 0 ? "std::numeric_limits<double>::infinity()"
                 : "(-std::numeric_limits<double>::infinity())";
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%a", d);
  return d < 0 ? std::string("(") + buf + ")" : std::string(buf);
}

std::string typed(ScalarType t, double d) {
  return std::string(vtype(t)) + "(" + double_literal(d) + ")";
}

// A float converted to the 16-bit dtype `t` and back, as eager's conversions round it.
double rounded(ScalarType t, float f) {
  return t == kBFloat16 ? static_cast<float>(BFloat16(f)) : static_cast<float>(Half(f));
}

// `Name<T>{args}`: a functor of the shared header, instantiated for the compute type T.
std::string functor(const std::string& name, const std::string& T, const std::string& args = "") {
  return name + "<" + T + ">{" + args + "}";
}

// The fused activation backwards generated (Note [Fused unary backward]): eager's functor, so a
// compiled gelu/silu backward is eager's one pass rather than its decomposed formula.
std::optional<std::string> unary_backward_functor(const UnaryBackward& u, const std::string& T) {
  switch (u.op()) {
    case UnaryOp::Relu:
      return functor("ReluBackwardF", T);
    case UnaryOp::Sigmoid:
      return functor("SigmoidBackwardF", T);
    case UnaryOp::Tanh:
      return functor("TanhBackwardF", T);
    case UnaryOp::Silu:
      return functor("SiluBackwardF", T);
    case UnaryOp::Gelu:
      return functor(u.args().tanh_approx ? "GeluTanhBackwardF" : "GeluBackwardF", T);
    default:
      return std::nullopt;
  }
}

// The unary ops generated, with their functor (the table's for the table ops).
std::optional<std::string> unary_functor(const Unary& u, const std::string& T) {
  const UnaryArgs& a = u.args();
  switch (u.op()) {
#define EMBER_UNARY_FUNCTOR(Op, name, Functor, ...) \
  case UnaryOp::Op:                                 \
    return functor(#Functor, T);
    EMBER_UNARY_TABLE_OPS(EMBER_UNARY_FUNCTOR)
#undef EMBER_UNARY_FUNCTOR
    case UnaryOp::Abs:
      return functor("AbsF", T);
    case UnaryOp::Neg:
      return functor("NegF", T);
    case UnaryOp::Relu:
      return functor("ReluF", T);
    case UnaryOp::Sign:
      return functor("SignF", T);
    case UnaryOp::Gelu:
      return functor(a.tanh_approx ? "GeluTanhF" : "GeluF", T);
    case UnaryOp::LeakyRelu:
      if (!a.a) return std::nullopt;
      return functor("LeakyReluF", T, T + "(" + double_literal(a.a->toDouble()) + ")");
    case UnaryOp::Hardtanh:
      if (!a.a || !a.b) return std::nullopt;
      return functor("HardtanhF", T,
                     T + "(" + double_literal(a.a->toDouble()) + "), " + T + "(" +
                         double_literal(a.b->toDouble()) + ")");
    case UnaryOp::Logit:
    case UnaryOp::Round:
    case UnaryOp::Softplus:
    case UnaryOp::Elu:
    case UnaryOp::NanToNum:
    case UnaryOp::IsNan:
    case UnaryOp::IsInf:
    case UnaryOp::IsFinite:
    case UnaryOp::LogicalNot:
    case UnaryOp::BitwiseNot:
      return std::nullopt;
  }
  return std::nullopt;
}

// The unary ops with a bool result that are generated: logical_not of any dtype, isnan, isinf
// and isfinite of floats.
bool predicate(UnaryOp op, ScalarType in) {
  if (op == UnaryOp::LogicalNot) return true;
  return is_float(in) && (op == UnaryOp::IsNan || op == UnaryOp::IsInf || op == UnaryOp::IsFinite);
}

bool integer_arith(BinaryOp op) {
  return op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul ||
         op == BinaryOp::Maximum || op == BinaryOp::Minimum;
}

bool arith(BinaryOp op) {
  return op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul || op == BinaryOp::Div ||
         op == BinaryOp::Maximum || op == BinaryOp::Minimum || op == BinaryOp::Pow;
}

const char* compare_op(BinaryOp op) {
  switch (op) {
    case BinaryOp::Eq:
      return "==";
    case BinaryOp::Ne:
      return "!=";
    case BinaryOp::Lt:
      return "<";
    case BinaryOp::Le:
      return "<=";
    case BinaryOp::Gt:
      return ">";
    case BinaryOp::Ge:
      return ">=";
    case BinaryOp::LogicalAnd:
      return "&&";
    case BinaryOp::LogicalOr:
      return "||";
    case BinaryOp::LogicalXor:
      return "!=";
    default:
      return nullptr;
  }
}

// Integer add, sub and mul as eager's: wrapping, and a + alpha * b for add and sub.
std::string integer_expr(const Binary& b, const std::string& x, const std::string& y,
                         const std::string& T) {
  if (b.op() == BinaryOp::Mul) return "bin::wrap_mul<" + T + ">(" + x + ", " + y + ")";
  const std::string op = b.op() == BinaryOp::Add ? "bin::wrap_add<" : "bin::wrap_sub<";
  const int64_t alpha = b.alpha().to<int64_t>();
  if (alpha == 1) return op + T + ">(" + x + ", " + y + ")";
  const std::string a = T + "(INT64_C(" + std::to_string(alpha) + "))";
  return op + T + ">(" + x + ", bin::wrap_mul<" + T + ">(" + a + ", " + y + "))";
}

std::optional<std::string> binary_expr(const Binary& b, const std::string& x, const std::string& y,
                                       ScalarType dt, bool vector) {
  const std::string T = vtype(dt);
  const std::string V = "Vec<" + T + ">";
  if (const char* c = compare_op(b.op())) {
    if (vector) return std::nullopt;
    const bool logical = b.op() >= BinaryOp::LogicalAnd;
    if (logical) {
      return "(static_cast<bool>(" + x + ") " + c + " static_cast<bool>(" + y + "))";
    }
    return "(" + x + " " + c + " " + y + ")";
  }
  switch (b.op()) {
    case BinaryOp::Add:
    case BinaryOp::Sub: {
      if (!is_float(dt)) return integer_expr(b, x, y, T);
      // As eager's add/sub: a + b, a - b, or a + alpha * b (alpha negated for sub; float for
      // the 16-bit floats, as their opmath).
      double alpha = compute_dtype(dt) == kFloat32 ? b.alpha().to<float>() : b.alpha().to<double>();
      if (b.op() == BinaryOp::Sub) alpha = -alpha;
      if (alpha == 1) return "(" + x + " + " + y + ")";
      if (alpha == -1) return "(" + x + " - " + y + ")";
      const std::string a = typed(dt, alpha);
      return "(" + x + " + " + (vector ? V + "(" + a + ")" : a) + " * " + y + ")";
    }
    case BinaryOp::Mul:
      if (!is_float(dt)) return integer_expr(b, x, y, T);
      return "(" + x + " * " + y + ")";
    case BinaryOp::Div:
      return "(" + x + " / " + y + ")";
    case BinaryOp::Maximum:
      return vector ? "vmax(" + x + ", " + y + ")"
                    : "bin::maximum<" + T + ">(" + x + ", " + y + ")";
    case BinaryOp::Minimum:
      return vector ? "vmin(" + x + ", " + y + ")"
                    : "bin::minimum<" + T + ">(" + x + ", " + y + ")";
    case BinaryOp::Pow:
      if (vector) return std::nullopt;
      return "static_cast<" + T + ">(std::pow(" + x + ", " + y + "))";
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<ConstValue> fill_value(const Scalar& value, ScalarType dtype) {
  ConstValue c;
  c.dtype = dtype;
  switch (dtype) {
    case kFloat32:
      c.f = value.to<float>();
      return c;
    case kFloat64:
      c.f = value.to<double>();
      return c;
    case kBFloat16:
      c.f = static_cast<float>(value.to<BFloat16>());
      return c;
    case kFloat16:
      c.f = static_cast<float>(value.to<Half>());
      return c;
    case kInt64:
      c.i = value.to<int64_t>();
      return c;
    case kInt32:
      c.i = value.to<int32_t>();
      return c;
    case kBool:
      c.b = value.to<bool>();
      return c;
    default:
      return std::nullopt;
  }
}

std::optional<ConstValue> convert(const ConstValue& c, ScalarType dtype) {
  if (!handled(dtype)) return std::nullopt;
  ConstValue r;
  r.dtype = dtype;
  const bool from_float = is_float(c.dtype), from_bool = c.dtype == kBool;
  if (is_float(dtype)) {
    // As the copy kernel: through float for float32 and the 16-bit floats (then rounded).
    if (from_float) {
      r.f = dtype == kFloat64 ? c.f : static_cast<float>(c.f);
    } else if (from_bool) {
      r.f = c.b ? 1 : 0;
    } else {
      r.f = dtype == kFloat64 ? static_cast<double>(c.i)
                              : static_cast<double>(static_cast<float>(c.i));
    }
    if (is_reduced_float(dtype)) r.f = rounded(dtype, static_cast<float>(r.f));
  } else if (dtype == kBool) {
    r.b = from_float ? c.f != 0 : (from_bool ? c.b : c.i != 0);
  } else {
    if (from_float) return std::nullopt;  // out-of-range float-to-int is not portable
    r.i = from_bool ? (c.b ? 1 : 0) : (dtype == kInt32 ? static_cast<int32_t>(c.i) : c.i);
  }
  return r;
}

std::string literal(const ConstValue& c) {
  switch (c.dtype) {
    case kFloat32:
    case kFloat64:
    case kBFloat16:
    case kFloat16:
      return typed(c.dtype, c.f);
    case kBool:
      return c.b ? "true" : "false";
    default:
      return std::string(ctype(c.dtype)) + "(INT64_C(" + std::to_string(c.i) + "))";
  }
}

bool pointwise_supported(const Primitive& prim, const std::vector<ScalarType>& in, ScalarType out) {
  for (ScalarType t : in) {
    if (!handled(t)) return false;
  }
  if (!handled(out)) return false;
  switch (prim.kind()) {
    case PrimitiveKind::Unary: {
      const auto& u = static_cast<const Unary&>(prim);
      if (in.size() == 1 && out == kBool && predicate(u.op(), in[0])) return true;
      return in.size() == 1 && in[0] == out && is_float(out) &&
             unary_functor(u, vtype(out)).has_value();
    }
    case PrimitiveKind::UnaryBackward:
      return in.size() == 2 && in[0] == out && in[1] == out && is_float(out) &&
             unary_backward_functor(static_cast<const UnaryBackward&>(prim), vtype(out));
    case PrimitiveKind::Binary: {
      const auto& b = static_cast<const Binary&>(prim);
      // Note [Reduced-float scalars] (ops/binary.cpp): a 16-bit input times or over a float32
      // element; both are floats in the generated code, as in eager's kernel.
      if (in.size() == 2 && is_reduced_float(in[0]) && in[1] == kFloat32) {
        return (b.op() == BinaryOp::Mul || b.op() == BinaryOp::Div) && out == in[0];
      }
      if (in.size() != 2 || in[0] != in[1]) return false;
      if (compare_op(b.op())) return out == kBool;
      if (!is_float(in[0])) return integer_arith(b.op()) && in[0] != kBool && out == in[0];
      return arith(b.op()) && out == in[0];
    }
    case PrimitiveKind::Where:
      return in.size() == 3 && in[0] == kBool && in[1] == out && in[2] == out;
    case PrimitiveKind::MaskedFill:
      return in.size() == 2 && in[1] == kBool && in[0] == out &&
             fill_value(static_cast<const MaskedFill&>(prim).params().value, out).has_value();
    case PrimitiveKind::Clamp: {
      const ClampParams& p = static_cast<const Clamp&>(prim).params();
      return in.size() == 1 && !p.tensor_bounds && is_float(out) && in[0] == out &&
             (!p.has_min || p.min) && (!p.has_max || p.max);
    }
    case PrimitiveKind::Copy:
      return in.size() == 1 && (is_float(out) || out == kBool);
    default:
      return false;
  }
}

bool reduce_supported(const Primitive& prim, ScalarType in) {
  const auto& r = static_cast<const Reduce&>(prim);
  if (!is_float(in) || r.params().dtype != in) return false;
  switch (r.op()) {
    case ReduceOp::Sum:
    case ReduceOp::Mean:
    case ReduceOp::Prod:
    case ReduceOp::AMax:
    case ReduceOp::AMin:
    case ReduceOp::Var:
    case ReduceOp::Std:
    case ReduceOp::VarMean:
    case ReduceOp::StdMean:
    case ReduceOp::LogSumExp:
      return true;
    default:
      return false;
  }
}

namespace {

// Ops with bool values in a vectorised kernel, where a bool lane is 1 or 0 of the kernel's float
// type V (comparisons give those, selects read them); nullopt for the others.
std::optional<std::string> bool_vector_expr(const Primitive& prim,
                                            const std::vector<std::string>& args,
                                            const std::vector<ScalarType>& in, ScalarType out) {
  auto fn = [](const std::string& f, const std::string& a, const std::string& b) {
    return f + "(" + a + ", " + b + ")";
  };
  switch (prim.kind()) {
    case PrimitiveKind::Binary: {
      const BinaryOp op = static_cast<const Binary&>(prim).op();
      static const std::map<BinaryOp, const char*> cmp = {
          {BinaryOp::Lt, "ember_cmp_lt"}, {BinaryOp::Le, "ember_cmp_le"},
          {BinaryOp::Gt, "ember_cmp_gt"}, {BinaryOp::Ge, "ember_cmp_ge"},
          {BinaryOp::Eq, "ember_cmp_eq"}, {BinaryOp::Ne, "ember_cmp_ne"}};
      if (auto it = cmp.find(op); it != cmp.end() && is_float(in[0])) {
        return fn(it->second, args[0], args[1]);
      }
      if (in[0] != kBool) return std::nullopt;
      if (op == BinaryOp::LogicalAnd) return "(" + args[0] + " * " + args[1] + ")";
      if (op == BinaryOp::LogicalOr) return fn("vmax", args[0], args[1]);
      if (op == BinaryOp::LogicalXor || op == BinaryOp::Ne)
        return fn("ember_cmp_ne", args[0], args[1]);
      if (op == BinaryOp::Eq) return fn("ember_cmp_eq", args[0], args[1]);
      return std::nullopt;
    }
    case PrimitiveKind::Unary: {
      const UnaryOp op = static_cast<const Unary&>(prim).op();
      if (op == UnaryOp::LogicalNot) {
        return in[0] == kBool ? "(V(1) - " + args[0] + ")" : fn("ember_cmp_eq", args[0], "V(0)");
      }
      if (!is_float(in[0])) return std::nullopt;
      if (op == UnaryOp::IsNan) return fn("ember_cmp_ne", args[0], args[0]);
      // |x| == inf, |x| < inf (false for NaN): as std::isinf and std::isfinite.
      const std::string inf = "V(INFINITY)";
      if (op == UnaryOp::IsInf) return fn("ember_cmp_eq", "vabs(" + args[0] + ")", inf);
      if (op == UnaryOp::IsFinite) return fn("ember_cmp_lt", "vabs(" + args[0] + ")", inf);
      return std::nullopt;
    }
    case PrimitiveKind::Where:
      return "ember_select(" + args[0] + ", " + args[1] + ", " + args[2] + ")";
    case PrimitiveKind::MaskedFill: {
      const auto c = fill_value(static_cast<const MaskedFill&>(prim).params().value, out);
      return "ember_select(" + args[1] + ", V(" + literal(*c) + "), " + args[0] + ")";
    }
    case PrimitiveKind::Copy:
      if (in[0] == kBool && (is_float(out) || out == kBool)) return args[0];
      if (out == kBool && is_float(in[0])) return fn("ember_cmp_ne", args[0], "V(0)");
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<std::string> pointwise_expr(const Primitive& prim,
                                          const std::vector<std::string>& args,
                                          const std::vector<ScalarType>& in, ScalarType out,
                                          bool vector) {
  bool bools = out == kBool;
  for (ScalarType t : in) bools = bools || t == kBool;
  if (vector && bools) return bool_vector_expr(prim, args, in, out);
  const std::string T = vtype(out);
  const std::string V = "Vec<" + T + ">";
  switch (prim.kind()) {
    case PrimitiveKind::Unary: {
      if (out == kBool) {
        if (vector) return std::nullopt;
        switch (static_cast<const Unary&>(prim).op()) {
          case UnaryOp::LogicalNot:
            return "(" + args[0] + " == 0)";
          case UnaryOp::IsNan:
            return "static_cast<bool>(std::isnan(" + args[0] + "))";
          case UnaryOp::IsInf:
            return "static_cast<bool>(std::isinf(" + args[0] + "))";
          default:
            return "static_cast<bool>(std::isfinite(" + args[0] + "))";
        }
      }
      const auto& u = static_cast<const Unary&>(prim);
      const auto f = unary_functor(u, T);
      if (!f) return std::nullopt;
      // Note [Generated exp]: the eager library's inlined polynomial exp (vexp_fast, within 1 ulp,
      // as eager's sigmoid/silu/gelu use it) instead of SLEEF's call, so a fused chain with an
      // exp streams at memory speed; the scalar tail is std::exp, as eager's.
      if (vector && u.op() == UnaryOp::Exp) return "vexp_fast(" + args[0] + ")";
      return vector ? *f + ".vec(" + args[0] + ")" : *f + "(" + args[0] + ")";
    }
    case PrimitiveKind::UnaryBackward: {
      const auto f = unary_backward_functor(static_cast<const UnaryBackward&>(prim), T);
      if (!f) return std::nullopt;
      return *f + (vector ? ".vec(" : "(") + args[0] + ", " + args[1] + ")";
    }
    case PrimitiveKind::Binary:
      return binary_expr(static_cast<const Binary&>(prim), args[0], args[1], in[0], vector);
    case PrimitiveKind::Where:
      if (vector) return std::nullopt;
      return "(" + args[0] + " ? " + args[1] + " : " + args[2] + ")";
    case PrimitiveKind::MaskedFill: {
      if (vector) return std::nullopt;
      const auto c = fill_value(static_cast<const MaskedFill&>(prim).params().value, out);
      return "(" + args[1] + " ? " + literal(*c) + " : " + args[0] + ")";
    }
    case PrimitiveKind::Clamp: {
      // As eager's clamp: NaN-propagating max with the lower bound, then min with the upper.
      const ClampParams& p = static_cast<const Clamp&>(prim).params();
      std::string e = args[0];
      if (p.has_min) {
        const std::string lo = typed(out, out == kFloat64 ? p.min->toDouble() : p.min->to<float>());
        e = vector ? "vmax(" + e + ", " + V + "(" + lo + "))"
                   : "bin::maximum<" + T + ">(" + e + ", " + lo + ")";
      }
      if (p.has_max) {
        const std::string hi = typed(out, out == kFloat64 ? p.max->toDouble() : p.max->to<float>());
        e = vector ? "vmin(" + e + ", " + V + "(" + hi + "))"
                   : "bin::minimum<" + T + ">(" + e + ", " + hi + ")";
      }
      return e;
    }
    case PrimitiveKind::Copy:
      // Between dtypes computed alike (bfloat16 -> float32, ...) the value is the same; the
      // emitter rounds a 16-bit result (Note [16-bit kernels]).
      if (compute_dtype(in[0]) == compute_dtype(out)) return args[0];
      if (vector) return std::nullopt;
      if (out == kBool) return "(" + args[0] + " != 0)";
      return "static_cast<" + T + ">(" + args[0] + ")";
    default:
      return std::nullopt;
  }
}

}  // namespace ember::compiler
