#pragma once
// Convolutions and sliding-window views (torch.nn.functional.conv*, unfold, fold).
//   namespace F = ember::nn::functional;
//   auto y = F::conv2d(x, w, F::Conv2dFuncOptions().stride(2).padding(1).bias(b));
//   auto z = F::conv2d(x, w, b, /*stride=*/1, /*padding=*/ember::kSame);
// Inputs are (N, C, L) / (N, C, H, W), or unbatched (C, L) / (C, H, W); weights are
// (out_channels, in_channels / groups, kW) / (out_channels, in_channels / groups, kH, kW), and for
// transposed convolutions (in_channels, out_channels / groups, kH, kW). Floating dtypes only.
#include "ember/core/tensor.h"
#include "ember/nn/options/conv.h"
#include "ember/nn/options/fold.h"

namespace ember::nn::functional {

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options = {});
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options = {});
/// Python's argument order: conv2d(input, weight, bias, stride, padding, dilation, groups).
/// `bias` may be an undefined Tensor().
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias,
              ExpandingArray<1> stride = 1, const Conv1dFuncOptions::padding_t& padding = 0,
              ExpandingArray<1> dilation = 1, int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
              ExpandingArray<2> stride = 1, const Conv2dFuncOptions::padding_t& padding = 0,
              ExpandingArray<2> dilation = 1, int64_t groups = 1);

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose1dFuncOptions& options = {});
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& options = {});
/// Python's order: conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups,
/// dilation).
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        ExpandingArray<2> stride = 1, ExpandingArray<2> padding = 0,
                        ExpandingArray<2> output_padding = 0, int64_t groups = 1,
                        ExpandingArray<2> dilation = 1);

/// im2col: (N, C, H, W) or (C, H, W) -> (N, C * kH * kW, L) or (C * kH * kW, L).
Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options);
/// col2im, summing overlapping values: (N, C * kH * kW, L) or (C * kH * kW, L) -> (N, C, H, W).
Tensor fold(const Tensor& input, const FoldFuncOptions& options);

}  // namespace ember::nn::functional
