// Pooling kernels over [N, C, H, W] planes (parallel over N * C), with PyTorch's window rules:
// max pooling starts each window at its first in-bounds tap and lets NaN win; average pooling
// clips windows to the padded input for the divisor (count_include_pad) and to the input for the
// sum; adaptive windows are [floor(o * I / O), ceil((o + 1) * I / O)).
#include "primitives/pool.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "backend/cpu/binary_functors.h"
#include "backend/cpu/compute.h"
#include "backend/cpu/parallel.h"

namespace ember {

std::string Pool2dParams::str() const {
  std::ostringstream ss;
  ss << "kernel_size=[" << kernel_h << ", " << kernel_w << "], stride=[" << stride_h << ", "
     << stride_w << "], padding=[" << pad_h << ", " << pad_w << "], dilation=[" << dilation_h
     << ", " << dilation_w << "]";
  return ss.str();
}

namespace cpu {
namespace {

struct Planes {
  int64_t planes, H, W, Ho, Wo;
};

int64_t plane_grain(int64_t work_per_plane) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work_per_plane));
}

inline int64_t adaptive_start(int64_t o, int64_t out, int64_t in) { return (o * in) / out; }
inline int64_t adaptive_end(int64_t o, int64_t out, int64_t in) {
  return ((o + 1) * in + out - 1) / out;
}

// Max pooling compares in the type itself (integers too), 16-bit floats in float.
template <typename T>
using max_value_t = std::conditional_t<std::is_integral_v<T>, T, compute_t<T>>;
template <typename C>
C lowest() {
  if constexpr (std::is_integral_v<C>) {
    return std::numeric_limits<C>::lowest();
  } else {
    return -std::numeric_limits<C>::infinity();
  }
}
template <typename C>
bool is_nan(C v) {
  if constexpr (std::is_integral_v<C>) {
    return false;
  } else {
    return std::isnan(v);
  }
}

template <typename T>
void max_forward(const T* x, T* y, int64_t* idx, const Planes& s, const Pool2dParams& p) {
  using C = max_value_t<T>;
  parallel_for(0, s.planes, plane_grain(s.Ho * s.Wo * p.kernel_h * p.kernel_w),
               [&](int64_t b, int64_t e) {
                 for (int64_t pl = b; pl < e; ++pl) {
                   const T* xs = x + pl * s.H * s.W;
                   for (int64_t oh = 0; oh < s.Ho; ++oh) {
                     int64_t h0 = oh * p.stride_h - p.pad_h;
                     const int64_t h1 = std::min(h0 + (p.kernel_h - 1) * p.dilation_h + 1, s.H);
                     while (h0 < 0) h0 += p.dilation_h;
                     for (int64_t ow = 0; ow < s.Wo; ++ow) {
                       int64_t w0 = ow * p.stride_w - p.pad_w;
                       const int64_t w1 = std::min(w0 + (p.kernel_w - 1) * p.dilation_w + 1, s.W);
                       while (w0 < 0) w0 += p.dilation_w;
                       int64_t best_i = h0 * s.W + w0;
                       C best = lowest<C>();
                       for (int64_t ih = h0; ih < h1; ih += p.dilation_h) {
                         for (int64_t iw = w0; iw < w1; iw += p.dilation_w) {
                           const C v = static_cast<C>(xs[ih * s.W + iw]);
                           if (v > best || is_nan(v)) {
                             best = v;
                             best_i = ih * s.W + iw;
                           }
                         }
                       }
                       const int64_t o = (pl * s.Ho + oh) * s.Wo + ow;
                       y[o] = static_cast<T>(best);
                       idx[o] = best_i;
                     }
                   }
                 }
               });
}

// The window of output (oh, ow) for average pooling: [h0, h1) x [w0, w1) clipped to the input,
// and its divisor.
struct AvgWindow {
  int64_t h0, h1, w0, w1, divisor;
};
inline AvgWindow avg_window(int64_t oh, int64_t ow, const Planes& s, const Pool2dParams& p) {
  int64_t h0 = oh * p.stride_h - p.pad_h, w0 = ow * p.stride_w - p.pad_w;
  int64_t h1 = std::min(h0 + p.kernel_h, s.H + p.pad_h);
  int64_t w1 = std::min(w0 + p.kernel_w, s.W + p.pad_w);
  const int64_t pool_size = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, s.H), w1 = std::min(w1, s.W);
  int64_t div = p.divisor_override    ? *p.divisor_override
                : p.count_include_pad ? pool_size
                                      : (h1 - h0) * (w1 - w0);
  return {h0, h1, w0, w1, div};
}

