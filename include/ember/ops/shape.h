#pragma once
// Views and shape ops (src/ops/shape*.cpp, src/ops/indexing.cpp).
#include <optional>
#include <type_traits>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

Tensor view(const Tensor& x, SymIntList size);
Tensor reshape(const Tensor& x, SymIntList shape);
Tensor flatten(const Tensor& x, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor unflatten(const Tensor& x, int64_t dim, SymIntList sizes);
Tensor squeeze(const Tensor& x);
Tensor squeeze(const Tensor& x, IntList dim);
Tensor unsqueeze(const Tensor& x, int64_t dim);
Tensor permute(const Tensor& x, IntList dims);
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1);
Tensor swapaxes(const Tensor& x, int64_t dim0, int64_t dim1);
Tensor t(const Tensor& x);
Tensor expand(const Tensor& x, SymIntList size);
Tensor broadcast_to(const Tensor& x, SymIntList size);
std::vector<int64_t> broadcast_shapes(const std::vector<std::vector<int64_t>>& shapes);
std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors);
Tensor narrow(const Tensor& x, int64_t dim, SymInt start, SymInt length);
Tensor select(const Tensor& x, int64_t dim, SymInt index);
Tensor as_strided(const Tensor& x, SymIntList size, SymIntList stride,
                  std::optional<SymInt> storage_offset = std::nullopt);
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& x, SymInt split_size, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& x, SymIntList split_sizes, int64_t dim = 0);
std::vector<Tensor> split_with_sizes(const Tensor& x, SymIntList split_sizes, int64_t dim = 0);
std::vector<Tensor> unbind(const Tensor& x, int64_t dim = 0);
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor concat(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor concatenate(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor repeat(const Tensor& x, SymIntList repeats);
Tensor tile(const Tensor& x, SymIntList dims);
Tensor flip(const Tensor& x, IntList dims);
Tensor roll(const Tensor& x, SymIntList shifts, IntList dims = {});
/// roll(x, 1) and roll(x, 1, 0): one integer shift, as libtorch's IntArrayRef accepts.
template <typename I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
Tensor roll(const Tensor& x, I shift, IntList dims = {}) {
  return roll(x, SymIntList{SymInt(static_cast<int64_t>(shift))}, dims);
}
Tensor diagonal(const Tensor& x, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
Tensor diag(const Tensor& x, int64_t diagonal = 0);
Tensor tril(const Tensor& x, int64_t diagonal = 0);
Tensor triu(const Tensor& x, int64_t diagonal = 0);
Tensor movedim(const Tensor& x, IntList source, IntList destination);
Tensor moveaxis(const Tensor& x, IntList source, IntList destination);
Tensor index(const Tensor& x, const std::vector<TensorIndex>& indices);
/// x[indices] = value, or x[indices] += value with accumulate (repeated positions all add).
Tensor& index_put_(Tensor& x, const std::vector<TensorIndex>& indices, const Tensor& value,
                   bool accumulate = false);

}  // namespace ember
