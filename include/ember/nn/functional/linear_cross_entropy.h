#pragma once
// Fused linear + cross-entropy (src/nn/functional/linear_cross_entropy.cpp), PyTorch 2.14's
// F.linear_cross_entropy:
//   Tensor loss = F::linear_cross_entropy(hidden, lm_head_weight, tokens,
//       F::LinearCrossEntropyFuncOptions().options(nn::LinearCrossEntropyOptions()));
#include "ember/core/tensor.h"
#include "ember/nn/options/linear_cross_entropy.h"

namespace ember::nn::functional {

/// cross_entropy(linear(input, linear_weight, linear_bias), target, ...): input (*, D),
/// linear_weight (C, D), linear_bias (C); target class indices (int64, shape *) or class
/// probabilities (floating, shape (*, C)). With options.options() set, the logits exist for one
/// chunk of rows at a time and the gradients are computed in the forward; a second backward then
/// needs allow_retain_graph.
Tensor linear_cross_entropy(const Tensor& input, const Tensor& linear_weight, const Tensor& target,
                            const LinearCrossEntropyFuncOptions& options = {});

}  // namespace ember::nn::functional
