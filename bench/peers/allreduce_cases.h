#pragma once
// The all_reduce benchmark programs' common parts (bench/allreduce_bench.sh): "--cases
// BYTES:ITERS,..." and the result line, so that Ember's and the engines' programs measure and
// report alike.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace bench {

struct Case {
  size_t bytes;
  int iters;
};

// argv[0] is skipped; returns {} (after a message) on a malformed list.
inline std::vector<Case> parse_cases(int argc, char** argv) {
  const char* spec = "4096:20";
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--cases")) spec = argv[i + 1];
  std::vector<Case> out;
  for (const char* p = spec; *p;) {
    char* end = nullptr;
    const unsigned long long bytes = std::strtoull(p, &end, 10);
    if (*end != ':') break;
    const long iters = std::strtol(end + 1, &end, 10);
    if (bytes == 0 || bytes % 4 || iters < 1) break;
    out.push_back({static_cast<size_t>(bytes), static_cast<int>(iters)});
    if (*end == '\0') return out;
    if (*end != ',') break;
    p = end + 1;
  }
  std::fprintf(stderr, "bad --cases '%s' (expected BYTES:ITERS,... with BYTES a multiple of 4)\n",
               spec);
  return {};
}

inline double micros_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

inline void report(const Case& c, double us) {
  std::printf("RESULT bytes=%zu iters=%d us=%.1f\n", c.bytes, c.iters, us);
  std::fflush(stdout);
}

}  // namespace bench
