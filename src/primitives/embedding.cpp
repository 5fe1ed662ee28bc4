// EmbeddingBag's inference and vjp (Note [Embedding bags] in embedding.h).
#include "primitives/embedding.h"

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "primitives/infer_util.h"

namespace ember {

MetaList EmbeddingBag::infer(std::span<const TensorMeta> in) const {
  const char* op = name();
  const size_t expected = p_.has_per_sample_weights ? 4 : 3;
  EMBER_CHECK(in.size() == expected, "[", op, "] expected ", expected, " inputs, got ", in.size());
  const TensorMeta &weight = in[0], &indices = in[1], &offsets = in[2];
  EMBER_CHECK(weight.sizes.size() == 2, "[", op, "] 'weight' must be 2-D, got ",
              weight.sizes.size(), "-D");
  EMBER_CHECK(indices.sizes.size() == 1 && indices.dtype == kInt64, "[", op,
              "] expected 1-D int64 indices, got ", indices.str());
  EMBER_CHECK(offsets.sizes.size() == 1 && offsets.dtype == kInt64, "[", op,
              "] expected 1-D int64 offsets, got ", offsets.str());
  if (p_.has_per_sample_weights) {
    EMBER_CHECK(p_.mode == EmbeddingBagMode::Sum, "[", op,
                "] per_sample_weights is only supported for mode='sum'");
    EMBER_CHECK(in[3].sizes.size() == 1 && in[3].sizes[0] == indices.sizes[0] &&
                    in[3].dtype == weight.dtype,
                "[", op,
                "] expected per_sample_weights of the indices' shape and the weight's "
                "dtype, got ",
                in[3].str());
  }
  SymInt bags = offsets.sizes[0];
  if (p_.include_last_offset) {
    EMBER_CHECK(bags >= 1, "[", op,
                "] include_last_offset: number of offsets should be at least 1");
    bags = bags - 1;
  }
  const SymInt& width = weight.sizes[1];
  const Device d = weight.device;
  return {TensorMeta::contiguous({bags, width}, weight.dtype, d),
          TensorMeta::contiguous({indices.sizes[0]}, kInt64, d),
          TensorMeta::contiguous({bags}, kInt64, d),
          TensorMeta::contiguous(
              p_.mode == EmbeddingBagMode::Max ? SymShape{bags, width} : SymShape{SymInt(0)},
              kInt64, d)};
}

std::vector<Tensor> EmbeddingBag::vjp(const VjpContext& ctx) const {
  std::vector<Tensor> grads(ctx.inputs.size());
  const Tensor &weight = ctx.inputs[0], &indices = ctx.inputs[1];
  const Tensor &offset2bag = ctx.outputs[1], &bag_size = ctx.outputs[2];
  const Tensor g = ctx.grads[0].to(weight.dtype());
  if (ctx.needs_grad[0]) {
    if (p_.mode == EmbeddingBagMode::Max) {
      // Each output element came from one row (-1: an empty bag, no gradient).
      const Tensor& from = ctx.outputs[3];
      const int64_t width = weight.size(1);
      const Tensor flat = (from.clamp_min(0) * width + ember::arange(width, kInt64)).reshape({-1});
      const Tensor src = ember::where(from >= 0, g, ember::zeros_like(g)).reshape({-1});
      grads[0] = ember::zeros_like(weight).reshape({-1}).index_add(0, flat, src).view_as(weight);
    } else {
      // Index i adds g[bag(i)] (times its sample weight, or over the bag's size) to its row.
      const Tensor counted = offset2bag >= 0;
      const Tensor bag = offset2bag.clamp_min(0);
      Tensor scale = counted.to(weight.dtype());
      if (p_.mode == EmbeddingBagMode::Mean) {
        scale = scale / bag_size.index_select(0, bag).clamp_min(1).to(weight.dtype());
      }
      if (p_.has_per_sample_weights) scale = scale * ctx.inputs[3];
      const Tensor rows = g.index_select(0, bag) * scale.unsqueeze(1);
      grads[0] = ember::zeros_like(weight).index_add(0, indices, rows);
    }
  }
  if (p_.has_per_sample_weights && ctx.needs_grad[3]) {
    // d out[bag(i)] / d psw[i] = weight[indices[i]].
    const Tensor counted = (offset2bag >= 0).to(weight.dtype());
    grads[3] =
        (g.index_select(0, offset2bag.clamp_min(0)) * weight.index_select(0, indices)).sum({1}) *
        counted;
  }
  return grads;
}

}  // namespace ember
