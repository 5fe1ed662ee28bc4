// Embedding lookups as gathers (advanced indexing, whose vjp gives the gradients) and bag
// reductions as one primitive (Note [Embedding bags], primitives/embedding.h).
#include "ember/nn/functional/embedding.h"

#include "ember/autograd.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "nn/functional/common.h"
#include "ops/factory_internal.h"
#include "ops/promotion.h"
#include "primitives/embedding.h"

namespace ember::nn::functional {
namespace {

void check_indices(const Tensor& t, const char* op, const char* what) {
  nn::detail::check_defined(t, op, what);
  EMBER_CHECK_TYPE(t.dtype() == kInt64 || t.dtype() == kInt32, "[", op, "] Expected tensor for ",
                   what, " to have one of the following scalar types: Long, Int; but got ",
                   dtype_name(t.dtype()), " instead");
}

/// IndexError unless every index is in [0, n). Meta indices have no values to check (as
/// PyTorch's meta kernels, which leave the check to the device that has the data).
void check_range(const Tensor& idx, int64_t n, const char* op) {
  if (idx.device().is_meta() || idx.numel() == 0) return;
  const int64_t lo = idx.min().item<int64_t>(), hi = idx.max().item<int64_t>();
  EMBER_CHECK_INDEX(lo >= 0 && hi < n, "[", op, "] index out of range in self");
}

int64_t wrap_padding_idx(std::optional<int64_t> padding_idx, int64_t n, const char* op) {
  if (!padding_idx.has_value()) return -1;
  const int64_t p = *padding_idx;
  EMBER_CHECK_VALUE(p < n && p >= -n, "[", op, "] Padding_idx must be within num_embeddings");
  return p < 0 ? p + n : p;
}

/// Rows of `weight` referenced by `idx` with a norm above max_norm are scaled in place to
/// max_norm / (norm + 1e-7), as torch.embedding_renorm_.
void renorm_(const Tensor& weight, const Tensor& idx, double max_norm, double norm_type) {
  NoGradGuard no_grad;  // as torch.embedding_renorm_ under torch.no_grad()
  Tensor flat = idx.reshape({-1});
  if (flat.numel() == 0) return;
  Tensor rows = weight.index({flat});
  Tensor norms = ember::norm(rows.to(opmath_type(weight.dtype())), norm_type, {1}, true);
  Tensor scale = ember::where(norms > max_norm, max_norm / (norms + 1e-7), ember::ones_like(norms));
  Tensor w = weight;
  w.index_put_({flat}, (rows * scale).to(weight.dtype()));
}

void check_weight(const Tensor& weight, const char* op) {
  nn::detail::check_defined(weight, op, "weight");
  EMBER_CHECK(weight.dim() == 2, "[", op, "] 'weight' must be 2-D, got ", weight.dim(), "-D");
}

}  // namespace

Tensor one_hot(const Tensor& tensor, int64_t num_classes) {
  nn::detail::check_defined(tensor, "one_hot");
  EMBER_CHECK(tensor.dtype() == kInt64,
              "[one_hot] one_hot is only applicable to index tensor of type LongTensor, got ",
              dtype_name(tensor.dtype()));
  if (tensor.numel() == 0) {
    EMBER_CHECK(num_classes > 0,
                "[one_hot] Can not infer total number of classes from empty tensor.");
  } else {
    const int64_t lo = tensor.min().item<int64_t>(), hi = tensor.max().item<int64_t>();
    EMBER_CHECK(lo >= 0, "[one_hot] Class values must be non-negative.");
    if (num_classes == -1) {
      num_classes = hi + 1;
    } else {
      EMBER_CHECK(hi < num_classes, "[one_hot] Class values must be smaller than num_classes.");
    }
  }
  EMBER_CHECK(num_classes >= 0, "[one_hot] num_classes should be positive or -1, got ",
              num_classes);
  Tensor classes = ember::arange(num_classes, kInt64);
  return (tensor.unsqueeze(-1) == classes).to(kInt64);
}

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& o) {
  check_indices(input, "embedding", "argument #1 'indices'");
  check_weight(weight, "embedding");
  const int64_t n = weight.size(0);
  const int64_t pad = wrap_padding_idx(o.padding_idx(), n, "embedding");
  check_range(input, n, "embedding");
  if (o.max_norm().has_value()) renorm_(weight, input, *o.max_norm(), o.norm_type());
  // A 0-d index selects one row: index_select reads no index value on the host, so meta and
  // traced inputs work (indexing with a 0-d tensor would read it as an integer).
  Tensor out = input.dim() == 0 ? weight.index_select(0, input.reshape({1})).squeeze(0)
                                : weight.index({input});
  if (pad >= 0 && weight.requires_grad()) {
    // Lookups of padding_idx take a detached copy of that row: the row gets no gradient.
    out = ember::where((input == pad).unsqueeze(-1), weight.select(0, pad).detach(), out);
  }
  return out;
}

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& o) {
  const char* op = "embedding_bag";
  check_indices(input, op, "argument #1 'indices'");
  check_weight(weight, op);
  const std::string mode = get_enum_name(o.mode());
  const Tensor& psw = o.per_sample_weights();
  EMBER_CHECK(!psw.defined() || mode == "sum", "[", op,
              "] embedding_bag: per_sample_weights was not None. per_sample_weights is only "
              "supported for mode='sum' (got mode='",
              mode, "'). Please open a feature request on the Pytorch GitHub.");
  if (!is_floating_point(weight.dtype())) {
    ops::throw_not_implemented(op, "embedding_bag_cpu", weight.dtype());
  }
  const int64_t pad = wrap_padding_idx(o.padding_idx(), weight.size(0), op);
  // Note [Embedding bags]: the bags are bounded by offsets the kernel reads; a 2-D input is a
  // batch of equal bags starting at multiples of its row length.
  Tensor offsets;
  if (input.dim() == 2) {
    EMBER_CHECK_VALUE(!o.offsets().defined(), "[", op,
                      "] if input is 2D, then offsets has to be None, as input is treated is a "
                      "mini-batch of fixed length sequences.");
    const TensorOptions on = TensorOptions(kInt64).device(input.device());
    offsets = ops::sym_arange(input.sym_size(0), on) * ops::sym_size_tensor(input.sym_size(1), on);
  } else {
    EMBER_CHECK_VALUE(input.dim() == 1, "[", op,
                      "] input has to be 1D or 2D Tensor, but got Tensor of dimension ",
                      input.dim());
    EMBER_CHECK_VALUE(o.offsets().defined(), "[", op,
                      "] offsets has to be a 1D Tensor but got None");
    check_indices(o.offsets(), op, "argument #2 'offsets'");
    EMBER_CHECK_VALUE(o.offsets().dim() == 1, "[", op, "] offsets has to be a 1D Tensor");
    EMBER_CHECK(!o.include_last_offset() || o.offsets().sym_size(0) >= 1, "[", op,
                "] include_last_offset: number of offsets should be at least 1");
    offsets = o.offsets().to(kInt64);
  }
  if (psw.defined()) {
    EMBER_CHECK(psw.sym_sizes() == input.sym_sizes(), "[", op,
                "] embedding_bag: If per_sample_weights (", ops::shape_str(psw.sym_sizes()),
                ") is not None, then it must have the same shape as the input (",
                ops::shape_str(input.sym_sizes()), ")");
  }
  const Tensor flat = input.reshape({-1}).to(kInt64);
  if (o.max_norm().has_value()) renorm_(weight, flat, *o.max_norm(), o.norm_type());
  EmbeddingBagParams p;
  p.mode = mode == "sum" ? EmbeddingBagMode::Sum
                         : (mode == "mean" ? EmbeddingBagMode::Mean : EmbeddingBagMode::Max);
  p.padding_idx = pad;
  p.include_last_offset = input.dim() == 1 && o.include_last_offset();
  p.has_per_sample_weights = psw.defined();
  std::vector<Tensor> args{weight, flat, offsets};
  if (psw.defined()) args.push_back(psw.reshape({-1}).to(weight.dtype()));
  return dispatch(EmbeddingBag(p), args)[0];
}

}  // namespace ember::nn::functional
