// Binary primitive: comparisons, logical and bitwise ops, shifts; and the IsClose kernel.
#include <sstream>

#include "backend/cpu/binary_functors.h"
#include "backend/cpu/binary_kernels.h"
#include "primitives/ternary.h"

namespace ember {
namespace cpu::inline EMBER_CPU_CAPABILITY {
namespace {

using namespace bin;

template <typename T>
void compare(BinaryOp op, const StridedLoop& loop) {
  using M = opmath_t<T>;
  switch (op) {
    case BinaryOp::Eq:
      return run_binary<T, bool>(loop, [](M a, M b) { return a == b; });
    case BinaryOp::Ne:
      return run_binary<T, bool>(loop, [](M a, M b) { return a != b; });
    case BinaryOp::Lt:
      return run_binary<T, bool>(loop, [](M a, M b) { return a < b; });
    case BinaryOp::Le:
      return run_binary<T, bool>(loop, [](M a, M b) { return a <= b; });
    case BinaryOp::Gt:
      return run_binary<T, bool>(loop, [](M a, M b) { return a > b; });
    default:
      return run_binary<T, bool>(loop, [](M a, M b) { return a >= b; });
  }
}

// Logical ops receive both inputs converted to bool by the op builder.
void logical(BinaryOp op, const StridedLoop& loop) {
  switch (op) {
    case BinaryOp::LogicalAnd:
      return run_binary<bool, bool>(loop, [](bool a, bool b) { return a && b; });
    case BinaryOp::LogicalOr:
      return run_binary<bool, bool>(loop, [](bool a, bool b) { return a || b; });
    default:
      return run_binary<bool, bool>(loop, [](bool a, bool b) { return a != b; });
  }
}

template <typename T>
void bitwise(BinaryOp op, const StridedLoop& loop, const char* name) {
  if constexpr (!std::is_integral_v<T>) {
    EMBER_THROW(TypeError, "[", name, "] internal error: bitwise op on a floating type");
  } else {
    switch (op) {
      case BinaryOp::BitwiseAnd:
        return run_binary<T, T>(loop, [](T a, T b) { return static_cast<T>(a & b); });
      case BinaryOp::BitwiseOr:
        return run_binary<T, T>(loop, [](T a, T b) { return static_cast<T>(a | b); });
      case BinaryOp::BitwiseXor:
        return run_binary<T, T>(loop, [](T a, T b) { return static_cast<T>(a ^ b); });
      default:
        if constexpr (std::is_same_v<T, bool>) {
          EMBER_THROW(TypeError, "[", name, "] internal error: shift of bool");
        } else if (op == BinaryOp::LeftShift) {
          return run_binary<T, T>(loop, left_shift<T>);
        } else {
          return run_binary<T, T>(loop, right_shift<T>);
        }
    }
  }
}

}  // namespace

void binary_compare_kernel(BinaryOp op, const StridedLoop& loop, ScalarType dtype,
                           const char* name) {
  if (op == BinaryOp::LogicalAnd || op == BinaryOp::LogicalOr || op == BinaryOp::LogicalXor) {
    EMBER_INTERNAL_ASSERT(dtype == kBool, "logical ops compute in bool");
    return logical(op, loop);
  }
  visit_dtype(dtype, name, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if (op >= BinaryOp::Eq && op <= BinaryOp::Ge) return compare<T>(op, loop);
    return bitwise<T>(op, loop, name);
  });
}

}  // namespace cpu::inline EMBER_CPU_CAPABILITY

// As torch.isclose: for floating types each step rounds to the input dtype, as PyTorch's
// composite (self - other).abs() <= atol + (rtol * other).abs() does; integers are compared
// exactly in double.
EMBER_CPU_KERNEL(IsClose, inputs, outputs) {
  auto loop = cpu::make_loop({outputs.at(0), inputs.at(0), inputs.at(1)});
  const double rtol = p_.rtol, atol = p_.atol;
  const bool equal_nan = p_.equal_nan, exact = p_.rtol == 0 && p_.atol == 0;
  visit_dtype(inputs.at(0).dtype(), "isclose", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    using M = cpu::bin::opmath_t<T>;
    if constexpr (std::is_floating_point_v<M>) {
      auto r = [](M x) { return static_cast<M>(static_cast<T>(x)); };  // round to T
      const M rt = r(static_cast<M>(rtol)), at = r(static_cast<M>(atol));
      cpu::run_binary<T, bool>(loop, [=](M a, M b) {
        if (a == b || (equal_nan && a != a && b != b)) return true;
        if (exact) return false;
        const M actual = r(std::abs(r(a - b)));
        const M allowed = r(at + r(std::abs(r(rt * b))));
        return std::isfinite(actual) && actual <= allowed;
      });
    } else {
      cpu::run_binary<T, bool>(loop, [=](T a, T b) {
        if (a == b) return true;
        if (exact) return false;
        const double actual = std::abs(static_cast<double>(a) - static_cast<double>(b));
        return actual <= atol + std::abs(rtol * static_cast<double>(b));
      });
    }
  });
}

}  // namespace ember
