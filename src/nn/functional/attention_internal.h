#pragma once
// The attention forward with what its backward needs, and the backward itself (recompute-based,
// tiled). For the autograd hook: save (q, k, v, attn_mask, result) in the forward's node and call
// sdpa_backward with the same arguments. Gradients come back in q's, k's and v's shapes (summed
// over broadcast dims) and dtype. No gradient is computed for a float attn_mask.
#include <cstdint>
#include <optional>
#include <tuple>

#include "ember/core/tensor.h"

namespace ember::nn::detail {

struct AttentionResult {
  Tensor output;                  // (..., Hq, L, Ev), the query's dtype
  Tensor logsumexp;               // [B, Hq, L] in the compute dtype (float32 for 16-bit inputs)
  Tensor rng_state;               // the dropout stream (ops::philox_state) when dropout_p > 0
};

AttentionResult sdpa_forward(const Tensor& query, const Tensor& key, const Tensor& value,
                             const Tensor& attn_mask, double dropout_p, bool is_causal,
                             std::optional<double> scale, bool enable_gqa);

/// Returns (grad_query, grad_key, grad_value).
std::tuple<Tensor, Tensor, Tensor> sdpa_backward(const Tensor& grad_output, const Tensor& query,
                                                 const Tensor& key, const Tensor& value,
                                                 const Tensor& attn_mask,
                                                 const AttentionResult& forward, double dropout_p,
                                                 bool is_causal, std::optional<double> scale,
                                                 bool enable_gqa);

}  // namespace ember::nn::detail
