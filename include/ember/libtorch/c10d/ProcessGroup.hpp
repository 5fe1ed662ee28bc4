#pragma once
// <c10d/ProcessGroup.hpp> for libtorch programs built against Ember (on the include path of
// targets that link ${TORCH_LIBRARIES}): c10d's ProcessGroup and Work names, as the older
// libtorch API spells them (std::shared_ptr handles), over ember::distributed.
//
//   auto pg = c10d::ProcessGroupMPI::createProcessGroupMPI();
//   std::vector<torch::Tensor> tensors = {grad};
//   pg->allreduce(tensors)->wait();
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/distributed/process_group.h"
#include "ember/distributed/work.h"

namespace c10d {

using ReduceOp = ::ember::distributed::ReduceOp;
/// Options left unset use the group's own timeout.
constexpr std::chrono::milliseconds kUnsetTimeout{-1};

struct AllreduceOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct BroadcastOptions {
  int64_t rootRank = 0;
  int64_t rootTensor = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

/// A group of processes over one ember::distributed process group (the default group unless one
/// is given). Collectives take a list of exactly one tensor and return at once; wait() on the
/// Work blocks until the operation is done and rethrows its error.
class ProcessGroup {
 public:
  class Work {
   public:
    explicit Work(std::shared_ptr<::ember::distributed::Work> work) : work_(std::move(work)) {}
    virtual ~Work() = default;
    bool wait(std::chrono::milliseconds timeout = ::ember::distributed::Work::kNoTimeout) {
      return work_->wait(timeout);
    }
    bool isCompleted() { return work_->is_completed(); }
    bool isSuccess() { return work_->is_success(); }
    std::exception_ptr exception() { return work_->exception(); }

   private:
    std::shared_ptr<::ember::distributed::Work> work_;
  };

  explicit ProcessGroup(::ember::distributed::GroupPtr group = nullptr);
  virtual ~ProcessGroup() = default;
  int getRank() const;
  int getSize() const;
  virtual const std::string getBackendName() const;

  /// Reduces tensors[0] in place across the group.
  virtual std::shared_ptr<Work> allreduce(std::vector<::ember::Tensor>& tensors,
                                          const AllreduceOptions& opts = AllreduceOptions());
  /// Copies rank opts.rootRank's tensors[0] into every rank's.
  virtual std::shared_ptr<Work> broadcast(std::vector<::ember::Tensor>& tensors,
                                          const BroadcastOptions& opts = BroadcastOptions());
  virtual std::shared_ptr<Work> barrier();

 protected:
  /// The group; RuntimeError once abort() has ended it.
  const ::ember::distributed::GroupPtr& group(const char* op) const;
  ::ember::distributed::GroupPtr group_;
};

}  // namespace c10d
