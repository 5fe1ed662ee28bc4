#pragma once
// The floating-point unary kernels, split over three files to keep each one quick to compile:
// one function per op of the table (Note [Unary op table]) and per hand-written op.
#include "backend/cpu/capability.h"
#include "backend/cpu/loop.h"
#include "primitives/unary.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

/// unary_Exp(loop, dt), unary_Sin(...), ...: the table's ops, each running its functor.
#define EMBER_UNARY_KERNEL_DECL(Op, ...) void unary_##Op(const StridedLoop& loop, ScalarType dt);
EMBER_UNARY_TABLE_OPS(EMBER_UNARY_KERNEL_DECL)
#undef EMBER_UNARY_KERNEL_DECL

/// Defines unary_Op for each row of a table group, in the file that includes the functors.
#define EMBER_UNARY_KERNEL_DEF(Op, name, Functor, ...) \
  void unary_##Op(const StridedLoop& loop, ScalarType dt) { float_unary<Functor>(loop, dt, #name); }

// unary_trig_round.cpp
void round_kernel(const UnaryArgs& args, const StridedLoop& loop, ScalarType dt);
void nan_to_num_kernel(const UnaryArgs& args, const StridedLoop& loop, ScalarType dt);
// unary_activation.cpp
void logit_kernel(const UnaryArgs& args, const StridedLoop& loop, ScalarType dt);
void gelu_kernel(const UnaryArgs& args, const StridedLoop& loop, ScalarType dt);
void softplus_kernel(const UnaryArgs& args, const StridedLoop& loop, ScalarType dt);
void elu_kernel(const UnaryArgs& args, const StridedLoop& loop, ScalarType dt);
void leaky_relu_kernel(const UnaryArgs& args, const StridedLoop& loop, ScalarType dt);

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY
