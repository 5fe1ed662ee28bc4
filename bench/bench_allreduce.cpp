// all_reduce float32 SUM through Ember's process group (issue 15's benchmark table), run once per
// rank by bench/allreduce_bench.sh: under `ember run` for "gloo" (env://) and under mpirun for
// "mpi". The same measurement as the engine's own programs (bench/peers/gloo_allreduce.cpp,
// mpi_allreduce.cpp) and PyTorch's (bench/peers/allreduce_peer.py): per iteration a barrier, then
// one timed blocking all_reduce; each rank's median, the slowest rank's reported.
//   bench_allreduce gloo|mpi [--cases BYTES:ITERS,...]
// Prints on rank 0 one line per case: "RESULT bytes=B iters=N us=T".
#include <ember/distributed.h>
#include <ember/ember.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "peers/allreduce_cases.h"

namespace dist = ember::distributed;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_allreduce gloo|mpi [--cases BYTES:ITERS,...]\n");
    return 2;
  }
  const std::string backend = argv[1];
  const auto cases = bench::parse_cases(argc - 1, argv + 1);
  if (cases.empty()) return 2;
  try {
    ember::set_num_threads(1);
    dist::init_process_group(backend);
    for (const auto& c : cases) {
      ember::Tensor t = ember::ones({static_cast<int64_t>(c.bytes / sizeof(float))});
      std::vector<double> us;
      for (int it = -1; it < c.iters; ++it) {  // iteration -1 warms up
        dist::barrier();
        const auto t0 = std::chrono::steady_clock::now();
        dist::all_reduce(t);
        if (it >= 0) us.push_back(bench::micros_since(t0));
      }
      ember::Tensor med = ember::tensor(std::vector<double>{bench::median(us)});
      dist::all_reduce(med, dist::ReduceOp::MAX);
      if (dist::get_rank() == 0) bench::report(c, med.item<double>());
    }
    dist::destroy_process_group();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_allreduce: %s\n", e.what());
    return 1;
  }
  return 0;
}
