// Floating-point activation kernels: sigmoid, logit, gelu, silu, mish, softplus, elu, leaky_relu,
// hardsigmoid, hardswish. Functors: Note [Unary functors].
#include "backend/cpu/unary_kernels.h"
#include "backend/cpu/unary_loops.h"

namespace ember::cpu {

EMBER_UNARY_ACTIVATION_OPS(EMBER_UNARY_KERNEL_DEF)

void logit_kernel(const UnaryArgs& args, const StridedLoop& loop, ScalarType dt) {
  float_unary<LogitF>(loop, dt, "logit", args.a ? args.a->toDouble() : -1.0);
}

void gelu_kernel(const UnaryArgs& args, const StridedLoop& loop, ScalarType dt) {
  if (args.derivative) {
    return args.tanh_approx ? float_unary<GeluTanhGradF>(loop, dt, "gelu")
                            : float_unary<GeluGradF>(loop, dt, "gelu");
  }
  args.tanh_approx ? float_unary<GeluTanhF>(loop, dt, "gelu")
                   : float_unary<GeluF>(loop, dt, "gelu");
}

void softplus_kernel(const UnaryArgs& args, const StridedLoop& loop, ScalarType dt) {
  float_unary<SoftplusF>(loop, dt, "softplus", args.a->toDouble(), args.b->toDouble());
}

void elu_kernel(const UnaryArgs& args, const StridedLoop& loop, ScalarType dt) {
  float_unary<EluF>(loop, dt, "elu", args.a->toDouble(), args.b->toDouble(), args.c->toDouble());
}

void leaky_relu_kernel(const UnaryArgs& args, const StridedLoop& loop, ScalarType dt) {
  float_unary<LeakyReluF>(loop, dt, "leaky_relu", args.a->toDouble());
}

}  // namespace ember::cpu
