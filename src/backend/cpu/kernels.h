#pragma once
// The CPU backend's kernel table (Note [Backend], dispatch/backend.h): one entry per
// PrimitiveKind, the class's `eval_cpu` member. A class without one leaves its kind unsupported
// on the CPU; today every kind has one.
#include <vector>

#include "dispatch/primitive.h"

namespace ember::cpu {

using Kernel = void (*)(const Primitive& prim, const std::vector<Tensor>& inputs,
                        std::vector<Tensor>& outputs);

/// The CPU kernel of `kind`; null where there is none.
Kernel kernel_for(PrimitiveKind kind);

/// Runs `prim`'s CPU kernel; NotImplementedError naming the op where there is none.
void run_kernel(const Primitive& prim, const std::vector<Tensor>& inputs,
                std::vector<Tensor>& outputs);

}  // namespace ember::cpu