// int64 averages in int64 and truncates, as PyTorch's CPU kernel.
template <typename T>
void avg_forward(const T* x, T* y, const Planes& s, const Pool2dParams& p) {
  using C = std::conditional_t<std::is_integral_v<T>, T, compute_t<T>>;
  parallel_for(0, s.planes, plane_grain(s.Ho * s.Wo * p.kernel_h * p.kernel_w),
               [&](int64_t b, int64_t e) {
                 for (int64_t pl = b; pl < e; ++pl) {
                   const T* xs = x + pl * s.H * s.W;
                   for (int64_t oh = 0; oh < s.Ho; ++oh) {
                     for (int64_t ow = 0; ow < s.Wo; ++ow) {
                       const AvgWindow win = avg_window(oh, ow, s, p);
                       C sum = 0;
                       if (win.h0 < win.h1 && win.w0 < win.w1) {
                         for (int64_t ih = win.h0; ih < win.h1; ++ih) {
                           for (int64_t iw = win.w0; iw < win.w1; ++iw) {
                             const C v = static_cast<C>(xs[ih * s.W + iw]);
                             if constexpr (std::is_integral_v<C>) {
                               sum = bin::wrap_add(sum, v);  // wraps as PyTorch's int64 sums
                             } else {
                               sum += v;
                             }
                           }
                         }
                         if constexpr (std::is_integral_v<C>) {
                           sum = bin::int_div_trunc(sum, static_cast<C>(win.divisor));
                         } else {
                           sum /= static_cast<C>(win.divisor);
                         }
                       }
                       y[(pl * s.Ho + oh) * s.Wo + ow] = static_cast<T>(sum);
                     }
                   }
                 }
               });
}

template <typename T>
void avg_backward(const T* gy, T* gx, const Planes& s, const Pool2dParams& p) {
  using C = compute_t<T>;
  parallel_for(
      0, s.planes, plane_grain(s.Ho * s.Wo * p.kernel_h * p.kernel_w), [&](int64_t b, int64_t e) {
        std::vector<C> acc(s.H * s.W);
        for (int64_t pl = b; pl < e; ++pl) {
          std::fill(acc.begin(), acc.end(), C(0));
          for (int64_t oh = 0; oh < s.Ho; ++oh) {
            for (int64_t ow = 0; ow < s.Wo; ++ow) {
              const AvgWindow win = avg_window(oh, ow, s, p);
              if (!(win.h0 < win.h1 && win.w0 < win.w1)) continue;
              const C g =
                  static_cast<C>(gy[(pl * s.Ho + oh) * s.Wo + ow]) / static_cast<C>(win.divisor);
              for (int64_t ih = win.h0; ih < win.h1; ++ih) {
                for (int64_t iw = win.w0; iw < win.w1; ++iw) acc[ih * s.W + iw] += g;
              }
            }
          }
          store_rounded(acc.data(), s.H * s.W, gx + pl * s.H * s.W);
        }
      });
}

template <typename T>
void adaptive_avg(const T* x, T* y, const Planes& s, bool backward) {
  using C = compute_t<T>;
  const int64_t work = s.H * s.W + s.Ho * s.Wo;
  parallel_for(0, s.planes, plane_grain(work), [&](int64_t b, int64_t e) {
    std::vector<C> acc(backward ? s.H * s.W : 0);
    for (int64_t pl = b; pl < e; ++pl) {
      if (backward) std::fill(acc.begin(), acc.end(), C(0));
      for (int64_t oh = 0; oh < s.Ho; ++oh) {
        const int64_t h0 = adaptive_start(oh, s.Ho, s.H), h1 = adaptive_end(oh, s.Ho, s.H);
        for (int64_t ow = 0; ow < s.Wo; ++ow) {
          const int64_t w0 = adaptive_start(ow, s.Wo, s.W), w1 = adaptive_end(ow, s.Wo, s.W);
          const C count = static_cast<C>((h1 - h0) * (w1 - w0));
          const int64_t o = (pl * s.Ho + oh) * s.Wo + ow;
          if (backward) {
            // x is grad_y here, y is grad_x.
            const C g = static_cast<C>(x[o]) / count;
            for (int64_t ih = h0; ih < h1; ++ih) {
              for (int64_t iw = w0; iw < w1; ++iw) acc[ih * s.W + iw] += g;
            }
          } else {
            const T* xs = x + pl * s.H * s.W;
            C sum = 0;
            for (int64_t ih = h0; ih < h1; ++ih) {
              for (int64_t iw = w0; iw < w1; ++iw) sum += static_cast<C>(xs[ih * s.W + iw]);
            }
            y[o] = static_cast<T>(sum / count);
          }
        }
      }
      if (backward) store_rounded(acc.data(), s.H * s.W, y + pl * s.H * s.W);
    }
  });
}

