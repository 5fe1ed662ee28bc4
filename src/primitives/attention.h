#pragma once
// Scaled dot-product attention as one fused, tiled primitive (Note [Tiled attention] in
// ember/nn/functional/attention.h). The op builder (src/nn/functional/attention.cpp) validates,
// broadcasts the batch dims, casts 16-bit inputs to float32 and makes q, k, v contiguous:
//   inputs:  q [B, Hq, L, E], k [B, Hk, S, E], v [B, Hk, S, Ev] (float32 or float64), and
//            optionally a mask view of shape [..., L, S] whose leading dims hold B * Hq entries
//            (any strides, stride 0 for broadcast dims), bool or q's dtype.
//   outputs: out [B, Hq, L, Ev], logsumexp [B, Hq, L] (q's dtype; -inf for fully masked rows).
// Query head h reads key/value head h / (Hq / Hk) (grouped-query attention).
// The backward primitive recomputes the scores block by block from (q, k, v, out, logsumexp):
//   inputs:  grad_out, q, k, v, out, logsumexp[, mask];  outputs: grad_q, grad_k, grad_v.
// Dropout is a pure function of (seed, offset, element index), so the backward regenerates the
// forward's mask: element (bh, i, j) is kept when uniform(philox(seed, offset + n / 4)[n % 4]) <
// 1 - p with n = (bh * L + i) * S + j. With dropout_p > 0 both primitives take (seed, offset) as
// their last input (Note [Functional randomness] in primitives/random.h).
#include <cstdint>
#include <string>

#include "dispatch/primitive.h"

namespace ember {

struct AttentionParams {
  double scale = 1.0;
  bool is_causal = false;
  bool has_mask = false;
  double dropout_p = 0.0;
  EMBER_FIELDS(scale, is_causal, has_mask, dropout_p)
};

class ScaledDotProductAttention : public PrimitiveOf<ScaledDotProductAttention, AttentionParams,
                                                     PrimitiveKind::ScaledDotProductAttention> {
 public:
  using PrimitiveOf::PrimitiveOf;
  EMBER_INFER
  EMBER_VJP
  bool saves_output(size_t) const override { return true; }
  const char* default_name() const override { return "scaled_dot_product_attention"; }
  EMBER_CPU_DISPATCHED_KERNEL;
};

class ScaledDotProductAttentionBackward
    : public PrimitiveOf<ScaledDotProductAttentionBackward, AttentionParams,
                         PrimitiveKind::ScaledDotProductAttentionBackward> {
 public:
  using PrimitiveOf::PrimitiveOf;
  EMBER_INFER
  const char* default_name() const override { return "scaled_dot_product_attention_backward"; }
  EMBER_CPU_DISPATCHED_KERNEL;
};

}  // namespace ember
