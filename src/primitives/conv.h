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
#include <vector>

#include "dispatch/primitive.h"

namespace ember {

struct Conv2dParams {
  int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1;
  int64_t groups = 1;
  /// "stride=[1, 1], padding=[0, 0], ..." for error messages.
  std::string str() const;
  EMBER_FIELDS(stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups)
};

// clang-format off
EMBER_ENUM(ConvOp, uint8_t,
  /// inputs {x [N, C, H, W], w [O, C / groups, kH, kW], optional bias [O]} -> {y [N, O, Ho, Wo]}
  Forward,
  /// inputs {grad_y [N, O, Ho, Wo], w, optional bias [C]} -> {grad_x [N, C, H, W]} (H, W from
  /// the output);
// clang-format on the bias (conv_transpose's) is added before 16-bit results are rounded.
  BackwardInput,
  /// inputs {grad_y [N, O, Ho, Wo], x [N, C, H, W]} -> {grad_w [O, C / groups, kH, kW]}
  BackwardWeight
);

struct ConvolutionParams {
  ConvOp op = ConvOp::Forward;
  Conv2dParams conv;
  /// The output's last two sizes where the inputs do not determine them (Note [Inference]):
  /// grad_x's H, W (BackwardInput) and grad_w's kH, kW (BackwardWeight); empty for Forward.
  std::vector<int64_t> output_hw;
  EMBER_FIELDS(op, conv, output_hw)
};

class Convolution : public PrimitiveOf<Convolution, ConvolutionParams, PrimitiveKind::Convolution> {
 public:
  using PrimitiveOf::PrimitiveOf;
  Convolution(const char* name, ConvOp op, Conv2dParams p, std::vector<int64_t> output_hw = {})
      : PrimitiveOf({op, p, std::move(output_hw)}) {
    set_display_name(name);
  }
  EMBER_INFER
  EMBER_VJP
  const char* default_name() const override { return "convolution"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  ConvOp op() const { return p_.op; }
  const Conv2dParams& conv() const { return p_.conv; }
};

/// Im2Col: inputs {x [N, C, H, W]} -> {cols [N, C * kH * kW, Ho * Wo]}.
/// Col2Im: inputs {cols [N, C * kH * kW, Ho * Wo]} -> {x [N, C, H, W]}, summing overlaps.
/// The kernel size is kernel_h x kernel_w; groups is unused; output_hw is Col2Im's H, W (empty
/// for Im2Col).
struct SlidingWindowParams {
  bool to_columns = true;
  int64_t kernel_h = 1, kernel_w = 1;
  Conv2dParams conv;
  std::vector<int64_t> output_hw;
  EMBER_FIELDS(to_columns, kernel_h, kernel_w, conv, output_hw)
};

class SlidingWindow
    : public PrimitiveOf<SlidingWindow, SlidingWindowParams, PrimitiveKind::SlidingWindow> {
 public:
  using PrimitiveOf::PrimitiveOf;
  SlidingWindow(bool to_columns, int64_t kernel_h, int64_t kernel_w, Conv2dParams p,
                std::vector<int64_t> output_hw = {})
      : PrimitiveOf({to_columns, kernel_h, kernel_w, p, std::move(output_hw)}) {}
  EMBER_INFER
  EMBER_VJP
  bool saves_input(size_t) const override { return false; }
  const char* default_name() const override { return p_.to_columns ? "im2col" : "col2im"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  bool to_columns() const { return p_.to_columns; }
  int64_t kernel_h() const { return p_.kernel_h; }
  int64_t kernel_w() const { return p_.kernel_w; }
  const Conv2dParams& conv() const { return p_.conv; }
};

}  // namespace ember
