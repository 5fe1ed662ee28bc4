// Gradients of convolution, pooling, resampling and padding through their backward kernels
// (Note [Convolution gradients] in primitives/conv.h, Note [Pooling gradients] in pool.h). Each
// backward kernel is linear in grad_output, so its own gradient (double backward) is the forward
// kernel applied to the incoming gradient: the pairs are adjoints of each other.
#include "dispatch/dispatch.h"
#include "ember/ember.h"
#include "nn/conv_internal.h"

namespace ember {

namespace {
Tensor bias_grad(const Tensor& g) { return g.sum({0, 2, 3}); }

// conv2d of a transposed convolution's output: with an output_padding of at least the stride
// (allowed below the dilation) it has trailing rows or columns beyond `like`'s, which no input
// position produced; they are cut off.
Tensor cropped_to(const Tensor& t, const Tensor& like) {
  return t.narrow(2, 0, like.size(2)).narrow(3, 0, like.size(3));
}

// The forward primitive `fwd` applied to gg (its output has the backward kernel's grad_output
// shape).
Tensor adjoint(const Primitive& fwd, const Tensor& gg) {
  return dispatch(fwd, {gg.contiguous()})[0];
}

// The last two of `sizes`.
std::vector<int64_t> hw(const std::vector<int64_t>& sizes) {
  return {sizes[sizes.size() - 2], sizes.back()};
}
}  // namespace

std::vector<Tensor> Convolution::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const Tensor &a = ctx.inputs[0], &w = ctx.inputs[1];
  const bool has_bias = ctx.inputs.size() > 2;
  std::vector<Tensor> out(ctx.inputs.size());
  switch (p_.op) {
    case ConvOp::Forward:
      if (ctx.needs_grad[0]) out[0] = nn::detail::conv2d_backward_input(g, w, a.sizes(), p_.conv);
      if (ctx.needs_grad[1]) out[1] = nn::detail::conv2d_backward_weight(g, a, w.sizes(), p_.conv);
      break;
    case ConvOp::BackwardInput:  // conv_transpose2d(a, w): its adjoint is conv2d
      if (ctx.needs_grad[0])
        out[0] = cropped_to(nn::detail::conv2d_forward(g, w, Tensor(), p_.conv), a);
      if (ctx.needs_grad[1]) out[1] = nn::detail::conv2d_backward_weight(a, g, w.sizes(), p_.conv);
      break;
    case ConvOp::BackwardWeight: {  // inputs {dy, x}; g is weight-shaped
      const Tensor &dy = a, &x = w;
      if (ctx.needs_grad[0])
        out[0] = cropped_to(nn::detail::conv2d_forward(x, g, Tensor(), p_.conv), dy);
      if (ctx.needs_grad[1]) out[1] = nn::detail::conv2d_backward_input(dy, g, x.sizes(), p_.conv);
      break;
    }
  }
  if (has_bias && ctx.needs_grad[2]) out[2] = bias_grad(g);
  return out;
}

std::vector<Tensor> Pooling::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const std::vector<int64_t> in = ctx.concrete_sizes(0, name());
  switch (p_.op) {
    case PoolOp::MaxForward:
    case PoolOp::AdaptiveMaxForward:
      return {nn::detail::max_pool2d_backward(g, ctx.outputs[1], in)};
    case PoolOp::AvgForward:
      return {nn::detail::avg_pool2d_backward(g, in, p_.pool)};
    case PoolOp::AdaptiveAvgForward:
      return {nn::detail::adaptive_avg_pool2d_backward(g, in)};
    case PoolOp::AvgBackward:
      return {adjoint(Pooling("avg_pool2d", PoolOp::AvgForward, p_.pool), g)};
    case PoolOp::AdaptiveAvgBackward:
      return {adjoint(Pooling("adaptive_avg_pool2d", PoolOp::AdaptiveAvgForward, {}, hw(in)), g)};
    case PoolOp::MaxBackward: {  // grad_x[indices] += grad_y: its adjoint gathers
      const Tensor& idx = ctx.inputs[1];
      Tensor picked = g.flatten(2).gather(2, idx.flatten(2));
      return {picked.view(SymIntList(in)), Tensor()};
    }
    default:
      return Primitive::vjp(ctx);
  }
}

std::vector<Tensor> SlidingWindow::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const std::vector<int64_t> in = ctx.concrete_sizes(0, name());
  if (p_.to_columns)
    return {nn::detail::col2im(g, {in[2], in[3]}, p_.kernel_h, p_.kernel_w, p_.conv)};
  return {nn::detail::im2col(g, p_.kernel_h, p_.kernel_w, p_.conv)};
}

std::vector<Tensor> Upsample::vjp(const VjpContext& ctx) const {
  if (p_.backward) {
    const char* fwd = p_.op == ResampleOp::Nearest ? "upsample_nearest2d" : "upsample_bilinear2d";
    return {adjoint(Upsample(fwd, p_.op, false, p_.align_corners, p_.scale_h, p_.scale_w,
                             hw(ctx.concrete_sizes(0, name()))),
                    ctx.grads[0])};
  }
  return {nn::detail::upsample2d_backward(ctx.grads[0], p_.op, ctx.concrete_sizes(0, name()),
                                          p_.align_corners, p_.scale_h, p_.scale_w)};
}

std::vector<Tensor> Pad::vjp(const VjpContext& ctx) const {
  if (p_.backward) {
    return {adjoint(Pad("pad", p_.mode, p_.pad, 0.0, false), ctx.grads[0])};
  }
  return {nn::detail::pad_backward(ctx.grads[0], p_.mode, p_.pad, ctx.concrete_sizes(0, name()))};
}

}  // namespace ember
