// Generated kernels (Note [Lowering]) next to eager Ember: each case is traced with make_fx,
// lowered once (the compile is not timed), and the lowered graph and the eager program are timed
// on the same inputs (median of repeated calls after a warm-up). Prints one row per case with
// both times, the speed-up, and the effective bandwidth of the lowered kernel (bytes read and
// written once). The case list follows issue 20's benchmark table: a 5-op pointwise chain on 16M
// floats (with and without a final row sum), softmax, layer_norm, rms_norm and cross_entropy
// forward on [4096, 1024], and a column sum (a bias gradient's shape) over [4096, 1024].
//
// --cpu times with the process's CPU clock instead of the wall clock: on a machine that others
// load, with OMP_NUM_THREADS=1, it measures the work alone.
//
//   bench_compile [--repeat=N] [--cpu]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "bench_clock.h"
#include "compiler/lowering.h"
#include "ember/compiler.h"
#include "ember/ember.h"
#include "ember/nn/functional.h"

namespace {

namespace F = ember::nn::functional;
using ember::Tensor;
using Fn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

struct Case {
  std::string name;
  Fn fn;
  std::vector<Tensor> inputs;
  double bytes;  // read + written once
};

}  // namespace

int main(int argc, char** argv) {
  int repeat = 10;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--repeat=", 9) == 0) repeat = std::atoi(argv[i] + 9);
    if (std::strcmp(argv[i], "--cpu") == 0) bench::g_cpu_clock = true;
  }
  ember::manual_seed(0);
  const Tensor x = ember::randn({4096, 4096}), y = ember::randn({4096, 1024});
  const double f4 = 4;
  const std::vector<Case> cases = {
      {"chain5 [4096,4096]: ((x*2+1).relu()*3).exp()",
       [](const std::vector<Tensor>& xs) {
         return std::vector<Tensor>{((xs[0] * 2 + 1).relu() * 3).exp()};
       },
       {x},
       2 * f4 * 4096 * 4096},
      {"chain5+sum [4096,4096]: ... .sum(-1)",
       [](const std::vector<Tensor>& xs) {
         return std::vector<Tensor>{((xs[0] * 2 + 1).relu() * 3).exp().sum(-1)};
       },
       {x},
       f4 * 4096 * 4096},
      {"softmax [4096,1024]",
       [](const std::vector<Tensor>& xs) { return std::vector<Tensor>{F::softmax(xs[0], -1)}; },
       {y},
       2 * f4 * 4096 * 1024},
      {"bias grad [4096,1024]: (g * (x > 0)).sum(0)",
       [](const std::vector<Tensor>& xs) {
         return std::vector<Tensor>{(xs[0] * (xs[0] > 0).to(ember::kFloat32)).sum(0)};
       },
       {y},
       f4 * 4096 * 1024},
      {"layer_norm [4096,1024]",
       [](const std::vector<Tensor>& xs) {
         return std::vector<Tensor>{F::layer_norm(xs[0], F::LayerNormFuncOptions({1024}))};
       },
       {y},
       2 * f4 * 4096 * 1024},
      {"rms_norm [4096,1024]",
       [](const std::vector<Tensor>& xs) {
         return std::vector<Tensor>{F::rms_norm(xs[0], std::vector<int64_t>{1024})};
       },
       {y},
       2 * f4 * 4096 * 1024},
      {"cross_entropy [4096,1024]",
       [](const std::vector<Tensor>& xs) {
         return std::vector<Tensor>{F::cross_entropy(xs[0], xs[1])};
       },
       {y, ember::randint(0, 1024, {4096}, ember::kInt64)},
       f4 * 4096 * 1024},
  };
  std::vector<ember::fx::GraphModule> gms;
  std::vector<const ember::fx::GraphModule*> ptrs;
  for (const Case& c : cases) gms.push_back(ember::make_fx(c.fn, c.inputs));
  for (const auto& gm : gms) ptrs.push_back(&gm);
  const auto t0 = std::chrono::steady_clock::now();
  const auto lowered = ember::compiler::lower(ptrs);
  const double compile_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("lowered %zu graphs in one lower() call: %.1f s; %d threads; %s clock\n",
              cases.size(), compile_s, ember::get_num_threads(),
              bench::g_cpu_clock ? "CPU" : "wall");
  std::printf("%-42s %10s %10s %8s %8s %9s\n", "case", "eager ms", "lowered ms", "speedup",
              "kernels", "GB/s");
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const double eager = bench::median_ms([&] { c.fn(c.inputs); }, repeat);
    const double comp = bench::median_ms([&] { (*lowered[i])(c.inputs); }, repeat);
    std::printf("%-42s %10.2f %10.2f %7.2fx %8zu %9.1f\n", c.name.c_str(), eager, comp,
                eager / comp, lowered[i]->kernel_names().size(), c.bytes / comp / 1e6);
  }
  return 0;
}
