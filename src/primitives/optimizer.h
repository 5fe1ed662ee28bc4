#pragma once
// Note [Fused Adam]: PyTorch's _fused_adam_ / _fused_adamw_ for one parameter: the whole Adam or
// AdamW update of every element in one pass over memory (read p, g, exp_avg, exp_avg_sq; write p
// and the state), where the for-loop step runs eight elementwise ops. The optimizer
// (src/optim/adam.cpp) uses it by default for float32 and float64 parameters, where it computes
// what the for-loop computes, op by op in the parameter's dtype (roundings may differ by an ulp:
// the compiler contracts a * b + c differently across one function than across kernels), and
// with `fused(true)` for 16-bit parameters too, computing those in float and rounding once per
// stored value as PyTorch's fused kernel does. SGD (_fused_sgd_: p and the momentum buffer) and
// Adagrad (_fused_adagrad_: p and the sum) have fused steps by the same rules.
//
// The call is in place on every output: outputs are the targets {param, state...} (Adam:
// exp_avg, exp_avg_sq[, max_exp_avg_sq]; SGD: [momentum_buffer]; Adagrad: sum), inputs the same
// tensors with the gradient second {param, grad, state...}, all contiguous, of one size and
// dtype. That is more than
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

struct FusedSgdParams {
  double lr = 1e-3, momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false, maximize = false;
  /// The momentum buffer is set to the gradient rather than updated (its first step; set by
  /// ops::fused_sgd_step).
  bool first_step = false;
  EMBER_FIELDS(lr, momentum, dampening, weight_decay, nesterov, maximize, first_step)
};

/// Targets {param[, momentum_buffer]} (the buffer where momentum != 0).
class FusedSgd : public PrimitiveOf<FusedSgd, FusedSgdParams, PrimitiveKind::FusedSgd> {
 public:
  using PrimitiveOf::PrimitiveOf;
  const char* default_name() const override { return "_fused_sgd_"; }
  EMBER_CPU_DISPATCHED_KERNEL;
};

struct FusedAdagradParams {
  /// lr / (1 + (step - 1) * lr_decay) at this step, computed in double by the optimizer.
  double clr = 1e-2, weight_decay = 0, eps = 1e-10;
  bool maximize = false;
  EMBER_FIELDS(clr, weight_decay, eps, maximize)
};

/// Targets {param, sum}.
class FusedAdagrad
    : public PrimitiveOf<FusedAdagrad, FusedAdagradParams, PrimitiveKind::FusedAdagrad> {
 public:
  using PrimitiveOf::PrimitiveOf;
  const char* default_name() const override { return "_fused_adagrad_"; }
  EMBER_CPU_DISPATCHED_KERNEL;
};

}  // namespace ember
