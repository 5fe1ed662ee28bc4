#pragma once
// The CPU kernels of the Binary primitive, split by group so each file compiles quickly.
// `dtype` is the compute dtype of both inputs (operands 1 and 2 of `loop`); operand 0 is the
// output, of that dtype or bool (comparisons, logical ops).
#include "backend/cpu/capability.h"
#include "backend/cpu/kernel.h"
#include "primitives/binary.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

/// add sub mul div(+trunc/floor) remainder fmod maximum minimum fmax fmin.
void binary_arith_kernel(BinaryOp op, const Scalar& alpha, const StridedLoop& loop,
                         ScalarType dtype, const char* name);
/// mul and div (+trunc/floor) of a bfloat16 / float16 input (operand 1) by a single float32
/// element (operand 2), computed in float (Note [Reduced-float scalars] in ops/binary.cpp).
void binary_float_scalar_kernel(BinaryOp op, const StridedLoop& loop, ScalarType dtype,
                                const char* name);
/// pow atan2 hypot copysign logaddexp.
void binary_math_kernel(BinaryOp op, const StridedLoop& loop, ScalarType dtype, const char* name);
/// eq ne lt le gt ge, logical_*, bitwise_*, shifts.
void binary_compare_kernel(BinaryOp op, const StridedLoop& loop, ScalarType dtype,
                           const char* name);

/// Runs op(opmath a, opmath b) -> R over (out: Out, a: T, b: T), computing 16-bit floats in float
/// and rounding once when storing.
template <typename T, typename Out, typename F>
void run_binary(const StridedLoop& loop, const F& f) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    basic_kernel<Out, T, T>(loop, [&f](T a, T b) {
      return static_cast<Out>(f(static_cast<float>(a), static_cast<float>(b)));
    });
  } else {
    basic_kernel<Out, T, T>(loop, f);
  }
}

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY
