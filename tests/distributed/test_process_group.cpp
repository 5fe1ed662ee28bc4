// Process groups on gloo: the rendezvous (a store, env:// as `ember run` and mpirun set it,
// tcp://, file://), new_group, point-to-point rings, asynchronous Work, and the errors: bad
// arguments, mismatched collectives (an error on every rank), a peer that never arrives.

#include <filesystem>
#include <thread>

#include "distributed/dist_test_util.h"

using namespace ember;
using namespace ember::testing_dist;
using dist::ReduceOp;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

template <typename E, typename F>
bool throws(F&& f, const char* needle = "") {
  try {
    f();
  } catch (const E& e) {
    if (std::string(e.what()).find(needle) != std::string::npos) return true;
    std::fprintf(stderr, "wrong message: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wrong exception: %s\n", e.what());
  }
  return false;
}

TEST(ProcessGroup, TheInterfaceExample) {
  // The spelling that outside programs use, through env:// as `ember run` sets it.
  const uint16_t port = unused_port();
  auto status = run_children(3, [&](int rank) {
    ::setenv("RANK", std::to_string(rank).c_str(), 1);
    ::setenv("WORLD_SIZE", "3", 1);
    ::setenv("MASTER_ADDR", "127.0.0.1", 1);
    ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
    dist::init_process_group("gloo");
    DIST_CHILD_CHECK(dist::is_initialized() && dist::get_backend() == "gloo");
    ember::Tensor t = ember::full({4}, double(dist::get_rank() + 1));
    dist::all_reduce(t);
    DIST_CHILD_CHECK(holds(t, {6, 6, 6, 6}, "all_reduce SUM"));
    auto work = dist::all_reduce(t, dist::ReduceOp::AVG, /*group=*/nullptr, /*async_op=*/true);
    work->wait();
    DIST_CHILD_CHECK(holds(t, {6, 6, 6, 6}, "all_reduce AVG"));
    DIST_CHILD_CHECK(work->is_completed() && work->is_success() &&
                     work->status() == dist::WorkStatus::COMPLETED && !work->exception());
    dist::barrier();
    dist::destroy_process_group();
    DIST_CHILD_CHECK(!dist::is_initialized());
    return 0;
  });
  for (int r = 0; r < 3; ++r) EXPECT_EQ(status[r], 0) << "rank " << r;
}

TEST(ProcessGroup, OpenMpiEnvironmentAndOtherInitMethods) {
  // Under mpirun, OMPI_COMM_WORLD_RANK/SIZE stand in for RANK/WORLD_SIZE.
  const uint16_t port = unused_port();
  auto status = run_children(2, [&](int rank) {
    ::unsetenv("RANK");
    ::unsetenv("WORLD_SIZE");
    ::setenv("OMPI_COMM_WORLD_RANK", std::to_string(rank).c_str(), 1);
    ::setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
    ::setenv("OMPI_COMM_WORLD_LOCAL_RANK", std::to_string(rank).c_str(), 1);
    ::setenv("MASTER_ADDR", "127.0.0.1", 1);
    ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
    dist::init_process_group("gloo");
    DIST_CHILD_CHECK(dist::get_rank() == rank && dist::get_world_size() == 2);
    dist::destroy_process_group();
    return 0;
  });
  for (int r = 0; r < 2; ++r) EXPECT_EQ(status[r], 0) << "mpi env rank " << r;

  const uint16_t port2 = unused_port();
  status = run_children(2, [&](int rank) {
    dist::init_process_group("gloo", "tcp://127.0.0.1:" + std::to_string(port2), rank, 2, 20s);
    Tensor t = full({2}, double(rank));
    dist::all_reduce(t, ReduceOp::MAX);
    DIST_CHILD_CHECK(holds(t, {1, 1}, "tcp:// all_reduce"));
    dist::destroy_process_group();
    return 0;
  });
  for (int r = 0; r < 2; ++r) EXPECT_EQ(status[r], 0) << "tcp:// rank " << r;

  const std::string path =
      share((std::filesystem::temp_directory_path() / ("ember_pg_" + std::to_string(::getpid())))
                .string());
  status = run_children(2, [&](int rank) {
    dist::init_process_group("gloo", "file://" + path, rank, 2, 20s);
    Tensor t = full({2}, double(rank + 1));
    dist::all_reduce(t, ReduceOp::PRODUCT);
    DIST_CHILD_CHECK(holds(t, {2, 2}, "file:// all_reduce"));
    dist::destroy_process_group();
    return 0;
  });
  for (int r = 0; r < 2; ++r) EXPECT_EQ(status[r], 0) << "file:// rank " << r;
  std::filesystem::remove(path);
}

