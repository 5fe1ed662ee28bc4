#include "ops/optimizer.h"

#include "dispatch/dispatch.h"
#include "ember/autograd.h"
#include "ember/ops/factory.h"

namespace ember::ops {
namespace {

// Whether the fused kernel applies to targets = {p, state...} and the gradient.
bool fused_applies(const Tensor& grad, const std::vector<Tensor>& targets) {
  if (is_grad_enabled() || detail::thread_has_mode()) return false;
  const Tensor& p = targets[0];
  if (!p.device().is_cpu() || !p.is_floating_point() || grad.dtype() != p.dtype() ||
      grad.sizes() != p.sizes()) {
    return false;
  }
  for (const Tensor& t : targets) {
    if (!t.is_contiguous() || t.dtype() != p.dtype() || t.sizes() != p.sizes() ||
        !t.device().is_cpu()) {
      return false;
    }
  }
  return true;
}

// Dispatches prim in place on targets = {p, state...} with inputs {p, grad, state...}.
template <typename P>
void run_fused(P prim, const Tensor& grad, std::vector<Tensor>& targets) {
  std::vector<Tensor> inputs{targets[0], grad.contiguous()};
  inputs.insert(inputs.end(), targets.begin() + 1, targets.end());
  dispatch(in_place(std::move(prim)), inputs, targets);
  // dispatch counts the write to p (output 0); the state tensors are written too.
  for (size_t i = 1; i < targets.size(); ++i) targets[i].unsafeGetTensorImpl()->bump_version();
}

}  // namespace

bool fused_adam_step(const FusedAdamParams& params, const Tensor& p, const Tensor& grad,
                     const Tensor& exp_avg, const Tensor& exp_avg_sq,
                     const Tensor* max_exp_avg_sq) {
  std::vector<Tensor> targets{p, exp_avg, exp_avg_sq};
  if (max_exp_avg_sq) targets.push_back(*max_exp_avg_sq);
  if (!fused_applies(grad, targets)) return false;
  run_fused(FusedAdam(params), grad, targets);
  return true;
}

bool fused_sgd_step(FusedSgdParams params, const Tensor& p, const Tensor& grad,
                    Tensor* momentum_buffer) {
  std::vector<Tensor> targets{p};
  params.first_step = params.momentum != 0 && !momentum_buffer->defined();
  // A buffer yet to be made is checked as the parameter it will be shaped like.
  if (params.momentum != 0) targets.push_back(params.first_step ? p : *momentum_buffer);
  if (!fused_applies(grad, targets)) return false;
  if (params.first_step) {
    *momentum_buffer = targets[1] = ember::empty(p.sizes(), TensorOptions(p.dtype()));
  }
  run_fused(FusedSgd(params), grad, targets);
  return true;
}

bool fused_adagrad_step(const FusedAdagradParams& params, const Tensor& p, const Tensor& grad,
                        const Tensor& sum) {
  std::vector<Tensor> targets{p, sum};
  if (!fused_applies(grad, targets)) return false;
  run_fused(FusedAdagrad(params), grad, targets);
  return true;
}

}  // namespace ember::ops
