#pragma once
// Shared by the modules that own a linear map's parameters (nn::Linear,
// nn::LinearCrossEntropyLoss).
#include <cstdint>

#include "ember/core/tensor.h"

namespace ember::nn::detail {

/// PyTorch's Linear initialisation: weight kaiming_uniform_(a = sqrt(5)), bias (when defined)
/// uniform in +-1/sqrt(in_features).
void reset_linear_parameters(const Tensor& weight, const Tensor& bias, int64_t in_features);

}  // namespace ember::nn::detail
