#pragma once
// Pooling (torch.nn.functional.*pool*).
//   F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2).padding(1))
//   auto [y, idx] = F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions(2));
//   F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({1, 1}))
// Inputs are (N, C, L) / (N, C, H, W) or unbatched (C, L) / (C, H, W). Indices are int64
// positions within each (H * W) plane, as PyTorch returns them. Floating dtypes only.
#include <optional>
#include <tuple>

#include "ember/core/tensor.h"
#include "ember/nn/options/pooling.h"

namespace ember::nn::functional {

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                   const MaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                   const MaxPool2dFuncOptions& options);
/// Python's order; stride std::nullopt means kernel_size.
Tensor max_pool1d(const Tensor& input, ExpandingArray<1> kernel_size,
                  std::optional<ExpandingArray<1>> stride = std::nullopt,
                  ExpandingArray<1> padding = 0, ExpandingArray<1> dilation = 1,
                  bool ceil_mode = false);
Tensor max_pool2d(const Tensor& input, ExpandingArray<2> kernel_size,
                  std::optional<ExpandingArray<2>> stride = std::nullopt,
                  ExpandingArray<2> padding = 0, ExpandingArray<2> dilation = 1,
                  bool ceil_mode = false);

Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);
Tensor avg_pool1d(const Tensor& input, ExpandingArray<1> kernel_size,
                  std::optional<ExpandingArray<1>> stride = std::nullopt,
                  ExpandingArray<1> padding = 0, bool ceil_mode = false,
                  bool count_include_pad = true);
Tensor avg_pool2d(const Tensor& input, ExpandingArray<2> kernel_size,
                  std::optional<ExpandingArray<2>> stride = std::nullopt,
                  ExpandingArray<2> padding = 0, bool ceil_mode = false,
                  bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);

Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options);
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);
Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(
    const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(
    const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);

}  // namespace ember::nn::functional