TEST(ProcessGroup, ArgumentErrors) {
  run_world(2, [](int r) {
    Tensor f = full({3}, 1.0);
    DIST_CHILD_CHECK(throws<ValueError>([&] { dist::broadcast(f, 5); }, "not part of the group"));
    DIST_CHILD_CHECK(throws<ValueError>([&] { dist::all_gather({f}, f); }, "world_size"));
    DIST_CHILD_CHECK(throws<TypeError>([&] { dist::all_reduce(f, ReduceOp::BAND); }, "BAND"));
    DIST_CHILD_CHECK(
        throws<TypeError>([&] { dist::all_reduce(full({1}, true), ReduceOp::AVG); }, "AVG"));
    DIST_CHILD_CHECK(throws<ValueError>([&] { dist::send(f, r); }, "same as rank"));
    DIST_CHILD_CHECK(throws<ValueError>(
        [&] {
          dist::all_to_all_single(f, f, {1, 1}, {3, 0, 0});
        },
        "split"));
    DIST_CHILD_CHECK(throws<ValueError>([&] {
      dist::gather(f, r == 0 ? std::vector<Tensor>{} : std::vector<Tensor>{f, f}, 0);
    }));
    DIST_CHILD_CHECK(throws<ValueError>([&] { dist::new_group({0, 7}); }, "out of range"));
    auto store2 = std::make_shared<dist::HashStore>();
    DIST_CHILD_CHECK(
        throws<RuntimeError>([&] { dist::init_process_group("gloo", store2, 0, 1); }, "twice"));
    // Nothing above reached the other rank: the group still works.
    Tensor t = full({2}, double(r));
    dist::all_reduce(t);
    DIST_CHILD_CHECK(holds(t, {1, 1}, "all_reduce after argument errors"));
    return 0;
  });

  // This process never initialised a group: every entry point says so. (Checked after the ranks
  // ran: the failed init attempts may leave threads behind, and a fork after that can hang under
  // the sanitizers.)
  EXPECT_FALSE(dist::is_initialized());
  EXPECT_THROW(dist::get_rank(), RuntimeError);
  EXPECT_THROW(dist::all_reduce(full({1}, 1.0)), RuntimeError);
  auto store = std::make_shared<dist::HashStore>();
  EXPECT_THROW(dist::init_process_group("nccl", store, 0, 1), ValueError);
  EXPECT_THROW(dist::init_process_group("gloo", store, 1, 1), ValueError);
  EXPECT_THROW(dist::init_process_group("gloo", store, 0, 0), ValueError);
  EXPECT_THROW(dist::init_process_group("gloo", "bogus://x", 0, 1), ValueError);
  EXPECT_THROW(dist::init_process_group("gloo", "tcp://127.0.0.1:1"), ValueError);
}

TEST(ProcessGroup, MismatchIsAnErrorOnEveryRank) {
  run_world(3, [](int r) {
    // Sizes differ on rank 1.
    DIST_CHILD_CHECK(throws<RuntimeError>([&] { dist::all_reduce(full({r == 1 ? 5 : 4}, 1.0)); },
                                          "Detected mismatch"));
    // One rank's data too big to ride in the records (Note [Records]), the others' small.
    DIST_CHILD_CHECK(throws<RuntimeError>(
        [&] { dist::all_reduce(full({r == 1 ? 70000 : 4}, 1.0)); }, "Detected mismatch"));
    // Dtypes differ on rank 2.
    DIST_CHILD_CHECK(throws<RuntimeError>(
        [&] {
          dist::all_reduce(full({4}, 1.0, TensorOptions().dtype(r == 2 ? kFloat64 : kFloat32)));
        },
        "Detected mismatch"));
    // Different collectives, and different roots.
    DIST_CHILD_CHECK(throws<RuntimeError>(
        [&] {
          Tensor t = full({4}, 1.0);
          if (r == 0)
            dist::broadcast(t, 0);
          else
            dist::all_reduce(t);
        },
        "is running collective"));
    DIST_CHILD_CHECK(
        throws<RuntimeError>([&] { dist::broadcast(full({2}, 1.0), r == 0 ? 1 : 0); }));
    // all_to_all_single whose splits disagree: rank 0 sends 2 rows to rank 1, which expects 1.
    DIST_CHILD_CHECK(throws<RuntimeError>(
        [&] {
          std::vector<int64_t> in{1, 1, 1}, out{1, 1, 1};
          if (r == 0) in = {0, 2, 1};
          dist::all_to_all_single(zeros({3, 2}), zeros({3, 2}), out, in);
        },
        "expects"));
    // The group is still in step afterwards.
    Tensor t = full({2}, 1.0);
    dist::all_reduce(t);
    DIST_CHILD_CHECK(holds(t, {3, 3}, "all_reduce after mismatches"));
    return 0;
  });
}

