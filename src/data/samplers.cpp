// libtorch's SequentialSampler, RandomSampler and DistributedRandomSampler, PyTorch's
// DistributedSampler (ember/data/samplers.h).
#include "ember/data/samplers.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "ember/core/generator.h"
#include "ember/distributed/process_group.h"
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

DistributedSampler::DistributedSampler(size_t size, std::optional<int64_t> num_replicas,
                                       std::optional<int64_t> rank, bool shuffle, uint64_t seed,
                                       bool drop_last)
    : dataset_size_(size),
      num_replicas_(num_replicas ? *num_replicas : distributed::get_world_size()),
      rank_(rank ? *rank : distributed::get_rank()),
      shuffle_(shuffle),
      drop_last_(drop_last),
      seed_(seed) {
  EMBER_CHECK_VALUE(num_replicas_ > 0,
                    "[DistributedSampler] num_replicas should be a positive integer value, but "
                    "got num_replicas=",
                    num_replicas_);
  EMBER_CHECK_VALUE(rank_ >= 0 && rank_ < num_replicas_, "[DistributedSampler] Invalid rank ",
                    rank_, ", rank should be in the interval [0, ", num_replicas_ - 1, "]");
  reset();
}

void DistributedSampler::reset(std::optional<size_t> new_size) {
  if (new_size) dataset_size_ = *new_size;
  const auto n = dataset_size_, r = static_cast<size_t>(num_replicas_);
  // drop_last cuts to the largest multiple of num_replicas; otherwise pad up to the next one.
  num_samples_ = drop_last_ ? n / r : (n + r - 1) / r;
  const size_t total = num_samples_ * r;
  std::vector<size_t> order(n);
  if (shuffle_) {
    Generator gen(seed_ + epoch_);
    const auto perm = randperm(static_cast<int64_t>(n), gen).tolist<int64_t>();
    std::copy(perm.begin(), perm.end(), order.begin());
  } else {
    std::iota(order.begin(), order.end(), size_t{0});
  }
  for (size_t k = n; k < total; ++k) order.push_back(order[k % n]);  // repeats the head
  indices_.clear();
  for (size_t k = static_cast<size_t>(rank_); k < total; k += r) indices_.push_back(order[k]);
  index_ = 0;
}

std::optional<std::vector<size_t>> DistributedSampler::next(size_t batch_size) {
  const size_t remaining = indices_.size() - index_;
  if (remaining == 0) return std::nullopt;
  const size_t n = std::min(batch_size, remaining);
  std::vector<size_t> batch(indices_.begin() + static_cast<std::ptrdiff_t>(index_),
                            indices_.begin() + static_cast<std::ptrdiff_t>(index_ + n));
  index_ += n;
  return batch;
}

DistributedRandomSampler::DistributedRandomSampler(size_t size, size_t num_replicas, size_t rank,
                                                   bool allow_duplicates)
    : size_(size), num_replicas_(num_replicas), rank_(rank), allow_duplicates_(allow_duplicates) {
  EMBER_CHECK_VALUE(num_replicas > 0, "[DistributedRandomSampler] num_replicas must be positive");
  EMBER_CHECK_VALUE(rank < num_replicas, "[DistributedRandomSampler] rank must be in [0, ",
                    num_replicas, "), got ", rank);
  reset(size_);
}

size_t DistributedRandomSampler::local_sample_count() const {
  return allow_duplicates_ ? (size_ + num_replicas_ - 1) / num_replicas_ : size_ / num_replicas_;
}

void DistributedRandomSampler::reset(std::optional<size_t> new_size) {
  size_ = new_size.value_or(size_);
  const size_t local = local_sample_count();
  const size_t count = num_replicas_ == 1 ? size_ : local * num_replicas_;
  all_indices_.resize(count);
  // 0..count-1, where positions past the dataset wrap around to its start (the duplicates).
  for (size_t i = 0; i < count; ++i) all_indices_[i] = i < size_ ? i : i % size_;
  begin_index_ = rank_ * local;
  end_index_ = begin_index_ + local;
  std::mt19937 rand(static_cast<std::mt19937::result_type>(epoch_));
  std::shuffle(all_indices_.begin(), all_indices_.end(), rand);
  sample_index_ = begin_index_;
}

std::optional<std::vector<size_t>> DistributedRandomSampler::next(size_t batch_size) {
  if (sample_index_ == end_index_) return std::nullopt;
  const size_t end = std::min(sample_index_ + batch_size, end_index_);
  std::vector<size_t> batch(all_indices_.begin() + static_cast<std::ptrdiff_t>(sample_index_),
                            all_indices_.begin() + static_cast<std::ptrdiff_t>(end));
  sample_index_ = end;
  return batch;
}

}  // namespace ember::data::samplers
