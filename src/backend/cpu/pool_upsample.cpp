// Upsampling kernels (nearest, bilinear) and their adjoints, with PyTorch's source-index rules
// (aten/src/ATen/native/UpSample.h): nearest uses floor(o * scale) in float, with scale =
// 1 / scale_factor when given and in / out otherwise; bilinear uses half-pixel centres clamped
// at 0, or corner alignment.
#include <cmath>
#include <cstring>
#include <sstream>

#include "backend/cpu/compute.h"
#include "backend/cpu/parallel.h"
#include "primitives/pool.h"

namespace ember {

namespace cpu {
namespace {

template <typename C>
C scales_value(std::optional<double> scale, int64_t in, int64_t out) {
  return scale && *scale > 0 ? static_cast<C>(1.0 / *scale)
                             : static_cast<C>(in) / static_cast<C>(out);
}

std::vector<int64_t> nearest_indices(int64_t in, int64_t out, std::optional<double> scale) {
  std::vector<int64_t> idx(out);
  const float s = scales_value<float>(scale, in, out);
  for (int64_t o = 0; o < out; ++o) {
    if (out == in) {
      idx[o] = o;
    } else if (out == 2 * in) {
      idx[o] = o >> 1;
    } else {
      idx[o] = std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
    }
  }
  return idx;
}

// For each output position: the lower source index, the offset to the upper one (0 or 1) and the
// two weights.
template <typename C>
struct Linear1d {
  std::vector<int64_t> i0, off;
  std::vector<C> l0, l1;
};

template <typename C>
Linear1d<C> linear_weights(int64_t in, int64_t out, bool align, std::optional<double> scale) {
  Linear1d<C> r;
  r.i0.resize(out), r.off.resize(out), r.l0.resize(out), r.l1.resize(out);
  const C s = align ? (out > 1 ? static_cast<C>(in - 1) / static_cast<C>(out - 1) : C(0))
                    : scales_value<C>(scale, in, out);
  for (int64_t o = 0; o < out; ++o) {
    C src =
        align ? s * static_cast<C>(o) : std::max(s * (static_cast<C>(o) + C(0.5)) - C(0.5), C(0));
    const int64_t i0 = std::min(static_cast<int64_t>(src), in - 1);
    r.i0[o] = i0;
    r.off[o] = i0 < in - 1 ? 1 : 0;
    r.l1[o] = std::min(std::max(src - static_cast<C>(i0), C(0)), C(1));
    r.l0[o] = C(1) - r.l1[o];
  }
  return r;
}

template <typename T>
void nearest_forward(const T* x, T* y, int64_t planes, int64_t H, int64_t W, int64_t Ho, int64_t Wo,
                     const std::vector<int64_t>& ih, const std::vector<int64_t>& iw) {
  parallel_for(0, planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, Ho * Wo)),
               [&](int64_t b, int64_t e) {
                 for (int64_t pl = b; pl < e; ++pl) {
                   for (int64_t oh = 0; oh < Ho; ++oh) {
                     const T* xr = x + (pl * H + ih[oh]) * W;
                     T* yr = y + (pl * Ho + oh) * Wo;
                     for (int64_t ow = 0; ow < Wo; ++ow) yr[ow] = xr[iw[ow]];
                   }
                 }
               });
}

template <typename T>
void nearest_backward(const T* gy, T* gx, int64_t planes, int64_t H, int64_t W, int64_t Ho,
                      int64_t Wo, const std::vector<int64_t>& ih, const std::vector<int64_t>& iw) {
  using C = compute_t<T>;
  parallel_for(0, planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, Ho * Wo)),
               [&](int64_t b, int64_t e) {
                 std::vector<C> acc(H * W);
                 for (int64_t pl = b; pl < e; ++pl) {
                   std::fill(acc.begin(), acc.end(), C(0));
                   for (int64_t oh = 0; oh < Ho; ++oh) {
                     const T* gr = gy + (pl * Ho + oh) * Wo;
                     C* ar = acc.data() + ih[oh] * W;
                     for (int64_t ow = 0; ow < Wo; ++ow) ar[iw[ow]] += static_cast<C>(gr[ow]);
                   }
                   store_rounded(acc.data(), H * W, gx + pl * H * W);
                 }
               });
}

