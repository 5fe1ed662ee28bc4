// Fused softmax / log_softmax rows and their backward. The input is contiguous and viewed as
// [outer, n, inner]: inner == 1 (the last dim) runs vectorised along the row, whose few KiB stay
// in L1 between the passes, so memory is read once and written once; otherwise a block of
// `inner` columns is reduced together so that memory is read in order.
#include "primitives/softmax.h"

#include <cmath>
#include <limits>
#include <vector>

#include "backend/cpu/compute.h"
#include "backend/cpu/kernel.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/row_math.h"
#include "backend/cpu/vec.h"

namespace ember {
namespace {

// One row in the compute type A (x and y may be the same buffer).
template <typename A>
void softmax_row_acc(const A* x, A* y, int64_t n, bool log) {
  using V = cpu::Vec<A>;
  const A mx = cpu::row_max(x, n);
  if (log) {
    // All -inf: exp(-inf - -inf) is NaN, as PyTorch gives; keep that by not special-casing.
    const A lse = mx + std::log(cpu::exp_sum<A>(x, nullptr, n, mx));
    const V vl(lse);
    int64_t i = 0;
    for (; i + V::size <= n; i += V::size) (V::load(x + i) - vl).store(y + i);
    for (; i < n; ++i) y[i] = x[i] - lse;
  } else {
    const A inv = A(1) / cpu::exp_sum<A>(x, y, n, mx);
    const V vi(inv);
    int64_t i = 0;
    for (; i + V::size <= n; i += V::size) (V::load(y + i) * vi).store(y + i);
    for (; i < n; ++i) y[i] *= inv;
  }
}

// A [n, inner] slab: softmax along n for each of the inner columns.
template <typename T, typename Acc>
void softmax_slab(const T* in, T* out, int64_t n, int64_t inner, bool log, Acc* mx, Acc* sum) {
  for (int64_t c = 0; c < inner; ++c) {
    mx[c] = -std::numeric_limits<Acc>::infinity();
    sum[c] = 0;
  }
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t c = 0; c < inner; ++c) {
      Acc v = static_cast<Acc>(in[r * inner + c]);
      mx[c] = (v > mx[c] || std::isnan(v)) ? v : mx[c];
    }
  }
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t c = 0; c < inner; ++c)
      sum[c] += std::exp(static_cast<Acc>(in[r * inner + c]) - mx[c]);
  }
  for (int64_t c = 0; c < inner; ++c) sum[c] = log ? mx[c] + std::log(sum[c]) : Acc(1) / sum[c];
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t c = 0; c < inner; ++c) {
      Acc v = static_cast<Acc>(in[r * inner + c]);
      out[r * inner + c] = static_cast<T>(log ? v - sum[c] : std::exp(v - mx[c]) * sum[c]);
    }
  }
}

struct RowShape {
  int64_t outer = 1, n = 1, inner = 1;
  RowShape(const std::vector<int64_t>& sz, int64_t dim) {
    n = sz.empty() ? 1 : sz[dim];
    for (int64_t d = 0; d < dim; ++d) outer *= sz[d];
    for (int64_t d = dim + 1; d < static_cast<int64_t>(sz.size()); ++d) inner *= sz[d];
  }
  bool empty() const { return outer * n * inner == 0; }
};

template <typename T>
void softmax_kernel(const Tensor& x, Tensor& y, int64_t dim, bool log) {
  using Acc = cpu::compute_t<T>;
  const RowShape s(x.sizes(), dim);
  if (s.empty()) return;
  const T* in = x.data_ptr<T>();
  T* out = y.data_ptr<T>();
  const int64_t n = s.n, inner = s.inner;
  cpu::parallel_for(0, s.outer, cpu::row_grain(n * inner), [&](int64_t b, int64_t e) {
    if (inner == 1) {
      std::vector<Acc> xbuf, ybuf;  // 16-bit: the row in float, rounded once
      for (int64_t o = b; o < e; ++o) {
        Acc* y = cpu::compute_dst<Acc>(out + o * n, n, ybuf);
        softmax_row_acc<Acc>(cpu::as_compute<Acc>(in + o * n, n, xbuf), y, n, log);
        cpu::store_rounded(y, n, out + o * n);
      }
    } else {
      std::vector<Acc> mx(inner), sum(inner);
      for (int64_t o = b; o < e; ++o) {
        softmax_slab<T, Acc>(in + o * n * inner, out + o * n * inner, n, inner, log, mx.data(),
                             sum.data());
      }
    }
  });
}

