// Unary::eval_cpu: the entry of the unary kernels. Ops defined for every numeric dtype (abs, neg,
// sign, relu, hardtanh) and the predicates / logical ops live here; the floating-point-only ops
// are in unary_math.cpp, unary_trig_round.cpp and unary_activation.cpp.
#include "primitives/unary.h"

#include <type_traits>

#include "backend/cpu/unary_kernels.h"
#include "backend/cpu/unary_loops.h"
#include "ops/util.h"
#include "primitives/copy.h"

namespace ember {
namespace {

template <typename T>
constexpr bool is_reduced_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <typename T>
constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

[[noreturn]] void not_implemented(const char* op, ScalarType dt) {
  EMBER_THROW(TypeError, "[", op, "] \"", op, "_cpu\" not implemented for '", dtype_name(dt), "'");
}

/// Two's-complement negation without signed overflow (neg/abs of the most negative value wrap,
/// as in PyTorch).
template <typename T>
T wrap_neg(T x) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(U(0) - static_cast<U>(x)));
}

/// abs, neg, sign, relu and hardtanh on an integral dtype T (not bool).
template <typename T>
void int_kernel(UnaryOp op, const UnaryArgs& args, const cpu::StridedLoop& loop) {
  switch (op) {
    case UnaryOp::Abs:
      if constexpr (std::is_unsigned_v<T>) {
        cpu::basic_kernel<T, T>(loop, [](T x) { return x; });
      } else {
        cpu::basic_kernel<T, T>(loop, [](T x) { return x < 0 ? wrap_neg(x) : x; });
      }
      return;
    case UnaryOp::Neg:
      cpu::basic_kernel<T, T>(loop, [](T x) { return wrap_neg(x); });
      return;
    case UnaryOp::Sign:
      if constexpr (std::is_unsigned_v<T>) {
        cpu::basic_kernel<T, T>(loop, [](T x) { return static_cast<T>(x != 0); });
      } else {
        cpu::basic_kernel<T, T>(loop, [](T x) { return static_cast<T>((0 < x) - (x < 0)); });
      }
      return;
    case UnaryOp::Relu:
      if constexpr (std::is_unsigned_v<T>) {
        cpu::basic_kernel<T, T>(loop, [](T x) { return x; });
      } else {
        cpu::basic_kernel<T, T>(loop, [](T x) { return x < 0 ? T(0) : x; });
      }
      return;
    case UnaryOp::Hardtanh: {
      // The limits arrive as integers (see ops::hardtanh) and convert to T as PyTorch's clamp.
      const T lo = static_cast<T>(args.a->toLong()), hi = static_cast<T>(args.b->toLong());
      cpu::basic_kernel<T, T>(loop, [lo, hi](T x) { return std::min(std::max(x, lo), hi); });
      return;
    }
    default:
      break;
  }
  EMBER_INTERNAL_ASSERT(false, "int_kernel: unexpected op ", unary_op_name(op));
}

/// abs, neg, sign, relu and hardtanh on any dtype.
void numeric_kernel(UnaryOp op, const UnaryArgs& args, const cpu::StridedLoop& loop,
                    ScalarType dt) {
  const char* name = unary_op_name(op);
  if (is_floating_point(dt)) {
    switch (op) {
      case UnaryOp::Abs:
        return cpu::float_unary<cpu::AbsF>(loop, dt, name);
      case UnaryOp::Neg:
        return cpu::float_unary<cpu::NegF>(loop, dt, name);
      case UnaryOp::Sign:
        return cpu::float_unary<cpu::SignF>(loop, dt, name);
      case UnaryOp::Relu:
        return cpu::float_unary<cpu::ReluF>(loop, dt, name);
      case UnaryOp::Hardtanh:
        return cpu::float_unary<cpu::HardtanhF>(loop, dt, name, args.a->toDouble(),
                                                args.b->toDouble());
      default:
        break;
    }
  }
  if (dt == kBool) {
    if (op == UnaryOp::Sign) return cpu::basic_kernel<bool, bool>(loop, [](bool x) { return x; });
    not_implemented(name, dt);
  }
  visit_dtype(dt, name, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (is_int_v<T>) int_kernel<T>(op, args, loop);
  });
}

