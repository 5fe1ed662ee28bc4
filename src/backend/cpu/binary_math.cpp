// Binary primitive: pow and the floating-point-only group (atan2 hypot copysign logaddexp).
#include "backend/cpu/binary_functors.h"
#include "backend/cpu/binary_kernels.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {
namespace {

using namespace bin;

template <typename T>
void pow_kernel(const StridedLoop& loop, const char* name) {
  using M = opmath_t<T>;
  if constexpr (std::is_same_v<T, bool>) {
    EMBER_THROW(TypeError, "[", name, "] \"pow\" not implemented for 'Bool' (bool)");
  } else if constexpr (std::is_integral_v<T>) {
    run_binary<T, T>(loop, int_pow<T>);
  } else {
    run_binary<T, T>(loop, [](M a, M b) { return std::pow(a, b); });
  }
}

template <typename T>
void float_kernel(BinaryOp op, const StridedLoop& loop, const char* name) {
  using M = opmath_t<T>;
  if constexpr (!std::is_floating_point_v<M>) {
    EMBER_THROW(RuntimeError, "[", name, "] internal error: integral input reached a float kernel");
  } else {
    switch (op) {
      case BinaryOp::Atan2:
        return run_binary<T, T>(loop, [](M a, M b) { return std::atan2(a, b); });
      case BinaryOp::Hypot:
        return run_binary<T, T>(loop, [](M a, M b) { return std::hypot(a, b); });
      case BinaryOp::Copysign:
        return run_binary<T, T>(loop, [](M a, M b) { return std::copysign(a, b); });
      case BinaryOp::Logaddexp:
        return run_binary<T, T>(loop, logaddexp<M>);
      default:
        EMBER_THROW(RuntimeError, "[", name, "] internal error: not a float op");
    }
  }
}

}  // namespace

void binary_math_kernel(BinaryOp op, const StridedLoop& loop, ScalarType dtype, const char* name) {
  visit_dtype(dtype, name, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if (op == BinaryOp::Pow) return pow_kernel<T>(loop, name);
    return float_kernel<T>(op, loop, name);
  });
}

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY
