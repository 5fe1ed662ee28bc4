#pragma once
// Scalar functors of the binary elementwise ops, one definition per op so that eager kernels and
// (later) generated code compute the same thing. T is the compute type: bool, an integer, float
// or double; 16-bit floats are computed as float by the kernels and rounded once.
// Integer arithmetic wraps (two's complement) as PyTorch's does, without signed-overflow UB.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "backend/cpu/capability.h"
#include "ember/core/dtype.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY::bin {

template <typename T>
constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
/// The type a kernel computes in for storage type T.
template <typename T>
using opmath_t = std::conditional_t<is_reduced_float_v<T>, float, T>;

/// An unsigned type at least as wide as int, so that wrapping arithmetic has no UB.
template <typename T>
using wide_unsigned_t = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

template <typename T>
T wrap_add(T a, T b) {
  using U = wide_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <typename T>
T wrap_sub(T a, T b) {
  using U = wide_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <typename T>
T wrap_mul(T a, T b) {
  using U = wide_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}

// ---- division family (integers: the caller has checked b != 0)

template <typename T>
T int_div_trunc(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return wrap_sub(T(0), a);  // INT_MIN / -1 wraps instead of trapping
  }
  return static_cast<T>(a / b);
}

template <typename T>
T int_div_floor(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return wrap_sub(T(0), a);
    if ((a < 0) != (b < 0)) {
      const T q = static_cast<T>(a / b), r = static_cast<T>(a % b);
      return r ? static_cast<T>(q - 1) : q;
    }
  }
  return static_cast<T>(a / b);
}

// Python's %: the result takes the sign of the divisor.
template <typename T>
T int_remainder(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  } else {
    return static_cast<T>(a % b);
  }
}

// C's %: the result takes the sign of the dividend.
template <typename T>
T int_fmod(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return static_cast<T>(a % b);
}

// PyTorch's div_floor_floating: floor(a / b) computed from fmod so that it agrees with %.
template <typename T>
T float_div_floor(T a, T b) {
  if (b == 0) return a / b;
  T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= T(1);
  T floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > T(0.5)) floordiv += T(1);
  } else {
    floordiv = std::copysign(T(0), a / b);
  }
  return floordiv;
}

template <typename T>
T float_remainder(T a, T b) {
  T mod = std::fmod(a, b);
  if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
  return mod;
}

// ---- pow

// Integer power by squaring; negative exponents give 1, +-1 or 0 as PyTorch's powi.
template <typename T>
T int_pow(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) {
      if (a == 1) return 1;
      if (a == -1) return (b % 2) ? T(-1) : T(1);
      return 0;
    }
  }
  T result = 1;
  while (b) {
    if (b & 1) result = wrap_mul(result, a);
    b = static_cast<T>(b / 2);
    a = wrap_mul(a, a);
  }
  return result;
}

// ---- max / min

// NaN-propagating (torch.maximum); on ties returns b, as the vector path does.
template <typename T>
T maximum(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a > b ? a : b;
}
template <typename T>
T minimum(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a < b ? a : b;
}

template <typename T>
T logaddexp(T a, T b) {
  if (std::isinf(a) && a == b) return a;
  T m = std::max(a, b);
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

// ---- shifts (PyTorch's lshift/rshift: out-of-range counts give 0, or the sign for >>)

template <typename T>
T left_shift(T a, T b) {
  constexpr T bits = static_cast<T>(sizeof(T) * 8);
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) return 0;
  }
  if (b >= bits) return 0;
  return static_cast<T>(static_cast<wide_unsigned_t<T>>(a) << b);
}
template <typename T>
T right_shift(T a, T b) {
  constexpr T max_shift = static_cast<T>(sizeof(T) * 8 - (std::is_signed_v<T> ? 1 : 0));
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) return static_cast<T>(a >> max_shift);
  }
  if (b >= max_shift) return static_cast<T>(a >> max_shift);
  return static_cast<T>(a >> b);
}

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY::bin
