#pragma once
// Process groups (c10d's role): init_process_group, new_group, ranks and sizes. A group owns one
// backend communicator ("gloo": Gloo over TCP; "mpi": Open MPI) and one worker thread on which
// its collectives run in the order they were issued (a blocking one with nothing queued ahead of
// it runs on the caller's thread instead).
#include <ember/distributed/store.h>
#include <ember/distributed/work.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ember::distributed {

/// c10d's ReduceOp. AVG is SUM divided by the group's size (integers: truncating division).
/// BAND/BOR/BXOR take integer or bool tensors.
enum class ReduceOp { SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR };
const char* reduce_op_name(ReduceOp op);

/// torch.distributed's default_pg_timeout: 30 minutes.
constexpr std::chrono::milliseconds kDefaultPgTimeout{30 * 60 * 1000};

namespace detail {
class Backend;
}

class ProcessGroup {
 public:
  /// `ranks`: the members' global ranks in group order; `rank`: this process's index among them
  /// (-1 when it is not a member, and `backend` is then null).
  ProcessGroup(std::vector<int64_t> ranks, int64_t rank, std::string backend_name,
               std::unique_ptr<detail::Backend> backend, std::chrono::milliseconds timeout);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int64_t rank() const { return rank_; }
  int64_t size() const { return static_cast<int64_t>(ranks_.size()); }
  bool is_member() const { return rank_ >= 0; }
  const std::string& backend_name() const { return backend_name_; }
  const std::vector<int64_t>& ranks() const { return ranks_; }
  std::chrono::milliseconds timeout() const { return timeout_; }
  /// The group rank of a global rank; -1 when that process is not a member.
  int64_t group_rank(int64_t global_rank) const;

  // For the collectives: runs fn after every operation issued before it, on the group's thread;
  // `blocking` (the caller waits for the Work at once): on the caller's thread when nothing is
  // queued or running.
  std::shared_ptr<Work> enqueue(const char* op, std::function<void(detail::Backend&)> fn,
                                bool blocking = false);
  // A blocking call's fast path: call(fn, backend) on the caller's thread when nothing is queued
  // or running, without the queue's allocations; its finished Work, or null (then enqueue).
  std::shared_ptr<Work> run_if_idle(const char* op, void (*call)(void*, detail::Backend&),
                                    void* fn);
  detail::Backend& backend();

 private:
  struct Queue;
  std::vector<int64_t> ranks_;
  int64_t rank_;
  std::string backend_name_;
  std::unique_ptr<detail::Backend> backend_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<Queue> queue_;
};

using GroupPtr = std::shared_ptr<ProcessGroup>;

/// Joins the default group. init_method: "env://" (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
/// as `ember run` sets them; under `mpirun`, Open MPI's OMPI_COMM_WORLD_RANK/SIZE stand in for
/// RANK/WORLD_SIZE), "tcp://HOST:PORT" or "file:///path" (both need rank and world_size).
/// rank/world_size -1: from the environment. Rank 0 hosts the TCP store.
void init_process_group(const std::string& backend = "gloo",
                        const std::string& init_method = "env://", int64_t rank = -1,
                        int64_t world_size = -1,
                        std::chrono::milliseconds timeout = kDefaultPgTimeout);
/// Joins the default group through an existing store shared by every rank.
void init_process_group(const std::string& backend, std::shared_ptr<Store> store, int64_t rank,
                        int64_t world_size, std::chrono::milliseconds timeout = kDefaultPgTimeout);
bool is_initialized();
/// The default group (WORLD); RuntimeError before init_process_group.
GroupPtr get_default_group();
/// A group of some of the world's ranks. Every rank of the world must call it, in the same order
/// as its other new_group calls; a non-member gets a group it cannot use (get_rank gives -1).
/// An empty `ranks` means every rank. backend "": the default group's.
GroupPtr new_group(const std::vector<int64_t>& ranks = {},
                   std::chrono::milliseconds timeout = kDefaultPgTimeout,
                   const std::string& backend = "");
/// This process's rank in `group` (null: the default group); -1 when not a member.
int64_t get_rank(const GroupPtr& group = nullptr);
/// The group's size; -1 when this process is not a member.
int64_t get_world_size(const GroupPtr& group = nullptr);
std::string get_backend(const GroupPtr& group = nullptr);
/// Tears down `group`, or everything (null): the default group, every new_group, the store.
void destroy_process_group(const GroupPtr& group = nullptr);
bool is_gloo_available();
bool is_mpi_available();

}  // namespace ember::distributed
