#pragma once
// The optimizers' fused kernels as ops (Note [Fused Adam] in primitives/optimizer.h). Each updates
// one parameter and its state in place in one pass and returns true, or returns false, having
// done nothing, where the fused kernel does not apply and the caller runs the for-loop step
// instead: grad mode is on, a dispatch mode records ops on this thread (a trace), or the tensors
// are not contiguous CPU floating tensors of one dtype and size (the gradient may have any
// layout).
#include "ember/core/tensor.h"
#include "primitives/optimizer.h"

namespace ember::ops {

/// Adam or AdamW: p, exp_avg, exp_avg_sq (and max_exp_avg_sq with amsgrad, else null).
bool fused_adam_step(const FusedAdamParams& params, const Tensor& p, const Tensor& grad,
                     const Tensor& exp_avg, const Tensor& exp_avg_sq, const Tensor* max_exp_avg_sq);

/// SGD: p and, where momentum != 0, *momentum_buffer; an undefined buffer is made here and set
/// to the (decayed) gradient, the for-loop's first step (params.first_step is the op's to set).
bool fused_sgd_step(FusedSgdParams params, const Tensor& p, const Tensor& grad,
                    Tensor* momentum_buffer);

/// Adagrad: p and sum.
bool fused_adagrad_step(const FusedAdagradParams& params, const Tensor& p, const Tensor& grad,
                        const Tensor& sum);

}  // namespace ember::ops
