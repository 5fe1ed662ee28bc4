#pragma once
// Note [Reduction engine]: every reduction runs through reduce_kernel(). The input's dims are
// split into kept dims (one output element per index) and reduced dims; adjacent dims that are
// contiguous with each other are merged, size-1 dims dropped. Reduced dims keep their row-major
// order, so the flattened reduction index that ops see (argmax) is PyTorch's.
//  - Outputs are split among threads (parallel_for with a grain, so small tensors stay on one
//    thread). When the innermost kept dim is contiguous in the input ("vertical" reduction,
//    e.g. sum over dim 0 of a row-major matrix), a block of adjacent outputs is reduced together,
//    reading each input row contiguously.
//  - When there are few blocks of outputs and the reduction is long, the reduction itself is
//    split into chunks of fixed size; per-chunk accumulators are combined in order (Note
//    [Deterministic reduction]).
// An op supplies: acc_t, in_t, init(), step(acc, x, idx), run(acc, ptr, byte_stride, n, idx0)
// (a 1-D run; may be vectorised when byte_stride == sizeof(in_t)), vrun(accs, ptr, row_stride,
// n, len, idx0) (the vertical case; ReduceOpBase has both), combine(acc, later_acc) and
// project(acc, out_index) which writes the outputs (contiguous, in row-major output order).
//
// Scans (cumsum, ...) run through scan_kernel(): one line per index of the other dims, blocks of
// adjacent lines when the innermost other dim is contiguous.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "backend/cpu/capability.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/row_math.h"
#include "ember/core/tensor.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

struct ReduceGeom {
  char* base = nullptr;                         // the input's first element
  int64_t elem = 1;                             // input element size in bytes
  std::vector<int64_t> out_sizes, out_strides;  // kept dims (merged), input byte strides
  std::vector<int64_t> red_sizes, red_strides;  // reduced dims (merged), input byte strides
  int64_t num_out = 1, red_numel = 1;
};

/// `reduce[d]` says whether input dim d is reduced (a 0-d input has no dims).
ReduceGeom make_reduce_geom(const Tensor& x, const std::vector<bool>& reduce);

struct ScanGeom {
  char* base = nullptr;                                 // input
  int64_t elem = 1;                                     // input element size in bytes
  int64_t len = 1, in_stride = 0, out_stride = 0;       // scanned dim: input bytes, output elements
  std::vector<int64_t> sizes, in_strides, out_strides;  // other dims: input bytes, output elements
  int64_t lines = 1;
};

/// Geometry of a scan of x along `dim` into contiguous outputs of x's shape.
ScanGeom make_scan_geom(const Tensor& x, int64_t dim);

/// Typed load of one element; the 16-bit floats widen to float.
template <typename T>
inline auto load_as_opmath(const char* p) {
  T v = *reinterpret_cast<const T*>(p);
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return static_cast<float>(v);
  } else {
    return v;
  }
}

template <typename T>
using opmath_t = decltype(load_as_opmath<T>(nullptr));

template <typename T>
constexpr bool is_fp_v =
    std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

/// Accumulator types: int64 for bool and integers (wrapping), float for the 16-bit floats, double
/// for float and double (sum_acc_t); fp_acc_t is the floating one (float or double).
template <typename T>
using fp_acc_t =
    std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, double>;
template <typename T>
using sum_acc_t = std::conditional_t<is_fp_v<T>, fp_acc_t<T>, int64_t>;

/// a + v and a * v in the accumulator type; integers wrap as two's complement (as PyTorch's)
/// without signed-overflow UB.
template <typename A, typename V>
inline A acc_add(A a, V v) {
  if constexpr (std::is_integral_v<A>) {
    return static_cast<A>(static_cast<uint64_t>(a) + static_cast<uint64_t>(static_cast<A>(v)));
  } else {
    return a + static_cast<A>(v);
  }
}
template <typename A, typename V>
inline A acc_mul(A a, V v) {
  if constexpr (std::is_integral_v<A>) {
    return static_cast<A>(static_cast<uint64_t>(a) * static_cast<uint64_t>(static_cast<A>(v)));
  } else {
    return a * static_cast<A>(v);
  }
}

