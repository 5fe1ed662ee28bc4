// Gradients of softmax/log_softmax and of attention (PyTorch's derivatives.yaml).
#include "dispatch/dispatch.h"
#include "ember/ember.h"
#include "primitives/attention.h"
#include "primitives/softmax.h"

namespace ember {

std::vector<Tensor> Softmax::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const Tensor& y = ctx.outputs[0];
  const int64_t d = y.dim() == 0 ? 0 : p_.dim;
  if (y.dim() == 0) return {p_.log ? g - g : g * 0};  // a single element: constant output
  if (p_.log) return {g - y.exp() * g.sum({d}, /*keepdim=*/true)};
  return {y * (g - (g * y).sum({d}, /*keepdim=*/true))};
}

std::vector<Tensor> ScaledDotProductAttention::vjp(const VjpContext& ctx) const {
  const auto& in = ctx.inputs;
  std::vector<Tensor> args{
      ctx.grads[0].contiguous(), in[0], in[1], in[2], ctx.outputs[0], ctx.outputs[1]};
  if (p_.has_mask) args.push_back(in[3]);
  std::vector<Tensor> grads;
  for (int i = 0; i < 3; ++i) grads.push_back(empty(in[i].sizes(), in[i].dtype()));
  grads = dispatch(ScaledDotProductAttentionBackward(p_), args, grads);
  grads.resize(in.size());
  return grads;
}

}  // namespace ember
