#pragma once
// Convolution family: forward, the two backward kernels, and im2col / col2im (F::unfold /
// F::fold). Every tensor is a contiguous 4-D NCHW tensor; the op builders turn 1-D ops,
// unbatched inputs and transposed convolutions into these (src/nn/functional/conv.cpp).
// Note [Convolution gradients]: with y = conv(x, w),
//   grad_x = ConvBackwardInput(grad_y, w)    (this is also conv_transpose2d's forward)
//   grad_w = ConvBackwardWeight(grad_y, x)
//   grad_b = grad_y.sum({0, 2, 3})
// and for y = conv_transpose(x, w) = ConvBackwardInput(x, w):
//   grad_x = ConvForward(grad_y, w),  grad_w = ConvBackwardWeight(x, grad_y).
// Im2Col and Col2Im are each other's vjp.
#include <cstdint>
#include <string>

#include "dispatch/primitive.h"

namespace ember {

struct Conv2dParams {
  int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1;
  int64_t groups = 1;
  std::string str() const;
};

enum class ConvOp {
  /// inputs {x [N, C, H, W], w [O, C / groups, kH, kW], optional bias [O]} -> {y [N, O, Ho, Wo]}
  Forward,
  /// inputs {grad_y [N, O, Ho, Wo], w, optional bias [C]} -> {grad_x [N, C, H, W]} (H, W from
  /// the output); the bias (conv_transpose's) is added before 16-bit results are rounded.
  BackwardInput,
  /// inputs {grad_y [N, O, Ho, Wo], x [N, C, H, W]} -> {grad_w [O, C / groups, kH, kW]}
  BackwardWeight,
};

class Convolution : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Convolution)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  Convolution(const char* name, ConvOp op, Conv2dParams p) : name_(name), op_(op), p_(p) {}
  const char* name() const override { return name_; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override { return p_.str(); }
  ConvOp op() const { return op_; }
  const Conv2dParams& params() const { return p_; }

 private:
  const char* name_;
  ConvOp op_;
  Conv2dParams p_;
};

/// Im2Col: inputs {x [N, C, H, W]} -> {cols [N, C * kH * kW, Ho * Wo]}.
/// Col2Im: inputs {cols [N, C * kH * kW, Ho * Wo]} -> {x [N, C, H, W]}, summing overlaps.
/// The kernel size is kernel_h x kernel_w; groups is unused.
class SlidingWindow : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(SlidingWindow)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override { return false; }
  SlidingWindow(bool to_columns, int64_t kernel_h, int64_t kernel_w, Conv2dParams p)
      : to_columns_(to_columns), kh_(kernel_h), kw_(kernel_w), p_(p) {}
  const char* name() const override { return to_columns_ ? "im2col" : "col2im"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override;
  bool to_columns() const { return to_columns_; }
  int64_t kernel_h() const { return kh_; }
  int64_t kernel_w() const { return kw_; }
  const Conv2dParams& params() const { return p_; }

 private:
  bool to_columns_;
  int64_t kh_, kw_;
  Conv2dParams p_;
};

}  // namespace ember
