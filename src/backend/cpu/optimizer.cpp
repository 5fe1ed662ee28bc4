// The fused Adam / AdamW update (primitives/optimizer.h, Note [Fused Adam]): each element's step
// written once, for a scalar of the compute type and for a Vec of it.
#include "primitives/optimizer.h"

#include <cmath>
#include <type_traits>

#include "backend/cpu/binary_functors.h"
#include "backend/cpu/compute.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/vec.h"

namespace ember {
namespace {

// One step's numbers in the compute type M, as the for-loop's ops convert their scalars.
template <typename M>
struct AdamCoeffs {
  M decay, weight_decay, w1, one_minus_w1, beta2, one_minus_beta2, bc2_sqrt, eps, neg_step;
  bool has_decay, decoupled, amsgrad, maximize, lerp_from_start;

  explicit AdamCoeffs(const FusedAdamParams& h)
      : decay(static_cast<M>(1 - h.lr * h.weight_decay)),
        weight_decay(static_cast<M>(h.weight_decay)),
        w1(static_cast<M>(1 - h.beta1)),
        one_minus_w1(M(1) - w1),
        beta2(static_cast<M>(h.beta2)),
        one_minus_beta2(static_cast<M>(1 - h.beta2)),
        bc2_sqrt(static_cast<M>(h.bias_correction2_sqrt)),
        eps(static_cast<M>(h.eps)),
        neg_step(static_cast<M>(-(h.lr / h.bias_correction1))),
        has_decay(h.weight_decay != 0),
        decoupled(h.decoupled),
        amsgrad(h.amsgrad),
        maximize(h.maximize),
        // lerp's two-sided formula (binary_ternary.cpp), its side fixed by the weight.
        lerp_from_start(std::abs(w1) < M(0.5)) {}
};

template <typename M>
M root(M x) {
  return std::sqrt(x);
}
template <typename M>
cpu::Vec<M> root(const cpu::Vec<M>& x) {
  return cpu::vsqrt(x);
}
// torch.maximum (NaN propagates): the eager maximum's scalar and vector forms.
template <typename M>
M larger(M a, M b) {
  return cpu::bin::maximum(a, b);
}
template <typename M>
cpu::Vec<M> larger(const cpu::Vec<M>& a, const cpu::Vec<M>& b) {
  return cpu::vmax(a, b);
}

// The for-loop step's ops in its order (src/optim/adam.cpp), on V = M or Vec<M>.
template <typename M, typename V>
void adam_element(const AdamCoeffs<M>& c, V& p, V g, V& m, V& v, V* vmax) {
  if (c.maximize) g = V(M(-1)) * g;
  if (c.has_decay) {
    if (c.decoupled) {
      p = p * V(c.decay);
    } else {
      g = g + V(c.weight_decay) * p;
    }
  }
  m = c.lerp_from_start ? m + V(c.w1) * (g - m) : g - (g - m) * V(c.one_minus_w1);
  v = v * V(c.beta2);
  v = v + V(c.one_minus_beta2) * g * g;
  V s = v;
  if (c.amsgrad) {
    *vmax = larger(*vmax, v);
    s = *vmax;
  }
  const V denom = root(s) / V(c.bc2_sqrt) + V(c.eps);
  p = p + V(c.neg_step) * m / denom;
}

// Note [Row loops take their sizes by value].
template <typename T, typename M>
void adam_range(const AdamCoeffs<M>& c, T* p, const T* g, T* m, T* v, T* vmax, int64_t n) {
  int64_t i = 0;
  if constexpr (std::is_same_v<T, M>) {
    using V = cpu::Vec<M>;
    for (; i + V::size <= n; i += V::size) {
      V pi = V::load(p + i), mi = V::load(m + i), vi = V::load(v + i), wi(M(0));
      if (vmax) wi = V::load(vmax + i);
      adam_element(c, pi, V::load(g + i), mi, vi, vmax ? &wi : nullptr);
      pi.store(p + i);
      mi.store(m + i);
      vi.store(v + i);
      if (vmax) wi.store(vmax + i);
    }
  }
  auto in = [](T x) {
    if constexpr (std::is_same_v<T, M>) {
      return x;
    } else {
      return static_cast<M>(static_cast<float>(x));
    }
  };
  for (; i < n; ++i) {
    M pi = in(p[i]), mi = in(m[i]), vi = in(v[i]), wi = vmax ? in(vmax[i]) : M(0);
    adam_element(c, pi, in(g[i]), mi, vi, vmax ? &wi : nullptr);
    p[i] = static_cast<T>(pi);
    m[i] = static_cast<T>(mi);
    v[i] = static_cast<T>(vi);
    if (vmax) vmax[i] = static_cast<T>(wi);
  }
}

}  // namespace

EMBER_CPU_KERNEL(FusedAdam, inputs, outputs) {
  const size_t nstate = p_.amsgrad ? 4 : 3;
  EMBER_INTERNAL_ASSERT(outputs.size() == nstate && inputs.size() == nstate + 1, "[", name(),
                        "] expects ", nstate + 1, " inputs and ", nstate, " outputs");
  const Tensor& grad = inputs[1];
  EMBER_INTERNAL_ASSERT(grad.is_contiguous(), "[", name(), "] expects a contiguous gradient");
  for (const Tensor& t : outputs) {
    EMBER_INTERNAL_ASSERT(
        t.is_contiguous() && t.numel() == grad.numel() && t.dtype() == grad.dtype(), "[", name(),
        "] expects contiguous tensors of one size and dtype");
  }
  cpu::visit_floating(grad.dtype(), name(), "fused_adam", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    using M = cpu::compute_t<T>;
    const AdamCoeffs<M> c(p_);
    auto ptr = [](const Tensor& t) { return static_cast<T*>(t.data_ptr()); };
    T *p = ptr(outputs[0]), *m = ptr(outputs[1]), *v = ptr(outputs[2]);
    T* vmax = p_.amsgrad ? ptr(outputs[3]) : nullptr;
    const T* g = ptr(grad);
    cpu::parallel_for(0, grad.numel(), cpu::kGrainSize, [&](int64_t b, int64_t e) {
      adam_range<T, M>(c, p + b, g + b, m + b, v + b, vmax ? vmax + b : nullptr, e - b);
    });
  });
}

}  // namespace ember
