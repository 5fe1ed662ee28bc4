#pragma once
// What a communication engine provides to the process-group front (collectives.cpp): collectives
// on contiguous buffers, in group ranks, called from the group's thread one at a time, plus
// point-to-point transfers started from any thread, and the records of the cross-rank agreement
// check (which small collectives' data rides in: Note [Records] in collectives.cpp). The front
// handles tensors (staging of non-contiguous ones), argument checks, the agreement, and AVG.
#include <ember/core/dtype.h>
#include <ember/distributed/process_group.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

namespace ember::distributed::detail {

/// c[i] = a[i] (op) b[i] for n elements; gloo's and MPI's custom-reduction shape.
using ReduceFn = void (*)(void* c, const void* a, const void* b, size_t n);
/// The reduction for dtype and op (AVG is never passed: the front sums, then divides);
/// TypeError for bitwise ops on floating-point dtypes.
ReduceFn reduce_function(ScalarType dtype, ReduceOp op, const char* api);

class Backend {
 public:
  virtual ~Backend() = default;
  virtual void allreduce(void* buf, size_t count, ScalarType dtype, ReduceOp op) = 0;
  /// Reduces into `buf` on `root`; other ranks' buffers are left unspecified (they are inputs).
  virtual void reduce(void* buf, size_t count, ScalarType dtype, ReduceOp op, int root) = 0;
  virtual void broadcast(void* buf, size_t bytes, int root) = 0;
  /// out holds size() blocks of `bytes`, block r from rank r.
  virtual void allgather(const void* in, void* out, size_t bytes) = 0;
  /// out (size() blocks) is used on root only.
  virtual void gather(const void* in, void* out, size_t bytes, int root) = 0;
  /// in (size() blocks) is used on root only.
  virtual void scatter(const void* in, void* out, size_t bytes, int root) = 0;
  /// Block r of `in` (in_bytes[r]) goes to rank r; block r of `out` (out_bytes[r]) comes from it.
  virtual void alltoallv(const void* in, const std::vector<size_t>& in_bytes, void* out,
                         const std::vector<size_t>& out_bytes) = 0;
  virtual void barrier() = 0;
  /// The collectives' records (Note [Records] in collectives.cpp): record_out(bytes) is this
  /// rank's, to be filled; exchange() sends its first `bytes` to every peer and returns every
  /// rank's (records[r] from rank r, records[rank] this rank's own; valid until the next
  /// exchange). Records up to record_capacity() bytes (the same on every rank of a group) go
  /// straight to each peer and may differ in size between ranks; beyond it every rank must pass
  /// the same `bytes` (they are allgathered). A peer that never sends: DistTimeoutError.
  size_t record_capacity() const { return record_capacity_; }
  char* record_out(size_t bytes);
  virtual const std::vector<const char*>& exchange(const char* api, size_t bytes);

  /// Waits for a started transfer (at most `timeout`, zero: the group's) and returns the peer.
  using P2PWait = std::function<int(std::chrono::milliseconds)>;
  virtual P2PWait send(const void* buf, size_t bytes, int dst, uint32_t tag) = 0;
  /// src -1: from any rank.
  virtual P2PWait recv(void* buf, size_t bytes, int src, uint32_t tag) = 0;

 protected:
  /// Called by every backend's constructor; a backend that sends records itself gives their
  /// capacity (record_out_ is then a send buffer of that size that stays put).
  void init_records(int size, size_t capacity) {
    records_.assign(static_cast<size_t>(size), nullptr);
    record_capacity_ = capacity;
    record_out_.resize(capacity);
  }
  size_t record_capacity_ = 0;
  std::vector<char> record_out_, gathered_out_, gathered_;
  std::vector<const char*> records_;
};

/// Connects `size` processes through `store` (a PrefixStore private to the group). `hostname`:
/// the address peers reach this process on.
std::unique_ptr<Backend> make_gloo_backend(std::shared_ptr<Store> store, int rank, int size,
                                           std::chrono::milliseconds timeout,
                                           const std::string& hostname);

/// Open MPI: initialises MPI (MPI_THREAD_MULTIPLE) on first use; rank and size of MPI_COMM_WORLD.
void mpi_world(int& rank, int& size);
/// A communicator of the given MPI_COMM_WORLD ranks (called by the members only).
std::unique_ptr<Backend> make_mpi_backend(const std::vector<int64_t>& world_ranks,
                                          std::chrono::milliseconds timeout);

}  // namespace ember::distributed::detail
