#pragma once
// The compute type of a floating kernel and moving values into and out of it: shared by the
// convolution, pooling, resampling, padding, softmax and normalisation kernels.
#include <type_traits>
#include <vector>

#include "backend/cpu/capability.h"
#include "ember/core/dtype.h"
#include "ember/core/error.h"
#include "ember/core/half.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

/// The type a kernel computes in: double for double, float for float and the 16-bit floats.
template <typename T>
using compute_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

/// Calls f(T*) for the floating dtypes; TypeError with c10's wording for the others.
template <typename F>
decltype(auto) visit_floating(ScalarType t, const char* op, const char* kernel, F&& f) {
  switch (t) {
    case kFloat32:
      return f(static_cast<float*>(nullptr));
    case kFloat64:
      return f(static_cast<double*>(nullptr));
    case kFloat16:
      return f(static_cast<Half*>(nullptr));
    case kBFloat16:
      return f(static_cast<BFloat16*>(nullptr));
    default:
      break;
  }
  EMBER_THROW(TypeError, "[", op, "] \"", kernel, "\" not implemented for '", scalar_type_name(t),
              "' (dtype ", dtype_name(t), ")");
}

/// p itself when S is C, else a converted copy in buf.
template <typename C, typename S>
const C* as_compute(const S* p, int64_t n, std::vector<C>& buf) {
  if constexpr (std::is_same_v<S, C>) {
    return p;
  } else {
    buf.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) buf[i] = static_cast<C>(static_cast<float>(p[i]));
    return buf.data();
  }
}

/// Where n computed values for dst go: dst itself when T is C, else buf (then store_rounded).
template <typename C, typename T>
C* compute_dst(T* dst, int64_t n, std::vector<C>& buf) {
  if constexpr (std::is_same_v<T, C>) {
    return dst;
  } else {
    buf.resize(static_cast<size_t>(n));
    return buf.data();
  }
}

/// Rounds n computed values into dst.
template <typename T, typename C>
void store_rounded(const C* src, int64_t n, T* dst) {
  if constexpr (std::is_same_v<T, C>) {
    if (src == dst) return;  // computed in place (compute_dst)
  }
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<T>(src[i]);  // C is float for 16-bit T
}

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY
