#pragma once
// <c10d/ProcessGroupMPI.hpp> for libtorch programs built against Ember: c10d's MPI process group
// over ember::distributed's "mpi" backend (Open MPI; start the job with mpirun).
#include <memory>
#include <vector>

#include "ProcessGroup.hpp"

namespace c10d {

class ProcessGroupMPI : public ProcessGroup {
 public:
  using ProcessGroup::ProcessGroup;
  /// Joins the MPI job (initialising ember::distributed's default group with the "mpi" backend
  /// unless it exists) and returns a group of `ranks` (empty: every rank).
  static std::shared_ptr<ProcessGroupMPI> createProcessGroupMPI(std::vector<int> ranks = {});
  const std::string getBackendName() const override { return "mpi"; }
  /// Ends this group: its pending operations fail and later calls raise RuntimeError. Unlike
  /// c10d's, it does not call MPI_Abort, so the caller decides whether the job goes on.
  void abort();
};

}  // namespace c10d
