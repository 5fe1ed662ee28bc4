#include "primitives/copy.h"

#include "backend/cpu/kernel.h"

namespace ember {

EMBER_CPU_KERNEL(Copy, inputs, outputs) {
  const Tensor& src = inputs[0];
  Tensor& dst = outputs[0];
  auto loop = cpu::make_loop({dst, src});
  visit_dtype(dst.dtype(), "copy_", [&](auto* dtag) {
    using D = std::remove_pointer_t<decltype(dtag)>;
    visit_dtype(src.dtype(), "copy_", [&](auto* stag) {
      using S = std::remove_pointer_t<decltype(stag)>;
      if constexpr (std::is_same_v<D, bool>) {
        cpu::basic_kernel<D, S>(loop, [](S v) { return static_cast<double>(v) != 0.0; });
      } else if constexpr (std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>) {
        cpu::basic_kernel<D, S>(loop, [](S v) { return static_cast<D>(static_cast<float>(v)); });
      } else {
        cpu::basic_kernel<D, S>(loop, [](S v) { return static_cast<D>(v); });
      }
    });
  });
}

EMBER_CPU_KERNEL(Fill, inputs, outputs) {
  Tensor& dst = outputs[0];
  auto loop = cpu::make_loop({dst});
  visit_dtype(dst.dtype(), "fill_", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T v = p_.value.to<T>();
    cpu::basic_kernel<T>(loop, [v]() { return v; });
  });
}

}  // namespace ember
