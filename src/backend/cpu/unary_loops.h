#pragma once
// Loop drivers for the unary kernels (src/backend/cpu/unary*.cpp): a functor F<T> (Note [Unary
// functors]) applied to one floating dtype, with Vec<T> on contiguous runs.
#include <algorithm>

#include "backend/cpu/capability.h"
#include "backend/cpu/kernel.h"
#include "backend/cpu/unary_functors.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

/// out = f(a) for T = float or double; operands are out, a (same dtype T).
template <typename T, typename F>
void float_loop(const StridedLoop& loop, const F& f, bool may_stream) {
  unary_kernel_vec<T>(
      loop, [&](T x) { return static_cast<T>(f(x)); }, [&](const Vec<T>& v) { return f.vec(v); },
      may_stream);
}

/// out = f(g, v) for T = float or double (Note [Fused unary backward]); operands are out, g, v.
template <typename T, typename F>
void float_loop2(const StridedLoop& loop, const F& f, bool may_stream) {
  binary_kernel_vec<T>(
      loop, [&](T g, T v) { return static_cast<T>(f(g, v)); },
      [&](const Vec<T>& g, const Vec<T>& v) { return f.vec(g, v); }, may_stream);
}

/// out = R(f(float(in)...)) for the 16-bit floats with N = 1 or 2 inputs: each element is computed
/// in float and rounded once. Contiguous runs go through float buffers so that f.vec applies.
template <typename R, int N, typename F>
void reduced_loop(const StridedLoop& loop, const F& f) {
  using V = Vec<float>;
  static_assert(N == 1 || N == 2);
  auto call = [&](const float* in) {
    if constexpr (N == 1)
      return f(in[0]);
    else
      return f(in[0], in[1]);
  };
  auto call_vec = [&](const V* in) {
    if constexpr (N == 1)
      return f.vec(in[0]);
    else
      return f.vec(in[0], in[1]);
  };
  for_each(loop, [&](char** p, const int64_t* s, int64_t n) {
    bool contiguous = s[0] == sizeof(R);
    for (int k = 1; k <= N; ++k) contiguous = contiguous && s[k] == sizeof(R);
    if (contiguous) {
      R* out = reinterpret_cast<R*>(p[0]);
      constexpr int64_t kBlock = 256;
      alignas(64) float buf[N][kBlock];
      for (int64_t i = 0; i < n; i += kBlock) {
        const int64_t m = std::min(kBlock, n - i);
        for (int k = 0; k < N; ++k) {
          const R* in = reinterpret_cast<const R*>(p[k + 1]) + i;
          for (int64_t j = 0; j < m; ++j) buf[k][j] = static_cast<float>(in[j]);
        }
        int64_t j = 0;
        for (; j + V::size <= m; j += V::size) {
          V v[N];
          for (int k = 0; k < N; ++k) v[k] = V::load(buf[k] + j);
          call_vec(v).store(buf[0] + j);
        }
        for (; j < m; ++j) {
          float v[N];
          for (int k = 0; k < N; ++k) v[k] = buf[k][j];
          buf[0][j] = call(v);
        }
        for (j = 0; j < m; ++j) out[i + j] = R(buf[0][j]);
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        float v[N];
        for (int k = 0; k < N; ++k) {
          v[k] = static_cast<float>(*reinterpret_cast<const R*>(p[k + 1] + i * s[k + 1]));
        }
        *reinterpret_cast<R*>(p[0] + i * s[0]) = R(call(v));
      }
    }
  });
}

/// The dtype switch of both: F<T> over N = 1 (out, a) or 2 (out, g, v) operands of floating
/// dtype `dt`, float and double directly, the 16-bit floats computed in float.
template <int N, template <typename> class F, typename... Args>
void float_map(const StridedLoop& loop, ScalarType dt, const char* op, Args... args) {
  auto run = [&]<typename T>(const F<T>& f) {
    if constexpr (N == 1) {
      float_loop<T>(loop, f, !kComputeBound<F>);
    } else {
      float_loop2<T>(loop, f, !kComputeBound<F>);
    }
  };
  switch (dt) {
    case kFloat32:
      return run(F<float>{static_cast<float>(args)...});
    case kFloat64:
      return run(F<double>{static_cast<double>(args)...});
    case kFloat16:
      return reduced_loop<Half, N>(loop, F<float>{static_cast<float>(args)...});
    case kBFloat16:
      return reduced_loop<BFloat16, N>(loop, F<float>{static_cast<float>(args)...});
    default:
      break;
  }
  EMBER_THROW(TypeError, "[", op, "] \"", op, "_cpu\" not implemented for '", dtype_name(dt), "'");
}

/// Runs F<T> over a loop whose operands have the floating dtype `dt` (the 16-bit floats through
/// F<float>); the functor is built from `args` converted to the compute type.
template <template <typename> class F, typename... Args>
void float_unary(const StridedLoop& loop, ScalarType dt, const char* op, Args... args) {
  float_map<1, F>(loop, dt, op, args...);
}

/// Runs the backward functor F<T> (Note [Fused unary backward]) over a loop of (out, g, v), all of
/// the floating dtype `dt`.
template <template <typename> class F>
void float_unary_backward(const StridedLoop& loop, ScalarType dt, const char* op) {
  float_map<2, F>(loop, dt, op);
}

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY
