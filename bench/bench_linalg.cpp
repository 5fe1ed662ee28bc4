// ember::linalg: batched small matrices (the automatic engine choice, and each engine forced:
// native or LAPACK per matrix) and one large matrix. bench/linalg_side_by_side.sh runs this next
// to the same shapes in torch.linalg (bench/peers/linalg_peer.py) and prints the ratios.
#include <benchmark/benchmark.h>

#include "backend/cpu/linalg_util.h"
#include "ember/ember.h"
#include "ember/linalg.h"

namespace {

using ember::Tensor;
namespace la = ember::linalg;
using ember::cpu::linalg::Engine;

Tensor spd(int64_t b, int64_t n) {
  Tensor X = ember::randn({b, n, n});
  return ember::matmul(X, X.mT()) + ember::eye(n) * static_cast<double>(n);
}

template <typename F>
void run(benchmark::State& state, F&& f) {
  const auto engine = static_cast<Engine>(state.range(2));
  ember::cpu::linalg::engine_override() = static_cast<int>(engine);
  for (auto _ : state) f();
  ember::cpu::linalg::engine_override() = 0;
}

void BM_Svd(benchmark::State& s) {
  Tensor A = ember::randn({s.range(0), s.range(1), s.range(1)});
  run(s, [&] { benchmark::DoNotOptimize(la::svd(A, false)); });
}
void BM_Eigh(benchmark::State& s) {
  Tensor A = spd(s.range(0), s.range(1));
  run(s, [&] { benchmark::DoNotOptimize(la::eigh(A)); });
}
void BM_Qr(benchmark::State& s) {
  Tensor A = ember::randn({s.range(0), s.range(1), s.range(1)});
  run(s, [&] { benchmark::DoNotOptimize(la::qr(A)); });
}
void BM_Cholesky(benchmark::State& s) {
  Tensor A = spd(s.range(0), s.range(1));
  run(s, [&] { benchmark::DoNotOptimize(la::cholesky(A)); });
}
void BM_Solve(benchmark::State& s) {
  Tensor A = spd(s.range(0), s.range(1)), B = ember::randn({s.range(0), s.range(1), 1});
  run(s, [&] { benchmark::DoNotOptimize(la::solve(A, B)); });
}

// {batch, n, engine}: engine 0 = automatic choice, 1 = LAPACK, 2 = native.
#define SMALL(BM)                     \
  BENCHMARK(BM)                       \
      ->Args({4096, 8, 0})            \
      ->Args({4096, 8, 1})            \
      ->Args({4096, 8, 2})            \
      ->Args({4096, 16, 0})           \
      ->Args({4096, 16, 1})           \
      ->Args({4096, 16, 2})           \
      ->Args({512, 32, 1})            \
      ->Args({512, 32, 2})            \
      ->Args({1, 1024, 0})            \
      ->Unit(benchmark::kMillisecond) \
      ->UseRealTime();
SMALL(BM_Svd)
SMALL(BM_Eigh)
SMALL(BM_Qr)
SMALL(BM_Cholesky)
BENCHMARK(BM_Solve)->Args({1, 1024, 0})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
