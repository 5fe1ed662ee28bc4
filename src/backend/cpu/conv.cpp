// Convolution kernels: im2col + GEMM (Note [GEMM providers]) per sample and group; 1x1 kernels
// with unit stride and no padding multiply the input directly. Samples run in parallel, each
// with its own column buffer. 16-bit floats compute in float32 and round once.
#include "primitives/conv.h"

#include <mutex>
#include <sstream>

#include "backend/cpu/compute.h"
#include "backend/cpu/gemm.h"
#include "backend/cpu/parallel.h"

namespace ember {

std::string Conv2dParams::str() const {
  std::ostringstream ss;
  ss << "stride=[" << stride_h << ", " << stride_w << "], padding=[" << pad_h << ", " << pad_w
     << "], dilation=[" << dilation_h << ", " << dilation_w << "], groups=" << groups;
  return ss.str();
}

namespace cpu {
namespace {

// Geometry of one convolution: x [N, C, H, W], w [O, C / groups, kh, kw], y [N, O, Ho, Wo].
struct Geom {
  int64_t N, C, H, W, O, kh, kw, Ho, Wo;
  Conv2dParams p;
  int64_t Cg() const { return C / p.groups; }
  int64_t Og() const { return O / p.groups; }
  int64_t K() const { return Cg() * kh * kw; }
  int64_t L() const { return Ho * Wo; }
  bool direct() const {
    return kh == 1 && kw == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_h == 0 && p.pad_w == 0;
  }
};

// The output columns [lo, hi) whose input column ow * s + off lies in [0, W).
inline void valid_range(int64_t off, int64_t s, int64_t W, int64_t Wo, int64_t& lo, int64_t& hi) {
  lo = off >= 0 ? 0 : (-off + s - 1) / s;
  hi = off > W - 1 ? 0 : (W - 1 - off) / s + 1;
  lo = std::min(lo, Wo);
  hi = std::min(std::max(hi, lo), Wo);
}

// cols[(c, i, j), (oh, ow)] = x[c, oh * sh - ph + i * dh, ow * sw - pw + j * dw] (0 outside).
template <typename S, typename D>
void im2col(const S* x, int64_t channels, const Geom& g, D* cols) {
  const auto& p = g.p;
  const int64_t L = g.L();
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t i = 0; i < g.kh; ++i) {
      for (int64_t j = 0; j < g.kw; ++j) {
        D* row = cols + ((c * g.kh + i) * g.kw + j) * L;
        const int64_t off_w = j * p.dilation_w - p.pad_w;
        int64_t lo, hi;
        valid_range(off_w, p.stride_w, g.W, g.Wo, lo, hi);
        for (int64_t oh = 0; oh < g.Ho; ++oh) {
          D* r = row + oh * g.Wo;
          const int64_t ih = oh * p.stride_h - p.pad_h + i * p.dilation_h;
          if (ih < 0 || ih >= g.H) {
            for (int64_t ow = 0; ow < g.Wo; ++ow) r[ow] = D(0);
            continue;
          }
          const S* xr = x + (c * g.H + ih) * g.W + off_w;
          for (int64_t ow = 0; ow < lo; ++ow) r[ow] = D(0);
          if (p.stride_w == 1) {
            for (int64_t ow = lo; ow < hi; ++ow) r[ow] = static_cast<D>(xr[ow]);
          } else {
            for (int64_t ow = lo; ow < hi; ++ow) r[ow] = static_cast<D>(xr[ow * p.stride_w]);
          }
          for (int64_t ow = hi; ow < g.Wo; ++ow) r[ow] = D(0);
        }
      }
    }
  }
}

// The adjoint of im2col: x[c, ih, iw] += cols[(c, i, j), (oh, ow)] (x zeroed by the caller).
template <typename C>
void col2im(const C* cols, int64_t channels, const Geom& g, C* x) {
  const auto& p = g.p;
  const int64_t L = g.L();
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t i = 0; i < g.kh; ++i) {
      for (int64_t j = 0; j < g.kw; ++j) {
        const C* row = cols + ((c * g.kh + i) * g.kw + j) * L;
        const int64_t off_w = j * p.dilation_w - p.pad_w;
        int64_t lo, hi;
        valid_range(off_w, p.stride_w, g.W, g.Wo, lo, hi);
        for (int64_t oh = 0; oh < g.Ho; ++oh) {
          const int64_t ih = oh * p.stride_h - p.pad_h + i * p.dilation_h;
          if (ih < 0 || ih >= g.H) continue;
          const C* r = row + oh * g.Wo;
          C* xr = x + (c * g.H + ih) * g.W + off_w;
          for (int64_t ow = lo; ow < hi; ++ow) xr[ow * p.stride_w] += r[ow];
        }
      }
    }
  }
}

// Samples per parallel chunk: one when a sample carries enough work, else all of them.
int64_t sample_grain(const Geom& g) {
  const int64_t work = std::max<int64_t>(1, g.O * g.K() * g.L());
  return work >= (int64_t{1} << 16) ? 1 : std::max<int64_t>(1, g.N);
}