// Backward of one row in A: softmax gx = y * (g - sum(g * y)); log_softmax gx = g - exp(y) *
// sum(g). gx may alias g. `stream`: gx is written with streaming stores where aligned (Note
// [Streaming stores]). next_g and next_y (or null) are the next row's, fetched into cache line by
// line while the second pass computes from L1: the hardware prefetcher stops at each 4 KiB page,
// so a row of one page started cold, and the exp of log_softmax's pass left memory idle (a third
// faster with them).
template <typename A>
void softmax_backward_row(const A* g, const A* y, A* gx, int64_t n, bool log, bool stream,
                          const A* next_g, const A* next_y) {
  using V = cpu::Vec<A>;
  V s0(A(0)), s1(A(0));
  int64_t i = 0;
  for (; i + 2 * V::size <= n; i += 2 * V::size) {
    V a = V::load(g + i), b = V::load(g + i + V::size);
    if (!log) {
      a = a * V::load(y + i);
      b = b * V::load(y + i + V::size);
    }
    s0 = s0 + a;
    s1 = s1 + b;
  }
  A sum = cpu::hsum(s0 + s1);
  for (; i < n; ++i) sum += log ? g[i] : g[i] * y[i];
  const V vs(sum);
  const auto fetch_next = [&](int64_t j) {
    if (next_g) {
      __builtin_prefetch(next_g + j);
      __builtin_prefetch(next_y + j);
    }
  };
  if (log) {
    i = cpu::store_vectors(gx, n, stream, [&](int64_t j) {
      fetch_next(j);
      return V::load(g + j) - cpu::vexp_nonpos(V::load(y + j)) * vs;
    });
    for (; i < n; ++i) gx[i] = g[i] - std::exp(y[i]) * sum;
  } else {
    i = cpu::store_vectors(gx, n, stream, [&](int64_t j) {
      fetch_next(j);
      return V::load(y + j) * (V::load(g + j) - vs);
    });
    for (; i < n; ++i) gx[i] = y[i] * (g[i] - sum);
  }
}

// A [n, inner] slab of the backward: the sums run along n for each inner column.
template <typename T, typename Acc>
void softmax_backward_slab(const T* g, const T* y, T* gx, int64_t n, int64_t inner, bool log,
                           Acc* sum) {
  for (int64_t c = 0; c < inner; ++c) sum[c] = 0;
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t c = 0; c < inner; ++c) {
      const Acc gv = static_cast<Acc>(g[r * inner + c]);
      sum[c] += log ? gv : gv * static_cast<Acc>(y[r * inner + c]);
    }
  }
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t c = 0; c < inner; ++c) {
      const int64_t k = r * inner + c;
      const Acc gv = static_cast<Acc>(g[k]), yv = static_cast<Acc>(y[k]);
      gx[k] = static_cast<T>(log ? gv - std::exp(yv) * sum[c] : yv * (gv - sum[c]));
    }
  }
}

template <typename T>
void softmax_backward_kernel(const Tensor& g, const Tensor& y, Tensor& gx, int64_t dim, bool log) {
  using Acc = cpu::compute_t<T>;
  const RowShape s(y.sizes(), dim);
  if (s.empty()) return;
  const T *gp = g.data_ptr<T>(), *yp = y.data_ptr<T>();
  T* out = gx.data_ptr<T>();
  const int64_t n = s.n, inner = s.inner;
  const bool stream = cpu::streams_output<T>(gx.numel());  // Note [Streaming stores]
  cpu::parallel_for(0, s.outer, cpu::row_grain(n * inner), [&](int64_t b, int64_t e) {
    if (inner == 1) {
      std::vector<Acc> gbuf, ybuf, gxbuf;  // 16-bit: the row in float, rounded once
      for (int64_t o = b; o < e; ++o) {
        Acc* gx = cpu::compute_dst<Acc>(out + o * n, n, gxbuf);
        const bool next = std::is_same_v<T, Acc> && o + 1 < e;  // 16-bit rows are converted
        const Acc* next_g = next ? reinterpret_cast<const Acc*>(gp + (o + 1) * n) : nullptr;
        const Acc* next_y = next ? reinterpret_cast<const Acc*>(yp + (o + 1) * n) : nullptr;
        softmax_backward_row<Acc>(cpu::as_compute<Acc>(gp + o * n, n, gbuf),
                                  cpu::as_compute<Acc>(yp + o * n, n, ybuf), gx, n, log,
                                  stream && std::is_same_v<T, Acc>, next_g, next_y);
        cpu::store_rounded(gx, n, out + o * n);
      }
    } else {
      std::vector<Acc> sum(inner);
      for (int64_t o = b; o < e; ++o) {
        const int64_t off = o * n * inner;
        softmax_backward_slab<T, Acc>(gp + off, yp + off, out + off, n, inner, log, sum.data());
      }
    }
  });
}

}  // namespace

EMBER_CPU_KERNEL(Softmax, inputs, outputs) {
  const std::string kernel = std::string(name()) + "_lastdim_kernel_impl";
  cpu::visit_floating(inputs[0].dtype(), name(), kernel.c_str(), [&](auto* tag) {
    softmax_kernel<std::remove_pointer_t<decltype(tag)>>(inputs[0], outputs[0], p_.dim, p_.log);
  });
}

EMBER_CPU_KERNEL(SoftmaxBackward, inputs, outputs) {
  const std::string kernel = std::string(name()) + "_lastdim_kernel_impl";
  cpu::visit_floating(inputs[1].dtype(), name(), kernel.c_str(), [&](auto* tag) {
    softmax_backward_kernel<std::remove_pointer_t<decltype(tag)>>(inputs[0], inputs[1], outputs[0],
                                                                  p_.dim, p_.log);
  });
}

}  // namespace ember
