#pragma once
// Shared by the side-by-side benchmark programs (bench_ops, bench_steps; scripts/bench.sh runs
// them next to bench/peers/ops_peer.py). Written with libtorch's names so that bench_steps.cpp
// also builds against libtorch itself (-DEMBER_BENCH_LIBTORCH): the same source on both sides.
//
// Note [Side-by-side cases]: a case is a setup function that builds its inputs and returns the
// timed body; the body returns the tensors it computed. The same list registers the Google
// Benchmark timings and, with --check=FILE, runs every body once and writes a check record per
// case (a float64 sum and a fixed sample of each output) that the harness compares with the
// peer's record for the same case, so that two programs cannot silently time different work.
// Inputs come from pattern(), an integer hash that Python reproduces bit for bit.
#ifdef EMBER_BENCH_LIBTORCH
#include <torch/torch.h>
#else
#include <ember/torch.h>
#endif
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace bench {

using Outputs = std::vector<torch::Tensor>;
using Body = std::function<Outputs()>;

struct Case {
  std::string name;
  std::function<Body()> setup;  // builds the inputs once; the returned body is what is timed
  int64_t inner = 1;            // operations per call of the body (the harness divides by it)
};

/// The integer hash behind every input: (i * 2654435761 + seed) mod 2^32.
inline uint64_t hash(int64_t i, uint64_t seed) {
  return (static_cast<uint64_t>(i) * 2654435761ULL + seed) % 4294967296ULL;
}
/// lo + (hi - lo) * hash / 2^32, in double.
inline double unit(int64_t i, uint64_t seed, double lo, double hi) {
  return lo + (hi - lo) * (static_cast<double>(hash(i, seed)) / 4294967296.0);
}

/// Values in [lo, hi): unit() rounded once to float. bench/peers/ops_peer.py's pattern()
/// computes the same float32 values.
inline torch::Tensor pattern(std::vector<int64_t> shape, uint64_t seed, double lo = -2.0,
                             double hi = 2.0) {
  torch::Tensor t = torch::empty(shape, torch::kFloat32);
  float* p = t.data_ptr<float>();
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(unit(i, seed, lo, hi));
  return t;
}

/// pattern() scaled by 1 + r / rows in row r: rows (and columns) that differ, so that reducing
/// along the wrong dimension cannot pass the output check. ops_peer.py's pattern_rows() matches.
inline torch::Tensor pattern_rows(int64_t rows, int64_t cols, uint64_t seed, double lo, double hi) {
  torch::Tensor t = torch::empty({rows, cols}, torch::kFloat32);
  float* p = t.data_ptr<float>();
  for (int64_t i = 0; i < rows * cols; ++i)
    p[i] = static_cast<float>(unit(i, seed, lo, hi) *
                              (1.0 + static_cast<double>(i / cols) / static_cast<double>(rows)));
  return t;
}

/// Class indices in [0, classes): the hash modulo `classes`.
inline torch::Tensor pattern_classes(int64_t n, int64_t classes, uint64_t seed) {
  torch::Tensor t = torch::empty({n}, torch::kInt64);
  int64_t* p = t.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i)
    p[i] = static_cast<int64_t>(hash(i, seed) % static_cast<uint64_t>(classes));
  return t;
}

/// One check record: {"case": name, "outputs": [{"numel", "sum", "sample": [...]}]}. The sample
/// holds the elements at flat indices k * (n - 1) / 63, k = 0..63 (as ops_peer.py's).
inline void write_check(std::FILE* f, const std::string& name, const Outputs& outs) {
  std::fprintf(f, "{\"case\": \"%s\", \"outputs\": [", name.c_str());
  for (size_t o = 0; o < outs.size(); ++o) {
    torch::Tensor t = outs[o].detach().contiguous().to(torch::kFloat64);
    const double* p = t.data_ptr<double>();
    const int64_t n = t.numel();
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += p[i];
    std::fprintf(f, "%s{\"numel\": %lld, \"sum\": %.17g, \"sample\": [", o ? ", " : "",
                 static_cast<long long>(n), sum);
    const int64_t k = n < 64 ? n : 64;
    for (int64_t j = 0; j < k; ++j)
      std::fprintf(f, "%s%.9g", j ? ", " : "", p[k > 1 ? j * (n - 1) / (k - 1) : 0]);
    std::fprintf(f, "]}");
  }
  std::fprintf(f, "]}\n");
}

/// main() of a case list: `--check=FILE` writes the check records and exits; otherwise the cases
/// are Google Benchmark benchmarks (ms, wall-clock time) taking the usual --benchmark_* flags.
inline int run_main(int argc, char** argv, const std::vector<Case>& cases) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--check=", 8) != 0) continue;
    std::FILE* f = std::fopen(argv[i] + 8, "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", argv[i] + 8);
      return 2;
    }
    const std::string only = i + 1 < argc ? argv[i + 1] : "";  // optional comma list of names
    for (const Case& c : cases)
      if (only.empty() || ("," + only + ",").find("," + c.name + ",") != std::string::npos)
        write_check(f, c.name, c.setup()());
    std::fclose(f);
    return 0;
  }
  for (const Case& c : cases) {
    benchmark::RegisterBenchmark(c.name.c_str(),
                                 [setup = c.setup, inner = c.inner](benchmark::State& state) {
                                   Body body = setup();
                                   benchmark::DoNotOptimize(body());  // first touch, lazy init
                                   for (auto _ : state) benchmark::DoNotOptimize(body());
                                   state.counters["inner"] = static_cast<double>(inner);
                                 })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace bench
