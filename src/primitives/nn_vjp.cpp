// Gradients of attention (PyTorch's derivatives.yaml).
#include <limits>

#include "dispatch/dispatch.h"
#include "ember/ember.h"
#include "primitives/attention.h"

namespace ember {

namespace {

// Gradient of an additive float mask: the gradient of the scores, dS = P * (dP - rowsum(dO * O))
// with P = exp(S - logsumexp) and dP = dO V^T (PyTorch's math path), written with Ember ops so
// it is differentiable again. Scores are recomputed whole: masks that need gradients are small.
Tensor attention_mask_grad(const VjpContext& ctx, const AttentionParams& p) {
  EMBER_CHECK_NOT_IMPL(p.dropout_p == 0.0,
                       "[scaled_dot_product_attention] the derivative for 'attn_mask' with "
                       "dropout_p > 0 is not implemented.");
  const auto& in = ctx.inputs;
  const Tensor &q = in[0], &k = in[1], &v = in[2], &mask = in[3];
  const Tensor &out = ctx.outputs[0], &lse = ctx.outputs[1], &g = ctx.grads[0];
  const int64_t B = q.size(0), Hq = q.size(1), L = q.size(2), Hk = k.size(1), S = k.size(2);
  // Query head h reads key/value head h / (Hq / Hk).
  auto per_query_head = [&](const Tensor& t) {
    std::vector<int64_t> sizes = t.sizes();
    sizes.insert(sizes.begin() + 2, Hq / Hk);
    return t.unsqueeze(2).expand(SymIntList(sizes)).reshape({B, Hq, S, t.size(-1)});
  };
  const Tensor kq = per_query_head(k), vq = per_query_head(v);
  Tensor scores = matmul(q, kq.mT()) * p.scale + mask.reshape({B, Hq, L, S});
  if (p.is_causal) {
    const Tensor allowed = ones({L, S}, TensorOptions().dtype(kBool)).tril();
    scores = scores.masked_fill(allowed.logical_not(), -std::numeric_limits<double>::infinity());
  }
  const Tensor P = (scores - lse.unsqueeze(-1)).exp();
  const Tensor dP = matmul(g, vq.mT());
  const Tensor dS = P * (dP - (g * out).sum({-1}, /*keepdim=*/true));
  return dS.reshape(SymIntList(mask.sizes()));
}

}  // namespace

std::vector<Tensor> ScaledDotProductAttention::vjp(const VjpContext& ctx) const {
  const auto& in = ctx.inputs;
  const Tensor& g = ctx.grads[0];  // the heads' merge's gradient arrives transposed: kept
  std::vector<Tensor> args{attention_rows_contiguous(g) ? g : g.contiguous(),
                           in[0],
                           in[1],
                           in[2],
                           ctx.outputs[0],
                           ctx.outputs[1]};
  if (p_.has_mask) args.push_back(in[3]);
  if (p_.dropout_p > 0) args.push_back(in.back());  // the forward's generator state
  std::vector<Tensor> grads = dispatch(ScaledDotProductAttentionBackward(p_), args);
  grads.resize(in.size());
  if (p_.has_mask && ctx.needs_grad[3] && is_floating_point(in[3].dtype())) {
    grads[3] = attention_mask_grad(ctx, p_);
  }
  return grads;
}

}  // namespace ember
