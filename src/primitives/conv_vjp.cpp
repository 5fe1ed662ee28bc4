// Gradients of convolution, pooling, resampling and padding through their backward kernels
// (Note [Convolution gradients] in primitives/conv.h, Note [Pooling gradients] in pool.h). The
// backward primitives themselves (except conv's backward-input, which is conv_transpose's
// forward) have no vjp: differentiating twice through them raises NotImplementedError.
#include "ember/ember.h"
#include "nn/conv_internal.h"

namespace ember {

namespace {
Tensor bias_grad(const Tensor& g) { return g.sum({0, 2, 3}); }
}  // namespace

std::vector<Tensor> Convolution::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const Tensor &a = ctx.inputs[0], &w = ctx.inputs[1];
  const bool has_bias = ctx.inputs.size() > 2;
  std::vector<Tensor> out(ctx.inputs.size());
  switch (op_) {
    case ConvOp::Forward:
      if (ctx.needs_grad[0]) out[0] = nn::detail::conv2d_backward_input(g, w, a.sizes(), p_);
      if (ctx.needs_grad[1]) out[1] = nn::detail::conv2d_backward_weight(g, a, w.sizes(), p_);
      break;
    case ConvOp::BackwardInput:  // conv_transpose2d(a, w): its adjoint is conv2d
      if (ctx.needs_grad[0]) out[0] = nn::detail::conv2d_forward(g, w, Tensor(), p_);
      if (ctx.needs_grad[1]) out[1] = nn::detail::conv2d_backward_weight(a, g, w.sizes(), p_);
      break;
    case ConvOp::BackwardWeight:
      return Primitive::vjp(ctx);
  }
  if (has_bias && ctx.needs_grad[2]) out[2] = bias_grad(g);
  return out;
}

std::vector<Tensor> Pooling::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const auto& in = ctx.input_sizes[0];
  switch (op_) {
    case PoolOp::MaxForward:
    case PoolOp::AdaptiveMaxForward:
      return {nn::detail::max_pool2d_backward(g, ctx.outputs[1], in)};
    case PoolOp::AvgForward:
      return {nn::detail::avg_pool2d_backward(g, in, p_)};
    case PoolOp::AdaptiveAvgForward:
      return {nn::detail::adaptive_avg_pool2d_backward(g, in)};
    default:
      return Primitive::vjp(ctx);
  }
}

std::vector<Tensor> Upsample::vjp(const VjpContext& ctx) const {
  if (backward_) return Primitive::vjp(ctx);
  return {nn::detail::upsample2d_backward(ctx.grads[0], op_, ctx.input_sizes[0], align_corners_,
                                          scale_h_, scale_w_)};
}

std::vector<Tensor> Pad::vjp(const VjpContext& ctx) const {
  if (backward_) return Primitive::vjp(ctx);
  return {nn::detail::pad_backward(ctx.grads[0], mode_, pad_, ctx.input_sizes[0])};
}

}  // namespace ember
