#pragma once
// Internal ops of the convolution / pooling / resampling / padding family: the forward kernels at
// their 4-D primitive level and the backward kernels the autograd vjps will call (Note
// [Convolution gradients] in primitives/conv.h, Note [Pooling gradients] in primitives/pool.h).
// Each validates its arguments, allocates the result and calls dispatch.
#include <optional>
#include <vector>

#include "ember/core/tensor.h"
#include "primitives/conv.h"
#include "primitives/pool.h"

namespace ember::nn::detail {

/// y = conv(x, w) + bias over 4-D x [N, C, H, W] and w [O, C / groups, kH, kW]; bias may be
/// undefined. `name` is the user-facing op.
Tensor conv2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dParams& p,
                      const char* name = "conv2d");
/// Gradient of conv2d_forward with respect to x (input_size is x's 4-D shape). It is also the
/// forward of conv_transpose2d, whose bias (undefined here by default) is added in the kernel.
Tensor conv2d_backward_input(const Tensor& grad_output, const Tensor& weight,
                             const std::vector<int64_t>& input_size, const Conv2dParams& p,
                             const char* name = "conv2d_backward_input",
                             const Tensor& bias = Tensor());
/// Gradient of conv2d_forward with respect to w (weight_size is w's 4-D shape).
Tensor conv2d_backward_weight(const Tensor& grad_output, const Tensor& input,
                              const std::vector<int64_t>& weight_size, const Conv2dParams& p,
                              const char* name = "conv2d_backward_weight");

/// im2col over 4-D x: [N, C * kH * kW, L]; col2im back to [N, C, H, W] (output_hw = {H, W}).
Tensor im2col(const Tensor& x, int64_t kernel_h, int64_t kernel_w, const Conv2dParams& p);
Tensor col2im(const Tensor& cols, const std::vector<int64_t>& output_hw, int64_t kernel_h,
              int64_t kernel_w, const Conv2dParams& p);

/// Gradient of max pooling (and adaptive max pooling) from the saved indices; input_size is the
/// 4-D input shape.
Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& indices,
                           const std::vector<int64_t>& input_size,
                           const char* name = "max_pool2d_with_indices_backward");
Tensor avg_pool2d_backward(const Tensor& grad_output, const std::vector<int64_t>& input_size,
                           const Pool2dParams& p);
Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output,
                                    const std::vector<int64_t>& input_size);

/// Resampling of 4-D x to out_hw, and its gradient (input_size: x's 4-D shape).
Tensor upsample2d(const Tensor& x, ResampleOp op, const std::vector<int64_t>& out_hw,
                  bool align_corners, std::optional<double> scale_h, std::optional<double> scale_w,
                  const char* name);
Tensor upsample2d_backward(const Tensor& grad_output, ResampleOp op,
                           const std::vector<int64_t>& input_size, bool align_corners,
                           std::optional<double> scale_h, std::optional<double> scale_w);

/// Gradient of F::pad: input_size is the unpadded shape, pad F::pad's pair list.
Tensor pad_backward(const Tensor& grad_output, PadMode mode, const std::vector<int64_t>& pad,
                    const std::vector<int64_t>& input_size);

}  // namespace ember::nn::detail