template <typename T>
void forward(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& y, const Geom& g) {
  using C = compute_t<T>;
  constexpr bool same = std::is_same_v<T, C>;
  const T* xp = x.data_ptr<T>();
  T* yp = y.data_ptr<T>();
  std::vector<C> wbuf, bbuf;
  const C* wc = as_compute<C>(w.data_ptr<T>(), w.numel(), wbuf);
  const C* bc = bias ? as_compute<C>(bias->data_ptr<T>(), g.O, bbuf) : nullptr;
  const int64_t K = g.K(), L = g.L(), Og = g.Og(), Cg = g.Cg();
  const bool direct = same && g.direct();
  parallel_for(0, g.N, sample_grain(g), [&](int64_t n0, int64_t n1) {
    std::vector<C> cols(direct ? 0 : K * L), obuf(same ? 0 : g.O * L);
    for (int64_t n = n0; n < n1; ++n) {
      C* out = same ? reinterpret_cast<C*>(yp + n * g.O * L) : obuf.data();
      for (int64_t grp = 0; grp < g.p.groups; ++grp) {
        const T* xs = xp + (n * g.C + grp * Cg) * g.H * g.W;
        const C* colp;
        if (direct) {
          colp = reinterpret_cast<const C*>(xs);
        } else {
          im2col(xs, Cg, g, cols.data());
          colp = cols.data();
        }
        if (K == 0) {
          std::fill(out + grp * Og * L, out + (grp + 1) * Og * L, C(0));
        } else {
          gemm(false, false, Og, L, K, C(1), wc + grp * Og * K, K, colp, L, C(0),
               out + grp * Og * L, L);
        }
      }
      if (bc) {
        for (int64_t o = 0; o < g.O; ++o) {
          C* r = out + o * L;
          for (int64_t l = 0; l < L; ++l) r[l] += bc[o];
        }
      }
      if constexpr (!same) store_rounded(out, g.O * L, yp + n * g.O * L);
    }
  });
}

// With a bias (conv_transpose), bias[c] is added to every grad_x[n, c] before rounding.
template <typename T>
void backward_input(const Tensor& gy, const Tensor& w, const Tensor* bias, Tensor& gx,
                    const Geom& g) {
  using C = compute_t<T>;
  constexpr bool same = std::is_same_v<T, C>;
  const T* gyp = gy.data_ptr<T>();
  T* gxp = gx.data_ptr<T>();
  std::vector<C> wbuf, bbuf;
  const C* wc = as_compute<C>(w.data_ptr<T>(), w.numel(), wbuf);
  const C* bc = bias ? as_compute<C>(bias->data_ptr<T>(), g.C, bbuf) : nullptr;
  const int64_t K = g.K(), L = g.L(), Og = g.Og(), Cg = g.Cg(), HW = g.H * g.W;
  const bool direct = same && g.direct();
  parallel_for(0, g.N, sample_grain(g), [&](int64_t n0, int64_t n1) {
    std::vector<C> cols(direct ? 0 : K * L), gxbuf(same ? 0 : g.C * HW), gybuf;
    for (int64_t n = n0; n < n1; ++n) {
      const C* gyc = as_compute<C>(gyp + n * g.O * L, g.O * L, gybuf);
      C* gxc = same ? reinterpret_cast<C*>(gxp + n * g.C * HW) : gxbuf.data();
      if (!direct) std::fill(gxc, gxc + g.C * HW, C(0));
      for (int64_t grp = 0; grp < g.p.groups; ++grp) {
        C* dst = direct ? gxc + grp * Cg * HW : cols.data();
        if (Og == 0) {
          std::fill(dst, dst + K * L, C(0));
        } else {
          gemm(true, false, K, L, Og, C(1), wc + grp * Og * K, K, gyc + grp * Og * L, L, C(0), dst,
               L);
        }
        if (!direct) col2im(cols.data(), Cg, g, gxc + grp * Cg * HW);
      }
      if (bc) {
        for (int64_t c = 0; c < g.C; ++c) {
          C* r = gxc + c * HW;
          for (int64_t i = 0; i < HW; ++i) r[i] += bc[c];
        }
      }
      if constexpr (!same) store_rounded(gxc, g.C * HW, gxp + n * g.C * HW);
    }
  });
}

template <typename T>
void backward_weight(const Tensor& gy, const Tensor& x, Tensor& gw, const Geom& g) {
  using C = compute_t<T>;
  constexpr bool same = std::is_same_v<T, C>;
  const T* gyp = gy.data_ptr<T>();
  const T* xp = x.data_ptr<T>();
  const int64_t K = g.K(), L = g.L(), Og = g.Og(), Cg = g.Cg();
  const bool direct = same && g.direct();
  std::vector<C> total(g.O * K, C(0));
  std::mutex mu;
  parallel_for(0, g.N, sample_grain(g), [&](int64_t n0, int64_t n1) {
    std::vector<C> acc(g.O * K, C(0)), cols(direct ? 0 : K * L), gybuf;
    for (int64_t n = n0; n < n1; ++n) {
      const C* gyc = as_compute<C>(gyp + n * g.O * L, g.O * L, gybuf);
      for (int64_t grp = 0; grp < g.p.groups; ++grp) {
        const T* xs = xp + (n * g.C + grp * Cg) * g.H * g.W;
        const C* colp;
        if (direct) {
          colp = reinterpret_cast<const C*>(xs);
        } else {
          im2col(xs, Cg, g, cols.data());
          colp = cols.data();
        }
        gemm(false, true, Og, K, L, C(1), gyc + grp * Og * L, L, colp, L, C(1),
             acc.data() + grp * Og * K, K);
      }
    }
    std::lock_guard<std::mutex> lock(mu);
    for (size_t i = 0; i < total.size(); ++i) total[i] += acc[i];
  });
  store_rounded(total.data(), g.O * K, gw.data_ptr<T>());
}

}  // namespace
}  // namespace cpu

