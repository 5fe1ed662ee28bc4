#pragma once
// Linear maps (src/nn/functional/linear.cpp).
#include "ember/core/tensor.h"

namespace ember::nn::functional {

/// input @ weight^T + bias: input (*, in), weight (out, in), bias (out).
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});
/// y_k = x1^T W_k x2 + b_k: input1 (*, in1), input2 (*, in2), weight (out, in1, in2), bias (out).
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const Tensor& bias = {});

}  // namespace ember::nn::functional
