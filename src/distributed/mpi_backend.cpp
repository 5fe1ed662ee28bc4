// The "mpi" backend: Open MPI's nonblocking collectives, polled to completion so that the group's
// timeout applies (MPI itself has none). float16/bfloat16 and the bitwise ops reduce through
// user-defined MPI operations built from the same element functions as the gloo backend.
#include <ember/core/error.h>

#define OMPI_SKIP_MPICXX 1  // the C API only
#include <mpi.h>

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
    // exchange()'s records travel on a communicator of their own, into receives posted ahead.
    check_mpi("init_process_group", MPI_Comm_dup(comm_, &record_comm_));
    records_in_.resize(static_cast<size_t>(size_) * kRecordBytes);
    record_rx_.assign(static_cast<size_t>(size_), MPI_REQUEST_NULL);
    record_tx_.assign(static_cast<size_t>(size_), MPI_REQUEST_NULL);
    for (int r = 0; r < size_; ++r)
      if (r != rank_) post_record_recv(r);
  }
  ~MpiBackend() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    for (auto& req : record_rx_) {
      if (req == MPI_REQUEST_NULL) continue;
      MPI_Cancel(&req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&record_comm_);
    if (comm_ != MPI_COMM_WORLD) MPI_Comm_free(&comm_);
  }

  // One message from each rank to each, into receives posted since the previous exchange: the
  // collectives' agreement check costs one message latency rather than a nonblocking allgather.
  void exchange(const char* api, const void* mine, void* all, size_t bytes) override {
    if (bytes > kRecordBytes) return allgather(mine, all, bytes);
    std::memcpy(record_out_, mine, bytes);
    for (int r = 0; r < size_; ++r)
      if (r != rank_)
        check_mpi(api, MPI_Isend(record_out_, static_cast<int>(bytes), MPI_BYTE, r, 0, record_comm_,
                                 &record_tx_[r]));
    for (int r = 0; r < size_; ++r) {
      char* block = static_cast<char*>(all) + static_cast<size_t>(r) * bytes;
      if (r == rank_) {
        std::memcpy(block, mine, bytes);
        continue;
      }
      finish(api, record_rx_[r]);
      std::memcpy(block, records_in_.data() + static_cast<size_t>(r) * kRecordBytes, bytes);
      post_record_recv(r);
    }
    for (int r = 0; r < size_; ++r)
      if (r != rank_) finish(api, record_tx_[r]);
  }

  void allreduce(void* buf, size_t count, ScalarType dtype, ReduceOp op) override {
    auto [type, mop] = mpi_type_and_op(dtype, op, "all_reduce");
    MPI_Request r;
    check_mpi("all_reduce", MPI_Iallreduce(MPI_IN_PLACE, buf, to_int(count), type, mop, comm_, &r));
    finish("all_reduce", r);
  }

  void reduce(void* buf, size_t count, ScalarType dtype, ReduceOp op, int root) override {
    auto [type, mop] = mpi_type_and_op(dtype, op, "reduce");
    MPI_Request r;
    const bool is_root = rank_ == root;
    check_mpi("reduce", MPI_Ireduce(is_root ? MPI_IN_PLACE : buf, is_root ? buf : nullptr,
                                    to_int(count), type, mop, root, comm_, &r));
    finish("reduce", r);
  }

  void broadcast(void* buf, size_t bytes, int root) override {
    MPI_Request r;
    check_mpi("broadcast", MPI_Ibcast(buf, to_int(bytes), MPI_BYTE, root, comm_, &r));
    finish("broadcast", r);
  }

  void allgather(const void* in, void* out, size_t bytes) override {
    MPI_Request r;
    check_mpi("all_gather",
              MPI_Iallgather(in, to_int(bytes), MPI_BYTE, out, to_int(bytes), MPI_BYTE, comm_, &r));
    finish("all_gather", r);
  }

  void gather(const void* in, void* out, size_t bytes, int root) override {
    MPI_Request r;
    check_mpi("gather", MPI_Igather(in, to_int(bytes), MPI_BYTE, out, to_int(bytes), MPI_BYTE, root,
                                    comm_, &r));
    finish("gather", r);
  }

  void scatter(const void* in, void* out, size_t bytes, int root) override {
    MPI_Request r;
    check_mpi("scatter", MPI_Iscatter(in, to_int(bytes), MPI_BYTE, out, to_int(bytes), MPI_BYTE,
                                      root, comm_, &r));
    finish("scatter", r);
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
    MPI_Request r;
    check_mpi("all_to_all",
              MPI_Ialltoallv(in ? in : empty, sc.data(), sd.data(), MPI_BYTE, out ? out : empty,
                             rc.data(), rd.data(), MPI_BYTE, comm_, &r));
    finish("all_to_all", r);
  }

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
  // Open MPI moves a nonblocking collective on only inside MPI calls, so the first milliseconds
  // are spent testing without pause (as its blocking calls do); later tests are spaced out so
  // that a long wait (a late peer) leaves the core to others.
  int finish(const char* what, MPI_Request& r, std::chrono::milliseconds timeout = {}) {
    const auto limit = timeout.count() ? timeout : timeout_;
    const auto start = std::chrono::steady_clock::now(), deadline = start + limit;
    const auto spin_until = start + std::chrono::milliseconds(2);
    int done = 0;
    MPI_Status status{};
    for (int polls = 0;; ++polls) {
      check_mpi(what, MPI_Test(&r, &done, &status));
      if (done) return status.MPI_SOURCE;
      if (polls % 64) continue;  // the clock is read now and then
      const auto now = std::chrono::steady_clock::now();
      EMBER_CHECK_T(DistTimeoutError, now < deadline, "[", what, "] mpi timed out after ",
                    limit.count(), "ms");
      if (now > spin_until) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  void post_record_recv(int r) {
    check_mpi("exchange", MPI_Irecv(records_in_.data() + static_cast<size_t>(r) * kRecordBytes,
                                    static_cast<int>(kRecordBytes), MPI_BYTE, r, 0, record_comm_,
                                    &record_rx_[r]));
  }

  static constexpr size_t kRecordBytes = 128;
  MPI_Comm comm_;
  std::chrono::milliseconds timeout_;
  int rank_ = 0, size_ = 1;
  MPI_Comm record_comm_ = MPI_COMM_NULL;
  char record_out_[kRecordBytes] = {};
  std::vector<char> records_in_;
  std::vector<MPI_Request> record_rx_, record_tx_;
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
