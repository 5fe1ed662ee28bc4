// Gloo's allreduce called directly (libgloo only, no Ember): the gloo "engine" column of
// bench/allreduce_bench.sh, measured as bench/bench_allreduce.cpp measures Ember. One process
// per rank (RANK, WORLD_SIZE from `ember run`); rendezvous through Gloo's own FileStore in
// GLOO_STORE_DIR (a fresh directory per run); float32 SUM with Gloo's own gloo::sum.
//   gloo_allreduce [--cases BYTES:ITERS,...]
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#include "allreduce_cases.h"

namespace {

int env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v) {
    std::fprintf(stderr, "gloo_allreduce: %s is not set\n", name);
    std::exit(2);
  }
  return std::atoi(v);
}

using ReduceFn = void (*)(void*, const void*, const void*, size_t);

}  // namespace

int main(int argc, char** argv) {
  const auto cases = bench::parse_cases(argc, argv);
  if (cases.empty()) return 2;
  const int rank = env_int("RANK"), size = env_int("WORLD_SIZE");
  const char* dir = std::getenv("GLOO_STORE_DIR");
  if (!dir) {
    std::fprintf(stderr, "gloo_allreduce: GLOO_STORE_DIR is not set\n");
    return 2;
  }
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = "127.0.0.1";
    auto device = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    context->setTimeout(std::chrono::seconds(120));
    gloo::rendezvous::FileStore store(dir);
    context->connectFullMesh(store, device);

    uint32_t tag = 0;  // one per collective, as c10d's gloo process group does
    auto barrier = [&] {
      gloo::BarrierOptions o(context);
      o.setTag(tag++);
      gloo::barrier(o);
    };
    for (const auto& c : cases) {
      std::vector<float> buf(c.bytes / sizeof(float), 1.0f);
      std::vector<double> us;
      for (int it = -1; it < c.iters; ++it) {  // iteration -1 warms up
        barrier();
        const auto t0 = std::chrono::steady_clock::now();
        gloo::AllreduceOptions o(context);
        o.setOutput(buf.data(), buf.size());
        o.setReduceFunction(static_cast<ReduceFn>(&gloo::sum<float>));
        o.setTag(tag++);
        gloo::allreduce(o);
        if (it >= 0) us.push_back(bench::micros_since(t0));
      }
      double med = bench::median(us);
      gloo::AllreduceOptions o(context);  // the slowest rank's median
      o.setOutput(&med, 1);
      o.setReduceFunction(static_cast<ReduceFn>(&gloo::max<double>));
      o.setTag(tag++);
      gloo::allreduce(o);
      if (rank == 0) bench::report(c, med);
    }
    barrier();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gloo_allreduce: rank %d: %s\n", rank, e.what());
    return 1;
  }
  return 0;
}
