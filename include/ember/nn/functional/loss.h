#pragma once
// Loss functions (src/nn/functional/loss.cpp), written with Ember ops in numerically stable forms
// (log-sum-exp, log1p). 16-bit inputs compute in float32 and round the result once.
//   F::cross_entropy(logits, target, F::CrossEntropyFuncOptions().label_smoothing(0.1));
//   F::mse_loss(x, y, ember::kSum);  // an options struct converts from its reduction tag
#include "ember/core/tensor.h"
#include "ember/nn/options/loss.h"

namespace ember::nn::functional {

/// input (C), (N, C) or (N, C, d1, ...); target: class indices (int64, shape without C) or class
/// probabilities (floating, the input's shape). A class index outside [0, C) other than
/// ignore_index is an IndexError.
Tensor cross_entropy(const Tensor& input, const Tensor& target,
                     const CrossEntropyFuncOptions& options = {});
/// input: log-probabilities, same layout as cross_entropy with class indices.
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {});
/// input: probabilities in [0, 1]; log terms are clamped at -100 as PyTorch.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& options = {});
Tensor binary_cross_entropy_with_logits(
    const Tensor& input, const Tensor& target,
    const BinaryCrossEntropyWithLogitsFuncOptions& options = {});
Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {});
Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options = {});
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options = {});
/// libtorch's older spelling with beta as a separate argument.
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options, double beta);
Tensor huber_loss(const Tensor& input, const Tensor& target,
                  const HuberLossFuncOptions& options = {});
/// input: log-probabilities; target: probabilities (log-probabilities with log_target).
Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options = {});
/// max(0, -target * (input1 - input2) + margin).
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options = {});
/// 1 - cos(x1, x2) where target == 1, max(0, cos(x1, x2) - margin) where target == -1.
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options = {});

}  // namespace ember::nn::functional
