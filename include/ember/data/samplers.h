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

}  // namespace ember::data::samplers
