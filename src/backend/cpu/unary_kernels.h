#pragma once
// The floating-point-only unary kernels, split over three files to keep each one quick to compile.
// Each returns false when `op` is not one of its ops.
#include "backend/cpu/loop.h"
#include "primitives/unary.h"

namespace ember::cpu {

/// exp/log families, sqrt, rsqrt, reciprocal, erf, erfc, erfinv (unary_math.cpp).
bool unary_math_kernel(UnaryOp op, const UnaryArgs& args, const StridedLoop& loop, ScalarType dt);
/// sin ... tanh, floor/ceil/round/trunc/frac, nan_to_num (unary_trig_round.cpp).
bool unary_trig_round_kernel(UnaryOp op, const UnaryArgs& args, const StridedLoop& loop,
                             ScalarType dt);
/// sigmoid, logit and the activations (unary_activation.cpp).
bool unary_activation_kernel(UnaryOp op, const UnaryArgs& args, const StridedLoop& loop,
                             ScalarType dt);

}  // namespace ember::cpu
