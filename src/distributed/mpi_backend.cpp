// The "mpi" backend: Open MPI. Note [Blocking MPI collectives]: the collectives' records (Note
// [Records] in collectives.cpp) travel as nonblocking messages polled against the group's timeout,
// so a peer that never arrives (or calls something else) is a DistTimeoutError or a mismatch
// error on every rank. Once a rank holds every peer's matching record, every rank is committed to
// the same collective, and the data moves with Open MPI's blocking collectives: its tuned
// algorithms are several times quicker than the nonblocking ones (libnbc, progressed only by
// polling) and are what MPI_Allreduce called directly runs. What is given up: a rank that
// arrives after a peer already gave up waiting has that peer's record and blocks in the data phase
// (as MPI itself would) until the job ends; mpirun ends it when the peer's process exits.
// float16/bfloat16 and the bitwise ops reduce through user-defined MPI operations built from the
// same element functions as the gloo backend.
#include <ember/core/error.h>

#define OMPI_SKIP_MPICXX 1  // the C API only
#include <mpi.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>

#include "distributed/backend.h"

namespace ember::distributed::detail {
namespace {

constexpr int kNumOps = 8;

[[noreturn]] void mpi_fail(const char* what, int code) {
  char msg[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(code, msg, &len);
  EMBER_THROW(DistBackendError, "[", what, "] MPI error: ", msg);
}

void check_mpi(const char* what, int code) {
  if (code != MPI_SUCCESS) mpi_fail(what, code);
}

// MPI calls back without context, so each (dtype, op) pair gets its own function.
ReduceFn g_fns[kNumDtypes * kNumOps];

template <int I>
void mpi_reduce(void* in, void* inout, int* len, MPI_Datatype*) {
  g_fns[I](inout, in, inout, static_cast<size_t>(*len));
}

template <size_t... I>
constexpr std::array<MPI_User_function*, sizeof...(I)> make_table(std::index_sequence<I...>) {
  return {&mpi_reduce<static_cast<int>(I)>...};
}

struct MpiOps {
  std::once_flag once;
  std::array<MPI_Op, kNumDtypes * kNumOps> ops{};
  std::array<MPI_Datatype, 9> types{};  // one contiguous type per element size 1..8
};

MpiOps& mpi_ops() {
  static MpiOps m;
  return m;
}

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

// MPI's own type for a dtype it has (its reductions are vectorised; a user-defined operation on a
// derived type is not), or MPI_DATATYPE_NULL.
MPI_Datatype native_type(ScalarType dtype) {
  switch (dtype) {
    case kUInt8:
      return MPI_UINT8_T;
    case kInt8:
      return MPI_INT8_T;
    case kInt16:
      return MPI_INT16_T;
    case kInt32:
      return MPI_INT32_T;
    case kInt64:
      return MPI_INT64_T;
    case kFloat32:
      return MPI_FLOAT;
    case kFloat64:
      return MPI_DOUBLE;
    default:
      return MPI_DATATYPE_NULL;
  }
}

// MPI's own operation where it means what Ember's does: sums and products; MIN/MAX only on
// integers (MPI's floating-point MIN/MAX need not propagate NaN, torch's do); bitwise ops (integers
// only by then).
MPI_Op native_op(ScalarType dtype, ReduceOp op) {
  const bool floating = dtype == kFloat32 || dtype == kFloat64;
  switch (op) {
    case ReduceOp::SUM:
      return MPI_SUM;
    case ReduceOp::PRODUCT:
      return MPI_PROD;
    case ReduceOp::MIN:
      return floating ? MPI_OP_NULL : MPI_MIN;
    case ReduceOp::MAX:
      return floating ? MPI_OP_NULL : MPI_MAX;
    case ReduceOp::BAND:
      return MPI_BAND;
    case ReduceOp::BOR:
      return MPI_BOR;
    case ReduceOp::BXOR:
      return MPI_BXOR;
    case ReduceOp::AVG:
      break;
  }
  return MPI_OP_NULL;
}

// The element type and the operation for a dtype (MPI reduces whole elements).
std::pair<MPI_Datatype, MPI_Op> mpi_type_and_op(ScalarType dtype, ReduceOp op, const char* api) {
  reduce_function(dtype, op, api);  // rejects bitwise ops on floats
  const MPI_Datatype type = native_type(dtype);
  const MPI_Op nop = native_op(dtype, op);
  if (type != MPI_DATATYPE_NULL && nop != MPI_OP_NULL) return {type, nop};
  MpiOps& m = mpi_ops();
  return {m.types[element_size(dtype)],
          m.ops[static_cast<int>(dtype) * kNumOps + static_cast<int>(op)]};
}

class MpiBackend final : public Backend {
 public:
  MpiBackend(MPI_Comm comm, std::chrono::milliseconds timeout) : comm_(comm), timeout_(timeout) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    init_records(size_, capacity_for(size_));
    if (!record_capacity_) return;  // allgathered
    // Records travel on a communicator of their own, into receives posted ahead (two sets of
    // buffers: a peer's next record may arrive while the collective reads this one).
    check_mpi("init_process_group", MPI_Comm_dup(comm_, &record_comm_));
    inboxes_.resize(2 * static_cast<size_t>(size_) * record_capacity_);
    first_rx_.assign(static_cast<size_t>(size_), MPI_REQUEST_NULL);
    more_rx_.assign(static_cast<size_t>(size_) * kMaxChunks, MPI_REQUEST_NULL);
    tx_.assign(static_cast<size_t>(size_) * kMaxChunks, MPI_REQUEST_NULL);
    for (int r = 0; r < size_; ++r)
      if (r != rank_) post_first(r, 0);
  }
  ~MpiBackend() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    for (auto& req : first_rx_) {
      if (req == MPI_REQUEST_NULL) continue;
      MPI_Cancel(&req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    if (record_comm_ != MPI_COMM_NULL) MPI_Comm_free(&record_comm_);
    if (comm_ != MPI_COMM_WORLD) MPI_Comm_free(&comm_);
  }

  // Each rank sends its record to each peer as up to kMaxChunks messages, each small enough to go
  // eagerly: one message latency, where an allgather (or one rendezvous message) costs rounds.
  // The first message's tag is the record's message count.
  const std::vector<const char*>& exchange(const char* api, size_t bytes) override {
    if (bytes > record_capacity_) return gather_records(api, bytes);
    const int set = set_;
    set_ ^= 1;
    const int n = static_cast<int>((std::max<size_t>(bytes, 1) + kChunk - 1) / kChunk);
    for (int r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      for (int k = 0; k < n; ++k) {
        const size_t at = static_cast<size_t>(k) * kChunk;
        check_mpi(api,
                  MPI_Isend(record_out_.data() + at, static_cast<int>(std::min(kChunk, bytes - at)),
                            MPI_BYTE, r, k ? kMoreTag + k : n, record_comm_, &tx(r, k)));
      }
    }
    for (int r = 0; r < size_; ++r) {
      if (r == rank_) {
        records_[r] = record_out_.data();
        continue;
      }
      MPI_Status st{};
      finish(api, first_rx_[r], {}, &st);
      const int m = st.MPI_TAG;  // the peer's message count
      char* in = inbox(set, r);
      for (int k = 1; k < m; ++k)
        check_mpi(
            api, MPI_Irecv(in + static_cast<size_t>(k) * kChunk, static_cast<int>(kChunk), MPI_BYTE,
                           r, kMoreTag + k, record_comm_, &more_rx_[r * kMaxChunks + k]));
      post_first(r, set ^ 1);  // after those: it takes any tag
      for (int k = 1; k < m; ++k) finish(api, more_rx_[r * kMaxChunks + k]);
      records_[r] = in;
    }
    for (int r = 0; r < size_; ++r)
      if (r != rank_)
        for (int k = 0; k < n; ++k) finish(api, tx(r, k));
    return records_;
  }

  // Note [Blocking MPI collectives]: past the records, every rank is in the same collective.
  void allreduce(void* buf, size_t count, ScalarType dtype, ReduceOp op) override {
    auto [type, mop] = mpi_type_and_op(dtype, op, "all_reduce");
    check_mpi("all_reduce", MPI_Allreduce(MPI_IN_PLACE, buf, to_int(count), type, mop, comm_));
  }

  void reduce(void* buf, size_t count, ScalarType dtype, ReduceOp op, int root) override {
    auto [type, mop] = mpi_type_and_op(dtype, op, "reduce");
    const bool is_root = rank_ == root;
    check_mpi("reduce", MPI_Reduce(is_root ? MPI_IN_PLACE : buf, is_root ? buf : nullptr,
                                   to_int(count), type, mop, root, comm_));
  }

  void broadcast(void* buf, size_t bytes, int root) override {
    check_mpi("broadcast", MPI_Bcast(buf, to_int(bytes), MPI_BYTE, root, comm_));
  }

  void allgather(const void* in, void* out, size_t bytes) override {
    check_mpi("all_gather",
              MPI_Allgather(in, to_int(bytes), MPI_BYTE, out, to_int(bytes), MPI_BYTE, comm_));
  }

  void gather(const void* in, void* out, size_t bytes, int root) override {
    check_mpi("gather",
              MPI_Gather(in, to_int(bytes), MPI_BYTE, out, to_int(bytes), MPI_BYTE, root, comm_));
  }

  void scatter(const void* in, void* out, size_t bytes, int root) override {
    check_mpi("scatter",
              MPI_Scatter(in, to_int(bytes), MPI_BYTE, out, to_int(bytes), MPI_BYTE, root, comm_));
  }

  void alltoallv(const void* in, const std::vector<size_t>& in_bytes, void* out,
                 const std::vector<size_t>& out_bytes) override {
    std::vector<int> sc, sd, rc, rd;
    size_t s = 0, t = 0;
    for (int i = 0; i < size_; ++i) {
      sc.push_back(to_int(in_bytes[i]));
      sd.push_back(to_int(s));
      rc.push_back(to_int(out_bytes[i]));
      rd.push_back(to_int(t));
      s += in_bytes[i];
      t += out_bytes[i];
    }
    static char empty[1];
    check_mpi("all_to_all",
              MPI_Alltoallv(in ? in : empty, sc.data(), sd.data(), MPI_BYTE, out ? out : empty,
                            rc.data(), rd.data(), MPI_BYTE, comm_));
  }

  // The rendezvous's barrier (make_backend): a peer may still be on its way, so it is polled.
  void barrier() override {
    MPI_Request r;
    check_mpi("barrier", MPI_Ibarrier(comm_, &r));
    finish("barrier", r);
  }

  P2PWait send(const void* buf, size_t bytes, int dst, uint32_t tag) override {
    auto r = std::make_shared<MPI_Request>();
    check_mpi("send", MPI_Isend(buf, to_int(bytes), MPI_BYTE, dst, to_tag(tag), comm_, r.get()));
    return [this, r, dst](std::chrono::milliseconds timeout) {
      finish("send", *r, timeout);
      return dst;
    };
  }

  P2PWait recv(void* buf, size_t bytes, int src, uint32_t tag) override {
    auto r = std::make_shared<MPI_Request>();
    check_mpi("recv", MPI_Irecv(buf, to_int(bytes), MPI_BYTE, src < 0 ? MPI_ANY_SOURCE : src,
                                to_tag(tag), comm_, r.get()));
    return [this, r](std::chrono::milliseconds timeout) { return finish("recv", *r, timeout); };
  }

 private:
  static int to_int(size_t n) {
    EMBER_CHECK_NOT_IMPL(n <= static_cast<size_t>(INT_MAX),
                         "[mpi] messages of 2 GiB or more are not supported, got ", n, " bytes");
    return static_cast<int>(n);
  }
  static int to_tag(uint32_t tag) {
    EMBER_CHECK_VALUE(tag <= 32767, "[mpi] tags must be below 32768 (MPI_TAG_UB's minimum), got ",
                      tag);
    return static_cast<int>(tag);
  }

  // Polls the request until it completes or the timeout passes; returns the message's source.
  // Open MPI moves a request on only inside MPI calls, so the first milliseconds are spent
  // testing without pause (as its blocking calls do); later tests are spaced out so that a long
  // wait (a late peer) leaves the core to others.
  int finish(const char* what, MPI_Request& r, std::chrono::milliseconds timeout = {},
             MPI_Status* out = nullptr) {
    int done = 0;
    MPI_Status status{};
    check_mpi(what, MPI_Test(&r, &done, &status));  // most are done by now: no clock read
    if (done) return finished(status, out);
    const auto limit = timeout.count() ? timeout : timeout_;
    const auto start = std::chrono::steady_clock::now(), deadline = start + limit;
    const auto spin_until = start + std::chrono::milliseconds(2);
    for (int polls = 1;; ++polls) {
      check_mpi(what, MPI_Test(&r, &done, &status));
      if (done) return finished(status, out);
      if (polls % 64) continue;  // the clock is read now and then
      const auto now = std::chrono::steady_clock::now();
      EMBER_CHECK_T(DistTimeoutError, now < deadline, "[", what, "] mpi timed out after ",
                    limit.count(), "ms");
      if (now > spin_until) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
  static int finished(const MPI_Status& status, MPI_Status* out) {
    if (out) *out = status;
    return status.MPI_SOURCE;
  }

  // Beyond record_capacity_ (or with many ranks): a nonblocking allgather, polled.
  const std::vector<const char*>& gather_records(const char* api, size_t bytes) {
    const char* mine = record_out(bytes);
    gathered_.resize(static_cast<size_t>(size_) * bytes);
    MPI_Request r;
    check_mpi(api, MPI_Iallgather(mine, to_int(bytes), MPI_BYTE, gathered_.data(), to_int(bytes),
                                  MPI_BYTE, comm_, &r));
    finish(api, r);
    for (int i = 0; i < size_; ++i) records_[i] = gathered_.data() + static_cast<size_t>(i) * bytes;
    return records_;
  }

  // Records carry small collectives' data (Note [Records]) up to where the engine's own algorithm
  // gets quicker (measured on shared memory: about 48 KiB with 2 ranks); with many ranks, the
  // header and little more; beyond kMaxDirectPeers, allgathered.
  static size_t capacity_for(int size) {
    if (size > kMaxDirectPeers) return 0;
    return kChunk * (size <= 2 ? kMaxChunks : size <= 4 ? 5 : size <= 16 ? 2 : 1);
  }
  char* inbox(int set, int r) {
    return inboxes_.data() + (static_cast<size_t>(set) * size_ + r) * record_capacity_;
  }
  MPI_Request& tx(int r, int k) { return tx_[static_cast<size_t>(r) * kMaxChunks + k]; }
  void post_first(int r, int set) {
    check_mpi("exchange", MPI_Irecv(inbox(set, r), static_cast<int>(kChunk), MPI_BYTE, r,
                                    MPI_ANY_TAG, record_comm_, &first_rx_[r]));
  }

  // Under Open MPI's shared-memory eager limit (4 KiB with its own headers): a bigger message
  // waits for the receiver's handshake.
  static constexpr size_t kChunk = 4000;
  static constexpr int kMaxChunks = 13, kMoreTag = 16, kMaxDirectPeers = 64;
  MPI_Comm comm_;
  std::chrono::milliseconds timeout_;
  int rank_ = 0, size_ = 1;
  MPI_Comm record_comm_ = MPI_COMM_NULL;
  int set_ = 0;  // which inboxes the next records arrive in
  std::vector<char> inboxes_;
  std::vector<MPI_Request> first_rx_, more_rx_, tx_;
};

}  // namespace

void mpi_initialize() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    check_mpi("init_process_group",
              MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided));
    EMBER_CHECK_T(DistBackendError, provided >= MPI_THREAD_MULTIPLE,
                  "[init_process_group] the MPI library does not provide MPI_THREAD_MULTIPLE");
    std::atexit(finalize_at_exit);
  }
  MpiOps& m = mpi_ops();
  std::call_once(m.once, [&] {
    static constexpr auto table = make_table(std::make_index_sequence<kNumDtypes * kNumOps>{});
    for (size_t i = 0; i < table.size(); ++i) {
      try {
        g_fns[i] = reduce_function(static_cast<ScalarType>(i / kNumOps),
                                   static_cast<ReduceOp>(i % kNumOps), "init_process_group");
      } catch (const TypeError&) {
        continue;  // a bitwise op on a floating-point dtype: refused before it gets here
      }
      MPI_Op_create(table[i], /*commute=*/1, &m.ops[i]);
    }
    for (int n = 1; n <= 8; ++n) {
      MPI_Type_contiguous(n, MPI_BYTE, &m.types[n]);
      MPI_Type_commit(&m.types[n]);
    }
  });
}

void mpi_world(int& rank, int& size) {
  mpi_initialize();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
}

std::unique_ptr<Backend> make_mpi_backend(const std::vector<int64_t>& world_ranks,
                                          std::chrono::milliseconds timeout) {
  mpi_initialize();
  int world = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  if (static_cast<int>(world_ranks.size()) == world)
    return std::make_unique<MpiBackend>(MPI_COMM_WORLD, timeout);
  // Only the members take part in making a group's communicator.
  MPI_Group all, part;
  std::vector<int> ranks(world_ranks.begin(), world_ranks.end());
  MPI_Comm_group(MPI_COMM_WORLD, &all);
  MPI_Group_incl(all, static_cast<int>(ranks.size()), ranks.data(), &part);
  MPI_Comm comm;
  check_mpi("new_group", MPI_Comm_create_group(MPI_COMM_WORLD, part, 0, &comm));
  MPI_Group_free(&part);
  MPI_Group_free(&all);
  return std::make_unique<MpiBackend>(comm, timeout);
}

}  // namespace ember::distributed::detail
