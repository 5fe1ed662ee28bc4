// Fused linear + cross-entropy (issue 16 item 6) next to the unfused
// cross_entropy(linear(x, W, b), t): time of one forward + backward, and the peak extra memory
// (the allocator's high-water mark above what existed before, less the gradients both return),
// rated against the target "peak extra memory <= 1/10 of the unfused logits".
// bench/lce_side_by_side.sh adds PyTorch's unfused time.
//
//   bench_lce [--shape=N,D,C] [Google Benchmark flags]   (default 4096,512,32000)
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/functional.h"

namespace {

namespace F = ember::nn::functional;
using ember::Tensor;

int64_t N = 4096, D = 512, C = 32000;

struct Inputs {
  Tensor x, w, b, t;
};

Inputs make_inputs() {
  ember::manual_seed(0);
  return {ember::randn({N, D}) * 0.5, ember::randn({C, D}) * 0.05, ember::randn({C}) * 0.01,
          ember::randint(0, C, {N})};
}

/// One forward + backward; returns the loss.
double step(const Inputs& in, bool fused) {
  Tensor x = in.x.detach().requires_grad_(), w = in.w.detach().requires_grad_();
  Tensor b = in.b.detach().requires_grad_();
  Tensor loss;
  if (fused) {
    loss = F::linear_cross_entropy(x, w, in.t,
                                   F::LinearCrossEntropyFuncOptions().linear_bias(b).options(
                                       ember::nn::LinearCrossEntropyOptions()));
  } else {
    loss = F::cross_entropy(F::linear(x, w, b), in.t);
  }
  loss.backward();
  return loss.item<double>();
}

/// Bytes above the level before one step at its high-water mark, less the gradients.
int64_t peak_extra(const Inputs& in, bool fused) {
  const int64_t grads = (N * D + C * D + C) * 4;
  const int64_t base = ember::memory_stats().allocated;
  ember::reset_peak_memory_stats();
  step(in, fused);
  return ember::memory_stats().peak_allocated - base - grads;
}

void BM_LinearCrossEntropy(benchmark::State& state) {
  static const Inputs in = make_inputs();
  const bool fused = state.range(0) == 1;
  for (auto _ : state) benchmark::DoNotOptimize(step(in, fused));
  state.counters["peak_extra_MiB"] = static_cast<double>(peak_extra(in, fused)) / (1 << 20);
  state.SetLabel(fused ? "fused (options: auto)" : "unfused");
}
BENCHMARK(BM_LinearCrossEntropy)
    ->ArgName("fused")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--shape=", 8) == 0) {
      if (std::sscanf(argv[i] + 8, "%ld,%ld,%ld", &N, &D, &C) != 3) {
        std::fprintf(stderr, "bench_lce: --shape=N,D,C expected, got %s\n", argv[i]);
        return 2;
      }
    } else {
      rest.push_back(argv[i]);
    }
  }
  {
    const Inputs in = make_inputs();
    step(in, true);  // warm the allocator's cache and the GEMM providers
    const int64_t fused = peak_extra(in, true), unfused = peak_extra(in, false);
    const double logits = static_cast<double>(N * C * 4), mib = 1 << 20;
    const int64_t chunk = ember::nn::LinearCrossEntropyOptions().resolve_chunk(N, D, C);
    std::printf("linear_cross_entropy N=%ld D=%ld C=%ld float32, chunk %ld rows\n", N, D, C, chunk);
    std::printf("  unfused logits (N x C):       %9.1f MiB\n", logits / mib);
    std::printf("  peak extra memory, unfused:   %9.1f MiB\n", unfused / mib);
    std::printf("  peak extra memory, fused:     %9.1f MiB\n", fused / mib);
    std::printf("  fused / unfused logits:       %9.4f  (target <= 0.1000: %s)\n", fused / logits,
                fused / logits <= 0.1 ? "met" : "NOT met");
    std::fflush(stdout);
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