/// Converts an accumulated value to an output element type (bool: non-zero; 16-bit via float).
template <typename O, typename A>
inline O cast_to(A v) {
  if constexpr (std::is_same_v<O, bool>) {
    return v != A(0);
  } else if constexpr (std::is_same_v<O, Half> || std::is_same_v<O, BFloat16>) {
    return O(static_cast<float>(v));
  } else {
    return static_cast<O>(v);
  }
}

/// Calls f with a null O*, O being the output element type of a sum-like op on T inputs: T
/// itself, or int64 for bool and integers (which accumulate into int64 unless a dtype argument
/// asked otherwise, in which case the op builder cast the input to that dtype).
template <typename T, typename F>
void visit_sum_out(ScalarType out, const char* op, F&& f) {
  if (out == dtype_of<T>) return f(static_cast<T*>(nullptr));
  if constexpr (!is_fp_v<T>) {
    if (out == kInt64) return f(static_cast<int64_t*>(nullptr));
  }
  EMBER_THROW(RuntimeError, "[", op, "] internal error: output dtype ", dtype_name(out),
              " for input dtype ", dtype_name(dtype_of<T>));
}

/// Sum of f(x) over a strided run of T, accumulated in A. Contiguous runs use 32 independent
/// lanes, which the compiler vectorises into several vector accumulators (a single accumulator
/// would serialise the adds on their latency); the lanes then add pairwise in a fixed order.
template <typename A, typename T, typename F>
inline A run_sum(const char* p, int64_t stride, int64_t n, const F& f) {
  constexpr int kLanes = 32;
  int64_t i = 0;
  A s = 0;
  if (stride == static_cast<int64_t>(sizeof(T)) && n >= kLanes) {
    A lanes[kLanes] = {};
    const T* q = reinterpret_cast<const T*>(p);
    for (; i + kLanes <= n; i += kLanes) {
      for (int k = 0; k < kLanes; ++k) {
        lanes[k] += f(load_as_opmath<T>(reinterpret_cast<const char*>(q + i + k)));
      }
    }
    s = lane_tree(lanes);
  }
  for (; i < n; ++i) s += f(load_as_opmath<T>(p + i * stride));
  return s;
}

/// A vertical run four rows at a time (one accumulator load and store per four rows), which the
/// compiler vectorises across the columns: acc[j] = f4(acc[j], x0, x1, x2, x3) over the rows in
/// fours, then acc[j] = f1(acc[j], x) for the rows left; x are the elements as opmath_t<T>.
template <typename T, typename A, typename F4, typename F1>
inline void vertical_by_four(A* __restrict acc, const char* p, int64_t row_stride, int64_t n,
                             int64_t len, const F4& f4, const F1& f1) {
  auto row = [&](int64_t i) { return reinterpret_cast<const T*>(p + i * row_stride); };
  auto ld = [](const T* q) { return load_as_opmath<T>(reinterpret_cast<const char*>(q)); };
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const T* __restrict r0 = row(i);
    const T* __restrict r1 = row(i + 1);
    const T* __restrict r2 = row(i + 2);
    const T* __restrict r3 = row(i + 3);
    for (int64_t j = 0; j < len; ++j) {
      acc[j] = f4(acc[j], ld(r0 + j), ld(r1 + j), ld(r2 + j), ld(r3 + j));
    }
  }
  for (; i < n; ++i) {
    const T* __restrict r = row(i);
    for (int64_t j = 0; j < len; ++j) acc[j] = f1(acc[j], ld(r + j));
  }
}

