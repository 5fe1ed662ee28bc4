#pragma once
// Row iteration for the kernels that work along one dim (Note [Scatter along a dim] in
// src/primitives/scatter.h, and the sort kernels): the element offset where each 1-D row along
// `dim` starts, for several tensors walked with the same shape.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "backend/cpu/parallel.h"
#include "ember/core/tensor.h"

namespace ember::cpu {

/// A 0-d tensor's geometry as a 1-element 1-d one (PyTorch's ensure_nonempty_*).
inline std::vector<int64_t> sizes_1d(const Tensor& t) {
  return t.dim() == 0 ? std::vector<int64_t>{1} : t.sizes();
}
inline std::vector<int64_t> strides_1d(const Tensor& t) {
  return t.dim() == 0 ? std::vector<int64_t>{1} : t.strides();
}

struct DimRows {
  int64_t nrows = 0;
  int64_t len = 0;  // the iteration shape's size along dim
  int ntensors = 0;
  std::vector<int64_t> offsets;  // [row * ntensors + t], in elements
  const int64_t* row(int64_t r) const { return offsets.data() + r * ntensors; }
};

/// Rows of `shape` along `dim`; strides[t] are tensor t's element strides over `shape` (its own
/// sizes may be larger except along dim).
inline DimRows dim_rows(const std::vector<int64_t>& shape, int64_t dim,
                        const std::vector<std::vector<int64_t>>& strides) {
  DimRows r;
  r.ntensors = static_cast<int>(strides.size());
  r.len = shape[dim];
  int64_t n = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (static_cast<int64_t>(d) != dim) n *= shape[d];
  }
  r.nrows = n;
  if (n == 0) return r;
  r.offsets.assign(n * r.ntensors, 0);
  const int64_t nd = static_cast<int64_t>(shape.size());
  std::vector<int64_t> idx(nd, 0);
  std::vector<int64_t> cur(r.ntensors, 0);
  for (int64_t i = 0; i < n; ++i) {
    std::copy(cur.begin(), cur.end(), r.offsets.begin() + i * r.ntensors);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (d == dim) continue;
      for (int t = 0; t < r.ntensors; ++t) cur[t] += strides[t][d];
      if (++idx[d] < shape[d]) break;
      for (int t = 0; t < r.ntensors; ++t) cur[t] -= strides[t][d] * shape[d];
      idx[d] = 0;
    }
  }
  return r;
}

/// Calls f(row) for every row, in parallel when the rows hold enough elements.
template <typename F>
void for_each_row(const DimRows& rows, const F& f) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(rows.len, 1));
  parallel_for(0, rows.nrows, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) f(r);
  });
}

/// Reads an integer index element of dtype int64 or int32.
inline int64_t read_index(const void* base, ScalarType dt, int64_t offset) {
  return dt == kInt32 ? static_cast<const int32_t*>(base)[offset]
                      : static_cast<const int64_t*>(base)[offset];
}

}  // namespace ember::cpu
