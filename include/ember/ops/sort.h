#pragma once
// Sorting and selection along a dim (src/ops/sort.cpp). Functions that select return
// (values, indices) with int64 indices, as libtorch. NaN counts as larger than every number:
// ascending sorts put NaNs last, descending first, and topk(largest) picks them first.
#include <optional>
#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

/// Sorted values and the indices that produce them. Ties keep their input order whether or not
/// `stable` is asked for.
std::tuple<Tensor, Tensor> sort(const Tensor& x, int64_t dim = -1, bool descending = false);
std::tuple<Tensor, Tensor> sort(const Tensor& x, std::optional<bool> stable, int64_t dim = -1,
                                bool descending = false);
Tensor argsort(const Tensor& x, int64_t dim = -1, bool descending = false, bool stable = false);
/// libtorch's argsort(x, stable, dim, descending).
Tensor argsort(const Tensor& x, bool stable, int64_t dim, bool descending = false);
/// Sorts along dim 0.
Tensor msort(const Tensor& x);
/// The k largest (or smallest) elements along dim; ties keep the lower index first.
std::tuple<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim = -1, bool largest = true,
                                bool sorted = true);
/// The k-th smallest element (1-based) along dim.
std::tuple<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim = -1,
                                    bool keepdim = false);
/// The lower median: of an even count, the smaller of the two middle values. A row with NaN has
/// median NaN (at the first NaN's index); nanmedian ignores NaNs.
Tensor median(const Tensor& x);
std::tuple<Tensor, Tensor> median(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor nanmedian(const Tensor& x);
std::tuple<Tensor, Tensor> nanmedian(const Tensor& x, int64_t dim, bool keepdim = false);
/// The most frequent value along dim (the smallest among equally frequent ones) and the index of
/// its last occurrence.
std::tuple<Tensor, Tensor> mode(const Tensor& x, int64_t dim = -1, bool keepdim = false);

}  // namespace ember