/// CRTP base providing the default run() (step() over a strided 1-D run) and vrun() (a
/// "vertical" run: n rows, `row_stride` bytes apart, of `len` adjacent elements; acc[j] is
/// column j's accumulator).
template <typename Derived, typename In, typename Acc>
struct ReduceOpBase {
  using in_t = In;
  using acc_t = Acc;
  void run(Acc& a, const char* p, int64_t stride, int64_t n, int64_t idx0) const {
    const auto& self = static_cast<const Derived&>(*this);
    for (int64_t i = 0; i < n; ++i) self.step(a, load_as_opmath<In>(p + i * stride), idx0 + i);
  }
  void vrun(Acc* acc, const char* p, int64_t row_stride, int64_t n, int64_t len,
            int64_t idx0) const {
    const auto& self = static_cast<const Derived&>(*this);
    for (int64_t i = 0; i < n; ++i) {
      const char* row = p + i * row_stride;
      for (int64_t j = 0; j < len; ++j) {
        self.step(acc[j], load_as_opmath<In>(row + j * static_cast<int64_t>(sizeof(In))), idx0 + i);
      }
    }
  }
};

namespace detail {

// Adjacent outputs reduced together in the vertical case: long contiguous row reads, while the
// accumulators stay in L1.
constexpr int64_t kReduceBlock = 1024;
// Note [Deterministic reduction]: a reduction is split into chunks when it has fewer than
// kSplitItems blocks of outputs; a chunk holds at least kChunkElems input elements. Both numbers
// are functions of the problem's sizes alone, never of the thread count, and the partials combine
// in chunk order, so a result is bit-identical at any thread count (threads only decide which
// thread computes which chunk).
constexpr int64_t kSplitItems = 64;
constexpr int64_t kChunkElems = 32768;

inline int64_t reduction_chunks(int64_t nblocks, int64_t block_len, int64_t red) {
  if (nblocks >= kSplitItems || red <= 1) return 1;
  const int64_t by_size = red * block_len / kChunkElems;
  const int64_t wanted = (kSplitItems + nblocks - 1) / nblocks;
  return std::clamp<int64_t>(std::min(wanted, by_size), 1, red);
}

// Odometer over the reduced dims: visits [r0, r1) of the flattened reduction index in runs of the
// innermost reduced dim; f(byte_offset, run_length, first_index).
template <typename F>
inline void for_reduction_runs(const ReduceGeom& g, int64_t r0, int64_t r1, const F& f) {
  const int nd = static_cast<int>(g.red_sizes.size());
  if (nd == 1) {  // one merged reduced dim (the usual case): a single run, no odometer
    f(r0 * g.red_strides[0], r1 - r0, r0);
    return;
  }
  std::array<int64_t, 16> idx_small{};
  std::vector<int64_t> idx_big;
  int64_t* idx = nd <= 16 ? idx_small.data() : (idx_big.assign(nd, 0), idx_big.data());
  int64_t rem = r0, off = 0;
  for (int d = nd - 1; d >= 0; --d) {
    idx[d] = rem % g.red_sizes[d];
    rem /= g.red_sizes[d];
    off += idx[d] * g.red_strides[d];
  }
  const int64_t inner = g.red_sizes[nd - 1], inner_stride = g.red_strides[nd - 1];
  int64_t r = r0;
  while (r < r1) {
    int64_t n = std::min(inner - idx[nd - 1], r1 - r);
    f(off, n, r);
    r += n;
    if (r >= r1) break;
    off += n * inner_stride;
    idx[nd - 1] += n;
    for (int d = nd - 1; d > 0 && idx[d] == g.red_sizes[d]; --d) {
      off += g.red_strides[d - 1] - g.red_sizes[d] * g.red_strides[d];
      idx[d] = 0;
      ++idx[d - 1];
    }
  }
}

// Offset of index `o` over the first `nd` of the dims `sizes` with `strides` (row-major).
inline int64_t line_offset(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                           int nd, int64_t o) {
  if (nd == 0) return 0;
  int64_t off = 0;
  for (int d = nd - 1; d > 0; --d) {
    off += (o % sizes[d]) * strides[d];
    o /= sizes[d];
  }
  return off + o * strides[0];  // o < sizes[0] here: no division for the outermost dim
}

}  // namespace detail

