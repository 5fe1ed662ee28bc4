#pragma once
// Work: the handle of one collective or point-to-point operation (c10d's Work). Blocking calls
// return it completed; async_op=true returns it while the operation runs on its group's thread.
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>

namespace ember::distributed {

enum class WorkStatus { NOT_STARTED, INPROGRESS, COMPLETED, TIMEDOUT, ERROR };

const char* work_status_name(WorkStatus s);

class Work {
 public:
  /// c10d's Work::kNoTimeout: wait as long as the operation takes (it has its group's timeout).
  static constexpr std::chrono::milliseconds kNoTimeout{0};

  explicit Work(const char* op = "work") : op_(op) {}
  virtual ~Work() = default;
  Work(const Work&) = delete;
  Work& operator=(const Work&) = delete;

  /// Blocks until the operation finished and rethrows its error (DistBackendError,
  /// DistTimeoutError, ...). With a timeout, DistTimeoutError once it passes (the operation
  /// itself goes on; status() is TIMEDOUT). Returns true on success, as c10d's does.
  bool wait(std::chrono::milliseconds timeout = kNoTimeout);
  /// True once the operation finished, successfully or not.
  bool is_completed();
  bool is_success();
  /// The error the operation ended with, or null.
  std::exception_ptr exception();
  WorkStatus status();
  const char* op() const { return op_; }

  // For the backends: a Work moves NOT_STARTED -> INPROGRESS -> COMPLETED or ERROR.
  void mark_started();
  void finish(std::exception_ptr error = nullptr);
  /// Runs on the waiting thread inside wait() before the result is reported (point-to-point
  /// operations complete there: gloo reports a receive to whoever waits for it).
  void set_waiter(std::function<void(std::chrono::milliseconds)> waiter) {
    waiter_ = std::move(waiter);
  }

 private:
  const char* op_;
  std::mutex mutex_;
  std::condition_variable cv_;
  WorkStatus status_ = WorkStatus::NOT_STARTED;
  bool done_ = false;
  std::exception_ptr error_;
  std::function<void(std::chrono::milliseconds)> waiter_;
};

}  // namespace ember::distributed
