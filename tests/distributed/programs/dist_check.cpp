// End-to-end check of a launched job: every collective once, on the backend named by argv[1]
// ("gloo": started by `ember run` or mpirun, env:// rendezvous; "mpi": started by mpirun).
// Each rank prints what failed and exits 1; 0 when everything matched local computations.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ember/distributed.h"
#include "ember/ember.h"

namespace dist = ember::distributed;
using ember::Tensor;
using ember::TensorOptions;

namespace {

int failures = 0;

void expect(bool ok, const char* what, int64_t rank) {
  if (ok) return;
  std::fprintf(stderr, "rank %lld: %s is wrong\n", static_cast<long long>(rank), what);
  ++failures;
}

Tensor opts_full(std::vector<int64_t> sizes, double v, ember::ScalarType dtype) {
  return ember::full(sizes, v, TensorOptions().dtype(dtype));
}

bool close_to(const Tensor& a, const Tensor& b) {
  return a.to(ember::kFloat64).allclose(b.to(ember::kFloat64), 1e-2, 1e-6);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string backend = argc > 1 ? argv[1] : "gloo";
  dist::init_process_group(backend);
  const int64_t r = dist::get_rank(), W = dist::get_world_size();
  const char* env_rank = std::getenv(std::getenv("RANK") ? "RANK" : "OMPI_COMM_WORLD_RANK");
  expect(env_rank && std::atoll(env_rank) == r, "get_rank against the launcher's variables", r);

  Tensor t = ember::full({4}, double(r + 1));
  dist::all_reduce(t);
  expect(close_to(t, ember::full({4}, W * (W + 1) / 2.0)), "all_reduce SUM", r);
  Tensor a = ember::full({4}, double(r + 1));
  auto w = dist::all_reduce(a, dist::ReduceOp::AVG, nullptr, true);
  w->wait();
  expect(close_to(a, ember::full({4}, (W + 1) / 2.0)), "all_reduce AVG (async)", r);
  Tensor m = opts_full({3}, double(r), ember::kBFloat16);
  dist::all_reduce(m, dist::ReduceOp::MAX);
  expect(close_to(m, ember::full({3}, double(W - 1))), "all_reduce MAX bfloat16", r);
  Tensor p = opts_full({3}, 2.0, ember::kFloat16);
  dist::all_reduce(p, dist::ReduceOp::PRODUCT);
  expect(close_to(p, ember::full({3}, double(1 << W))), "all_reduce PRODUCT float16", r);
  Tensor x = opts_full({2}, double(1 << r), ember::kInt32);
  dist::all_reduce(x, dist::ReduceOp::BXOR);
  expect(close_to(x, ember::full({2}, double((1 << W) - 1))), "all_reduce BXOR int32", r);

  Tensor b = ember::full({5}, double(r));
  dist::broadcast(b, W - 1);
  expect(close_to(b, ember::full({5}, double(W - 1))), "broadcast", r);
  Tensor red = ember::full({2}, 1.0);
  dist::reduce(red, 0);
  expect(close_to(red, ember::full({2}, r == 0 ? double(W) : 1.0)), "reduce", r);

  Tensor gathered = ember::zeros({W}, TensorOptions().dtype(ember::kInt64));
  dist::all_gather_into_tensor(gathered, opts_full({1}, double(r), ember::kInt64));
  expect(close_to(gathered, ember::arange(W)), "all_gather_into_tensor", r);
  Tensor part = ember::zeros({1}, TensorOptions().dtype(ember::kFloat64));
  dist::reduce_scatter_tensor(part, ember::arange(W).to(ember::kFloat64));
  expect(close_to(part, ember::full({1}, double(r * W))), "reduce_scatter_tensor", r);

  // Uneven all_to_all_single: rank s sends s + 1 rows (value s) to every rank.
  std::vector<int64_t> in_splits(W, r + 1), out_splits;
  for (int64_t s = 0; s < W; ++s) out_splits.push_back(s + 1);
  Tensor in = ember::full({W * (r + 1), 2}, double(r));
  Tensor out = ember::zeros({W * (W + 1) / 2, 2});
  dist::all_to_all_single(out, in, out_splits, in_splits);
  std::vector<Tensor> want_rows;
  for (int64_t s = 0; s < W; ++s) want_rows.push_back(ember::full({s + 1, 2}, double(s)));
  expect(close_to(out, ember::cat(want_rows)), "all_to_all_single (uneven)", r);

  std::vector<Tensor> list;
  if (r == 0)
    for (int64_t s = 0; s < W; ++s) list.push_back(ember::zeros({2}));
  dist::gather(ember::full({2}, double(r)), list, 0);
  for (int64_t s = 0; s < static_cast<int64_t>(list.size()); ++s)
    expect(close_to(list[s], ember::full({2}, double(s))), "gather", r);
  Tensor got = ember::zeros({2});
  dist::scatter(got, list, 0);
  expect(close_to(got, ember::full({2}, double(r))), "scatter", r);

  if (W > 1) {
    Tensor from_prev = ember::zeros({3});
    auto rw = dist::irecv(from_prev, (r + W - 1) % W);
    dist::isend(ember::full({3}, double(r)), (r + 1) % W)->wait();
    rw->wait();
    expect(close_to(from_prev, ember::full({3}, double((r + W - 1) % W))), "isend/irecv ring", r);
  }

  std::vector<int64_t> even_ranks;
  double even_sum = 0;
  for (int64_t s = 0; s < W; s += 2) {
    even_ranks.push_back(s);
    even_sum += double(s);
  }
  auto evens = dist::new_group(even_ranks);
  Tensor e = ember::full({1}, double(r));
  dist::all_reduce(e, dist::ReduceOp::SUM, evens);
  expect(close_to(e, ember::full({1}, r % 2 == 0 ? even_sum : double(r))), "new_group", r);

  // Past what rides in the agreement's records: the engine's own collectives (a built-in and a
  // user-defined MPI operation).
  const int64_t big = 100000;
  Tensor s = ember::full({big}, double(r + 1));
  dist::all_reduce(s);
  expect(close_to(s, ember::full({big}, W * (W + 1) / 2.0)), "all_reduce SUM (big)", r);
  Tensor bm = opts_full({big}, double(r), ember::kBFloat16);
  dist::all_reduce(bm, dist::ReduceOp::MAX);
  expect(close_to(bm, ember::full({big}, double(W - 1))), "all_reduce MAX bfloat16 (big)", r);

  // Mismatched sizes are an error on every rank, and the group stays usable; also when one
  // rank's data is too big for the records and the others' is not.
  if (W > 1)
    for (int64_t other : {3, 100000}) {
      bool raised = false;
      try {
        dist::all_reduce(ember::zeros({r == 1 ? other : 2}));
      } catch (const ember::RuntimeError&) {
        raised = true;
      }
      expect(raised, "the mismatch error", r);
    }

  // A peer that never arrives: DistTimeoutError after the group's timeout (rank 1 skips it).
  if (W > 1) {
    auto pair = dist::new_group({0, 1}, std::chrono::milliseconds(300));
    if (r == 0) {
      bool timed_out = false;
      try {
        dist::all_reduce(ember::ones({2}), dist::ReduceOp::SUM, pair);
      } catch (const ember::DistTimeoutError&) {
        timed_out = true;
      }
      expect(timed_out, "the timeout of a collective a peer skips", r);
    }
  }
  dist::barrier();
  dist::destroy_process_group();
  std::printf("rank %lld of %lld (%s): %s\n", static_cast<long long>(r), static_cast<long long>(W),
              backend.c_str(), failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