TEST(ProcessGroup, PeerThatNeverArrivesTimesOut) {
  const auto server = serve_children();
  const uint16_t port = server.port;
  auto status = run_children(
      2,
      [&](int rank) {
        dist::TCPStoreOptions o;
        o.port = port;
        o.timeout = 10s;
        auto store = std::make_shared<dist::TCPStore>("127.0.0.1", o);
        dist::init_process_group("gloo", store, rank, 2, 1000ms);
        if (rank == 1) {
          store->wait({"rank0_done"}, 20s);  // skips the collective; waits for rank 0 to give up
        } else {
          auto t0 = Clock::now();
          DIST_CHILD_CHECK(throws<DistTimeoutError>([&] { dist::all_reduce(full({4}, 1.0)); }));
          const double s = seconds_since(t0);
          DIST_CHILD_CHECK(s >= 0.9 && s < 8);
          store->set("rank0_done", "1");
        }
        return 0;
      },
      std::chrono::seconds(30));
  for (int r = 0; r < 2; ++r) EXPECT_EQ(status[r], 0) << "rank " << r;

  // A rank that never joins: the rendezvous gives up with the store's timeout.
  const auto server2 = serve_children();
  const uint16_t port2 = server2.port;
  status = run_children(
      1,
      [&](int) {
        dist::TCPStoreOptions o;
        o.port = port2;
        o.timeout = 500ms;
        auto store = std::make_shared<dist::TCPStore>("127.0.0.1", o);
        auto t0 = Clock::now();
        DIST_CHILD_CHECK(throws<DistBackendError>(
            [&] { dist::init_process_group("gloo", store, 0, 2, 500ms); }));
        DIST_CHILD_CHECK(seconds_since(t0) < 8);
        DIST_CHILD_CHECK(!dist::is_initialized());
        return 0;
      },
      std::chrono::seconds(30));
  EXPECT_EQ(status[0], 0);
}

TEST(ProcessGroup, AsyncWorkOverlapsAndKeepsIssueOrder) {
  run_world(2, [](int r) {
    // Several operations in flight at once complete in issue order on the group's thread.
    Tensor big = full({1 << 20}, double(r + 1));
    Tensor a = full({8}, double(r));
    auto w1 = dist::all_reduce(big, ReduceOp::SUM, nullptr, true);
    auto w2 = dist::all_reduce(a, ReduceOp::MAX, nullptr, true);
    auto w3 = dist::broadcast(a, 0, nullptr, true);              // sees a after w2 has run
    Tensor local = randn({128, 128}).matmul(randn({128, 128}));  // meanwhile, local work
    w3->wait();
    w1->wait();
    DIST_CHILD_CHECK(w2->is_completed() && local.numel() == 128 * 128);
    DIST_CHILD_CHECK(holds(a, std::vector<double>(8, 1), "max then broadcast"));
    DIST_CHILD_CHECK(values(big)[12345] == 3 && values(big)[(1 << 20) - 1] == 3);
    // A blocking call issued while asynchronous ones are queued runs after them (blocking calls
    // on an idle group run on the caller's thread; these must not overtake the queue).
    Tensor c = full({4}, double(r + 1));
    Tensor d = full({1 << 16}, double(r + 1));
    auto w4 = dist::all_reduce(d, ReduceOp::SUM, nullptr, true);
    auto w5 = dist::all_reduce(c, ReduceOp::SUM, nullptr, true);
    dist::broadcast(c, 1);  // sees c after w5
    DIST_CHILD_CHECK(w4->is_completed() && w5->is_completed());
    DIST_CHILD_CHECK(holds(c, std::vector<double>(4, 3), "all_reduce then blocking broadcast"));

    // Work.wait with a timeout: rank 1 arrives late, rank 0 gives up waiting but the work goes on.
    Tensor late = full({2}, 1.0);
    if (r == 1) std::this_thread::sleep_for(600ms);
    auto w = dist::all_reduce(late, ReduceOp::SUM, nullptr, true);
    if (r == 0) {
      DIST_CHILD_CHECK(throws<DistTimeoutError>([&] { w->wait(50ms); }, "timed out"));
      DIST_CHILD_CHECK(w->status() == dist::WorkStatus::TIMEDOUT);
    }
    DIST_CHILD_CHECK(w->wait());
    DIST_CHILD_CHECK(w->status() == dist::WorkStatus::COMPLETED);
    DIST_CHILD_CHECK(holds(late, {2, 2}, "late all_reduce"));
    // An error in an async operation is kept in its Work and rethrown by wait.
    auto bad = dist::all_reduce(full({r == 0 ? 3 : 4}, 1.0), ReduceOp::SUM, nullptr, true);
    DIST_CHILD_CHECK(throws<RuntimeError>([&] { bad->wait(); }, "mismatch"));
    DIST_CHILD_CHECK(bad->status() == dist::WorkStatus::ERROR && bad->exception());
    return 0;
  });
}

