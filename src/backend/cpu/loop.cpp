#include "backend/cpu/loop.h"

#include <algorithm>

namespace ember::cpu {

namespace {

template <typename List>
StridedLoop impls_loop(const List& operands, const std::vector<int64_t>& shape) {
  EMBER_INTERNAL_ASSERT(operands.size() <= kMaxOperands, "make_loop operands");
  std::array<const TensorImpl*, kMaxOperands> impls{};
  size_t n = 0;
  for (const Tensor& t : operands) impls[n++] = t.unsafeGetTensorImpl();
  return make_loop(std::span<const TensorImpl* const>(impls.data(), n), shape);
}

}  // namespace

StridedLoop make_loop(std::span<const Tensor> operands, const std::vector<int64_t>& shape) {
  return impls_loop(operands, shape);
}

StridedLoop make_loop(Operands operands, const std::vector<int64_t>& shape) {
  return impls_loop(operands, shape);
}

StridedLoop make_loop(std::span<const TensorImpl* const> operands,
                      const std::vector<int64_t>& shape) {
  EMBER_INTERNAL_ASSERT(!operands.empty() && operands.size() <= kMaxOperands, "make_loop operands");
  StridedLoop loop;
  loop.ntensors = static_cast<int>(operands.size());
  // Nothing to visit: an empty operand may carry any strides (an empty as_strided view), whose
  // byte strides and merged sizes below could overflow (Note [Checked size arithmetic]).
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) {
    loop.numel = 0;
    return loop;
  }
  // Every operand contiguous in the loop's shape (most elementwise calls): one flat dim, which
  // the general merge below would also reach.
  const bool flat = std::all_of(operands.begin(), operands.end(), [&](const TensorImpl* x) {
    return x->is_contiguous() && x->sizes() == shape;
  });
  if (flat) {
    loop.numel = operands[0]->numel();
    loop.shape.push_back(loop.numel);
    loop.strides.push_back({});
    for (int t = 0; t < loop.ntensors; ++t) {
      loop.base[t] = static_cast<char*>(operands[t]->data());
      loop.strides[0][t] = loop.numel == 1 ? 0 : element_size(operands[t]->dtype());
    }
    return loop;
  }
  const int64_t nd = static_cast<int64_t>(shape.size());
  SmallVector<std::array<int64_t, kMaxOperands>, 6> strides(static_cast<size_t>(nd), {});
  for (int t = 0; t < loop.ntensors; ++t) {
    // A kernel's operands are defined tensors with storage on its device (dispatch checked).
    const TensorImpl& x = *operands[t];
    loop.base[t] = static_cast<char*>(x.data());
    const int64_t es = element_size(x.dtype());
    const std::vector<int64_t>& sizes = x.sizes();
    const std::vector<int64_t>& xstrides = x.strides();
    const int64_t off = nd - static_cast<int64_t>(sizes.size());
    EMBER_INTERNAL_ASSERT(off >= 0, "make_loop: operand has more dims than the loop");
    for (int64_t d = off; d < nd; ++d) {
      const int64_t xs = sizes[d - off];
      EMBER_INTERNAL_ASSERT(xs == shape[d] || xs == 1, "make_loop: operand does not broadcast");
      strides[d][t] = xs == 1 ? 0 : xstrides[d - off] * es;
    }
  }
  // Drop size-1 dims and merge dims that are contiguous with their inner neighbour.
  for (int64_t d = 0; d < nd; ++d) loop.numel *= shape[d];
  for (int64_t d = 0; d < nd; ++d) {
    if (shape[d] == 1) continue;
    if (!loop.shape.empty()) {
      auto& prev = loop.strides.back();
      bool merge = true;
      for (int t = 0; t < loop.ntensors; ++t) {
        if (prev[t] != strides[d][t] * shape[d]) {
          merge = false;
          break;
        }
      }
      if (merge) {
        loop.shape.back() *= shape[d];
        prev = strides[d];
        continue;
      }
    }
    loop.shape.push_back(shape[d]);
    loop.strides.push_back(strides[d]);
  }
  if (loop.shape.empty() && loop.numel == 1) {
    loop.shape.push_back(1);
    loop.strides.push_back({});
  }
  return loop;
}

}  // namespace ember::cpu
