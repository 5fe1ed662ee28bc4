// STREAM's triad, a[i] = b[i] + s * c[i], over arrays far larger than the caches: the memory
// bandwidth that memory-bound kernels are rated against (bytes counted as STREAM does: two arrays
// read and one written per element). The best of several runs counts.
//
//   bench_stream_triad [--mib N] [--runs R] [THREADS...]   ->  one JSON line per thread count:
//   {"threads", "gbs", "mib"}   (N MiB per array, default 256; R runs, default 10)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace {

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};
using Array = std::unique_ptr<float[], FreeDeleter>;

Array aligned_array(long n) {
  return Array(static_cast<float*>(std::aligned_alloc(64, sizeof(float) * n)));
}

double triad_gbs(int threads, long n, int runs) {
  Array a = aligned_array(n), b = aligned_array(n), c = aligned_array(n);
  // First touch by the threads that use each page, as STREAM does.
#pragma omp parallel for num_threads(threads) schedule(static)
  for (long i = 0; i < n; ++i) a[i] = 0.0f, b[i] = 1.0f, c[i] = 2.0f;
  const float s = 3.0f;
  double best = 0;
  for (int run = 0; run < runs; ++run) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for simd num_threads(threads) schedule(static)
    for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 3.0 * sizeof(float) * static_cast<double>(n) / sec / 1e9);
  }
  if (a[n / 2] != 7.0f) std::fprintf(stderr, "stream_triad: wrong result %g\n", a[n / 2]);
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  long mib = 256;
  int runs = 10;
  std::vector<int> threads;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--mib") && i + 1 < argc) {
      mib = std::atol(argv[++i]);
    } else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
    } else {
      threads.push_back(std::atoi(argv[i]));
    }
  }
  if (threads.empty()) threads.push_back(1);
  const long n = mib * 1024 * 1024 / static_cast<long>(sizeof(float));
  for (int t : threads)
    std::printf("{\"threads\": %d, \"gbs\": %.2f, \"mib\": %ld}\n", t, triad_gbs(t, n, runs), mib);
  return 0;
}
