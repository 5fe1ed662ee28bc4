// Data-parallel basics with ember::distributed: every rank contributes its own tensor, all_reduce
// sums them in place, an asynchronous AVG overlaps some local work, and rank 0 reports.
// Run it through the launcher, which sets RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT:
//   build/default/ember run --nproc-per-node 3 -- build/default/examples/ember_distributed
// Exits non-zero when a result is off.
#include <ember/distributed.h>
#include <ember/ember.h>

#include <cstdio>

namespace dist = ember::distributed;

int main() {
  dist::init_process_group("gloo");  // env:// rendezvous
  const int64_t rank = dist::get_rank(), world = dist::get_world_size();

  ember::Tensor t = ember::full({4}, double(rank + 1));
  dist::all_reduce(t);  // SUM, in place, blocking
  const double sum = world * (world + 1) / 2.0;
  bool ok = t.allclose(ember::full({4}, sum));

  ember::Tensor avg = ember::full({4}, double(rank + 1));
  auto work = dist::all_reduce(avg, dist::ReduceOp::AVG, /*group=*/nullptr, /*async_op=*/true);
  ember::Tensor local = ember::randn({64, 64}).matmul(ember::randn({64, 64}));  // overlaps
  work->wait();
  ok = ok && avg.allclose(ember::full({4}, sum / world)) && local.numel() == 64 * 64;

  dist::barrier();
  std::printf("rank %lld of %lld: sum %.1f, average %.2f: %s\n", static_cast<long long>(rank),
              static_cast<long long>(world), t[0].item<double>(), avg[0].item<double>(),
              ok ? "ok" : "WRONG");
  dist::destroy_process_group();
  return ok ? 0 : 1;
}
