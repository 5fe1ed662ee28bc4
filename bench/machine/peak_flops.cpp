// The machine's FP32 peak, measured: every thread runs independent FMA chains in vector registers
// (enough chains to hide the FMA latency on two pipes), and the best of several runs counts.
// scripts/bench.sh rates GEMM and training steps against it.
//
//   bench_peak_flops [THREADS...]   ->  one JSON line per thread count: {"threads", "gflops",
//   "isa"}
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

namespace {

constexpr int kChains = 16;

#if defined(__AVX512F__)
using Vec = __m512;
constexpr int kLanes = 16;
constexpr const char* kIsa = "avx512";
Vec splat(float x) { return _mm512_set1_ps(x); }
Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
float first(Vec v) { return _mm512_cvtss_f32(v); }
#elif defined(__AVX2__) && defined(__FMA__)
using Vec = __m256;
constexpr int kLanes = 8;
constexpr const char* kIsa = "avx2";
Vec splat(float x) { return _mm256_set1_ps(x); }
Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
float first(Vec v) { return _mm256_cvtss_f32(v); }
#else
using Vec = float;
constexpr int kLanes = 1;
constexpr const char* kIsa = "scalar";
Vec splat(float x) { return x; }
Vec fma(Vec a, Vec b, Vec c) { return a * b + c; }
float first(Vec v) { return v; }
#endif

// a <- a * 0.999999 + 1e-6 converges to 1: no overflow, no denormals, however long it runs.
float chains(long iterations) {
  Vec acc[kChains];
  for (int k = 0; k < kChains; ++k) acc[k] = splat(0.5f + 0.01f * static_cast<float>(k));
  const Vec b = splat(0.999999f), c = splat(1e-6f);
  for (long i = 0; i < iterations; ++i)
#pragma GCC unroll 16
    for (int k = 0; k < kChains; ++k) acc[k] = fma(acc[k], b, c);
  float s = 0;
  for (int k = 0; k < kChains; ++k) s += first(acc[k]);
  return s;
}

double gflops(int threads, long iterations) {
  float sum = 0;
  const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads) reduction(+ : sum)
  sum += chains(iterations);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!(sum > 0)) std::fprintf(stderr, "peak_flops: unexpected sum %g\n", sum);  // keeps the work
  return 2.0 * kChains * kLanes * static_cast<double>(iterations) * threads / seconds / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  const long iterations = 20'000'000;  // ~0.1 s per run on a ~3 GHz AVX-512 core
  for (int a = 1; a < std::max(argc, 2); ++a) {
    const int threads = argc > 1 ? std::atoi(argv[a]) : 1;
    gflops(threads, iterations / 10);  // wakes the cores up
    double best = 0;
    for (int run = 0; run < 5; ++run) best = std::max(best, gflops(threads, iterations));
    std::printf("{\"threads\": %d, \"gflops\": %.1f, \"isa\": \"%s\"}\n", threads, best, kIsa);
  }
  return 0;
}
