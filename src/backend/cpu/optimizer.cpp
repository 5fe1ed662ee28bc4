// The optimizers' fused steps (primitives/optimizer.h, Note [Fused Adam]): each element's step
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
[[gnu::always_inline]] inline void adam_element(const AdamCoeffs<M>& c, V& p, V g, V& m, V& v,
                                                V* vmax) {
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

// SGD's for-loop step in its order (src/optim/sgd.cpp); s = {p[, buf]}. The element steps are
// inlined into update_range, so that the targets' values stay in registers.
template <typename M, typename V>
[[gnu::always_inline]] inline void sgd_element(const FusedSgdParams& h, V* s, V g) {
  if (h.maximize) g = V(M(-1)) * g;
  if (h.weight_decay != 0) g = g + V(static_cast<M>(h.weight_decay)) * s[0];
  if (h.momentum != 0) {
    const V momentum(static_cast<M>(h.momentum));
    s[1] = h.first_step ? g : s[1] * momentum + V(static_cast<M>(1 - h.dampening)) * g;
    g = h.nesterov ? g + momentum * s[1] : s[1];
  }
  s[0] = s[0] + V(static_cast<M>(-h.lr)) * g;
}

// Adagrad's for-loop step in its order (src/optim/adagrad.cpp); s = {p, sum}.
template <typename M, typename V>
[[gnu::always_inline]] inline void adagrad_element(const FusedAdagradParams& h, V* s, V g) {
  if (h.maximize) g = V(M(-1)) * g;
  if (h.weight_decay != 0) g = g + V(static_cast<M>(h.weight_decay)) * s[0];
  s[1] = s[1] + g * g;
  const V denom = root(s[1]) + V(static_cast<M>(h.eps));
  s[0] = s[0] + V(static_cast<M>(-h.clr)) * g / denom;  // addcdiv_: p + (value * g) / denom
}

constexpr size_t kMaxTargets = 4;

// One range of a fused step: element i of each of the K targets is loaded (in the compute type
// M: Vec<M> for whole vectors where T is M, else one element at a time), updated by step(s, g)
// where s holds the targets' values, and stored back. K is a template argument so that s lives
// in registers (a runtime count kept it in memory: Adam's step ran at half speed). Note [Row
// loops take their sizes by value].
template <typename T, typename M, size_t K, typename Step>
void update_range(const Step& step, T* const* targets, const T* g_in, int64_t b, int64_t e) {
  // This range's pointers, held locally: the stores cannot then be taken to move them.
  T* x[K];
  for (size_t t = 0; t < K; ++t) x[t] = targets[t] + b;
  const T* g = g_in + b;
  const int64_t n = e - b;
  int64_t i = 0;
  if constexpr (std::is_same_v<T, M>) {
    using V = cpu::Vec<M>;
    for (; i + V::size <= n; i += V::size) {
      V s[kMaxTargets] = {V(M(0)), V(M(0)), V(M(0)), V(M(0))};
      for (size_t t = 0; t < K; ++t) s[t] = V::load(x[t] + i);
      step(s, V::load(g + i));
      for (size_t t = 0; t < K; ++t) s[t].store(x[t] + i);
    }
  }
  auto in = [](T v) {
    if constexpr (std::is_same_v<T, M>) {
      return v;
    } else {
      return static_cast<M>(static_cast<float>(v));
    }
  };
  for (; i < n; ++i) {
    M s[kMaxTargets] = {};
    for (size_t t = 0; t < K; ++t) s[t] = in(x[t][i]);
    step(s, in(g[i]));
    for (size_t t = 0; t < K; ++t) x[t][i] = static_cast<T>(s[t]);
  }
}

// Checks the in-place call's shape (Note [Fused Adam]: inputs {targets[0], grad, targets[1..]})
// and runs make_step(tag)'s step over every element, in parallel chunks.
template <typename MakeStep>
void run_fused(const char* name, const std::vector<Tensor>& inputs,
               const std::vector<Tensor>& outputs, size_t targets, const MakeStep& make_step) {
  EMBER_INTERNAL_ASSERT(
      outputs.size() == targets && inputs.size() == targets + 1 && targets <= kMaxTargets, "[",
      name, "] expects ", targets + 1, " inputs and ", targets, " outputs");
  const Tensor& grad = inputs[1];
  EMBER_INTERNAL_ASSERT(grad.is_contiguous(), "[", name, "] expects a contiguous gradient");
  for (const Tensor& t : outputs) {
    EMBER_INTERNAL_ASSERT(
        t.is_contiguous() && t.numel() == grad.numel() && t.dtype() == grad.dtype(), "[", name,
        "] expects contiguous tensors of one size and dtype");
  }
  cpu::visit_floating(grad.dtype(), name, name, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    using M = cpu::compute_t<T>;
    const auto step = make_step(static_cast<M*>(nullptr));
    T* ptrs[kMaxTargets] = {};
    for (size_t t = 0; t < targets; ++t) ptrs[t] = static_cast<T*>(outputs[t].data_ptr());
    const T* g = static_cast<const T*>(grad.data_ptr());
    cpu::parallel_for(0, grad.numel(), cpu::kGrainSize, [&](int64_t b, int64_t e) {
      switch (targets) {
        case 1:
          return update_range<T, M, 1>(step, ptrs, g, b, e);
        case 2:
          return update_range<T, M, 2>(step, ptrs, g, b, e);
        case 3:
          return update_range<T, M, 3>(step, ptrs, g, b, e);
        default:
          return update_range<T, M, 4>(step, ptrs, g, b, e);
      }
    });
  });
}

}  // namespace

EMBER_CPU_KERNEL(FusedAdam, inputs, outputs) {
  run_fused(name(), inputs, outputs, p_.amsgrad ? 4 : 3, [&](auto* tag) {
    using M = std::remove_pointer_t<decltype(tag)>;
    return [c = AdamCoeffs<M>(p_)](auto* s, auto g) {
      adam_element(c, s[0], g, s[1], s[2], c.amsgrad ? &s[3] : nullptr);
    };
  });
}

EMBER_CPU_KERNEL(FusedSgd, inputs, outputs) {
  run_fused(name(), inputs, outputs, p_.momentum != 0 ? 2 : 1, [&](auto* tag) {
    using M = std::remove_pointer_t<decltype(tag)>;
    return [h = p_](auto* s, auto g) { sgd_element<M>(h, s, g); };
  });
}

EMBER_CPU_KERNEL(FusedAdagrad, inputs, outputs) {
  run_fused(name(), inputs, outputs, 2, [&](auto* tag) {
    using M = std::remove_pointer_t<decltype(tag)>;
    return [h = p_](auto* s, auto g) { adagrad_element<M>(h, s, g); };
  });
}

}  // namespace ember
