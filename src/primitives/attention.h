#pragma once
// Scaled dot-product attention as one fused, tiled primitive (Note [Tiled attention] in
// ember/nn/functional/attention.h). The op builder (src/nn/functional/attention.cpp) validates,
// broadcasts the batch dims, casts 16-bit inputs to float32 and brings q, k, v to four dims:
//   inputs:  q [B, Hq, L, E], k [B, Hk, S, E], v [B, Hk, S, Ev] (float32 or float64), each
//            with contiguous rows (attention_rows_contiguous: any batch and head strides, so the
//            heads of x.view(B, L, H, E).transpose(1, 2) are read in place), and optionally a
//            mask view of shape [..., L, S] whose leading dims hold B * Hq entries (any strides,
//            stride 0 for broadcast dims), bool or q's dtype.
//   outputs: out [B, Hq, L, Ev] stored as [B, L, Hq, Ev] (PyTorch's CPU flash attention does
//            the same: out.transpose(1, 2) is contiguous, so merging the heads copies nothing),
//            logsumexp [B, Hq, L] (q's dtype; -inf for fully masked rows).
// Query head h reads key/value head h / (Hq / Hk) (grouped-query attention).
// The backward primitive recomputes the scores block by block from (q, k, v, out, logsumexp):
//   inputs:  grad_out, q, k, v, out, logsumexp[, mask] (grad_out and out with contiguous rows);
//   outputs: grad_q, grad_k, grad_v, each laid out as its input where that is dense (as
//            torch.empty_like keeps a layout), else contiguous.
// Dropout is a pure function of (seed, offset, element index), so the backward regenerates the
// forward's mask: element (bh, i, j) is kept when uniform(philox(seed, offset + n / 4)[n % 4]) <
// 1 - p with n = (bh * L + i) * S + j. With dropout_p > 0 both primitives take (seed, offset) as
// their last input (Note [Functional randomness] in primitives/random.h).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "dispatch/primitive.h"
#include "ember/core/tensor.h"

namespace ember {

/// Whether the attention kernels take t ([B, H, N, W]) as it is: its rows are contiguous and at
/// least a row apart (a GEMM operand's rows), with strides known at trace time.
inline bool attention_rows_contiguous(const Tensor& t) {
  if (t.dim() != 4) return false;
  const std::vector<SymInt> st = t.sym_strides();
  const SymInt w = t.sym_size(3);
  if (st[2].is_symbolic() || st[3].is_symbolic() || w.is_symbolic()) return false;
  return (st[3].hint() == 1 || w.hint() <= 1) && st[2].hint() >= std::max<int64_t>(w.hint(), 1);
}

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
