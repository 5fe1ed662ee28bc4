// The "mpi" backend: Open MPI's nonblocking collectives, polled to completion so that the group's
// timeout applies (MPI itself has none). float16/bfloat16 and the bitwise ops reduce through
// user-defined MPI operations built from the same element functions as the gloo backend.
#include <ember/core/error.h>

#define OMPI_SKIP_MPICXX 1  // the C API only
#include <mpi.h>

#include <array>
#include <climits>
#include <cstdlib>
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

// The element type and the operation for a dtype (MPI reduces whole elements).
std::pair<MPI_Datatype, MPI_Op> mpi_type_and_op(ScalarType dtype, ReduceOp op, const char* api) {
  reduce_function(dtype, op, api);  // rejects bitwise ops on floats
  MpiOps& m = mpi_ops();
  return {m.types[element_size(dtype)],
          m.ops[static_cast<int>(dtype) * kNumOps + static_cast<int>(op)]};
}

class MpiBackend final : public Backend {
 public:
  MpiBackend(MPI_Comm comm, std::chrono::milliseconds timeout) : comm_(comm), timeout_(timeout) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiBackend() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && comm_ != MPI_COMM_WORLD) MPI_Comm_free(&comm_);
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
  int finish(const char* what, MPI_Request& r, std::chrono::milliseconds timeout = {}) {
    const auto limit = timeout.count() ? timeout : timeout_;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    int done = 0, spins = 0;
    MPI_Status status{};
    while (true) {
      check_mpi(what, MPI_Test(&r, &done, &status));
      if (done) return status.MPI_SOURCE;
      EMBER_CHECK_T(DistTimeoutError, std::chrono::steady_clock::now() < deadline, "[", what,
                    "] mpi timed out after ", limit.count(), "ms");
      if (++spins > 1000) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  MPI_Comm comm_;
  std::chrono::milliseconds timeout_;
  int rank_ = 0, size_ = 1;
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
