#include <ember/core/error.h>
#include <ember/distributed/work.h>

namespace ember::distributed {

const char* work_status_name(WorkStatus s) {
  switch (s) {
    case WorkStatus::NOT_STARTED:
      return "NOT_STARTED";
    case WorkStatus::INPROGRESS:
      return "INPROGRESS";
    case WorkStatus::COMPLETED:
      return "COMPLETED";
    case WorkStatus::TIMEDOUT:
      return "TIMEDOUT";
    case WorkStatus::ERROR:
      return "ERROR";
  }
  return "?";
}

bool Work::wait(std::chrono::milliseconds timeout) {
  std::function<void(std::chrono::milliseconds)> waiter;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    waiter.swap(waiter_);
  }
  if (waiter) {
    try {
      waiter(timeout);
      finish();
    } catch (...) {
      finish(std::current_exception());
    }
  }
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout == kNoTimeout) {
    cv_.wait(lock, [&] { return done_; });
  } else if (!cv_.wait_for(lock, timeout, [&] { return done_; })) {
    status_ = WorkStatus::TIMEDOUT;
    EMBER_THROW(DistTimeoutError, "[", op_, "] Work.wait timed out after ", timeout.count(),
                "ms; the operation has not completed");
  }
  if (error_) std::rethrow_exception(error_);
  return true;
}

bool Work::is_completed() {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

bool Work::is_success() {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_ && !error_;
}

std::exception_ptr Work::exception() {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

WorkStatus Work::status() {
  std::lock_guard<std::mutex> lock(mutex_);
  return status_;
}

void Work::mark_started() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (status_ == WorkStatus::NOT_STARTED) status_ = WorkStatus::INPROGRESS;
}

void Work::finish(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (done_) return;
    done_ = true;
    error_ = error;
    bool timed_out = false;
    if (error) {
      try {
        std::rethrow_exception(error);
      } catch (const DistTimeoutError&) {
        timed_out = true;
      } catch (...) {
      }
    }
    status_ = !error ? WorkStatus::COMPLETED : timed_out ? WorkStatus::TIMEDOUT : WorkStatus::ERROR;
  }
  cv_.notify_all();
}

}  // namespace ember::distributed
