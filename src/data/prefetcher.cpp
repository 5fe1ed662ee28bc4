// Worker threads for the data loaders (include/ember/data/detail/batch_stream.h). Jobs are claimed
// in order and at most max_ahead past the oldest unreleased one, so the consumer never waits on a
// job that cannot start and memory stays bounded by max_ahead batches.
#include <condition_variable>
#include <mutex>
#include <thread>

#include "ember/data/detail/batch_stream.h"

namespace ember::data::detail {

struct Prefetcher::State {
  std::mutex mutex;
  std::condition_variable work_cv;  // workers wait for a claimable job or stop
  std::condition_variable done_cv;  // the consumer waits for a finished job
  std::vector<std::thread> threads;
  Job job;
  size_t num_jobs = 0, max_ahead = 1;
  size_t next_job = 0;                     // the next job to claim
  size_t released = 0;                     // jobs [0, released) have been consumed
  std::vector<char> done;                  // per slot (job % max_ahead)
  std::vector<std::exception_ptr> errors;  // per slot
  bool stopping = false;

  void worker_loop(size_t worker) {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      work_cv.wait(lock, [&] {
        return stopping || next_job >= num_jobs || next_job < released + max_ahead;
      });
      if (stopping || next_job >= num_jobs) return;
      const size_t k = next_job++;
      lock.unlock();
      std::exception_ptr error;
      try {
        job(worker, k);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      done[k % max_ahead] = 1;
      errors[k % max_ahead] = std::move(error);
      done_cv.notify_all();
    }
  }
};

Prefetcher::Prefetcher() : state_(std::make_unique<State>()) {}

Prefetcher::~Prefetcher() { stop(); }

void Prefetcher::start(size_t num_jobs, size_t workers, size_t max_ahead, Job job) {
  stop();
  EMBER_INTERNAL_ASSERT(workers > 0 && max_ahead > 0);
  State& s = *state_;
  s.job = std::move(job);
  s.num_jobs = num_jobs;
  s.max_ahead = max_ahead;
  s.next_job = s.released = 0;
  s.done.assign(max_ahead, 0);
  s.errors.assign(max_ahead, nullptr);
  s.stopping = false;
  s.threads.reserve(workers);
  try {
    for (size_t w = 0; w < workers; ++w) s.threads.emplace_back([&s, w] { s.worker_loop(w); });
  } catch (const std::system_error& e) {
    stop();
    EMBER_THROW(RuntimeError, "[DataLoader] could not start worker threads: ", e.what());
  }
}

std::exception_ptr Prefetcher::wait(size_t k, std::optional<std::chrono::milliseconds> timeout) {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mutex);
  EMBER_INTERNAL_ASSERT(k == s.released && k < s.num_jobs && !s.threads.empty());
  auto ready = [&] { return s.done[k % s.max_ahead] != 0; };
  if (timeout) {
    EMBER_CHECK(
        s.done_cv.wait_for(lock, *timeout, ready),
        "[DataLoader] Timeout in DataLoader queue while waiting for next batch (timeout was ",
        timeout->count(), " ms)");
  } else {
    s.done_cv.wait(lock, ready);
  }
  return s.errors[k % s.max_ahead];
}

void Prefetcher::release(size_t k) {
  State& s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.done[k % s.max_ahead] = 0;
    s.errors[k % s.max_ahead] = nullptr;
    s.released = k + 1;
  }
  s.work_cv.notify_all();
}

void Prefetcher::stop() noexcept {
  State& s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.stopping = true;
  }
  s.work_cv.notify_all();
  for (auto& t : s.threads) t.join();
  s.threads.clear();
  s.job = nullptr;
}

}  // namespace ember::data::detail
