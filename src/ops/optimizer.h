#pragma once
// The optimizers' fused kernels as ops (Note [Fused Adam] in primitives/optimizer.h).
#include "ember/core/tensor.h"
#include "primitives/optimizer.h"

namespace ember::ops {

/// One parameter's Adam or AdamW step in place on p, exp_avg, exp_avg_sq (and max_exp_avg_sq
/// with amsgrad, else null), in one pass. Returns false, having done nothing, where the fused
/// kernel does not apply and the caller runs the for-loop step instead: grad mode is on, a
/// dispatch mode records ops on this thread (a trace), or the tensors are not contiguous CPU
/// floating tensors of one dtype and size (the gradient may have any layout).
bool fused_adam_step(const FusedAdamParams& params, const Tensor& p, const Tensor& grad,
                     const Tensor& exp_avg, const Tensor& exp_avg_sq, const Tensor* max_exp_avg_sq);

}  // namespace ember::ops
