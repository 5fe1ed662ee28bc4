#pragma once
// Data loaders: PyTorch's torch.utils.data.DataLoader (ember::data::DataLoader) and libtorch's
// torch::data::make_data_loader / StatelessDataLoader. Both load batches in order, on the calling
// thread or on `workers` threads that prefetch up to max_jobs batches.
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/data/dataloader_options.h"
#include "ember/data/dataset.h"
#include "ember/data/detail/batch_stream.h"
#include "ember/data/samplers.h"

namespace ember::data {

/// torch.utils.data.DataLoader over a map-style Dataset:
///   auto ds = std::make_shared<ember::data::TensorDataset>(std::vector<Tensor>{x, y});
///   ember::data::DataLoader loader(ds, DataLoaderOptions().batch_size(32).shuffle(true)
///                                          .generator(std::make_shared<Generator>(0)));
///   for (auto& batch : loader) { Tensor xb = batch[0], yb = batch[1]; ... }
/// Shuffling draws randperm(n, generator) once per epoch on the calling thread, so the order is
/// the same for every number of workers. An exception thrown while loading a batch (in the dataset
/// or the collate function) is re-thrown by the iteration step that reaches that batch.
/// Destroying the loader or starting a new epoch mid-epoch cancels the pending batches.
class DataLoader {
 public:
  explicit DataLoader(std::shared_ptr<Dataset> dataset, DataLoaderOptions options = {});
  template <typename D, std::enable_if_t<std::is_base_of_v<Dataset, D>, int> = 0>
  explicit DataLoader(D dataset, DataLoaderOptions options = {})
      : DataLoader(std::make_shared<D>(std::move(dataset)), std::move(options)) {}
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  /// Starts a new epoch (a new order when shuffling) and loads its first batch.
  Iterator<Sample> begin();
  Iterator<Sample> end() { return {}; }
  /// Batches per epoch (len(loader)): ceil(n / batch_size), or floor with drop_last.
  int64_t size() const;
  const DataLoaderOptions& options() const { return options_; }
  const std::shared_ptr<Dataset>& dataset() const { return dataset_; }

 private:
  std::shared_ptr<Dataset> dataset_;
  DataLoaderOptions options_;
  std::vector<int64_t> order_;  // this epoch's sample indices
  std::unique_ptr<detail::BatchStream<Sample>> stream_;
};

/// libtorch's loader for a (stateless) dataset: the sampler gives each batch's indices and
/// dataset.get_batch(indices) the batch. Each worker thread gets its own copy of the dataset, as in
/// libtorch. Made by make_data_loader.
template <typename Dataset, typename Sampler>
class StatelessDataLoader {
 public:
  using BatchType = typename Dataset::BatchType;
  using BatchRequestType = typename Sampler::BatchRequestType;

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : options_(options), sampler_(std::move(sampler)) {
    EMBER_CHECK_VALUE(options_.batch_size > 0,
                      "[DataLoader] batch_size should be a positive integer value, but got "
                      "batch_size=0");
    for (size_t w = 1; w < options_.workers; ++w) datasets_.push_back(dataset);
    datasets_.push_back(std::move(dataset));
  }
  ~StatelessDataLoader() { join(); }
  StatelessDataLoader(const StatelessDataLoader&) = delete;
  StatelessDataLoader& operator=(const StatelessDataLoader&) = delete;

  /// Resets the sampler and starts a new epoch.
  Iterator<BatchType> begin() {
    stream_.stop();
    sampler_.reset(std::nullopt);
    requests_.clear();
    while (auto request = sampler_.next(options_.batch_size)) {
      if (request->size() < options_.batch_size && options_.drop_last) break;
      requests_.push_back(std::move(*request));
    }
    stream_.start(
        requests_.size(), options_.workers, options_.max_jobs, options_.timeout,
        [this](size_t worker, size_t k) { return datasets_[worker].get_batch(requests_[k]); });
    return Iterator<BatchType>(&stream_);
  }
  Iterator<BatchType> end() { return {}; }
  /// Cancels the current epoch and joins the workers.
  void join() { stream_.stop(); }
  const FullDataLoaderOptions& options() const noexcept { return options_; }

 private:
  FullDataLoaderOptions options_;
  Sampler sampler_;
  std::vector<Dataset> datasets_;  // one per worker (one for the calling thread without workers)
  std::vector<BatchRequestType> requests_;
  detail::BatchStream<BatchType> stream_;  // last: stopped before the datasets go
};

/// torch::data::make_data_loader(dataset, sampler, options).
template <typename Dataset, typename Sampler>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset,
                                                                        Sampler sampler,
                                                                        DataLoaderOptions options) {
  static_assert(!Dataset::is_stateful, "stateful datasets are not supported yet");
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(
      std::move(dataset), std::move(sampler), std::move(options));
}

/// torch::data::make_data_loader(dataset, options) and make_data_loader(dataset, batch_size):
/// a Sampler (RandomSampler unless given, e.g. make_data_loader<SequentialSampler>(...)) over the
/// dataset's size.
template <typename Sampler = samplers::RandomSampler, typename Dataset,
          typename = std::enable_if_t<std::is_constructible_v<Sampler, size_t>>>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(
    Dataset dataset, DataLoaderOptions options = DataLoaderOptions()) {
  const std::optional<size_t> size = dataset.size();
  EMBER_CHECK(size.has_value(),
              "[make_data_loader] Expected the dataset to be sized in order to construct the "
              "Sampler");
  Sampler sampler(*size);
  return make_data_loader(std::move(dataset), std::move(sampler), std::move(options));
}

}  // namespace ember::data
