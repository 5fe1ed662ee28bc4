#pragma once
// Options of nn::MultiheadAttention and F::multi_head_attention_forward
// (torch/nn/options/activation.h in libtorch).
#include <cstdint>

#include "ember/core/tensor.h"
#include "ember/nn/arg.h"

namespace ember::nn {

/// nn::MultiheadAttention(nn::MultiheadAttentionOptions(16, 4).dropout(0.1).batch_first(true)).
/// kdim and vdim default to embed_dim.
struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  EMBER_ARG(int64_t, embed_dim);
  EMBER_ARG(int64_t, num_heads);
  /// Dropout probability on the attention weights (training only).
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bias) = true;
  /// Appends learned bias_k / bias_v rows to the key and value sequences.
  EMBER_ARG(bool, add_bias_kv) = false;
  /// Appends a row of zeros to the key and value sequences (after the projections).
  EMBER_ARG(bool, add_zero_attn) = false;
  EMBER_ARG(int64_t, kdim);
  EMBER_ARG(int64_t, vdim);
  /// Inputs and output as (batch, seq, feature) instead of (seq, batch, feature).
  EMBER_ARG(bool, batch_first) = false;
};

namespace functional {

/// The arguments of torch.nn.functional.multi_head_attention_forward after query, key, value.
struct MultiheadAttentionForwardFuncOptions {
  MultiheadAttentionForwardFuncOptions(int64_t embed_dim_to_check, int64_t num_heads,
                                       Tensor in_proj_weight, Tensor in_proj_bias, Tensor bias_k,
                                       Tensor bias_v, bool add_zero_attn, double dropout_p,
                                       Tensor out_proj_weight, Tensor out_proj_bias)
      : embed_dim_to_check_(embed_dim_to_check),
        num_heads_(num_heads),
        in_proj_weight_(std::move(in_proj_weight)),
        in_proj_bias_(std::move(in_proj_bias)),
        bias_k_(std::move(bias_k)),
        bias_v_(std::move(bias_v)),
        add_zero_attn_(add_zero_attn),
        dropout_p_(dropout_p),
        out_proj_weight_(std::move(out_proj_weight)),
        out_proj_bias_(std::move(out_proj_bias)) {}
  EMBER_ARG(int64_t, embed_dim_to_check);
  EMBER_ARG(int64_t, num_heads);
  EMBER_ARG(Tensor, in_proj_weight);
  EMBER_ARG(Tensor, in_proj_bias);
  EMBER_ARG(Tensor, bias_k);
  EMBER_ARG(Tensor, bias_v);
  EMBER_ARG(bool, add_zero_attn);
  EMBER_ARG(double, dropout_p);
  EMBER_ARG(Tensor, out_proj_weight);
  EMBER_ARG(Tensor, out_proj_bias);
  EMBER_ARG(bool, training) = true;
  /// (N, S) or (S): bool (true = ignore that key) or float (added to the scores).
  EMBER_ARG(Tensor, key_padding_mask) = {};
  EMBER_ARG(bool, need_weights) = true;
  /// (L, S) or (N * num_heads, L, S): bool (true = not allowed to attend) or float (added).
  EMBER_ARG(Tensor, attn_mask) = {};
  EMBER_ARG(bool, use_separate_proj_weight) = false;
  EMBER_ARG(Tensor, q_proj_weight) = {};
  EMBER_ARG(Tensor, k_proj_weight) = {};
  EMBER_ARG(Tensor, v_proj_weight) = {};
  EMBER_ARG(Tensor, static_k) = {};
  EMBER_ARG(Tensor, static_v) = {};
  EMBER_ARG(bool, average_attn_weights) = true;
  /// A hint that attn_mask is the causal mask (which must still be given, as PyTorch).
  EMBER_ARG(bool, is_causal) = false;
};

}  // namespace functional
}  // namespace ember::nn
