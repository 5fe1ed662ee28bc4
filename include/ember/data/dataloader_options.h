#pragma once
// DataLoaderOptions, shared by ember::data::DataLoader (PyTorch's torch.utils.data.DataLoader) and
// make_data_loader (libtorch's torch::data::make_data_loader).
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember::data {

/// The fields of one dataset item, or of one collated batch (a Python tuple of tensors).
using Sample = std::vector<Tensor>;
/// Turns the samples of one batch into the batch (torch.utils.data's collate_fn).
using CollateFn = std::function<Sample(std::vector<Sample>)>;

#define EMBER_DATA_OPTION(T, name)                   \
 public:                                             \
  DataLoaderOptions& name(T value) {                 \
    name##_ = std::move(value);                      \
    return *this;                                    \
  }                                                  \
  const T& name() const noexcept { return name##_; } \
  T& name() noexcept { return name##_; }             \
                                                     \
 private:                                            \
  T name##_

/// Options of a data loader, with libtorch's setters:
///   DataLoaderOptions().batch_size(64).workers(2).drop_last(true)
/// The last group (shuffle, generator, collate_fn) configures ember::data::DataLoader only; with
/// make_data_loader the sampler type decides the order and the dataset's transforms collate.
struct DataLoaderOptions {
  DataLoaderOptions() = default;
  DataLoaderOptions(size_t batch_size)
      : batch_size_(batch_size) {}  // NOLINT: implicit, as libtorch

  /// Samples per batch (> 0).
  EMBER_DATA_OPTION(size_t, batch_size) = 1;
  /// Worker threads that load batches ahead of the consumer; 0 loads on the calling thread.
  EMBER_DATA_OPTION(size_t, workers) = 0;
  /// Batches loaded ahead at most (the queue's bound); default 2 * workers.
  EMBER_DATA_OPTION(std::optional<size_t>, max_jobs);
  /// Longest wait for the next batch from the workers; RuntimeError when exceeded.
  EMBER_DATA_OPTION(std::optional<std::chrono::milliseconds>, timeout);
  /// Accepted for libtorch compatibility; batches always arrive in order.
  EMBER_DATA_OPTION(bool, enforce_ordering) = true;
  /// Drop the last batch when it has fewer than batch_size samples.
  EMBER_DATA_OPTION(bool, drop_last) = false;
  /// A new random order of the samples every epoch.
  EMBER_DATA_OPTION(bool, shuffle) = false;
  /// The generator shuffling draws from (default_generator() when null).
  EMBER_DATA_OPTION(std::shared_ptr<Generator>, generator);
  /// Default: default_collate (stacks each field).
  EMBER_DATA_OPTION(CollateFn, collate_fn);

 public:
  /// PyTorch's name of workers.
  DataLoaderOptions& num_workers(size_t n) { return workers(n); }
  size_t num_workers() const noexcept { return workers_; }
};
#undef EMBER_DATA_OPTION

/// DataLoaderOptions with the defaults resolved (libtorch's FullDataLoaderOptions).
struct FullDataLoaderOptions {
  explicit FullDataLoaderOptions(const DataLoaderOptions& o)
      : batch_size(o.batch_size()),
        workers(o.workers()),
        max_jobs(o.max_jobs().value_or(2 * o.workers())),
        timeout(o.timeout()),
        enforce_ordering(o.enforce_ordering()),
        drop_last(o.drop_last()) {}

  size_t batch_size;
  size_t workers;
  size_t max_jobs;
  std::optional<std::chrono::milliseconds> timeout;
  bool enforce_ordering;
  bool drop_last;
};

}  // namespace ember::data
