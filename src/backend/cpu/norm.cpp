// Fused layer_norm / rms_norm and their backward (primitives/norm.h). x is contiguous and viewed
// as [M, N] rows; each row's few KiB stay in L1 between its passes (statistics, then the
// output), so memory is read once and written once. 16-bit rows are widened to float first.
#include "primitives/norm.h"

#include <cmath>
#include <vector>

#include "backend/cpu/compute.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/vec.h"

namespace ember {
namespace {

// sum(f(i)) over a row, f returning a Vec at element i (and f1 the scalar at i for the tail).
template <typename A, typename F, typename F1>
A row_sum(int64_t n, const F& f, const F1& f1) {
  using V = cpu::Vec<A>;
  V s0(A(0)), s1(A(0));
  int64_t i = 0;
  for (; i + 2 * V::size <= n; i += 2 * V::size) {
    s0 = s0 + f(i);
    s1 = s1 + f(i + V::size);
  }
  A s = cpu::hsum(s0 + s1);
  for (; i < n; ++i) s += f1(i);
  return s;
}

// Note [Row loops take their sizes by value]: a row's vector loop lives in a function of its
// own, its length and pointers parameters. In a [&] lambda they are loads through the closure,
// and every Vec store (an intrinsic that may alias anything) forces them to be loaded again: the
// backward's loop ran at a third of its speed on those reloads.

// y = (x - mean) * rstd, times w and plus b where given.
template <typename A>
void normalize_row(const A* x, const A* w, const A* b, A mean, A rstd, int64_t n, A* y) {
  using V = cpu::Vec<A>;
  const V vm(mean), vr(rstd);
  int64_t j = 0;
  for (; j + V::size <= n; j += V::size) {
    V v = (V::load(x + j) - vm) * vr;
    if (w) v = v * V::load(w + j);
    if (b) v = v + V::load(b + j);
    v.store(y + j);
  }
  for (; j < n; ++j) {
    A v = (x[j] - mean) * rstd;
    if (w) v *= w[j];
    if (b) v += b[j];
    y[j] = v;
  }
}

template <typename T>
void norm_forward(const std::vector<Tensor>& in, std::vector<Tensor>& out, const NormParams& p,
                  bool rms) {
  using A = cpu::compute_t<T>;
  using V = cpu::Vec<A>;
  const Tensor& x = in[0];
  const int64_t m = out[1].numel(), n = m == 0 ? 0 : x.numel() / m;
  size_t i = 1;
  const A* w = p.has_weight ? in[i++].data_ptr<A>() : nullptr;
  const A* b = p.has_bias ? in[i++].data_ptr<A>() : nullptr;
  A* mean_out = rms ? nullptr : out[1].data_ptr<A>();
  A* rstd_out = out[rms ? 1 : 2].data_ptr<A>();
  if (m == 0) return;
  const T* xp = x.numel() == 0 ? nullptr : x.data_ptr<T>();
  T* yp = x.numel() == 0 ? nullptr : out[0].data_ptr<T>();
  const A inv_n = A(1) / static_cast<A>(n);
  cpu::parallel_for(0, m, cpu::row_grain(n), [&](int64_t begin, int64_t end) {
    std::vector<A> xbuf, ybuf;  // 16-bit rows, widened
    for (int64_t o = begin; o < end; ++o) {
      const A* r = n ? cpu::as_compute<A>(xp + o * n, n, xbuf) : nullptr;
      A mean = 0, var;
      if (rms) {
        var = row_sum<A>(
                  n,
                  [&](int64_t j) {
                    V v = V::load(r + j);
                    return v * v;
                  },
                  [&](int64_t j) { return r[j] * r[j]; }) *
              inv_n;
      } else {
        mean = row_sum<A>(
                   n, [&](int64_t j) { return V::load(r + j); }, [&](int64_t j) { return r[j]; }) *
               inv_n;
        const V vm(mean);
        var = row_sum<A>(
                  n,
                  [&](int64_t j) {
                    V d = V::load(r + j) - vm;
                    return d * d;
                  },
                  [&](int64_t j) { return (r[j] - mean) * (r[j] - mean); }) *
              inv_n;
        mean_out[o] = mean;
      }
      const A rstd = A(1) / std::sqrt(var + static_cast<A>(p.eps));
      rstd_out[o] = rstd;
      if (n == 0) continue;
      A* y = cpu::compute_dst<A>(yp + o * n, n, ybuf);
      normalize_row(r, w, b, mean, rstd, n, y);
      cpu::store_rounded(y, n, yp + o * n);
    }
  });
}

// Rows are split into a number of chunks that depends on the shape alone; each chunk sums its
// rows' grad_weight / grad_bias terms into its own partial row, and the partials are added in
// chunk order (results independent of the thread count).
int64_t param_chunks(int64_t m, int64_t n) {
  const int64_t by_memory = std::max<int64_t>(1, (int64_t{1} << 22) / std::max<int64_t>(1, n));
  return std::max<int64_t>(1, std::min({m, int64_t{32}, by_memory}));
}

// One row of the backward (Note [Row loops take their sizes by value]): gx from g, x and the
// row's mean and rstd, with dy (n of scratch) = g * w; adds the row's terms to the weight and bias
// partials pw and pb where given.
template <typename A>
void norm_backward_row(const A* g, const A* x, const A* w, A mu, A r, bool rms, int64_t n, A inv_n,
                       A* dy, A* pw, A* pb, A* gx) {
  using V = cpu::Vec<A>;
  const V vm(mu), vr(r);
  // dxhat = g * w; sums of dxhat and dxhat * xhat; the parameters' partials.
  V a0(A(0)), b0(A(0));
  int64_t j = 0;
  for (; j + V::size <= n; j += V::size) {
    // Every load before the first store: rows are often 4 KiB apiece, and a load whose address
    // matches a pending store's in the low 12 bits waits for it (4K aliasing).
    const V gv = V::load(g + j), xv = V::load(x + j);
    const V d = w ? gv * V::load(w + j) : gv;
    const V pwv = pw ? V::load(pw + j) : V(A(0)), pbv = pb ? V::load(pb + j) : V(A(0));
    const V xh = (xv - vm) * vr;
    a0 = a0 + d;
    b0 = b0 + d * xh;
    d.store(dy + j);
    if (pw) (pwv + gv * xh).store(pw + j);
    if (pb) (pbv + gv).store(pb + j);
  }
  A a = cpu::hsum(a0), bsum = cpu::hsum(b0);
  for (; j < n; ++j) {
    const A xh = (x[j] - mu) * r, d = w ? g[j] * w[j] : g[j];
    dy[j] = d;
    a += d;
    bsum += d * xh;
    if (pw) pw[j] += g[j] * xh;
    if (pb) pb[j] += g[j];
  }
  const A ma = rms ? A(0) : a * inv_n, mb = bsum * inv_n;
  const V vma(ma), vmb(mb);
  j = 0;
  for (; j + V::size <= n; j += V::size) {
    const V xh = (V::load(x + j) - vm) * vr;
    (vr * (V::load(dy + j) - vma - xh * vmb)).store(gx + j);
  }
  for (; j < n; ++j) gx[j] = r * (dy[j] - ma - (x[j] - mu) * r * mb);
}

template <typename T>
void norm_backward(const std::vector<Tensor>& in, std::vector<Tensor>& out, const NormParams& p,
                   bool rms) {
  using A = cpu::compute_t<T>;
  const Tensor &g = in[0], &x = in[1];
  const size_t nstats = rms ? 1 : 2;
  const Tensor& rstd_t = in[1 + nstats];
  const int64_t m = rstd_t.numel(), n = m == 0 ? 0 : x.numel() / m;
  const A* mean = rms ? nullptr : in[2].data_ptr<A>();
  const A* rstd = rstd_t.data_ptr<A>();
  const A* w = p.has_weight ? in[2 + nstats].data_ptr<A>() : nullptr;
  A* gw = p.has_weight ? out[1].data_ptr<A>() : nullptr;
  A* gb = p.has_bias ? out[p.has_weight ? 2 : 1].data_ptr<A>() : nullptr;
  if (gw) std::fill(gw, gw + out[1].numel(), A(0));
  if (gb) std::fill(gb, gb + out.back().numel(), A(0));
  if (m == 0 || n == 0) return;
  const T *gp = g.data_ptr<T>(), *xp = x.data_ptr<T>();
  T* gxp = out[0].data_ptr<T>();
  const bool params = gw || gb;
  const int64_t chunks = params ? param_chunks(m, n) : m;
  const int64_t rows_per = (m + chunks - 1) / chunks;
  std::vector<A> partial(params ? 2 * chunks * n : 0, A(0));  // [chunk][gw row, gb row]
  const A inv_n = A(1) / static_cast<A>(n);
  const int64_t grain = std::max<int64_t>(1, cpu::row_grain(n) / rows_per);
  cpu::parallel_for(0, chunks, grain, [&](int64_t cb, int64_t ce) {
    std::vector<A> xbuf, gbuf, gxbuf, dy(n);
    for (int64_t c = cb; c < ce; ++c) {
      A* pw = gw ? partial.data() + 2 * c * n : nullptr;
      A* pb = gb ? partial.data() + (2 * c + 1) * n : nullptr;
      for (int64_t o = c * rows_per; o < std::min(m, (c + 1) * rows_per); ++o) {
        const A* xr = cpu::as_compute<A>(xp + o * n, n, xbuf);
        const A* gr = cpu::as_compute<A>(gp + o * n, n, gbuf);
        A* gx = cpu::compute_dst<A>(gxp + o * n, n, gxbuf);
        norm_backward_row(gr, xr, w, rms ? A(0) : mean[o], rstd[o], rms, n, inv_n, dy.data(), pw,
                          pb, gx);
        cpu::store_rounded(gx, n, gxp + o * n);
      }
    }
  });
  for (int64_t c = 0; c < (params ? chunks : 0); ++c) {
    const A* pw = partial.data() + 2 * c * n;
    for (int64_t j = 0; j < n; ++j) {
      if (gw) gw[j] += pw[j];
      if (gb) gb[j] += pw[n + j];
    }
  }
}

}  // namespace

EMBER_CPU_KERNEL(LayerNorm, inputs, outputs) {
  cpu::visit_floating(inputs[0].dtype(), name(), "LayerNormKernelImpl", [&](auto* tag) {
    norm_forward<std::remove_pointer_t<decltype(tag)>>(inputs, outputs, p_, false);
  });
}
EMBER_CPU_KERNEL(RmsNorm, inputs, outputs) {
  cpu::visit_floating(inputs[0].dtype(), name(), "LayerNormKernelImpl", [&](auto* tag) {
    norm_forward<std::remove_pointer_t<decltype(tag)>>(inputs, outputs, p_, true);
  });
}
EMBER_CPU_KERNEL(LayerNormBackward, inputs, outputs) {
  cpu::visit_floating(inputs[1].dtype(), name(), "LayerNormKernelImpl", [&](auto* tag) {
    norm_backward<std::remove_pointer_t<decltype(tag)>>(inputs, outputs, p_, false);
  });
}
EMBER_CPU_KERNEL(RmsNormBackward, inputs, outputs) {
  cpu::visit_floating(inputs[1].dtype(), name(), "LayerNormKernelImpl", [&](auto* tag) {
    norm_backward<std::remove_pointer_t<decltype(tag)>>(inputs, outputs, p_, true);
  });
}

}  // namespace ember
