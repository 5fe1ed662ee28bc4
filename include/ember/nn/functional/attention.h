#pragma once
// Scaled dot-product attention (src/nn/functional/attention.cpp, kernel in
// src/backend/cpu/attention.cpp). Note [Tiled attention]: the kernel streams over blocks of keys
// with an online softmax (FlashAttention-style), so memory stays O(L + S) per head instead of
// O(L * S); it never materialises the attention matrix.
#include <optional>

#include "ember/core/tensor.h"

namespace ember {

/// softmax(q @ k^T * scale + mask) @ v.
///   query (..., Hq, L, E), key (..., Hk, S, E), value (..., Hk, S, Ev) -> (..., Hq, L, Ev).
/// Leading dims broadcast. attn_mask: broadcastable to (..., Hq, L, S); bool (true = attend) or
/// the query's dtype (added to the scores). is_causal: query i attends keys j <= i (no attn_mask
/// then). scale: 1 / sqrt(E) when not given. enable_gqa: Hq may be a multiple of Hk (grouped-query
/// attention). dropout_p drops attention weights with the default generator. A query whose keys
/// are all masked out gets zeros (as PyTorch's safe softmax).
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = {}, double dropout_p = 0.0,
                                    bool is_causal = false,
                                    std::optional<double> scale = std::nullopt,
                                    bool enable_gqa = false);

}  // namespace ember

namespace ember::nn::functional {
using ember::scaled_dot_product_attention;
}  // namespace ember::nn::functional
