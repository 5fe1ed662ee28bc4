// The optimizer step of `ember train`'s default GPT (dim 128, 4 layers, context 64, a vocabulary
// of 65 characters: 52 parameter tensors, 0.83M values) with its AdamW (betas 0.9 and 0.95,
// weight decay 0.1 on the matrices, as tools/cli/train.cpp groups them): the eager step() against
// compile(optimizer) (Note [Compiled optimizer step]), each the median of repeated steps after a
// warm-up, with the kernels one compiled step runs and the captures and compiles it took. The
// learning rate changes every step, as the training schedule changes it.
//
// --cpu times with the process's CPU clock instead of the wall clock.
//
//   bench_optim_step [--repeat=N] [--cpu] [--profile]
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
#include "ember/compiler.h"
#include "ember/ember.h"
#include "ember/optim.h"
#include "ember/profiler.h"

namespace {

using ember::Tensor;

bool g_profile = false;  // --profile: one step of each, as profiler tables
// The default GPT's parameters, in the model's order, with gradients.
std::vector<Tensor> gpt_parameters() {
  const int64_t vocab = 65, context = 64, dim = 128, layers = 4;
  std::vector<std::vector<int64_t>> shapes = {{vocab, dim}, {context, dim}};
  for (int64_t l = 0; l < layers; ++l) {
    for (auto s : std::vector<std::vector<int64_t>>{{dim},
                                                    {dim},
                                                    {3 * dim, dim},
                                                    {3 * dim},
                                                    {dim, dim},
                                                    {dim},
                                                    {dim},
                                                    {dim},
                                                    {4 * dim, dim},
                                                    {4 * dim},
                                                    {dim, 4 * dim},
                                                    {dim}}) {
      shapes.push_back(s);
    }
  }
  shapes.push_back({dim});
  shapes.push_back({dim});
  std::vector<Tensor> ps;
  for (const auto& s : shapes) {
    Tensor p = ember::randn(s).mul_(0.02);
    p.requires_grad_();
    p.mutable_grad() = ember::randn(s).mul_(1e-3);
    ps.push_back(p);
  }
  return ps;
}

std::unique_ptr<ember::optim::AdamW> make_adamw(const std::vector<Tensor>& ps) {
  std::vector<Tensor> decay, no_decay;
  for (const Tensor& p : ps) (p.dim() >= 2 ? decay : no_decay).push_back(p);
  auto opts = [](double wd) {
    return std::make_unique<ember::optim::AdamWOptions>(
        ember::optim::AdamWOptions(1e-3).betas({0.9, 0.95}).weight_decay(wd));
  };
  std::vector<ember::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, opts(0.1));
  groups.emplace_back(no_decay, opts(0.0));
  return std::make_unique<ember::optim::AdamW>(groups);
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 50;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--repeat=", 9) == 0) repeat = std::atoi(argv[i] + 9);
    if (std::strcmp(argv[i], "--cpu") == 0) bench::g_cpu_clock = true;
    if (std::strcmp(argv[i], "--profile") == 0) g_profile = true;
  }
  repeat = std::max(repeat, 1);
  ember::manual_seed(0);
  const std::vector<Tensor> eager_ps = gpt_parameters(), compiled_ps = gpt_parameters();
  int64_t numel = 0;
  for (const Tensor& p : eager_ps) numel += p.numel();
  auto eager = make_adamw(eager_ps), compiled_opt = make_adamw(compiled_ps);
  ember::compiler::reset();
  ember::CompiledOptimizer compiled = ember::compile(*compiled_opt);
  int64_t eager_steps = 0, compiled_steps = 0;
  auto lr = [](int64_t step) { return 1e-3 * (1.0 - 1e-4 * static_cast<double>(step)); };
  const double eager_ms = bench::median_ms(
      [&] {
        for (auto& g : eager->param_groups()) g.options().set_lr(lr(eager_steps));
        eager->step();
        ++eager_steps;
      },
      repeat, 3);
  const double compiled_ms = bench::median_ms(
      [&] {
        for (auto& g : compiled_opt->param_groups()) g.options().set_lr(lr(compiled_steps));
        compiled.step();
        ++compiled_steps;
      },
      repeat, 3);
  // The kernels one compiled step runs (each a record_function named after its ops).
  ember::profiler::profile prof;
  prof.start();
  compiled.step();
  prof.stop();
  int kernels = 0;
  for (const auto& e : prof.events()) kernels += e.name.rfind("fused", 0) == 0 ? 1 : 0;
  if (g_profile) {
    std::printf("%s\n", prof.key_averages().table("self_cpu_time_total", 12).c_str());
    ember::profiler::profile eager_prof;
    eager_prof.start();
    eager->step();
    eager_prof.stop();
    std::printf("%s\n", eager_prof.key_averages().table("self_cpu_time_total", 12).c_str());
  }
  const ember::compiler::Stats st = ember::compiler::stats();
  std::printf("GPT default AdamW step: %zu parameter tensors, %lld values\n", eager_ps.size(),
              static_cast<long long>(numel));
  std::printf("  eager     %8.3f ms\n  compiled  %8.3f ms  (x%.2f)\n", eager_ms, compiled_ms,
              eager_ms / compiled_ms);
  std::printf(
      "  compiled step: %d kernels per step; %lld captures, %lld compiles, %lld recompiles "
      "over %lld steps\n",
      kernels, static_cast<long long>(st.captures), static_cast<long long>(st.compiles),
      static_cast<long long>(st.recompiles), static_cast<long long>(compiled_steps + 1));
  return 0;
}
