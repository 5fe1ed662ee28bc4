#pragma once
// Typed loops over a StridedLoop: scalar (any types, computed as the op's argument types say) and
// vectorised (one type T, Vec<T> on contiguous or broadcast-scalar runs).
#include <type_traits>

#include "backend/cpu/loop.h"
#include "backend/cpu/vec.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

/// out = op(in...) elementwise; operand 0 is Out, the rest In... in order. Runs where every
/// operand is contiguous take a loop over typed pointers, which the compiler vectorises.
template <typename Out, typename... In, typename Op>
void basic_kernel(const StridedLoop& loop, const Op& op, int64_t grain = kGrainSize) {
  for_each(
      loop,
      [&](char** p, const int64_t* s, int64_t n) {
        char* out = p[0];
        [&]<size_t... I>(std::index_sequence<I...>) {
          [[maybe_unused]] char* in[sizeof...(In) + 1] = {p[I + 1]..., nullptr};
          if (s[0] == sizeof(Out) && ((s[I + 1] == sizeof(In)) && ...)) {
            Out* o = reinterpret_cast<Out*>(out);
            for (int64_t i = 0; i < n; ++i) {
              o[i] = static_cast<Out>(op(reinterpret_cast<const In*>(in[I])[i]...));
            }
            return;
          }
          for (int64_t i = 0; i < n; ++i) {
            *reinterpret_cast<Out*>(out + i * s[0]) =
                static_cast<Out>(op(*reinterpret_cast<const In*>(in[I] + i * s[I + 1])...));
          }
        }
        (std::index_sequence_for<In...>{});
      },
      grain);
}

/// out[i .. i + V::size) = f(i) for the whole vectors of a contiguous run of n, streamed when
/// `stream` and the run is aligned (Note [Streaming stores]); returns where the scalar tail starts.
template <typename T, typename F>
int64_t store_vectors(T* out, int64_t n, bool stream, const F& f) {
  using V = Vec<T>;
  int64_t i = 0;
  if (stream && stream_aligned(out)) {
    for (; i + V::size <= n; i += V::size) f(i).stream(out + i);
    stream_fence();
    return i;
  }
  for (; i + V::size <= n; i += V::size) f(i).store(out + i);
  return i;
}

/// out = op(a) for one type T; vop(Vec<T>) on contiguous runs. `may_stream`: false for a vop
/// that costs more than its memory traffic (Note [Streaming stores]).
template <typename T, typename Op, typename VOp>
void unary_kernel_vec(const StridedLoop& loop, const Op& op, const VOp& vop,
                      bool may_stream = true) {
  using V = Vec<T>;
  const bool stream = may_stream && streams_output<T>(loop.numel);
  for_each(loop, [&](char** p, const int64_t* s, int64_t n) {
    T* out = reinterpret_cast<T*>(p[0]);
    const T* a = reinterpret_cast<const T*>(p[1]);
    if (s[0] == sizeof(T) && s[1] == sizeof(T)) {
      int64_t i = store_vectors(out, n, stream, [&](int64_t j) { return vop(V::load(a + j)); });
      for (; i < n; ++i) out[i] = op(a[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<T*>(p[0] + i * s[0]) = op(*reinterpret_cast<const T*>(p[1] + i * s[1]));
      }
    }
  });
}

/// out = op(a, b) for one type T; vop on runs where each input is contiguous or a broadcast
/// scalar (stride 0); `may_stream` as for unary_kernel_vec.
template <typename T, typename Op, typename VOp>
void binary_kernel_vec(const StridedLoop& loop, const Op& op, const VOp& vop,
                       bool may_stream = true) {
  using V = Vec<T>;
  const bool stream = may_stream && streams_output<T>(loop.numel);
  for_each(loop, [&](char** p, const int64_t* s, int64_t n) {
    T* out = reinterpret_cast<T*>(p[0]);
    const T* a = reinterpret_cast<const T*>(p[1]);
    const T* b = reinterpret_cast<const T*>(p[2]);
    constexpr int64_t es = sizeof(T);
    if (s[0] == es && (s[1] == es || s[1] == 0) && (s[2] == es || s[2] == 0)) {
      int64_t i = 0;
      if (s[1] == es && s[2] == es) {
        i = store_vectors(out, n, stream,
                          [&](int64_t j) { return vop(V::load(a + j), V::load(b + j)); });
      } else if (s[1] == 0 && s[2] == es) {
        const V va(a[0]);
        i = store_vectors(out, n, stream, [&](int64_t j) { return vop(va, V::load(b + j)); });
      } else if (s[1] == es && s[2] == 0) {
        const V vb(b[0]);
        i = store_vectors(out, n, stream, [&](int64_t j) { return vop(V::load(a + j), vb); });
      }
      for (; i < n; ++i) out[i] = op(a[s[1] ? i : 0], b[s[2] ? i : 0]);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<T*>(p[0] + i * s[0]) = op(*reinterpret_cast<const T*>(p[1] + i * s[1]),
                                                    *reinterpret_cast<const T*>(p[2] + i * s[2]));
      }
    }
  });
}

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY
