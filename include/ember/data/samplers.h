#pragma once
// libtorch's torch::data::samplers: what order a data loader visits the dataset in.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::data::samplers {

/// Yields batches of indices (BatchRequest) until the epoch is exhausted.
template <typename BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;
  virtual ~Sampler() = default;
  /// Starts a new epoch, optionally over a new dataset size.
  virtual void reset(std::optional<size_t> new_size) = 0;
  /// The next batch of at most batch_size indices, or nullopt at the end of the epoch.
  virtual std::optional<BatchRequest> next(size_t batch_size) = 0;
};

/// 0, 1, ..., size - 1.
class SequentialSampler : public Sampler<> {
 public:
  explicit SequentialSampler(size_t size);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Indices handed out so far this epoch.
  size_t index() const noexcept { return index_; }

 private:
  size_t size_;
  size_t index_ = 0;
};

/// A random permutation of 0..size-1, drawn anew (ember::randperm with the default generator) by
/// the constructor and by every reset(), as libtorch's RandomSampler.
class RandomSampler : public Sampler<> {
 public:
  explicit RandomSampler(int64_t size, ScalarType index_dtype = kInt64);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  size_t index() const noexcept { return static_cast<size_t>(index_); }

 private:
  Tensor indices_;
  int64_t index_ = 0;
};

/// torch.utils.data.DistributedSampler: this replica's share of 0..size-1. Each epoch's order
/// (a permutation drawn from a generator seeded with seed + epoch when shuffling, 0..size-1
/// otherwise) is padded by repeating its head until it divides evenly, or with drop_last cut to
/// a multiple of num_replicas; replica `rank` takes every num_replicas-th index from position
/// rank. Every replica gets size() indices. num_replicas and rank default to the default
/// process group's world size and rank.
class DistributedSampler : public Sampler<> {
 public:
  explicit DistributedSampler(size_t size, std::optional<int64_t> num_replicas = std::nullopt,
                              std::optional<int64_t> rank = std::nullopt, bool shuffle = true,
                              uint64_t seed = 0, bool drop_last = false);
  /// Starts the epoch again (over new_size samples when given); the epoch number stays.
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Makes the next reset() draw epoch `epoch`'s order (call it before each epoch).
  void set_epoch(size_t epoch) { epoch_ = epoch; }
  size_t epoch() const noexcept { return epoch_; }
  /// This replica's number of samples per epoch (len() in PyTorch).
  size_t size() const noexcept { return num_samples_; }
  /// This replica's indices for the current epoch.
  const std::vector<size_t>& indices() const noexcept { return indices_; }
  size_t index() const noexcept { return index_; }
  int64_t num_replicas() const noexcept { return num_replicas_; }
  int64_t rank() const noexcept { return rank_; }

 private:
  size_t dataset_size_;
  int64_t num_replicas_, rank_;
  bool shuffle_, drop_last_;
  uint64_t seed_;
  size_t epoch_ = 0, num_samples_ = 0, index_ = 0;
  std::vector<size_t> indices_;
};

/// libtorch's DistributedRandomSampler: each epoch the indices 0..size-1 (padded by wrapping
/// around to local_sample_count() * num_replicas when allow_duplicates rounds up) are shuffled
/// with std::mt19937 seeded by the epoch, the same on every replica, and replica `rank` takes
/// the rank-th contiguous block of local_sample_count() of them. Same standard library, same
/// order as libtorch's.
class DistributedRandomSampler : public Sampler<> {
 public:
  explicit DistributedRandomSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                                    bool allow_duplicates = true);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Makes the next reset() shuffle with seed `epoch`.
  void set_epoch(size_t epoch) { epoch_ = epoch; }
  size_t epoch() const noexcept { return epoch_; }
  /// The position reached in the epoch's shuffled list, as libtorch's index() (this replica's
  /// block starts at rank * local_sample_count()).
  size_t index() const noexcept { return sample_index_; }
  /// ceil(size / num_replicas) with allow_duplicates, else floor.
  size_t local_sample_count() const;

 private:
  size_t size_, num_replicas_, rank_;
  bool allow_duplicates_;
  size_t epoch_ = 0, begin_index_ = 0, end_index_ = 0, sample_index_ = 0;
  std::vector<size_t> all_indices_;
};

}  // namespace ember::data::samplers

namespace ember::data {
using samplers::DistributedSampler;
}  // namespace ember::data
