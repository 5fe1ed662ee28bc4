#include "ember/nn/utils.h"

#include <cmath>
#include <limits>

#include "ember/autograd.h"
#include "ember/ember.h"

namespace ember::nn::utils {

Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  NoGradGuard g;
  std::vector<Tensor> grads;
  for (const auto& p : parameters) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return zeros({}, kFloat32);
  const ScalarType dt = grads[0].dtype();
  Tensor total;
  if (std::isinf(norm_type)) {
    std::vector<Tensor> maxes;
    for (const auto& gr : grads) maxes.push_back(gr.abs().amax().to(kFloat64));
    total = stack(maxes).amax();
  } else {
    std::vector<Tensor> norms;
    for (const auto& gr : grads) norms.push_back(gr.norm(norm_type).to(kFloat64));
    total = stack(norms).norm(norm_type);
  }
  const double t = total.item<double>();
  EMBER_CHECK(!error_if_nonfinite || std::isfinite(t),
              "[clip_grad_norm_] The total norm of "
              "order ",
              norm_type,
              " for gradients from `parameters` is non-finite, so it cannot "
              "be clipped. To disable this error and scale the gradients by the non-finite norm "
              "anyway, set `error_if_nonfinite=False`");
  const double coef = max_norm / (t + 1e-6);
  if (coef < 1) {
    for (auto& gr : grads) {
      Tensor gg = gr;
      gg.mul_(coef);
    }
  }
  return total.to(dt);
}

Tensor clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard g;
  for (const auto& p : parameters) {
    if (!p.grad().defined()) continue;
    Tensor gr = p.grad();
    gr.clamp_(-clip_value, clip_value);
  }
}

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  std::vector<Tensor> flat;
  for (const auto& p : parameters) flat.push_back(p.reshape({-1}));
  return cat(flat);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  EMBER_CHECK_TYPE(vec.dim() == 1, "[vector_to_parameters] expected vec to be a 1-D tensor, got ",
                   vec.dim(), "-D");
  int64_t total = 0;
  for (const auto& p : parameters) total += p.numel();
  EMBER_CHECK_VALUE(total == vec.numel(), "[vector_to_parameters] vec has ", vec.numel(),
                    " elements but the parameters have ", total);
  NoGradGuard g;
  int64_t offset = 0;
  for (const auto& p : parameters) {
    Tensor dst = p;
    dst.copy_(vec.narrow(0, offset, p.numel()).view_as(p));
    offset += p.numel();
  }
}

}  // namespace ember::nn::utils