void Convolution::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& a = inputs[0];
  const Tensor& b = inputs[1];
  Tensor& out = outputs[0];
  cpu::Geom g{};
  g.p = p_.conv;
  // Which tensors hold x, w and y depends on the direction.
  const Tensor& xt = p_.op == ConvOp::Forward ? a : (p_.op == ConvOp::BackwardInput ? out : b);
  const Tensor& wt = p_.op == ConvOp::BackwardWeight ? out : b;
  const Tensor& yt = p_.op == ConvOp::Forward ? out : a;
  g.N = xt.size(0), g.C = xt.size(1), g.H = xt.size(2), g.W = xt.size(3);
  g.O = wt.size(0), g.kh = wt.size(2), g.kw = wt.size(3);
  g.Ho = yt.size(2), g.Wo = yt.size(3);
  cpu::visit_floating(out.dtype(), name(), "slow_conv2d_cpu", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if (p_.op == ConvOp::BackwardWeight) {
      if (g.N == 0 || g.L() == 0 || g.K() == 0 || g.O == 0) {
        std::fill(out.data_ptr<T>(), out.data_ptr<T>() + out.numel(), T(0.0f));
        return;
      }
      cpu::backward_weight<T>(a, b, out, g);
      return;
    }
    if (out.numel() == 0) return;
    if (p_.op == ConvOp::Forward) {
      cpu::forward<T>(a, b, inputs.size() > 2 ? &inputs[2] : nullptr, out, g);
    } else if (g.L() == 0) {
      // No grad_y positions: zero, plus the bias of conv_transpose.
      T* op = out.data_ptr<T>();
      const T* bp = inputs.size() > 2 ? inputs[2].data_ptr<T>() : nullptr;
      const int64_t HW = g.H * g.W;
      for (int64_t i = 0; i < out.numel(); ++i) op[i] = bp ? bp[(i / HW) % g.C] : T(0.0f);
    } else {
      cpu::backward_input<T>(a, b, inputs.size() > 2 ? &inputs[2] : nullptr, out, g);
    }
  });
}

void SlidingWindow::eval_cpu(const std::vector<Tensor>& inputs,
                             std::vector<Tensor>& outputs) const {
  const Tensor& in = inputs[0];
  Tensor& out = outputs[0];
  const Tensor& x = p_.to_columns ? in : out;
  cpu::Geom g{};
  g.p = p_.conv;
  g.N = x.size(0), g.C = x.size(1), g.H = x.size(2), g.W = x.size(3);
  g.kh = p_.kernel_h, g.kw = p_.kernel_w;
  // Ho * Wo = L: recompute Ho and Wo from the geometry (the op builder checked they match).
  g.Ho =
      (g.H + 2 * p_.conv.pad_h - p_.conv.dilation_h * (p_.kernel_h - 1) - 1) / p_.conv.stride_h + 1;
  g.Wo =
      (g.W + 2 * p_.conv.pad_w - p_.conv.dilation_w * (p_.kernel_w - 1) - 1) / p_.conv.stride_w + 1;
  g.O = g.C;
  g.p.groups = 1;
  if (out.numel() == 0) return;
  const int64_t xs = g.C * g.H * g.W, cs = g.C * p_.kernel_h * p_.kernel_w * g.L();
  cpu::visit_floating(out.dtype(), name(), p_.to_columns ? "im2col" : "col2im", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    using C = cpu::compute_t<T>;
    const T* ip = in.data_ptr<T>();
    T* op = out.data_ptr<T>();
    const int64_t grain = std::max<int64_t>(1, cpu::kGrainSize / std::max<int64_t>(1, cs));
    cpu::parallel_for(0, g.N, grain, [&](int64_t n0, int64_t n1) {
      std::vector<C> buf, colbuf;
      for (int64_t n = n0; n < n1; ++n) {
        if (p_.to_columns) {
          cpu::im2col(ip + n * xs, g.C, g, op + n * cs);
        } else {
          const C* cc = cpu::as_compute<C>(ip + n * cs, cs, colbuf);
          buf.assign(xs, C(0));
          cpu::col2im(cc, g.C, g, buf.data());
          cpu::store_rounded(buf.data(), xs, op + n * xs);
        }
      }
    });
  });
}

}  // namespace ember
