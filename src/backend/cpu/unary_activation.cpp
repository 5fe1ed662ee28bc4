// Floating-point activation kernels: sigmoid, logit, gelu, silu, mish, softplus, elu, leaky_relu,
// hardsigmoid, hardswish. Functors: Note [Unary functors].
#include "backend/cpu/unary_kernels.h"
#include "backend/cpu/unary_loops.h"

namespace ember::cpu {

bool unary_activation_kernel(UnaryOp op, const UnaryArgs& args, const StridedLoop& loop,
                             ScalarType dt) {
  const char* n = unary_op_name(op);
  switch (op) {
    case UnaryOp::Sigmoid:
      float_unary<SigmoidF>(loop, dt, n);
      break;
    case UnaryOp::Logit:
      float_unary<LogitF>(loop, dt, n, args.a ? args.a->toDouble() : -1.0);
      break;
    case UnaryOp::Gelu:
      if (args.derivative)
        args.tanh_approx ? float_unary<GeluTanhGradF>(loop, dt, n)
                         : float_unary<GeluGradF>(loop, dt, n);
      else
        args.tanh_approx ? float_unary<GeluTanhF>(loop, dt, n) : float_unary<GeluF>(loop, dt, n);
      break;
    case UnaryOp::Silu:
      float_unary<SiluF>(loop, dt, n);
      break;
    case UnaryOp::Mish:
      float_unary<MishF>(loop, dt, n);
      break;
    case UnaryOp::Softplus:
      float_unary<SoftplusF>(loop, dt, n, args.a->toDouble(), args.b->toDouble());
      break;
    case UnaryOp::Elu:
      float_unary<EluF>(loop, dt, n, args.a->toDouble(), args.b->toDouble(), args.c->toDouble());
      break;
    case UnaryOp::LeakyRelu:
      float_unary<LeakyReluF>(loop, dt, n, args.a->toDouble());
      break;
    case UnaryOp::Hardsigmoid:
      float_unary<HardsigmoidF>(loop, dt, n);
      break;
    case UnaryOp::Hardswish:
      float_unary<HardswishF>(loop, dt, n);
      break;
    default:
      return false;
  }
  return true;
}

}  // namespace ember::cpu
