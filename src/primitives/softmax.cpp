// Shape inference, gradients and decomposition of softmax / log_softmax and their backward
// (PyTorch's derivatives.yaml: _softmax_backward_data, _log_softmax_backward_data).
#include "primitives/softmax.h"

#include "dispatch/dispatch.h"
#include "ember/ember.h"
#include "primitives/infer_util.h"

namespace ember {

MetaList Softmax::infer(std::span<const TensorMeta> in) const {
  check_dim_param(p_.dim, in[0].sizes.size(), name());
  return {TensorMeta::contiguous(in[0].sizes, in[0].dtype, in[0].device)};
}

std::vector<Tensor> Softmax::vjp(const VjpContext& ctx) const {
  const Tensor& y = ctx.outputs[0];
  const Tensor g = ctx.grads[0].to(y.dtype()).contiguous();
  return dispatch(SoftmaxBackward(p_), {g, y});
}

MetaList SoftmaxBackward::infer(std::span<const TensorMeta> in) const {
  check_dim_param(p_.dim, in[1].sizes.size(), name());
  EMBER_CHECK(same_as(in[0].sizes, in[1].sizes) && in[0].dtype == in[1].dtype, "[", name(),
              "] grad_output ", in[0].str(), " does not match output ", in[1].str());
  return {TensorMeta::contiguous(in[1].sizes, in[1].dtype, in[1].device)};
}

std::vector<Tensor> SoftmaxBackward::decompose(const std::vector<Tensor>& in) const {
  const Tensor &g = in[0], &y = in[1];
  const int64_t d = y.dim() == 0 ? 0 : p_.dim;
  if (y.dim() == 0) return {g * 0};  // a single element: a constant output
  if (p_.log) return {g - y.exp() * g.sum({d}, /*keepdim=*/true)};
  return {y * (g - (g * y).sum({d}, /*keepdim=*/true))};
}

// Double backward, with Ember ops (so that it is differentiable again). With u the gradient of
// grad_input: softmax: dg = y * (u - sum(u * y)), dy = u * (g - sum(g * y)) - g * sum(u * y);
// log_softmax: dg = u - sum(u * exp(y)), dy = -u * exp(y) * sum(g).
std::vector<Tensor> SoftmaxBackward::vjp(const VjpContext& ctx) const {
  const Tensor &g = ctx.inputs[0], &y = ctx.inputs[1], &u = ctx.grads[0];
  if (y.dim() == 0) return {u * 0, u * 0};
  const int64_t d = p_.dim;
  auto rowsum = [d](const Tensor& t) { return t.sum({d}, /*keepdim=*/true); };
  if (p_.log) {
    const Tensor e = y.exp();
    return {u - rowsum(u * e), -(u * e) * rowsum(g)};
  }
  const Tensor uy = rowsum(u * y);
  return {y * (u - uy), u * (g - rowsum(g * y)) - g * uy};
}

}  // namespace ember
