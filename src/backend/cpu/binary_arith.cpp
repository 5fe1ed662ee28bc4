// Binary primitive: entry point and the arithmetic group (add sub mul div remainder fmod
// maximum minimum fmax fmin). float/double take the Vec path on contiguous runs.
#include <sstream>

#include "backend/cpu/binary_functors.h"
#include "backend/cpu/binary_kernels.h"

namespace ember {

EMBER_CPU_KERNEL(Binary, inputs, outputs) {
  const Tensor& a = inputs.at(0);
  const Tensor& b = inputs.at(1);
  auto loop = cpu::make_loop({outputs.at(0), a, b});
  if (a.dtype() != b.dtype()) {  // Note [Reduced-float scalars] (ops/binary.cpp)
    EMBER_INTERNAL_ASSERT(b.dtype() == kFloat32 && b.numel() == 1,
                          "Binary: inputs must share the compute dtype");
    cpu::binary_float_scalar_kernel(p_.op, loop, a.dtype(), name());
    return;
  }
  switch (p_.op) {
    case BinaryOp::Pow:
    case BinaryOp::Atan2:
    case BinaryOp::Hypot:
    case BinaryOp::Copysign:
    case BinaryOp::Logaddexp:
      cpu::binary_math_kernel(p_.op, loop, a.dtype(), name());
      break;
    case BinaryOp::Eq:
    case BinaryOp::Ne:
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
    case BinaryOp::LogicalAnd:
    case BinaryOp::LogicalOr:
    case BinaryOp::LogicalXor:
    case BinaryOp::BitwiseAnd:
    case BinaryOp::BitwiseOr:
    case BinaryOp::BitwiseXor:
    case BinaryOp::LeftShift:
    case BinaryOp::RightShift:
      cpu::binary_compare_kernel(p_.op, loop, a.dtype(), name());
      break;
    default:
      cpu::binary_arith_kernel(p_.op, p_.alpha, loop, a.dtype(), name());
  }
}

namespace cpu::inline EMBER_CPU_CAPABILITY {
namespace {

using namespace bin;

template <typename T>
constexpr bool is_vec_float = std::is_same_v<T, float> || std::is_same_v<T, double>;

template <typename T>
void add_sub(const StridedLoop& loop, const Scalar& alpha_s, bool sub) {
  using M = opmath_t<T>;
  if constexpr (std::is_same_v<T, bool>) {
    const bool alpha = alpha_s.toBool();  // sub of bools is rejected by the op builder
    run_binary<T, T>(loop, [alpha](bool a, bool b) { return a || (alpha && b); });
  } else if constexpr (std::is_integral_v<T>) {
    const T alpha = sub ? wrap_sub(T(0), alpha_s.to<T>()) : alpha_s.to<T>();
    run_binary<T, T>(loop, [alpha](T a, T b) { return wrap_add(a, wrap_mul(alpha, b)); });
  } else {
    const M alpha = sub ? -alpha_s.to<M>() : alpha_s.to<M>();
    if constexpr (is_vec_float<T>) {
      using V = Vec<T>;
      if (alpha == M(1)) {
        binary_kernel_vec<T>(
            loop, [](T a, T b) { return a + b; }, [](V a, V b) { return a + b; });
      } else if (alpha == M(-1)) {
        binary_kernel_vec<T>(
            loop, [](T a, T b) { return a - b; }, [](V a, V b) { return a - b; });
      } else {
        const V va(alpha);
        binary_kernel_vec<T>(
            loop, [alpha](T a, T b) { return a + alpha * b; },
            [va](V a, V b) { return a + va * b; });
      }
    } else {
      run_binary<T, T>(loop, [alpha](M a, M b) { return a + alpha * b; });
    }
  }
}

template <typename T>
void mul(const StridedLoop& loop) {
  if constexpr (std::is_same_v<T, bool>) {
    run_binary<T, T>(loop, [](bool a, bool b) { return a && b; });
  } else if constexpr (std::is_integral_v<T>) {
    run_binary<T, T>(loop, [](T a, T b) { return wrap_mul(a, b); });
  } else if constexpr (is_vec_float<T>) {
    binary_kernel_vec<T>(
        loop, [](T a, T b) { return a * b; }, [](Vec<T> a, Vec<T> b) { return a * b; });
  } else {
    run_binary<T, T>(loop, [](float a, float b) { return a * b; });
  }
}

template <typename T>
void div_true(const StridedLoop& loop, const char* name) {
  if constexpr (is_vec_float<T>) {
    binary_kernel_vec<T>(
        loop, [](T a, T b) { return a / b; }, [](Vec<T> a, Vec<T> b) { return a / b; });
  } else if constexpr (is_reduced_float_v<T>) {
    run_binary<T, T>(loop, [](float a, float b) { return a / b; });
  } else {
    EMBER_THROW(RuntimeError, "[", name, "] internal error: true division of an integral type");
  }
}

// Integer division family: b == 0 raises as PyTorch ("ZeroDivisionError").
template <typename T, typename F>
void int_division(const StridedLoop& loop, const char* name, F f) {
  run_binary<T, T>(loop, [name, f](T a, T b) {
    EMBER_CHECK(b != 0, "[", name, "] ZeroDivisionError");
    return f(a, b);
  });
}

template <typename T>
void division(BinaryOp op, const StridedLoop& loop, const char* name) {
  using M = opmath_t<T>;
  if constexpr (std::is_same_v<T, bool>) {
    EMBER_THROW(TypeError, "[", name, "] not implemented for 'Bool' (bool)");
  } else if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case BinaryOp::DivTrunc:
        return int_division<T>(loop, name, int_div_trunc<T>);
      case BinaryOp::DivFloor:
        return int_division<T>(loop, name, int_div_floor<T>);
      case BinaryOp::Remainder:
        return int_division<T>(loop, name, int_remainder<T>);
      default:
        return int_division<T>(loop, name, int_fmod<T>);
    }
  } else {
    switch (op) {
      case BinaryOp::DivTrunc:
        return run_binary<T, T>(loop, [](M a, M b) { return std::trunc(a / b); });
      case BinaryOp::DivFloor:
        return run_binary<T, T>(loop, float_div_floor<M>);
      case BinaryOp::Remainder:
        return run_binary<T, T>(loop, float_remainder<M>);
      default:
        return run_binary<T, T>(loop, [](M a, M b) { return std::fmod(a, b); });
    }
  }
}

template <typename T>
void max_min(BinaryOp op, const StridedLoop& loop) {
  using M = opmath_t<T>;
  const bool is_max = op == BinaryOp::Maximum || op == BinaryOp::Fmax;
  if constexpr (std::is_same_v<T, bool>) {
    if (is_max)
      run_binary<T, T>(loop, [](bool a, bool b) { return a || b; });
    else
      run_binary<T, T>(loop, [](bool a, bool b) { return a && b; });
  } else if constexpr (std::is_integral_v<T>) {
    if (is_max)
      run_binary<T, T>(loop, maximum<T>);
    else
      run_binary<T, T>(loop, minimum<T>);
  } else if (op == BinaryOp::Fmax) {
    run_binary<T, T>(loop, [](M a, M b) { return std::fmax(a, b); });
  } else if (op == BinaryOp::Fmin) {
    run_binary<T, T>(loop, [](M a, M b) { return std::fmin(a, b); });
  } else {
#if defined(EMBER_VEC_SIMD)
    if constexpr (is_vec_float<T>) {
      if (is_max) {
        binary_kernel_vec<T>(loop, maximum<T>, [](Vec<T> a, Vec<T> b) { return vmax(a, b); });
      } else {
        binary_kernel_vec<T>(loop, minimum<T>, [](Vec<T> a, Vec<T> b) { return vmin(a, b); });
      }
      return;
    }
#endif
    if (is_max)
      run_binary<T, T>(loop, maximum<M>);
    else
      run_binary<T, T>(loop, minimum<M>);
  }
}

}  // namespace

