// c10d's ProcessGroup / ProcessGroupMPI names (include/ember/libtorch/c10d) over
// ember::distributed, for libtorch programs such as pytorch/examples' cpp/distributed.
#include "ember/core/error.h"
#include "ember/distributed/collectives.h"
#include "ember/libtorch/c10d/ProcessGroupMPI.hpp"

namespace c10d {

namespace dist = ::ember::distributed;

ProcessGroup::ProcessGroup(dist::GroupPtr group)
    : group_(group ? std::move(group) : dist::get_default_group()) {}

const dist::GroupPtr& ProcessGroup::group(const char* op) const {
  EMBER_CHECK(group_ != nullptr, "[ProcessGroup.", op, "] the process group was aborted");
  return group_;
}

int ProcessGroup::getRank() const { return static_cast<int>(group("getRank")->rank()); }
int ProcessGroup::getSize() const { return static_cast<int>(group("getSize")->size()); }
const std::string ProcessGroup::getBackendName() const {
  return group("getBackendName")->backend_name();
}

namespace {
// c10d's collectives take a list of tensors for multi-device use; on CPU it holds one.
const ::ember::Tensor& single(const std::vector<::ember::Tensor>& tensors, const char* op) {
  EMBER_CHECK_VALUE(tensors.size() == 1, "[ProcessGroup.", op,
                    "] expects exactly one tensor (multi-device collectives are not supported), "
                    "got ",
                    tensors.size());
  return tensors[0];
}
}  // namespace

std::shared_ptr<ProcessGroup::Work> ProcessGroup::allreduce(std::vector<::ember::Tensor>& tensors,
                                                            const AllreduceOptions& opts) {
  const ::ember::Tensor& t = single(tensors, "allreduce");
  return std::make_shared<Work>(
      dist::all_reduce(t, opts.reduceOp, group("allreduce"), /*async_op=*/true));
}

std::shared_ptr<ProcessGroup::Work> ProcessGroup::broadcast(std::vector<::ember::Tensor>& tensors,
                                                            const BroadcastOptions& opts) {
  const ::ember::Tensor& t = single(tensors, "broadcast");
  EMBER_CHECK_VALUE(opts.rootTensor == 0, "[ProcessGroup.broadcast] rootTensor must be 0, got ",
                    opts.rootTensor);
  const dist::GroupPtr& g = group("broadcast");
  EMBER_CHECK_VALUE(opts.rootRank >= 0 && opts.rootRank < g->size(),
                    "[ProcessGroup.broadcast] rootRank must be in [0, ", g->size(), "), got ",
                    opts.rootRank);
  // c10d's root is a rank of this group; ember's src is a global rank.
  const int64_t src = g->ranks()[static_cast<size_t>(opts.rootRank)];
  return std::make_shared<Work>(dist::broadcast(t, src, g, /*async_op=*/true));
}

std::shared_ptr<ProcessGroup::Work> ProcessGroup::barrier() {
  return std::make_shared<Work>(dist::barrier(group("barrier"), /*async_op=*/true));
}

std::shared_ptr<ProcessGroupMPI> ProcessGroupMPI::createProcessGroupMPI(std::vector<int> ranks) {
  if (!dist::is_initialized()) dist::init_process_group("mpi");
  EMBER_CHECK(dist::get_backend() == "mpi",
              "[createProcessGroupMPI] the default process group uses the ", dist::get_backend(),
              " backend, not mpi");
  if (ranks.empty()) return std::make_shared<ProcessGroupMPI>(dist::get_default_group());
  return std::make_shared<ProcessGroupMPI>(
      dist::new_group(std::vector<int64_t>(ranks.begin(), ranks.end())));
}

void ProcessGroupMPI::abort() {
  if (group_ && group_ != dist::get_default_group()) dist::destroy_process_group(group_);
  group_ = nullptr;
}

}  // namespace c10d
