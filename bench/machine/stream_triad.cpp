// STREAM's triad, a[i] = b[i] + s * c[i], over arrays far larger than the caches: the memory
// bandwidth that memory-bound kernels are rated against (bytes counted as STREAM does: two arrays
// read and one written per element), each thread timed on its own CPU clock so that other
// processes on a shared machine do not lower it. The best of several runs counts.
//
//   bench_stream_triad [--mib N] [--runs R] [THREADS...]   ->  one JSON line per thread count:
//   {"threads", "gbs", "mib"}   (N MiB per array, default 256; R runs, default 10)
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
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

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Each thread works on its own contiguous slice, first-touched by itself (as STREAM does), and
// its rate is taken over its own CPU time; a run's rate is the sum over the threads.
double triad_gbs(int threads, long n, int runs) {
  Array a = aligned_array(n), b = aligned_array(n), c = aligned_array(n);
  const float s = 3.0f;
  std::vector<double> rates(static_cast<size_t>(runs) * threads, 0.0);  // [run][thread]
#pragma omp parallel num_threads(threads)
  {
    const int nt = omp_get_num_threads(), id = omp_get_thread_num();
    const long lo = n * id / nt, hi = n * (id + 1) / nt;
    for (long i = lo; i < hi; ++i) a[i] = 0.0f, b[i] = 1.0f, c[i] = 2.0f;
    for (int run = 0; run < runs; ++run) {
#pragma omp barrier
      const double c0 = thread_cpu_seconds();
#pragma omp simd
      for (long i = lo; i < hi; ++i) a[i] = b[i] + s * c[i];
      rates[static_cast<size_t>(run) * threads + id] =
          3.0 * sizeof(float) * static_cast<double>(hi - lo) / (thread_cpu_seconds() - c0) / 1e9;
    }
  }
  double best = 0;
  for (int run = 0; run < runs; ++run) {
    double sum = 0;
    for (int t = 0; t < threads; ++t) sum += rates[static_cast<size_t>(run) * threads + t];
    best = std::max(best, sum);
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
