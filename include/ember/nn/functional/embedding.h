#pragma once
// Embedding lookups and one-hot encoding (src/nn/functional/embedding.cpp).
#include <cstdint>

#include "ember/core/tensor.h"
#include "ember/nn/options/embedding.h"

namespace ember::nn::functional {

/// One-hot int64 encoding with a trailing dim of num_classes (-1: max(tensor) + 1).
Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1);
/// weight[input]: input holds int64/int32 indices of any shape; the result is
/// input.sizes() + [embedding_dim].
Tensor embedding(const Tensor& input, const Tensor& weight,
                 const EmbeddingFuncOptions& options = {});
/// Sums, means or maxima of bags of embeddings: input 2-D (B, N) (each row a bag) or 1-D with
/// `offsets` (bag starts). Empty bags give zeros.
Tensor embedding_bag(const Tensor& input, const Tensor& weight,
                     const EmbeddingBagFuncOptions& options = {});

}  // namespace ember::nn::functional
