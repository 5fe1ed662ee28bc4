#pragma once
// F::multi_head_attention_forward (src/nn/attention.cpp), the computation behind
// nn::MultiheadAttention, following torch.nn.functional.multi_head_attention_forward.
#include <tuple>

#include "ember/core/tensor.h"
#include "ember/nn/options/attention.h"

namespace ember::nn::functional {

/// query (L, N, E) or (L, E), key (S, N, Ek), value (S, N, Ev) (sequence first). Returns
/// (attn_output (L, N, E), attn_weights): the weights are (N, L, S) averaged over heads, or
/// (N, num_heads, L, S) without average_attn_weights, and undefined when need_weights is false
/// (that path runs through scaled_dot_product_attention).
std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value,
    const MultiheadAttentionForwardFuncOptions& options);

}  // namespace ember::nn::functional