TEST(ProcessGroup, PointToPointRings) {
  for (int W : {2, 3, 4}) {
    run_world(W, [W](int r) {
      const int next = (r + 1) % W, prev = (r + W - 1) % W;
      // Blocking ring: even ranks send first so that nobody waits on a receive forever.
      Tensor got = zeros({3});
      if (r % 2 == 0) {
        dist::send(full({3}, double(r)), next);
        dist::recv(got, prev);
      } else {
        dist::recv(got, prev);
        dist::send(full({3}, double(r)), next);
      }
      DIST_CHILD_CHECK(holds(got, std::vector<double>(3, prev), "ring send/recv"));
      // isend/irecv with tags, into a non-contiguous view.
      Tensor base = zeros({6}, TensorOptions().dtype(kInt64));
      auto rw = dist::irecv(base.slice(0, 0, 6, 2), prev, nullptr, 7);
      auto sw = dist::isend(full({3}, 10.0 * r, TensorOptions().dtype(kInt64)), next, nullptr, 7);
      sw->wait();
      rw->wait();
      DIST_CHILD_CHECK(holds(base, {10.0 * prev, 0, 10.0 * prev, 0, 10.0 * prev, 0}, "irecv view"));
      // batch_isend_irecv, both directions at once, bfloat16.
      Tensor from_prev = zeros({2}, TensorOptions().dtype(kBFloat16));
      Tensor from_next = zeros({2}, TensorOptions().dtype(kBFloat16));
      std::vector<dist::P2POp> ops;
      ops.emplace_back(dist::P2POp::Kind::ISEND,
                       full({2}, double(r), TensorOptions().dtype(kBFloat16)), next);
      ops.emplace_back(dist::P2POp::Kind::ISEND,
                       full({2}, double(r), TensorOptions().dtype(kBFloat16)), prev, nullptr, 1);
      ops.emplace_back(dist::P2POp::Kind::IRECV, from_prev, prev);
      ops.emplace_back(dist::P2POp::Kind::IRECV, from_next, next, nullptr, 1);
      for (auto& w : dist::batch_isend_irecv(ops)) w->wait();
      DIST_CHILD_CHECK(holds(from_prev, {double(prev), double(prev)}, "batch from prev"));
      DIST_CHILD_CHECK(holds(from_next, {double(next), double(next)}, "batch from next"));
      // recv from any source reports the sender.
      if (r == 0) {
        for (int k = 1; k < W; ++k) {
          Tensor any = zeros({1});
          const int64_t from = dist::recv(any, -1, nullptr, 3);
          DIST_CHILD_CHECK(from >= 1 && from < W && values(any)[0] == from);
        }
      } else {
        dist::send(full({1}, double(r)), 0, nullptr, 3);
      }
      return 0;
    });
  }
}

TEST(ProcessGroup, NewGroup) {
  run_world(4, [](int r) {
    auto odd = dist::new_group({3, 1});
    auto all = dist::new_group();
    const bool member = r % 2 == 1;
    DIST_CHILD_CHECK(dist::get_rank(odd) == (member ? (r - 1) / 2 : -1));
    DIST_CHILD_CHECK(dist::get_world_size(odd) == (member ? 2 : -1));
    DIST_CHILD_CHECK(dist::get_rank(all) == r && dist::get_world_size(all) == 4);
    Tensor t = full({2}, double(r));
    auto w = dist::all_reduce(t, ReduceOp::SUM, odd);
    DIST_CHILD_CHECK(w->is_completed());
    // Members sum 1 + 3; a non-member's call does nothing.
    DIST_CHILD_CHECK(holds(t, std::vector<double>(2, member ? 4 : r), "group all_reduce"));
    // Roots are global ranks.
    Tensor b = full({1}, double(r));
    dist::broadcast(b, 3, odd);
    DIST_CHILD_CHECK(holds(b, {member ? 3.0 : r}, "group broadcast"));
    Tensor s = full({1}, 1.0);
    dist::all_reduce(s, ReduceOp::SUM, all);
    DIST_CHILD_CHECK(holds(s, {4}, "whole-world group"));
    dist::destroy_process_group(odd);
    dist::barrier();
    return 0;
  });
}

}  // namespace
