// torch.utils.data.DataLoader (include/ember/data/dataloader.h).
#include "ember/data/dataloader.h"

#include <numeric>

#include "ember/ops/factory.h"

namespace ember::data {

DataLoader::DataLoader(std::shared_ptr<Dataset> dataset, DataLoaderOptions options)
    : dataset_(std::move(dataset)),
      options_(std::move(options)),
      stream_(std::make_unique<detail::BatchStream<Sample>>()) {
  EMBER_CHECK_VALUE(dataset_ != nullptr, "[DataLoader] expected a dataset, got a null pointer");
  EMBER_CHECK_VALUE(options_.batch_size() > 0,
                    "[DataLoader] batch_size should be a positive integer value, but got "
                    "batch_size=0");
  EMBER_CHECK_VALUE(!options_.timeout() || options_.timeout()->count() >= 0,
                    "[DataLoader] timeout option should be non-negative");
  if (!options_.collate_fn()) options_.collate_fn(default_collate);
}

DataLoader::~DataLoader() = default;

int64_t DataLoader::size() const {
  const int64_t n = dataset_->size();
  const auto bs = static_cast<int64_t>(options_.batch_size());
  return options_.drop_last() ? n / bs : (n + bs - 1) / bs;
}

Iterator<Sample> DataLoader::begin() {
  stream_->stop();  // a new epoch cancels what is left of the previous one
  const int64_t n = dataset_->size();
  EMBER_CHECK_VALUE(n >= 0, "[DataLoader] the dataset's size() is negative (", n, ")");
  if (options_.shuffle()) {
    Generator& gen = options_.generator() ? *options_.generator() : default_generator();
    order_ = ember::randperm(n, gen).tolist<int64_t>();
  } else {
    order_.resize(static_cast<size_t>(n));
    std::iota(order_.begin(), order_.end(), int64_t{0});
  }
  const FullDataLoaderOptions full(options_);
  const auto bs = static_cast<size_t>(full.batch_size);
  stream_->start(static_cast<size_t>(size()), full.workers, full.max_jobs, full.timeout,
                 [this, bs](size_t, size_t k) {
                   const size_t lo = k * bs, hi = std::min(order_.size(), lo + bs);
                   std::vector<Sample> samples;
                   samples.reserve(hi - lo);
                   for (size_t i = lo; i < hi; ++i) samples.push_back(dataset_->get(order_[i]));
                   return options_.collate_fn()(std::move(samples));
                 });
  return Iterator<Sample>(stream_.get());
}

}  // namespace ember::data
