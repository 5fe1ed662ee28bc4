#pragma once
// nn::MultiheadAttention (torch.nn.MultiheadAttention) with PyTorch's parameters: in_proj_weight
// (3E, E) and in_proj_bias (3E) when kdim == vdim == embed_dim, else q_proj_weight (E, E),
// k_proj_weight (E, kdim), v_proj_weight (E, vdim); bias_k / bias_v (1, 1, E) with add_bias_kv;
// out_proj a Linear(E, E). Initialised as PyTorch: xavier_uniform_ projections, zero biases,
// xavier_normal_ bias_k / bias_v.
#include <cstdint>
#include <ostream>
#include <tuple>

#include "ember/nn/functional/multi_head_attention.h"
#include "ember/nn/module.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/options/attention.h"

namespace ember::nn {

class MultiheadAttentionImpl : public Module {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);
  void reset();
  void _reset_parameters();
  /// query (L, N, E) (or (N, L, E) with batch_first, or unbatched (L, E)), key (S, N, kdim),
  /// value (S, N, vdim). key_padding_mask (N, S): true (or -inf) ignores a key. attn_mask (L, S)
  /// or (N * num_heads, L, S): true (or -inf) forbids attending. Returns (attn_output,
  /// attn_weights); the weights are undefined when need_weights is false.
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {}, bool need_weights = true,
                                     const Tensor& attn_mask = {}, bool average_attn_weights = true,
                                     bool is_causal = false);
  void pretty_print(std::ostream& stream) const override;

  MultiheadAttentionOptions options;
  bool _qkv_same_embed_dim = true;
  int64_t head_dim = 0;
  Tensor in_proj_weight, in_proj_bias, bias_k, bias_v;
  Tensor q_proj_weight, k_proj_weight, v_proj_weight;
  Linear out_proj{nullptr};
};
EMBER_MODULE(MultiheadAttention);

}  // namespace ember::nn
