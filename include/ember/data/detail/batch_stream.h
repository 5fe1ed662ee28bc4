#pragma once
// The machinery shared by both data loaders: worker threads that load batches ahead in order
// (Prefetcher, not a template, src/data/prefetcher.cpp), one epoch's batches (BatchStream) and
// the input iterator that range-for uses (Iterator).
#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/profiler.h"

namespace ember::data::detail {

/// Runs jobs 0, 1, ..., n - 1 on worker threads, claimed in order, never more than `max_ahead`
/// past the oldest job not yet released by the consumer (a bounded queue). An exception thrown by
/// a job is kept and handed to the consumer by wait(). stop() (and the destructor) cancel the jobs
/// not yet started and join the threads after the running jobs return.
class Prefetcher {
 public:
  using Job = std::function<void(size_t worker, size_t job)>;
  Prefetcher();
  ~Prefetcher();
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  /// Stops any previous run, then starts `workers` (> 0) threads.
  void start(size_t num_jobs, size_t workers, size_t max_ahead, Job job);
  /// Blocks until job `k` has finished; returns its exception (null when it succeeded).
  /// RuntimeError when `timeout` passes first.
  std::exception_ptr wait(size_t k, std::optional<std::chrono::milliseconds> timeout);
  /// The consumer is done with job `k` (the oldest unreleased one): job k + max_ahead may start.
  void release(size_t k);
  void stop() noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// One epoch of batches, in order: produced on the calling thread when there are no workers,
/// else by a Prefetcher into `max_jobs` slots. Each fetch is a profiler event named as PyTorch's
/// "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" (MultiProcessing with workers).
template <typename Batch>
class BatchStream {
 public:
  /// produce(worker, k) makes batch k; worker is 0 without workers.
  using Producer = std::function<Batch(size_t worker, size_t k)>;

  BatchStream() = default;
  ~BatchStream() { stop(); }
  BatchStream(const BatchStream&) = delete;
  BatchStream& operator=(const BatchStream&) = delete;

  /// Starts an epoch of `num_batches` (stopping the previous one) and loads its first batch.
  void start(size_t num_batches, size_t workers, size_t max_jobs,
             std::optional<std::chrono::milliseconds> timeout, Producer produce) {
    stop();
    produce_ = std::move(produce);
    num_ = num_batches;
    next_ = 0;
    workers_ = workers;
    timeout_ = timeout;
    current_.reset();
    if (workers_ > 0) {
      slots_.clear();
      slots_.resize(max_jobs > 0 ? max_jobs : 1);
      prefetcher_.start(num_, workers_, slots_.size(), [this](size_t worker, size_t k) {
        slots_[k % slots_.size()] = produce_(worker, k);
      });
    }
    advance();
  }

  /// Loads the next batch into current(); at the end of the epoch has_current() becomes false.
  /// An exception from the dataset or the collate function is re-thrown here, on the consumer's
  /// thread, leaving current() as it was; the batch that failed is skipped, so a later advance()
  /// goes on with the next one (as Python's DataLoader iterators do).
  void advance() {
    auto scope = profiler::record_function::data_loader_next(
        workers_ > 0 ? "_MultiProcessingDataLoaderIter" : "_SingleProcessDataLoaderIter");
    if (next_ >= num_) {
      current_.reset();
      return;
    }
    const size_t k = next_;
    if (workers_ == 0) {
      ++next_;
      current_ = produce_(0, k);
      return;
    }
    std::exception_ptr error = prefetcher_.wait(k, timeout_);  // a timeout throws, k stays next
    ++next_;
    std::optional<Batch>& slot = slots_[k % slots_.size()];
    std::optional<Batch> batch = std::move(slot);
    slot.reset();
    prefetcher_.release(k);
    if (error) std::rethrow_exception(error);
    EMBER_INTERNAL_ASSERT(batch.has_value(), "a worker finished without a batch");
    current_ = std::move(batch);
  }

  bool has_current() const { return current_.has_value(); }
  Batch& current() { return *current_; }

  /// Cancels the epoch: joins the workers (after their running job) and frees the batches.
  void stop() noexcept {
    prefetcher_.stop();
    slots_.clear();
    current_.reset();
    next_ = num_ = 0;
  }

 private:
  Producer produce_;
  size_t num_ = 0, next_ = 0, workers_ = 0;
  std::optional<std::chrono::milliseconds> timeout_;
  std::vector<std::optional<Batch>> slots_;  // written by workers, one slot per job in flight
  std::optional<Batch> current_;
  Prefetcher prefetcher_;  // last: destroyed (joined) before the slots it writes into
};

}  // namespace ember::data::detail

namespace ember::data {

/// The input iterator over a data loader's batches (libtorch's torch::data::Iterator). A
/// default-constructed one is the end sentinel; an iterator compares equal to it once the epoch
/// is exhausted. Starting a new epoch (begin()) invalidates the iterators of the previous one.
template <typename Batch>
class Iterator {
 public:
  using difference_type = std::ptrdiff_t;
  using value_type = Batch;
  using pointer = Batch*;
  using reference = Batch&;
  using iterator_category = std::input_iterator_tag;

  Iterator() = default;
  explicit Iterator(detail::BatchStream<Batch>* stream) : stream_(stream) {}

  Batch& operator*() const {
    EMBER_CHECK(valid(), "[DataLoader] Attempted to dereference iterator that was past the end");
    return stream_->current();
  }
  Batch* operator->() const { return &**this; }
  Iterator& operator++() {
    EMBER_CHECK(valid(), "[DataLoader] Attempted to increment iterator past the end");
    stream_->advance();
    return *this;
  }
  bool operator==(const Iterator& other) const {
    if (!valid() || !other.valid()) return valid() == other.valid();
    return stream_ == other.stream_;
  }

 private:
  bool valid() const { return stream_ != nullptr && stream_->has_current(); }
  detail::BatchStream<Batch>* stream_ = nullptr;
};

}  // namespace ember::data
