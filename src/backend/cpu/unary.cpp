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

/// `int_op` (a generic lambda) on an integral dtype; bool is not implemented.
template <typename IntOp>
void int_kernel(const cpu::StridedLoop& loop, ScalarType dt, const char* name, IntOp int_op) {
  if (dt == kBool) not_implemented(name, dt);
  visit_dtype(dt, name, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (is_int_v<T>) cpu::basic_kernel<T, T>(loop, [&](T x) { return int_op(x); });
  });
}

/// abs, neg, sign, relu: the functor F on floating dtypes, `int_op` on integral ones.
template <template <typename> class F, typename IntOp>
void numeric_kernel(const cpu::StridedLoop& loop, ScalarType dt, const char* name, IntOp int_op) {
  if (is_floating_point(dt)) return cpu::float_unary<F>(loop, dt, name);
  int_kernel(loop, dt, name, int_op);
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
      if (op == UnaryOp::IsNan) {
        cpu::basic_kernel<bool, S>(loop, [](S x) { return std::isnan(C(x)); });
      } else if (op == UnaryOp::IsInf) {
        cpu::basic_kernel<bool, S>(loop, [](S x) { return std::isinf(C(x)); });
      } else {
        cpu::basic_kernel<bool, S>(loop, [](S x) { return std::isfinite(C(x)); });
      }
    } else {
      const bool value = op == UnaryOp::IsFinite;
      cpu::basic_kernel<bool>(loop, [value]() { return value; });
    }
  });
}

}  // namespace

EMBER_CPU_KERNEL(Unary, inputs, outputs) {
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
  const char* n = name();
  const UnaryArgs& a = p_.args;
  switch (p_.op) {
#define EMBER_UNARY_KERNEL_CASE(Op, ...) \
  case UnaryOp::Op:                      \
    return cpu::unary_##Op(loop, dt);
    EMBER_UNARY_TABLE_OPS(EMBER_UNARY_KERNEL_CASE)
#undef EMBER_UNARY_KERNEL_CASE
    case UnaryOp::Abs:
      return numeric_kernel<cpu::AbsF>(loop, dt, n, []<typename T>(T x) {
        if constexpr (std::is_unsigned_v<T>)
          return x;
        else
          return x < 0 ? wrap_neg(x) : x;
      });
    case UnaryOp::Neg:
      return numeric_kernel<cpu::NegF>(loop, dt, n, [](auto x) { return wrap_neg(x); });
    case UnaryOp::Sign:
      if (dt == kBool) return cpu::basic_kernel<bool, bool>(loop, [](bool x) { return x; });
      return numeric_kernel<cpu::SignF>(loop, dt, n, []<typename T>(T x) {
        if constexpr (std::is_unsigned_v<T>)
          return static_cast<T>(x != 0);
        else
          return static_cast<T>((0 < x) - (x < 0));
      });
    case UnaryOp::Relu:
      return numeric_kernel<cpu::ReluF>(loop, dt, n, []<typename T>(T x) {
        if constexpr (std::is_unsigned_v<T>)
          return x;
        else
          return x < 0 ? T(0) : x;
      });
    case UnaryOp::Hardtanh: {
      if (is_floating_point(dt)) {
        return cpu::float_unary<cpu::HardtanhF>(loop, dt, n, a.a->toDouble(), a.b->toDouble());
      }
      // The limits arrive as integers (see ops::hardtanh) and convert to T as PyTorch's clamp.
      const int64_t lo = a.a->toLong(), hi = a.b->toLong();
      return int_kernel(loop, dt, n, [lo, hi]<typename T>(T x) {
        return std::min(std::max(x, static_cast<T>(lo)), static_cast<T>(hi));
      });
    }
    case UnaryOp::Round:
      return cpu::round_kernel(a, loop, dt);
    case UnaryOp::NanToNum:
      return cpu::nan_to_num_kernel(a, loop, dt);
    case UnaryOp::Logit:
      return cpu::logit_kernel(a, loop, dt);
    case UnaryOp::Gelu:
      return cpu::gelu_kernel(a, loop, dt);
    case UnaryOp::Softplus:
      return cpu::softplus_kernel(a, loop, dt);
    case UnaryOp::Elu:
      return cpu::elu_kernel(a, loop, dt);
    case UnaryOp::LeakyRelu:
      return cpu::leaky_relu_kernel(a, loop, dt);
    case UnaryOp::LogicalNot:
      return logical_not_kernel(loop, dt, in.dtype());
    case UnaryOp::BitwiseNot:
      return bitwise_not_kernel(loop, dt);
    case UnaryOp::IsNan:
    case UnaryOp::IsInf:
    case UnaryOp::IsFinite:
      return predicate_kernel(p_.op, loop, in.dtype());
  }
}

}  // namespace ember
