// Shape inference (Note [Inference]) of concatenation, indexing, gather/scatter, sorting and
// searching. The op builders have validated the arguments; these rules only compute, after
// checking what a hand-built graph could get wrong and a kernel would read out of bounds (dims,
// ranks). The
// in-place primitives (Scatter, IndexUpdate, IndexPut, MaskedScatter) write into their target,
// inputs[0]: their inference states that tensor as it is.
#include <cmath>

#include "primitives/index.h"
#include "primitives/infer_util.h"
#include "primitives/scatter.h"
#include "primitives/shape.h"
#include "primitives/sort.h"

namespace ember {
namespace {

TensorMeta with_sizes(const TensorMeta& like, SymShape sizes, ScalarType dtype) {
  return TensorMeta::contiguous(std::move(sizes), dtype, like.device);
}

}  // namespace

MetaList Cat::infer(std::span<const TensorMeta> in) const {
  SymShape sizes = in[0].sizes;
  check_dim_param(p_.dim, sizes.size(), name());
  for (size_t i = 1; i < in.size(); ++i) {
    EMBER_CHECK(in[i].sizes.size() == sizes.size(), "[", name(),
                "] Tensors must have same number of dimensions: got ", sizes.size(), " and ",
                in[i].sizes.size());
    if (sizes.empty()) continue;
    sizes[p_.dim] = sizes[p_.dim] + in[i].sizes[p_.dim];
  }
  return {with_sizes(in[0], std::move(sizes), p_.dtype)};
}

MetaList Index::infer(std::span<const TensorMeta> in) const {
  // Note [Advanced indexing layout]: the index shape B replaces the indexed dims where they are
  // adjacent, else it leads.
  const SymShape b = broadcast_sizes(in.subspan(1));
  const auto& dims = p_.dims;
  for (int64_t d : dims) check_dim_param(d, in[0].sizes.size(), name());
  bool adjacent = true;
  for (size_t j = 1; j < dims.size(); ++j) adjacent = adjacent && dims[j] == dims[0] + int64_t(j);
  SymShape sizes;
  if (!adjacent) sizes = b;
  const SymShape& x = in[0].sizes;
  for (size_t d = 0; d < x.size(); ++d) {
    bool indexed = false;
    for (int64_t i : dims) indexed = indexed || i == static_cast<int64_t>(d);
    if (!indexed) {
      sizes.push_back(x[d]);
    } else if (adjacent && static_cast<int64_t>(d) == dims[0]) {
      sizes.append(b.begin(), b.end());
    }
  }
  return {with_sizes(in[0], std::move(sizes), in[0].dtype)};
}

// The update primitives: in place the result is the target (input 0); out of place, a fresh
// contiguous tensor of its shape (Note [Mutation and aliasing]).
namespace {
MetaList update_result(const TensorMeta& self, bool inplace) {
  if (inplace) return {self};
  return {with_sizes(self, self.sizes, self.dtype)};
}
}  // namespace

MetaList IndexPut::infer(std::span<const TensorMeta> in) const {
  for (int64_t d : p_.dims) check_dim_param(d, in[0].sizes.size(), name());
  return update_result(in[0], inplace());
}

MetaList IndexSelect::infer(std::span<const TensorMeta> in) const {
  SymShape sizes = in[0].sizes;
  check_dim_param(p_.dim, sizes.size(), name());
  if (!sizes.empty()) sizes[p_.dim] = numel(in[1].sizes);  // index: 1-D or 0-d
  return {with_sizes(in[0], std::move(sizes), in[0].dtype)};
}

MetaList Gather::infer(std::span<const TensorMeta> in) const {
  check_dim_param(p_.dim, in[0].sizes.size(), name());
  EMBER_CHECK(std::max<size_t>(in[1].sizes.size(), 1) == std::max<size_t>(in[0].sizes.size(), 1),
              "[", name(),
              "] Index tensor must have the same number of dimensions as input tensor");
  return {with_sizes(in[0], in[1].sizes, in[0].dtype)};
}

MetaList Scatter::infer(std::span<const TensorMeta> in) const {
  check_dim_param(p_.dim, in[0].sizes.size(), name());
  return update_result(in[0], inplace());
}

MetaList IndexUpdate::infer(std::span<const TensorMeta> in) const {
  check_dim_param(p_.dim, in[0].sizes.size(), name());
  return update_result(in[0], inplace());
}

MetaList Take::infer(std::span<const TensorMeta> in) const {
  return {with_sizes(in[0], in[1].sizes, in[0].dtype)};
}

MetaList MaskedScatter::infer(std::span<const TensorMeta> in) const {
  return update_result(in[0], inplace());
}

void Histc::check_range(double lo, double hi) {
  EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), "[histc] torch.histc(): range of [", lo, ", ",
              hi, "] is not finite");
}

MetaList Histc::infer(std::span<const TensorMeta> in) const {
  return {with_sizes(in[0], {p_.bins}, in[0].dtype)};
}

MetaList SortSelect::infer(std::span<const TensorMeta> in) const {
  SymShape sizes = in[0].sizes;
  if (!p_.whole) check_dim_param(p_.dim, sizes.size(), name());
  if (p_.op == SortOp::TopK && !p_.whole) {
    const SymInt n = sizes.empty() ? SymInt(1) : sizes[p_.dim];
    EMBER_CHECK(p_.k >= 0 && n >= p_.k, "[", name(), "] selected index k out of range");
  }
  if (p_.whole) {
    sizes.clear();
  } else if (!sizes.empty()) {
    switch (p_.op) {
      case SortOp::Sort:
        break;
      case SortOp::TopK:
        sizes[p_.dim] = p_.k;
        break;
      case SortOp::KthValue:
      case SortOp::Median:
      case SortOp::NanMedian:
      case SortOp::Mode:
        if (p_.keepdim) {
          sizes[p_.dim] = 1;
        } else {
          SymShape kept(sizes.begin(), sizes.begin() + p_.dim);
          kept.append(sizes.begin() + p_.dim + 1, sizes.end());
          sizes = std::move(kept);
        }
        break;
    }
  }
  return {with_sizes(in[0], sizes, in[0].dtype), with_sizes(in[0], sizes, kInt64)};
}

MetaList SearchSorted::infer(std::span<const TensorMeta> in) const {
  return {with_sizes(in[1], in[1].sizes, p_.out_int32 ? kInt32 : kInt64)};
}

}  // namespace ember
