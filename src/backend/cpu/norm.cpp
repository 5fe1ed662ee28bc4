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
      const V vm(mean), vr(rstd);
      int64_t j = 0;
      for (; j + V::size <= n; j += V::size) {
        V v = (V::load(r + j) - vm) * vr;
        if (w) v = v * V::load(w + j);
        if (b) v = v + V::load(b + j);
        v.store(y + j);
      }
      for (; j < n; ++j) {
        A v = (r[j] - mean) * rstd;
        if (w) v *= w[j];
        if (b) v += b[j];
        y[j] = v;
      }
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

template <typename T>
void norm_backward(const std::vector<Tensor>& in, std::vector<Tensor>& out, const NormParams& p,
                   bool rms) {
  using A = cpu::compute_t<T>;
  using V = cpu::Vec<A>;
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
        const A mu = rms ? A(0) : mean[o], r = rstd[o];
        const V vm(mu), vr(r);
        // dxhat = g * w; sums of dxhat and dxhat * xhat; the parameters' partials.
        V a0(A(0)), b0(A(0));
        int64_t j = 0;
        for (; j + V::size <= n; j += V::size) {
          const V gv = V::load(gr + j), xh = (V::load(xr + j) - vm) * vr;
          const V d = w ? gv * V::load(w + j) : gv;
          d.store(dy.data() + j);
          a0 = a0 + d;
          b0 = b0 + d * xh;
          if (pw) (V::load(pw + j) + gv * xh).store(pw + j);
          if (pb) (V::load(pb + j) + gv).store(pb + j);
        }
        A a = cpu::hsum(a0), bsum = cpu::hsum(b0);
        for (; j < n; ++j) {
          const A xh = (xr[j] - mu) * r, d = w ? gr[j] * w[j] : gr[j];
          dy[j] = d;
          a += d;
          bsum += d * xh;
          if (pw) pw[j] += gr[j] * xh;
          if (pb) pb[j] += gr[j];
        }
        const A ma = rms ? A(0) : a * inv_n, mb = bsum * inv_n;
        const V vma(ma), vmb(mb);
        A* gx = cpu::compute_dst<A>(gxp + o * n, n, gxbuf);
        j = 0;
        for (; j + V::size <= n; j += V::size) {
          const V xh = (V::load(xr + j) - vm) * vr;
          (vr * (V::load(dy.data() + j) - vma - xh * vmb)).store(gx + j);
        }
        for (; j < n; ++j) gx[j] = r * (dy[j] - ma - (xr[j] - mu) * r * mb);
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
