#pragma once
// Loop drivers for the unary kernels (src/backend/cpu/unary*.cpp): a functor F<T> (Note [Unary
// functors]) applied to one floating dtype, with Vec<T> on contiguous runs.
#include <algorithm>

#include "backend/cpu/kernel.h"
#include "backend/cpu/unary_functors.h"

namespace ember::cpu {

/// out = f(a) for T = float or double; operands are out, a (same dtype T).
template <typename T, typename F>
void float_loop(const StridedLoop& loop, const F& f) {
  unary_kernel_vec<T>(
      loop, [&](T x) { return static_cast<T>(f(x)); }, [&](const Vec<T>& v) { return f.vec(v); });
}

/// out = R(f(float(a))) for the 16-bit floats: each element is computed in float and rounded once.
/// Contiguous runs go through a float buffer so that f.vec applies.
template <typename R, typename F>
void reduced_loop(const StridedLoop& loop, const F& f) {
  using V = Vec<float>;
  for_each(loop, [&](char** p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(R) && s[1] == sizeof(R)) {
      R* out = reinterpret_cast<R*>(p[0]);
      const R* a = reinterpret_cast<const R*>(p[1]);
      constexpr int64_t kBlock = 256;
      alignas(64) float buf[kBlock];
      for (int64_t i = 0; i < n; i += kBlock) {
        const int64_t m = std::min(kBlock, n - i);
        for (int64_t j = 0; j < m; ++j) buf[j] = static_cast<float>(a[i + j]);
        int64_t j = 0;
        for (; j + V::size <= m; j += V::size) f.vec(V::load(buf + j)).store(buf + j);
        for (; j < m; ++j) buf[j] = f(buf[j]);
        for (j = 0; j < m; ++j) out[i + j] = R(buf[j]);
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        const float x = static_cast<float>(*reinterpret_cast<const R*>(p[1] + i * s[1]));
        *reinterpret_cast<R*>(p[0] + i * s[0]) = R(f(x));
      }
    }
  });
}

/// Runs F<T> over a loop whose operands have the floating dtype `dt` (the 16-bit floats through
/// F<float>); the functor is built from `args` converted to the compute type.
template <template <typename> class F, typename... Args>
void float_unary(const StridedLoop& loop, ScalarType dt, const char* op, Args... args) {
  switch (dt) {
    case kFloat32:
      float_loop<float>(loop, F<float>{static_cast<float>(args)...});
      return;
    case kFloat64:
      float_loop<double>(loop, F<double>{static_cast<double>(args)...});
      return;
    case kFloat16:
      reduced_loop<Half>(loop, F<float>{static_cast<float>(args)...});
      return;
    case kBFloat16:
      reduced_loop<BFloat16>(loop, F<float>{static_cast<float>(args)...});
      return;
    default:
      break;
  }
  EMBER_THROW(TypeError, "[", op, "] \"", op, "_cpu\" not implemented for '", dtype_name(dt), "'");
}

}  // namespace ember::cpu
