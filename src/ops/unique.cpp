// unique (_unique2, unique_dim), unique_consecutive, bincount, histc, searchsorted, bucketize.
// Their output sizes depend on the data (unique, bincount), so those kernels append outputs.
#include <cmath>

#include "ember/ops/indexing.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "ops/promotion.h"
#include "ops/util.h"
#include "primitives/scatter.h"
#include "primitives/sort.h"

namespace ember {
namespace {

std::tuple<Tensor, Tensor, Tensor> unique_impl(const Tensor& x, bool consecutive, bool inverse,
                                               bool counts, std::optional<int64_t> dim,
                                               const char* op) {
  ops::check_defined(x, op, "self");
  ops::check_implemented(x.dtype(), op);
  if (!dim || x.dim() == 0) {
    if (dim) ops::wrap_dim(*dim, x.dim(), op);
    auto outs = dispatch(Unique(consecutive, inverse, counts, false), {x});
    return {outs[0], outs[1], outs[2]};
  }
  const int64_t d = ops::wrap_dim(*dim, x.dim(), op);
  // The kernel works on dim 0 of a contiguous tensor; the result moves dim back.
  Tensor moved = x.movedim(d, 0).contiguous();
  auto outs = dispatch(Unique(consecutive, inverse, counts, true), {moved});
  return {outs[0].movedim(0, d).contiguous(), outs[1], outs[2]};
}

// Boundaries and values in their common dtype (PyTorch's searchsorted_maybe_trim_input_tensors).
Tensor search_impl(const Tensor& boundaries, const Tensor& values, bool out_int32, bool right,
                   const std::optional<std::string>& side, const std::optional<Tensor>& sorter,
                   const char* op) {
  ops::check_defined(boundaries, op, "sorted_sequence");
  ops::check_defined(values, op, "input");
  if (side) {
    EMBER_CHECK(*side == "left" || *side == "right", "[", op,
                "] torch.searchsorted(): side can only be 'left' or 'right' but got ", *side);
    EMBER_CHECK(!right || *side == "right", "[", op,
                "] torch.searchsorted(): side and right can't be set to opposites, got side of ",
                *side, " while right was True");
    right = *side == "right";
  }
  if (sorter) {
    ops::check_defined(*sorter, op, "sorter");
    EMBER_CHECK(sorter->sym_sizes() == boundaries.sym_sizes(), "[", op,
                "] torch.searchsorted(): boundary and sorter must have the same size, but got "
                "boundary tensor ",
                ops::shape_str(boundaries.sizes()), "and got sorter tensor ",
                ops::shape_str(sorter->sizes()));
    EMBER_CHECK(sorter->dtype() == kInt64, "[", op,
                "] torch.searchsorted(): sorter must be a tensor of long dtype but got dtype ",
                scalar_type_name(sorter->dtype()));
  }
  EMBER_CHECK(values.dim() > 0 || boundaries.dim() == 1, "[", op,
              "] torch.searchsorted(): input value can be a scalar only when boundaries tensor "
              "dimension is 1, but we got boundaries tensor dim(",
              boundaries.dim(), ") and input value's dim(", values.dim(), ") numel(",
              values.numel(), ")");
  EMBER_CHECK(boundaries.dim() != 0, "[", op,
              "] torch.searchsorted(): boundaries tensor should have positive dimension, but got "
              "0 dimension");
  bool leading_match = boundaries.dim() == values.dim();
  for (int64_t d = 0; leading_match && d + 1 < boundaries.dim(); ++d) {
    leading_match = boundaries.sym_size(d) == values.sym_size(d);
  }
  EMBER_CHECK(boundaries.dim() == 1 || leading_match, "[", op,
              "] torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
              "dimensions of boundaries tensor and input value tensor must match, but we got "
              "boundaries tensor ",
              ops::shape_str(boundaries.sizes()), " and input value tensor ",
              ops::shape_str(values.sizes()));
  const ScalarType common = ops::result_type({boundaries, values});
  ops::check_implemented(common, op);
  if (common == kBool) ops::throw_not_implemented(op, "searchsorted_out_cpu", common);
  if (sorter && !sorter->device().is_meta() && sorter->numel() > 0) {  // meta: no values
    const int64_t inner = sorter->sizes().back();
    EMBER_CHECK(sorter->max().item<int64_t>() < inner && sorter->min().item<int64_t>() >= 0, "[",
                op, "] torch.searchsorted(): sorter index out of range");
  }
  std::vector<Tensor> inputs = {boundaries.to(common).contiguous(), values.to(common).contiguous()};
  if (sorter) inputs.push_back(sorter->contiguous());
  return dispatch(SearchSorted(right, out_int32, op), inputs)[0];
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& x, bool /*sorted*/, bool return_inverse,
                                          bool return_counts, std::optional<int64_t> dim) {
  // The result is sorted whether or not `sorted` is asked for (PyTorch leaves that order
  // unspecified).
  return unique_impl(x, false, return_inverse, return_counts, dim, dim ? "unique_dim" : "_unique2");
}
std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& x, bool sorted, bool return_inverse,
                                            bool return_counts) {
  return unique(x, sorted, return_inverse, return_counts, std::nullopt);
}
std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& x, int64_t dim, bool sorted,
                                              bool return_inverse, bool return_counts) {
  return unique(x, sorted, return_inverse, return_counts, dim);
}
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& x, bool return_inverse,
                                                      bool return_counts,
                                                      std::optional<int64_t> dim) {
  return unique_impl(x, true, return_inverse, return_counts, dim, "unique_consecutive");
}

