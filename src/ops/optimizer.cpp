#include "ops/optimizer.h"

#include "dispatch/dispatch.h"
#include "ember/autograd.h"

namespace ember::ops {

bool fused_adam_step(const FusedAdamParams& params, const Tensor& p, const Tensor& grad,
                     const Tensor& exp_avg, const Tensor& exp_avg_sq,
                     const Tensor* max_exp_avg_sq) {
  if (is_grad_enabled() || detail::thread_has_mode()) return false;
  if (!p.device().is_cpu() || !p.is_floating_point() || grad.dtype() != p.dtype() ||
      grad.sizes() != p.sizes()) {
    return false;
  }
  std::vector<Tensor> state{p, exp_avg, exp_avg_sq};
  if (max_exp_avg_sq) state.push_back(*max_exp_avg_sq);
  for (const Tensor& t : state) {
    if (!t.is_contiguous() || t.dtype() != p.dtype() || t.sizes() != p.sizes() ||
        !t.device().is_cpu()) {
      return false;
    }
  }
  std::vector<Tensor> inputs{p, grad.contiguous(), exp_avg, exp_avg_sq};
  if (max_exp_avg_sq) inputs.push_back(*max_exp_avg_sq);
  dispatch(in_place(FusedAdam(params)), inputs, state);
  // dispatch counts the write to p (output 0); the state tensors are written too.
  for (size_t i = 1; i < state.size(); ++i) state[i].unsafeGetTensorImpl()->bump_version();
  return true;
}

}  // namespace ember::ops
