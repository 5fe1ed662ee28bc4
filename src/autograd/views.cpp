// Gradients through views by geometry: where a view lies in its base, and how a view's gradient
// becomes its base's. Note [View geometry]: view ops carry their own vjps (Note [Views] in
// src/primitives/view.h), but two cases are about memory rather than elements: as_strided, and
// an in-place op on a view, which rewrites its base's history (Note [In-place on views] in
// record.cpp) whatever chain of views led there. We express the view's elements as positions in
// its base taken as a contiguous tensor of the base's shape; the view's gradient is then written
// there (reshape and permute get cheaper exact forms).
#include <algorithm>
#include <numeric>

#include "autograd/functions.h"
#include "ember/autograd.h"
#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"

namespace ember::autograd {

Tensor sum_to(const Tensor& grad, const SymShape& sizes) {
  const SymShape gs = shape_of(grad);
  if (same_as(gs, sizes)) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(sizes.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < grad.dim(); ++d) {
    if (d < lead || (sizes[d - lead] == 1 && gs[d] != 1)) dims.push_back(d);
  }
  Tensor r = dims.empty() ? grad : grad.sum(dims, /*keepdim=*/true);
  return r.reshape(SymIntList(sizes));
}

namespace {
// Decomposes a storage offset (relative to the base's first element) into the base's linear
// contiguous index, walking dims from the largest stride down. Requires a nested layout.
std::optional<int64_t> linear_index(int64_t rel, const std::vector<int64_t>& order,
                                    const std::vector<int64_t>& sizes,
                                    const std::vector<int64_t>& strides,
                                    const std::vector<int64_t>& contiguous) {
  if (rel < 0) return std::nullopt;
  int64_t lin = 0;
  for (int64_t d : order) {
    const int64_t q = rel / strides[d];
    if (q >= sizes[d]) return std::nullopt;
    lin += q * contiguous[d];
    rel -= q * strides[d];
  }
  if (rel != 0) return std::nullopt;
  return lin;
}

// The permutation `perm` (base dim b -> view dim perm[b]) that matches each view dim to a
// distinct base dim of the same size and stride; nullopt when there is none.
std::optional<std::vector<int64_t>> match_permutation(const std::vector<int64_t>& base_sizes,
                                                      const std::vector<int64_t>& base_strides,
                                                      const std::vector<int64_t>& view_sizes,
                                                      const std::vector<int64_t>& view_strides) {
  if (view_sizes.size() != base_sizes.size()) return std::nullopt;
  std::vector<int64_t> perm(base_sizes.size(), -1);
  for (size_t d = 0; d < view_sizes.size(); ++d) {
    size_t b = 0;
    while (b < base_sizes.size() && (perm[b] != -1 || base_sizes[b] != view_sizes[d] ||
                                     base_strides[b] != view_strides[d])) {
      ++b;
    }
    if (b == base_sizes.size()) return std::nullopt;
    perm[b] = static_cast<int64_t>(d);
  }
  return perm;
}
}  // namespace

std::optional<ViewGeometry> relative_geometry(const Tensor& base, const Tensor& view) {
  ViewGeometry g{view.sizes(), std::vector<int64_t>(view.dim(), 1), 0};
  if (base.numel() == 0 || view.numel() == 0) return g;
  const auto& bs = base.sizes();
  const auto& bt = base.strides();
  const auto contiguous = contiguous_strides(bs);
  std::vector<int64_t> order;
  for (int64_t d = 0; d < base.dim(); ++d) {
    if (bs[d] == 1) continue;
    if (bt[d] <= 0) return std::nullopt;  // an expanded base: elements share memory
    order.push_back(d);
  }
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return bt[a] > bt[b]; });
  // Nested: each stride covers the whole extent of the smaller-stride dims.
  int64_t extent = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (bt[*it] < extent) return std::nullopt;
    extent = bt[*it] * bs[*it];
  }
  auto lin = [&](int64_t off) {
    return linear_index(off - base.storage_offset(), order, bs, bt, contiguous);
  };
  auto origin = lin(view.storage_offset());
  if (!origin) return std::nullopt;
  g.offset = *origin;
  for (int64_t d = 0; d < view.dim(); ++d) {
    const int64_t n = view.sizes()[d], st = view.strides()[d];
    if (n <= 1) continue;
    if (st == 0) {
      g.strides[d] = 0;
      continue;
    }
    auto next = lin(view.storage_offset() + st);
    auto last = lin(view.storage_offset() + (n - 1) * st);
    if (!next || !last || *last - g.offset != (n - 1) * (*next - g.offset)) return std::nullopt;
    g.strides[d] = *next - g.offset;
  }
  return g;
}

Tensor view_backward(const Tensor& grad, const ViewGeometry& geom,
                     const std::vector<int64_t>& base_sizes) {
  // Dims the view broadcast (stride 0) sum their gradient first.
  Tensor g = grad;
  ViewGeometry v = geom;
  std::vector<int64_t> bcast;
  for (size_t d = 0; d < v.sizes.size(); ++d) {
    if (v.strides[d] == 0 && v.sizes[d] > 1) {
      bcast.push_back(static_cast<int64_t>(d));
      v.sizes[d] = 1;
      v.strides[d] = 1;
    }
  }
  if (!bcast.empty()) g = g.sum(bcast, /*keepdim=*/true);
  int64_t base_numel = 1;
  for (auto s : base_sizes) base_numel *= s;
  if (g.numel() == base_numel && v.offset == 0) {
    // Same elements in another arrangement: a reshape, or a permutation of the base's dims.
    const auto contiguous = contiguous_strides(base_sizes);
    std::vector<int64_t> ks, kst;
    for (size_t d = 0; d < v.sizes.size(); ++d) {
      if (v.sizes[d] != 1) ks.push_back(v.sizes[d]), kst.push_back(v.strides[d]);
    }
    std::vector<int64_t> bsz, bst;
    for (size_t d = 0; d < base_sizes.size(); ++d) {
      if (base_sizes[d] != 1) bsz.push_back(base_sizes[d]), bst.push_back(contiguous[d]);
    }
    // The view walks the base's memory in order (a reshape that splits or merges dims).
    bool in_order = true;
    for (int64_t d = static_cast<int64_t>(ks.size()) - 1, expect = 1; d >= 0; --d) {
      in_order &= kst[d] == expect;
      expect *= ks[d];
    }
    if (in_order || (ks == bsz && kst == bst)) return g.reshape(SymIntList(base_sizes));
    // A permutation: g (squeezed) has the base's non-1 dims in another order.
    if (auto perm = match_permutation(bsz, bst, ks, kst)) {
      return g.reshape(SymIntList(ks)).permute(IntList(*perm)).reshape(SymIntList(base_sizes));
    }
  }
  Tensor out = zeros(base_sizes, TensorOptions().dtype(grad.dtype()));
  out.as_strided(SymIntList(v.sizes), SymIntList(v.strides), SymInt(v.offset)).copy_(g);
  return out;
}

}  // namespace ember::autograd