/// Runs a reduction described by `g` with `op` (see Note [Reduction engine] and Note
/// [Deterministic reduction]).
template <typename Op>
void reduce_kernel(const ReduceGeom& g, const Op& op) {
  using acc_t = typename Op::acc_t;
  if (g.num_out == 0) return;
  const int64_t red = g.red_numel;
  const bool vertical =
      !g.out_sizes.empty() && g.out_strides.back() == g.elem && g.out_sizes.back() >= 4 && red > 1;
  const int nkept = static_cast<int>(g.out_sizes.size()) - (vertical ? 1 : 0);
  const int64_t inner = vertical ? g.out_sizes.back() : 1;
  const int64_t bsize = vertical ? std::min(inner, detail::kReduceBlock) : 1;
  const int64_t blocks_per_row = (inner + bsize - 1) / bsize;
  const int64_t nblocks = (g.num_out / inner) * blocks_per_row;
  const int64_t wanted_chunks = detail::reduction_chunks(nblocks, bsize, red);
  const int64_t chunk_len = std::max<int64_t>(1, (red + wanted_chunks - 1) / wanted_chunks);
  const int64_t nchunks = std::max<int64_t>(1, (red + chunk_len - 1) / chunk_len);
  // Not a std::vector: vector<bool> packs bits, and threads writing neighbouring partials of
  // all()/any() would race on one byte (all() of 50000 trues came out false under load).
  auto partial =
      std::make_unique<acc_t[]>(nchunks > 1 ? static_cast<size_t>(nchunks * g.num_out) : 0);

  // A finished accumulator becomes chunk c's partial of output o, or output o itself.
  auto finish = [&](const acc_t& a, int64_t o, int64_t c) {
    if (nchunks > 1) {
      partial[c * g.num_out + o] = a;
    } else {
      op.project(a, o);
    }
  };
  const int64_t rs = g.red_strides.back();
  // Vertical: block b of adjacent outputs over reduction chunk c, accumulators in acc.
  auto do_block = [&](acc_t* acc, int64_t b, int64_t c) {
    const int64_t row = b / blocks_per_row, j0 = (b % blocks_per_row) * bsize;
    const int64_t len = std::min(bsize, inner - j0);
    const char* base =
        g.base + detail::line_offset(g.out_sizes, g.out_strides, nkept, row) + j0 * g.elem;
    for (int64_t j = 0; j < len; ++j) acc[j] = op.init();
    const int64_t r0 = c * chunk_len, r1 = std::min(red, r0 + chunk_len);
    if (r0 < r1) {
      detail::for_reduction_runs(g, r0, r1, [&](int64_t off, int64_t n, int64_t r) {
        op.vrun(acc, base + off, rs, n, len, r);
      });
    }
    for (int64_t j = 0; j < len; ++j) finish(acc[j], row * inner + j0 + j, c);
  };
  // Otherwise output o over chunk c, its accumulator a local: kept in a register, where one in
  // memory that the block path shares cost ~60 ns per output of a sum over 4096-element rows.
  auto do_output = [&](int64_t o, int64_t c) {
    acc_t a = op.init();
    const char* base = g.base + detail::line_offset(g.out_sizes, g.out_strides, nkept, o);
    const int64_t r0 = c * chunk_len, r1 = std::min(red, r0 + chunk_len);
    if (r0 < r1) {
      detail::for_reduction_runs(
          g, r0, r1, [&](int64_t off, int64_t n, int64_t r) { op.run(a, base + off, rs, n, r); });
    }
    finish(a, o, c);
  };

  const int64_t items = nblocks * nchunks;
  const int64_t grain = row_grain(bsize * chunk_len);
  parallel_for(0, items, grain, [&](int64_t i0, int64_t i1) {
    // Item i is block (or output) i % nblocks of chunk i / nblocks, counted without dividing.
    std::unique_ptr<acc_t[]> acc;  // not vector<bool>
    if (vertical) acc = std::make_unique<acc_t[]>(static_cast<size_t>(bsize));
    for (int64_t i = i0, b = i0 % nblocks, c = i0 / nblocks; i < i1; ++i) {
      if (vertical) {
        do_block(acc.get(), b, c);
      } else {
        do_output(b, c);
      }
      if (++b == nblocks) b = 0, ++c;
    }
  });
  if (nchunks > 1) {
    // Each output's partials combine in chunk order, whichever thread does it: chunk 0's row
    // takes in the other chunks' rows in turn, a contiguous run each (walking an output's
    // partials down a column thrashed one cache set when the row was 4 KiB: sum(0) of [2048,
    // 1024] spent a third of its time there).
    parallel_for(0, g.num_out, std::max<int64_t>(1, kGrainSize / nchunks),
                 [&](int64_t o0, int64_t o1) {
                   acc_t* a = partial.get();
                   for (int64_t c = 1; c < nchunks; ++c) {
                     const acc_t* pc = a + c * g.num_out;
                     for (int64_t o = o0; o < o1; ++o) op.combine(a[o], pc[o]);
                   }
                   for (int64_t o = o0; o < o1; ++o) op.project(a[o], o);
                 });
  }
}

