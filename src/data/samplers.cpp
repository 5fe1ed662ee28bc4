// libtorch's SequentialSampler and RandomSampler (include/ember/data/samplers.h).
#include "ember/data/samplers.h"

#include <algorithm>
#include <numeric>

#include "ember/ops/factory.h"

namespace ember::data::samplers {

SequentialSampler::SequentialSampler(size_t size) : size_(size) {}

void SequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  index_ = 0;
}

std::optional<std::vector<size_t>> SequentialSampler::next(size_t batch_size) {
  const size_t remaining = size_ - index_;
  if (remaining == 0) return std::nullopt;
  std::vector<size_t> batch(std::min(batch_size, remaining));
  std::iota(batch.begin(), batch.end(), index_);
  index_ += batch.size();
  return batch;
}

RandomSampler::RandomSampler(int64_t size, ScalarType index_dtype)
    : indices_(ember::randperm(size, TensorOptions().dtype(index_dtype))) {}

void RandomSampler::reset(std::optional<size_t> new_size) {
  const auto size = static_cast<int64_t>(new_size.value_or(static_cast<size_t>(indices_.numel())));
  indices_ = ember::randperm(size, indices_.options());
  index_ = 0;
}

std::optional<std::vector<size_t>> RandomSampler::next(size_t batch_size) {
  const int64_t remaining = indices_.numel() - index_;
  if (remaining == 0) return std::nullopt;
  const int64_t n = std::min(static_cast<int64_t>(batch_size), remaining);
  const std::vector<int64_t> slice =
      indices_.slice(0, index_, index_ + n).to(kInt64).tolist<int64_t>();
  index_ += n;
  return std::vector<size_t>(slice.begin(), slice.end());
}

}  // namespace ember::data::samplers