/// logical_not: a bool output (or, in place, the input's own dtype) holding !x.
void logical_not_kernel(const cpu::StridedLoop& loop, ScalarType out_dt, ScalarType in_dt) {
  visit_dtype(in_dt, "logical_not", [&](auto* tag) {
    using S = std::remove_pointer_t<decltype(tag)>;
    auto is_zero = [](S x) {
      if constexpr (is_reduced_v<S>)
        return static_cast<float>(x) == 0.0f;
      else
        return x == S(0);
    };
    if (out_dt == kBool) {
      cpu::basic_kernel<bool, S>(loop, [=](S x) { return is_zero(x); });
    } else {
      EMBER_INTERNAL_ASSERT(out_dt == in_dt, "logical_not: output dtype");
      cpu::basic_kernel<S, S>(loop, [=](S x) { return static_cast<S>(is_zero(x) ? 1.0f : 0.0f); });
    }
  });
}

void bitwise_not_kernel(const cpu::StridedLoop& loop, ScalarType dt) {
  if (dt == kBool) return cpu::basic_kernel<bool, bool>(loop, [](bool x) { return !x; });
  visit_dtype(dt, "bitwise_not", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (is_int_v<T>) {
      cpu::basic_kernel<T, T>(loop, [](T x) { return static_cast<T>(~x); });
    } else {
      not_implemented("bitwise_not", dt);
    }
  });
}

/// isnan / isinf / isfinite: bool outputs; integral inputs are never NaN or infinite.
void predicate_kernel(UnaryOp op, const cpu::StridedLoop& loop, ScalarType in_dt) {
  visit_dtype(in_dt, unary_op_name(op), [&](auto* tag) {
    using S = std::remove_pointer_t<decltype(tag)>;
    if constexpr (std::is_floating_point_v<S> || is_reduced_v<S>) {
      using C = std::conditional_t<is_reduced_v<S>, float, S>;
      switch (op) {
        case UnaryOp::IsNan:
          return cpu::basic_kernel<bool, S>(loop, [](S x) { return std::isnan(C(x)); });
        case UnaryOp::IsInf:
          return cpu::basic_kernel<bool, S>(loop, [](S x) { return std::isinf(C(x)); });
        default:
          return cpu::basic_kernel<bool, S>(loop, [](S x) { return std::isfinite(C(x)); });
      }
    } else {
      const bool value = op == UnaryOp::IsFinite;
      cpu::basic_kernel<bool>(loop, [value]() { return value; });
    }
  });
}

}  // namespace

void Unary::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& out = outputs.at(0);
  Tensor in = inputs.at(0);
  const ScalarType dt = out.dtype();
  // Note [Unary dtypes]: an integral input of a floating op is converted to the output's dtype
  // first (PyTorch's TensorIterator does the same cast on the fly).
  const bool predicate = p_.op == UnaryOp::IsNan || p_.op == UnaryOp::IsInf ||
                         p_.op == UnaryOp::IsFinite || p_.op == UnaryOp::LogicalNot;
  if (!predicate && in.dtype() != dt) {
    EMBER_INTERNAL_ASSERT(is_floating_point(dt), "Unary: dtype change to ", dtype_name(dt));
    Tensor converted = ops::empty_tensor(in.sizes(), dt, name());
    std::vector<Tensor> converted_out{converted};
    Copy().eval_cpu({in}, converted_out);
    in = converted;
  }
  auto loop = cpu::make_loop({out, in});
  switch (p_.op) {
    case UnaryOp::Abs:
    case UnaryOp::Neg:
    case UnaryOp::Sign:
    case UnaryOp::Relu:
    case UnaryOp::Hardtanh:
      return numeric_kernel(p_.op, p_.args, loop, dt);
    case UnaryOp::LogicalNot:
      return logical_not_kernel(loop, dt, in.dtype());
    case UnaryOp::BitwiseNot:
      return bitwise_not_kernel(loop, dt);
    case UnaryOp::IsNan:
    case UnaryOp::IsInf:
    case UnaryOp::IsFinite:
      return predicate_kernel(p_.op, loop, in.dtype());
    default:
      break;
  }
  if (cpu::unary_math_kernel(p_.op, p_.args, loop, dt)) return;
  if (cpu::unary_trig_round_kernel(p_.op, p_.args, loop, dt)) return;
  if (cpu::unary_activation_kernel(p_.op, p_.args, loop, dt)) return;
  EMBER_INTERNAL_ASSERT(false, "Unary: no kernel for ", name());
}

}  // namespace ember