void binary_float_scalar_kernel(BinaryOp op, const StridedLoop& loop, ScalarType dtype,
                                const char* name) {
  auto run = [&]<typename T>(T*) {
    auto with = [&](auto f) {
      basic_kernel<T, T, float>(loop, [f](T a, float b) { return static_cast<T>(f(float(a), b)); });
    };
    switch (op) {
      case BinaryOp::Mul:
        return with([](float a, float b) { return a * b; });
      case BinaryOp::Div:
        return with([](float a, float b) { return a / b; });
      case BinaryOp::DivTrunc:
        return with([](float a, float b) { return std::trunc(a / b); });
      case BinaryOp::DivFloor:
        return with(float_div_floor<float>);
      default:
        EMBER_THROW(RuntimeError, "[", name, "] internal error: no float-scalar form");
    }
  };
  if (dtype == kBFloat16) return run(static_cast<BFloat16*>(nullptr));
  EMBER_INTERNAL_ASSERT(dtype == kFloat16, "Binary: a float32 scalar needs a 16-bit input");
  run(static_cast<Half*>(nullptr));
}

void binary_arith_kernel(BinaryOp op, const Scalar& alpha, const StridedLoop& loop,
                         ScalarType dtype, const char* name) {
  visit_dtype(dtype, name, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    switch (op) {
      case BinaryOp::Add:
        return add_sub<T>(loop, alpha, false);
      case BinaryOp::Sub:
        return add_sub<T>(loop, alpha, true);
      case BinaryOp::Mul:
        return mul<T>(loop);
      case BinaryOp::Div:
        return div_true<T>(loop, name);
      case BinaryOp::DivTrunc:
      case BinaryOp::DivFloor:
      case BinaryOp::Remainder:
      case BinaryOp::Fmod:
        return division<T>(op, loop, name);
      case BinaryOp::Maximum:
      case BinaryOp::Minimum:
      case BinaryOp::Fmax:
      case BinaryOp::Fmin:
        return max_min<T>(op, loop);
      default:
        EMBER_THROW(RuntimeError, "[", name, "] internal error: not an arithmetic op");
    }
  });
}

}  // namespace cpu::inline EMBER_CPU_CAPABILITY
}  // namespace ember