template <typename T>
void bilinear(const T* in, T* out, int64_t planes, int64_t H, int64_t W, int64_t Ho, int64_t Wo,
              bool align, std::optional<double> sh, std::optional<double> sw, bool backward) {
  using C = compute_t<T>;
  const Linear1d<C> lh = linear_weights<C>(H, Ho, align, sh);
  const Linear1d<C> lw = linear_weights<C>(W, Wo, align, sw);
  parallel_for(
      0, planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, 4 * Ho * Wo)),
      [&](int64_t b, int64_t e) {
        std::vector<C> acc(backward ? H * W : 0);
        for (int64_t pl = b; pl < e; ++pl) {
          if (backward) std::fill(acc.begin(), acc.end(), C(0));
          for (int64_t oh = 0; oh < Ho; ++oh) {
            const int64_t r0 = lh.i0[oh] * W, r1 = (lh.i0[oh] + lh.off[oh]) * W;
            const C h0 = lh.l0[oh], h1 = lh.l1[oh];
            for (int64_t ow = 0; ow < Wo; ++ow) {
              const int64_t c0 = lw.i0[ow], c1 = lw.i0[ow] + lw.off[ow];
              const C w0 = lw.l0[ow], w1 = lw.l1[ow];
              const int64_t o = (pl * Ho + oh) * Wo + ow;
              if (backward) {
                const C g = static_cast<C>(in[o]);
                acc[r0 + c0] += h0 * w0 * g;
                acc[r0 + c1] += h0 * w1 * g;
                acc[r1 + c0] += h1 * w0 * g;
                acc[r1 + c1] += h1 * w1 * g;
              } else {
                const T* xs = in + pl * H * W;
                const C v =
                    h0 * (w0 * static_cast<C>(xs[r0 + c0]) + w1 * static_cast<C>(xs[r0 + c1])) +
                    h1 * (w0 * static_cast<C>(xs[r1 + c0]) + w1 * static_cast<C>(xs[r1 + c1]));
                out[o] = static_cast<T>(v);
              }
            }
          }
          if (backward) store_rounded(acc.data(), H * W, out + pl * H * W);
        }
      });
}

}  // namespace
}  // namespace cpu

void Upsample::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& in = inputs[0];
  Tensor& out = outputs[0];
  const Tensor& x = p_.backward ? out : in;
  const Tensor& y = p_.backward ? in : out;
  const int64_t planes = x.size(0) * x.size(1), H = x.size(2), W = x.size(3);
  const int64_t Ho = y.size(2), Wo = y.size(3);
  if (out.numel() == 0) return;
  if (p_.op == ResampleOp::Nearest) {
    const auto ih = cpu::nearest_indices(H, Ho, p_.scale_h);
    const auto iw = cpu::nearest_indices(W, Wo, p_.scale_w);
    if (!p_.backward) {
      visit_dtype(out.dtype(), name(), [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        cpu::nearest_forward(in.data_ptr<T>(), out.data_ptr<T>(), planes, H, W, Ho, Wo, ih, iw);
      });
      return;
    }
    cpu::visit_floating(out.dtype(), name(), name(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      cpu::nearest_backward(in.data_ptr<T>(), out.data_ptr<T>(), planes, H, W, Ho, Wo, ih, iw);
    });
    return;
  }
  cpu::visit_floating(out.dtype(), name(), name(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    cpu::bilinear(in.data_ptr<T>(), out.data_ptr<T>(), planes, H, W, Ho, Wo, p_.align_corners,
                  p_.scale_h, p_.scale_w, p_.backward);
  });
}

}  // namespace ember