Tensor bincount(const Tensor& x, const std::optional<Tensor>& weights, int64_t minlength) {
  const char* op = "bincount";
  ops::check_defined(x, op, "self");
  ops::check_implemented(x.dtype(), op);
  if (!is_integral(x.dtype(), false)) ops::throw_not_implemented(op, "bincount_cpu", x.dtype());
  EMBER_CHECK(minlength >= 0, "[", op, "] minlength should be >= 0");
  EMBER_CHECK(x.dim() == 1, "[", op, "] bincount only supports 1-d non-negative integral inputs.");
  std::vector<Tensor> inputs = {x};
  if (weights && weights->defined()) {
    EMBER_CHECK(weights->dim() == 1 && weights->sym_size(0) == x.sym_size(0), "[", op,
                "] weights should be 1-d and have the same length as input");
    ops::check_implemented(weights->dtype(), op);
    // float weights give float32 counts; any other dtype is summed as float64.
    inputs.push_back(weights->dtype() == kFloat32 ? *weights : weights->to(kFloat64));
  }
  return dispatch(Bincount(minlength), inputs)[0];
}

Tensor histc(const Tensor& x, int64_t bins, const Scalar& min, const Scalar& max) {
  const char* op = "histc";
  ops::check_defined(x, op, "self");
  ops::check_implemented(x.dtype(), op);
  if (!is_floating_point(x.dtype())) ops::throw_not_implemented(op, "histogram_cpu", x.dtype());
  EMBER_CHECK(bins > 0, "[", op, "] torch.histc(): bins must be > 0, but got ", bins,
              " for dimension 0");
  const double lo = min.toDouble(), hi = max.toDouble();
  EMBER_CHECK(!(lo > hi), "[", op, "] torch.histc(): max must be larger than min");
  // min == max: the kernel takes the range from the input's values when it runs (as PyTorch's),
  // so the builder reads no data (meta and traced inputs work).
  if (lo != hi) Histc::check_range(lo, hi);
  return dispatch(Histc(bins, lo, hi), {x})[0];
}

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32, bool right,
                    const std::optional<std::string>& side, const std::optional<Tensor>& sorter) {
  return search_impl(sorted_sequence, values, out_int32, right, side, sorter, "searchsorted");
}
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& value, bool out_int32, bool right,
                    const std::optional<std::string>& side, const std::optional<Tensor>& sorter) {
  return search_impl(sorted_sequence, ops::wrapped_scalar(value), out_int32, right, side, sorter,
                     "searchsorted");
}
Tensor bucketize(const Tensor& x, const Tensor& boundaries, bool out_int32, bool right) {
  ops::check_defined(boundaries, "bucketize", "boundaries");
  EMBER_CHECK(boundaries.dim() == 1,
              "[bucketize] boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(),
              ")");
  return search_impl(boundaries, x, out_int32, right, std::nullopt, std::nullopt, "bucketize");
}
Tensor bucketize(const Scalar& x, const Tensor& boundaries, bool out_int32, bool right) {
  return bucketize(ops::wrapped_scalar(x), boundaries, out_int32, right);
}

// ---- Tensor methods
std::tuple<Tensor, Tensor, Tensor> Tensor::unique(bool sorted, bool return_inverse,
                                                  bool return_counts,
                                                  std::optional<int64_t> dim) const {
  return ember::unique(*this, sorted, return_inverse, return_counts, dim);
}
std::tuple<Tensor, Tensor, Tensor> Tensor::unique_consecutive(bool return_inverse,
                                                              bool return_counts,
                                                              std::optional<int64_t> dim) const {
  return ember::unique_consecutive(*this, return_inverse, return_counts, dim);
}
Tensor Tensor::bincount(const std::optional<Tensor>& weights, int64_t minlength) const {
  return ember::bincount(*this, weights, minlength);
}
Tensor Tensor::histc(int64_t bins, const Scalar& min, const Scalar& max) const {
  return ember::histc(*this, bins, min, max);
}

}  // namespace ember
