#pragma once
// Normalization functions (src/nn/functional/normalization.cpp). 16-bit inputs compute in float32
// and round once, as PyTorch's kernels do.
#include <cstdint>
#include <optional>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/options/normalization.h"

namespace ember::nn::functional {

/// (x - mean) / sqrt(var + eps) * weight + bias over the trailing normalized_shape dims.
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);
Tensor layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                  const Tensor& weight = {}, const Tensor& bias = {}, double eps = 1e-5);
/// x / sqrt(mean(x^2) + eps) * weight over the trailing dims; eps defaults to the dtype's epsilon.
Tensor rms_norm(const Tensor& input, const RMSNormFuncOptions& options);
Tensor rms_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                const Tensor& weight = {}, std::optional<double> eps = std::nullopt);
/// input (N, C, *): statistics over groups of C / num_groups channels.
Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options);
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5);
/// input (N, C, *). Training: batch statistics, and running_mean / running_var (when defined)
/// are updated in place with momentum and the unbiased variance. Evaluation: running statistics.
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options = {});
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum = 0.1,
                  double eps = 1e-5);
/// input (N, C, *): statistics per sample and channel.
Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {});
/// x / max(||x||_p, eps) along dim.
Tensor normalize(const Tensor& input, NormalizeFuncOptions options = {});

}  // namespace ember::nn::functional
