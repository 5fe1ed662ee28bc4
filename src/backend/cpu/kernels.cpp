#include "backend/cpu/kernels.h"

#include <array>

#include "primitives/all.h"

namespace ember::cpu {

namespace {

template <typename P>
void run_as(const Primitive& prim, const std::vector<Tensor>& inputs,
            std::vector<Tensor>& outputs) {
  static_cast<const P&>(prim).eval_cpu(inputs, outputs);
}

template <typename P>
constexpr Kernel kernel_of() {
  if constexpr (requires(const P& p, const std::vector<Tensor>& in, std::vector<Tensor>& out) {
                  p.eval_cpu(in, out);
                }) {
    return &run_as<P>;
  } else {
    return nullptr;
  }
}

// Indexed by PrimitiveKind (EMBER_PRIMITIVE_KINDS lists the kinds in the enum's order).
constexpr std::array kKernels = {
#define EMBER_KERNEL_ENTRY(Name) kernel_of<Name>(),
    EMBER_PRIMITIVE_KINDS(EMBER_KERNEL_ENTRY)
#undef EMBER_KERNEL_ENTRY
};

}  // namespace

Kernel kernel_for(PrimitiveKind kind) {
  const auto i = static_cast<size_t>(kind);
  return i < kKernels.size() ? kKernels[i] : nullptr;
}

void run_kernel(const Primitive& prim, const std::vector<Tensor>& inputs,
                std::vector<Tensor>& outputs) {
  const Kernel k = kernel_for(prim.kind());
  EMBER_CHECK_NOT_IMPL(k != nullptr, "[", prim.name(), "] has no CPU kernel");
  k(prim, inputs, outputs);
}

}  // namespace ember::cpu