template <typename T>
void adaptive_max(const T* x, T* y, int64_t* idx, const Planes& s) {
  using C = max_value_t<T>;
  parallel_for(0, s.planes, plane_grain(s.H * s.W + s.Ho * s.Wo), [&](int64_t b, int64_t e) {
    for (int64_t pl = b; pl < e; ++pl) {
      const T* xs = x + pl * s.H * s.W;
      for (int64_t oh = 0; oh < s.Ho; ++oh) {
        const int64_t h0 = adaptive_start(oh, s.Ho, s.H), h1 = adaptive_end(oh, s.Ho, s.H);
        for (int64_t ow = 0; ow < s.Wo; ++ow) {
          const int64_t w0 = adaptive_start(ow, s.Wo, s.W), w1 = adaptive_end(ow, s.Wo, s.W);
          int64_t best_i = h0 * s.W + w0;
          C best = lowest<C>();
          for (int64_t ih = h0; ih < h1; ++ih) {
            for (int64_t iw = w0; iw < w1; ++iw) {
              const C v = static_cast<C>(xs[ih * s.W + iw]);
              if (v > best || is_nan(v)) {
                best = v;
                best_i = ih * s.W + iw;
              }
            }
          }
          const int64_t o = (pl * s.Ho + oh) * s.Wo + ow;
          y[o] = static_cast<T>(best);
          idx[o] = best_i;
        }
      }
    }
  });
}

template <typename T>
void max_backward(const T* gy, const int64_t* idx, T* gx, const Planes& s, const char* name) {
  using C = compute_t<T>;
  const int64_t HW = s.H * s.W, L = s.Ho * s.Wo;
  parallel_for(0, s.planes, plane_grain(HW + L), [&](int64_t b, int64_t e) {
    std::vector<C> acc(HW);
    for (int64_t pl = b; pl < e; ++pl) {
      std::fill(acc.begin(), acc.end(), C(0));
      for (int64_t o = 0; o < L; ++o) {
        const int64_t i = idx[pl * L + o];
        EMBER_CHECK(i >= 0 && i < HW, "[", name, "] index ", i,
                    " is out of bounds for an input plane of ", HW, " elements");
        acc[i] += static_cast<C>(gy[pl * L + o]);
      }
      store_rounded(acc.data(), HW, gx + pl * HW);
    }
  });
}

}  // namespace
}  // namespace cpu

void Pooling::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& in = inputs[0];
  Tensor& out = outputs[0];
  const bool backward = p_.op == PoolOp::AvgBackward || p_.op == PoolOp::AdaptiveAvgBackward ||
                        p_.op == PoolOp::MaxBackward;
  const Tensor& x = backward ? out : in;
  const Tensor& y = backward ? in : out;
  cpu::Planes s{x.size(0) * x.size(1), x.size(2), x.size(3), y.size(2), y.size(3)};
  if (out.numel() == 0) return;
  const char* kernel = p_.op == PoolOp::MaxForward ? "max_pool2d" : name();
  if (p_.op == PoolOp::AvgForward && out.dtype() == kInt64) {
    cpu::avg_forward(in.data_ptr<int64_t>(), out.data_ptr<int64_t>(), s, p_.pool);
    return;
  }
  if ((p_.op == PoolOp::MaxForward || p_.op == PoolOp::AdaptiveMaxForward) &&
      is_integral(out.dtype(), /*include_bool=*/false)) {
    visit_dtype(out.dtype(), name(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      if constexpr (!std::is_same_v<T, bool>) {
        if (p_.op == PoolOp::MaxForward) {
          cpu::max_forward(in.data_ptr<T>(), out.data_ptr<T>(), outputs[1].data_ptr<int64_t>(), s,
                           p_.pool);
        } else {
          cpu::adaptive_max(in.data_ptr<T>(), out.data_ptr<T>(), outputs[1].data_ptr<int64_t>(), s);
        }
      }
    });
    return;
  }
  cpu::visit_floating(out.dtype(), name(), kernel, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* ip = in.data_ptr<T>();
    T* op = out.data_ptr<T>();
    if (in.numel() == 0) {  // an empty grad_y (or window set) contributes nothing
      std::fill(op, op + out.numel(), T(0.0f));
      return;
    }
    switch (p_.op) {
      case PoolOp::MaxForward:
        cpu::max_forward(ip, op, outputs[1].data_ptr<int64_t>(), s, p_.pool);
        break;
      case PoolOp::AvgForward:
        cpu::avg_forward(ip, op, s, p_.pool);
        break;
      case PoolOp::AvgBackward:
        cpu::avg_backward(ip, op, s, p_.pool);
        break;
      case PoolOp::AdaptiveAvgForward:
        cpu::adaptive_avg(ip, op, s, false);
        break;
      case PoolOp::AdaptiveAvgBackward:
        cpu::adaptive_avg(ip, op, s, true);
        break;
      case PoolOp::AdaptiveMaxForward:
        cpu::adaptive_max(ip, op, outputs[1].data_ptr<int64_t>(), s);
        break;
      case PoolOp::MaxBackward:
        cpu::max_backward(ip, inputs[1].data_ptr<int64_t>(), op, s, name());
        break;
    }
  });
}

}  // namespace ember