/// Runs a scan: for each line, acc = init(); for i along the dim: step(acc, x_i, i) then
/// write(acc, output element index).
template <typename Op>
void scan_kernel(const ScanGeom& g, const Op& op) {
  using acc_t = typename Op::acc_t;
  using in_t = typename Op::in_t;
  if (g.lines == 0 || g.len == 0) return;
  const bool vertical = !g.sizes.empty() && g.in_strides.back() == g.elem &&
                        g.out_strides.back() == 1 && g.sizes.back() >= 4;
  const int nkept = static_cast<int>(g.sizes.size()) - (vertical ? 1 : 0);
  const int64_t inner = vertical ? g.sizes.back() : 1;
  const int64_t bsize = vertical ? std::min(inner, detail::kReduceBlock) : 1;
  const int64_t blocks_per_row = (inner + bsize - 1) / bsize;
  const int64_t nblocks = (g.lines / inner) * blocks_per_row;
  auto do_block = [&](acc_t* acc, int64_t b) {
    const int64_t row = b / blocks_per_row, j0 = (b % blocks_per_row) * bsize;
    const int64_t len = std::min(bsize, inner - j0);
    const int64_t in_off = detail::line_offset(g.sizes, g.in_strides, nkept, row);
    const int64_t out_off = detail::line_offset(g.sizes, g.out_strides, nkept, row) + j0;
    const char* base = g.base + in_off + j0 * g.elem;
    for (int64_t j = 0; j < len; ++j) acc[j] = op.init();
    for (int64_t i = 0; i < g.len; ++i) {
      const char* p = base + i * g.in_stride;
      const int64_t q = out_off + i * g.out_stride;
      for (int64_t j = 0; j < len; ++j) {
        op.step(acc[j], load_as_opmath<in_t>(p + j * g.elem), i);
        op.write(acc[j], q + j);
      }
    }
  };
  // Otherwise one line at a time, its accumulator and strides locals (as reduce_kernel's
  // do_output): through the block path's memory they made cumsum ~13 cycles per element.
  auto do_line = [&](int64_t line) {
    const int64_t n = g.len, in_stride = g.in_stride, out_stride = g.out_stride;
    const int64_t in_off = detail::line_offset(g.sizes, g.in_strides, nkept, line);
    const int64_t out_off = detail::line_offset(g.sizes, g.out_strides, nkept, line);
    const char* p = g.base + in_off;
    acc_t a = op.init();
    for (int64_t i = 0; i < n; ++i) {
      op.step(a, load_as_opmath<in_t>(p + i * in_stride), i);
      op.write(a, out_off + i * out_stride);
    }
  };
  const int64_t grain = row_grain(bsize * g.len);
  parallel_for(0, nblocks, grain, [&](int64_t b0, int64_t b1) {
    if (!vertical) {
      for (int64_t b = b0; b < b1; ++b) do_line(b);
      return;
    }
    auto acc = std::make_unique<acc_t[]>(static_cast<size_t>(bsize));
    for (int64_t b = b0; b < b1; ++b) do_block(acc.get(), b);
  });
}

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY
