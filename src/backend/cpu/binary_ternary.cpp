// Kernels of the ternary-style primitives: where, clamp, lerp, addcmul/addcdiv, masked_fill.
#include <sstream>

#include "backend/cpu/binary_functors.h"
#include "backend/cpu/binary_kernels.h"
#include "primitives/ternary.h"

namespace ember {

using cpu::bin::opmath_t;

EMBER_CPU_KERNEL(Where, inputs, outputs) {
  auto loop = cpu::make_loop({outputs.at(0), inputs.at(0), inputs.at(1), inputs.at(2)});
  visit_dtype(outputs[0].dtype(), "where", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    cpu::basic_kernel<T, bool, T, T>(loop, [](bool c, T a, T b) { return c ? a : b; });
  });
}

// min(max(x, lo), hi) with NaN-propagating max/min: a NaN input or bound gives NaN, and
// lo > hi gives hi, as torch.clamp.
EMBER_CPU_KERNEL(Clamp, inputs, outputs) {
  std::vector<Tensor> operands = {outputs.at(0)};
  operands.insert(operands.end(), inputs.begin(), inputs.end());
  auto loop = cpu::make_loop(operands);
  const bool has_min = p_.has_min, has_max = p_.has_max;
  visit_dtype(inputs.at(0).dtype(), name(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    using M = opmath_t<T>;
    using cpu::bin::maximum;
    using cpu::bin::minimum;
    auto out = [](M v) { return static_cast<T>(v); };
    if (!p_.tensor_bounds) {
      const M lo = has_min ? p_.min->to<M>() : M(0), hi = has_max ? p_.max->to<M>() : M(0);
      cpu::basic_kernel<T, T>(loop, [=](T x) {
        M v = static_cast<M>(x);
        if (has_min) v = maximum<M>(v, lo);
        if (has_max) v = minimum<M>(v, hi);
        return out(v);
      });
    } else if (has_min && has_max) {
      cpu::basic_kernel<T, T, T, T>(loop, [=](T x, T lo, T hi) {
        return out(
            minimum<M>(maximum<M>(static_cast<M>(x), static_cast<M>(lo)), static_cast<M>(hi)));
      });
    } else if (has_min) {
      cpu::basic_kernel<T, T, T>(
          loop, [=](T x, T lo) { return out(maximum<M>(static_cast<M>(x), static_cast<M>(lo))); });
    } else {
      cpu::basic_kernel<T, T, T>(
          loop, [=](T x, T hi) { return out(minimum<M>(static_cast<M>(x), static_cast<M>(hi))); });
    }
  });
}

namespace {
// PyTorch's lerp: the two-sided formula keeps lerp(a, b, 1) == b exactly.
template <typename M>
M lerp_value(M a, M b, M w) {
  return std::abs(w) < M(0.5) ? a + w * (b - a) : b - (b - a) * (M(1) - w);
}
}  // namespace

EMBER_CPU_KERNEL(Lerp, inputs, outputs) {
  std::vector<Tensor> operands = {outputs.at(0)};
  operands.insert(operands.end(), inputs.begin(), inputs.end());
  auto loop = cpu::make_loop(operands);
  visit_dtype(inputs.at(0).dtype(), "lerp", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    using M = opmath_t<T>;
    if constexpr (!std::is_floating_point_v<M>) {
      EMBER_THROW(RuntimeError, "[lerp] internal error: integral lerp");
    } else if (p_.weight) {
      const M w = p_.weight->to<M>();
      cpu::basic_kernel<T, T, T>(loop, [w](T a, T b) {
        return static_cast<T>(lerp_value<M>(static_cast<M>(a), static_cast<M>(b), w));
      });
    } else {
      cpu::basic_kernel<T, T, T, T>(loop, [](T a, T b, T w) {
        return static_cast<T>(
            lerp_value<M>(static_cast<M>(a), static_cast<M>(b), static_cast<M>(w)));
      });
    }
  });
}

EMBER_CPU_KERNEL(Addc, inputs, outputs) {
  auto loop = cpu::make_loop({outputs.at(0), inputs.at(0), inputs.at(1), inputs.at(2)});
  const bool is_div = p_.is_div;
  visit_dtype(inputs.at(0).dtype(), name(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    using M = opmath_t<T>;
    const M value = p_.value.to<M>();
    if constexpr (std::is_same_v<T, bool>) {
      EMBER_THROW(RuntimeError, "[", name(), "] internal error: bool compute type");
    } else if constexpr (std::is_integral_v<T>) {
      using cpu::bin::wrap_add;
      using cpu::bin::wrap_mul;
      EMBER_INTERNAL_ASSERT(!is_div, "integer addcdiv is rejected by the op builder");
      cpu::basic_kernel<T, T, T, T>(
          loop, [value](T x, T a, T b) { return wrap_add(x, wrap_mul(wrap_mul(value, a), b)); });
    } else if (is_div) {
      cpu::basic_kernel<T, T, T, T>(loop, [value](T x, T a, T b) {
        return static_cast<T>(static_cast<M>(x) + value * static_cast<M>(a) / static_cast<M>(b));
      });
    } else {
      cpu::basic_kernel<T, T, T, T>(loop, [value](T x, T a, T b) {
        return static_cast<T>(static_cast<M>(x) + value * static_cast<M>(a) * static_cast<M>(b));
      });
    }
  });
}

EMBER_CPU_KERNEL(MaskedFill, inputs, outputs) {
  auto loop = cpu::make_loop({outputs.at(0), inputs.at(0), inputs.at(1)});
  visit_dtype(outputs[0].dtype(), "masked_fill", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T v = p_.value.to<T>();
    cpu::basic_kernel<T, T, bool>(loop, [v](T x, bool m) { return m ? v : x; });
  });
}

}  // namespace ember
