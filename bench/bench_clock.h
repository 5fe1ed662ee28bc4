#pragma once
// Timing for the plain bench programs (bench_compile, bench_optim_step): the wall clock, or with
// --cpu the process's CPU clock (on a machine that others load, with OMP_NUM_THREADS=1, it
// measures the work alone); the median of repeated calls after warm-up calls.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <vector>

namespace bench {

inline bool g_cpu_clock = false;

inline double now_ms() {
  if (g_cpu_clock) {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
  }
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// The median time of `repeat` calls of f after `warmup` calls (the allocator's cache, the
/// threads, a compile).
inline double median_ms(const std::function<void()>& f, int repeat, int warmup = 2) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < repeat; ++i) {
    const double t0 = now_ms();
    f();
    t.push_back(now_ms() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace bench
