#pragma once
// Indexing, scatter/gather, masks, nonzero, unique and counting ops (src/ops/scatter.cpp,
// src/ops/unique.cpp). Index tensors are int64 unless a function says otherwise; out-of-range
// indices raise IndexError as PyTorch does.
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

/// torch.index_select: the slices of x along dim picked by a 1-D (or 0-d) int64/int32 index.
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
/// torch.gather: out[i][j][k] = x[i][index[i][j][k]][k] (dim = 1); index is int64 with x's ndim.
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index, bool sparse_grad = false);

/// torch.scatter: a copy of x with src (or value) written at index along dim. reduce: "add" or
/// "multiply" (the legacy reduce argument).
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value);
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src,
               const std::string& reduce);
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value,
               const std::string& reduce);
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
/// reduce: "sum", "prod", "mean", "amax" or "amin".
Tensor scatter_reduce(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self = true);

/// x with alpha * source added at index along dim (repeated indices accumulate).
Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha = 1);
Tensor index_copy(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value);
Tensor index_fill(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& value);

/// The elements of x where the (broadcast) bool mask is true, as a 1-D tensor.
Tensor masked_select(const Tensor& x, const Tensor& mask);
/// x with the positions where mask is true filled, in row-major order, from source's elements.
Tensor masked_scatter(const Tensor& x, const Tensor& mask, const Tensor& source);

/// torch.take: x viewed as 1-D, indexed by index (negative indices count from the end).
Tensor take(const Tensor& x, const Tensor& index);
/// torch.take_along_dim: gather along dim after broadcasting; with no dim, x is flattened.
Tensor take_along_dim(const Tensor& x, const Tensor& indices,
                      std::optional<int64_t> dim = std::nullopt);

/// The coordinates of the nonzero elements, an int64 [count, ndim] tensor in row-major order.
Tensor nonzero(const Tensor& x);
/// nonzero(as_tuple=True): one 1-D int64 tensor per dim (a 0-d input counts as 1-d).
std::vector<Tensor> nonzero_numpy(const Tensor& x);
std::vector<Tensor> nonzero(const Tensor& x, bool as_tuple);
Tensor argwhere(const Tensor& x);

/// torch.unique: (values, inverse, counts). inverse and counts are empty int64 tensors unless
/// asked for. With a dim, unique slices along it (torch.unique(dim=...)).
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& x, bool sorted = true,
                                          bool return_inverse = false, bool return_counts = false,
                                          std::optional<int64_t> dim = std::nullopt);
/// libtorch's at::_unique2 and at::unique_dim.
std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& x, bool sorted = true,
                                            bool return_inverse = false,
                                            bool return_counts = false);
std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& x, int64_t dim, bool sorted = true,
                                              bool return_inverse = false,
                                              bool return_counts = false);
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& x, bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt);

/// Counts of each value of a 1-D non-negative integer tensor (weighted sums with weights).
Tensor bincount(const Tensor& x, const std::optional<Tensor>& weights = std::nullopt,
                int64_t minlength = 0);
/// A histogram with `bins` equal bins over [min, max] (the data's range when min == max).
Tensor histc(const Tensor& x, int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0);

/// Indices where values would be inserted into the innermost dim of sorted_sequence.
/// side: "left" or "right" (overrides right); sorter: int64 indices that sort the sequence.
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32 = false,
                    bool right = false, const std::optional<std::string>& side = std::nullopt,
                    const std::optional<Tensor>& sorter = std::nullopt);
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& value, bool out_int32 = false,
                    bool right = false, const std::optional<std::string>& side = std::nullopt,
                    const std::optional<Tensor>& sorter = std::nullopt);
/// The bucket of each element of x for the 1-D boundaries.
Tensor bucketize(const Tensor& x, const Tensor& boundaries, bool out_int32 = false,
                 bool right = false);
Tensor bucketize(const Scalar& x, const Tensor& boundaries, bool out_int32 = false,
                 bool right = false);

}  // namespace ember
