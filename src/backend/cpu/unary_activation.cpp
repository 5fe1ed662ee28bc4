// Floating-point activation kernels: sigmoid, logit, gelu, silu, mish, softplus, elu, leaky_relu,
// hardsigmoid, hardswish, and the fused backward of sigmoid, tanh, silu and gelu. Functors: Note
// [Unary functors], Note [Fused unary backward].
#include "backend/cpu/unary_kernels.h"
#include "backend/cpu/unary_loops.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

EMBER_UNARY_ACTIVATION_OPS(EMBER_UNARY_KERNEL_DEF)

void logit_kernel(const UnaryArgs& args, const StridedLoop& loop, ScalarType dt) {
  float_unary<LogitF>(loop, dt, "logit", args.a ? args.a->toDouble() : -1.0);
}

void gelu_kernel(const UnaryArgs& args, const StridedLoop& loop, ScalarType dt) {
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

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY

namespace ember {

EMBER_CPU_KERNEL(UnaryBackward, inputs, outputs) {
  const char* op = name();
  const ScalarType dt = outputs.at(0).dtype();
  EMBER_CHECK_T(TypeError, inputs.at(0).dtype() == dt && inputs.at(1).dtype() == dt, "[", op,
                "] expected grad_output and its argument of dtype ", dtype_name(dt), ", got ",
                dtype_name(inputs[0].dtype()), " and ", dtype_name(inputs[1].dtype()));
  const auto loop = cpu::make_loop({outputs[0], inputs[0], inputs[1]});
  using namespace cpu;
  if (p_.op == UnaryOp::Relu) return float_unary_backward<ReluBackwardF>(loop, dt, op);
  if (p_.op == UnaryOp::Sigmoid) return float_unary_backward<SigmoidBackwardF>(loop, dt, op);
  if (p_.op == UnaryOp::Tanh) return float_unary_backward<TanhBackwardF>(loop, dt, op);
  if (p_.op == UnaryOp::Silu) return float_unary_backward<SiluBackwardF>(loop, dt, op);
  if (p_.op == UnaryOp::Gelu) {
    return p_.args.tanh_approx ? float_unary_backward<GeluTanhBackwardF>(loop, dt, op)
                               : float_unary_backward<GeluBackwardF>(loop, dt, op);
  }
  EMBER_THROW(NotImplementedError, "[", op, "] no fused backward for ", unary_op_name(p_.op));
}

}  // namespace ember
