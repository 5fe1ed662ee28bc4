#pragma once
// Note [Fused Adam]: PyTorch's _fused_adam_ / _fused_adamw_ for one parameter: the whole Adam or
// AdamW update of every element in one pass over memory (read p, g, exp_avg, exp_avg_sq; write p
// and the state), where the for-loop step runs eight elementwise ops. The optimizer
// (src/optim/adam.cpp) uses it by default for float32 and float64 parameters, where it computes
// what the for-loop computes, op by op in the parameter's dtype (roundings may differ by an ulp:
// the compiler contracts a * b + c differently across one function than across kernels), and
// with `fused(true)` for 16-bit parameters too, computing those in float and rounding once per
// stored value as PyTorch's fused kernel does.
//
// The call is in place on every output: outputs are the targets {param, exp_avg, exp_avg_sq[,
// max_exp_avg_sq]}, inputs the same tensors with the gradient second {param, grad, exp_avg,
// exp_avg_sq[, max_exp_avg_sq]}, all contiguous, of one size and dtype. That is more than
// Note [Mutation and aliasing] lets a primitive state (one target), so the op runs it only where
// no dispatch mode records ops: a trace (compile, make_fx) gets the for-loop's ops, which the
// compiler fuses itself (Note [Compiled optimizer step]). It has no vjp (an optimizer step runs
// without grad) and no inference.
#include "dispatch/primitive.h"

namespace ember {

struct FusedAdamParams {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0;
  /// 1 - beta1^t and sqrt(1 - beta2^t) at this step, computed in double by the optimizer.
  double bias_correction1 = 1, bias_correction2_sqrt = 1;
  bool amsgrad = false, maximize = false;
  bool decoupled = false;  // AdamW: p *= 1 - lr * weight_decay, instead of g += weight_decay * p
  EMBER_FIELDS(lr, beta1, beta2, eps, weight_decay, bias_correction1, bias_correction2_sqrt,
               amsgrad, maximize, decoupled)
};

class FusedAdam : public PrimitiveOf<FusedAdam, FusedAdamParams, PrimitiveKind::FusedAdam> {
 public:
  using PrimitiveOf::PrimitiveOf;
  const char* default_name() const override {
    return p_.decoupled ? "_fused_adamw_" : "_fused_adam_";
  }
  EMBER_CPU_DISPATCHED_KERNEL;
};

}  // namespace ember
