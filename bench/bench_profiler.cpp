// Profiler overhead per op (issue 7): a tiny op (a 1-element fill_, a view) with no profiler, and
// with a recording window open under several options; record_function scopes likewise.
//
//   cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_BUILD_BENCH=ON
//   cmake --build build/bench --target bench_profiler && ./build/bench/bench/bench_profiler
//
// FillDirect runs the primitive through the backend without dispatch's mode check and
// FillDispatch through dispatch(): their difference is what the profiler costs when it is off
// (one predictable branch). Fill/N and View/N time Tensor::fill_ and Tensor::view per mode.
#include <benchmark/benchmark.h>

#include <memory>

#include "dispatch/dispatch.h"
#include "ember/ember.h"
#include "primitives/copy.h"

namespace {

using namespace ember;
namespace prof = ember::profiler;

// Each recorded event is kept until stop(): a fixed iteration count bounds the memory.
constexpr int64_t kIterations = 200000;

Tensor one_element() {
  auto storage = std::make_shared<StorageImpl>(sizeof(float));
  return Tensor(std::make_shared<TensorImpl>(storage, kFloat32, std::vector<int64_t>{1},
                                             std::vector<int64_t>{1}, 0));
}

enum Mode { kOff, kCpu, kShapes, kShapesMemory, kFlops, kStack };

prof::ProfileOptions options(Mode m) {
  prof::ProfileOptions o;
  o.record_shapes(m == kShapes || m == kShapesMemory);
  o.profile_memory(m == kShapesMemory);
  o.with_flops(m == kFlops);
  o.with_stack(m == kStack);
  return o;
}

const char* label(Mode m) {
  switch (m) {
    case kOff:
      return "profiler off";
    case kCpu:
      return "on: CPU";
    case kShapes:
      return "on: record_shapes";
    case kShapesMemory:
      return "on: record_shapes+profile_memory";
    case kFlops:
      return "on: with_flops";
    case kStack:
      return "on: with_stack";
  }
  return "";
}

// Runs `body` in the timed loop, inside a recording window unless the mode is off.
template <typename F>
void run(benchmark::State& state, F body) {
  Mode m = static_cast<Mode>(state.range(0));
  std::unique_ptr<prof::profile> p;
  if (m != kOff) {
    p = std::make_unique<prof::profile>(options(m));
    p->start();
  }
  for (auto _ : state) body();
  if (p) {  // after the timed loop
    p->stop();
    state.counters["events"] = static_cast<double>(p->events().size());
  }
  state.SetLabel(label(m));
}

// The same primitive call with and without dispatch's check for active modes: the difference
// is what the profiler (any dispatch mode) costs while off.
void BM_FillDirect(benchmark::State& state) {
  Tensor t = one_element();
  std::vector<Tensor> inputs;
  for (auto _ : state) {
    std::vector<Tensor> outputs{t};
    const Fill prim = Fill::into(t, 1.0);
    OpCall call{prim, inputs, outputs, prim.inplace()};
    ember::detail::run_backend(call);
    benchmark::DoNotOptimize(outputs);
  }
  state.SetLabel("run_backend, no mode check");
}

void BM_FillDispatch(benchmark::State& state) {
  Tensor t = one_element();
  std::vector<Tensor> inputs;
  for (auto _ : state) {
    auto outputs = dispatch(Fill::into(t, 1.0), inputs, {t});
    benchmark::DoNotOptimize(outputs);
  }
  state.SetLabel("dispatch, profiler off");
}

void BM_Fill(benchmark::State& state) {
  Tensor t = one_element();
  run(state, [&] { t.fill_(1.0); });
}

void BM_View(benchmark::State& state) {
  Tensor t = one_element();
  run(state, [&] { benchmark::DoNotOptimize(t.view({1})); });
}

void BM_RecordFunction(benchmark::State& state) {
  run(state, [] { prof::record_function scope("step"); });
}

void modes(benchmark::internal::Benchmark* b, std::initializer_list<Mode> ms) {
  for (Mode m : ms) b->Arg(m);
  b->Iterations(kIterations)->Repetitions(3)->ReportAggregatesOnly(true);
}

BENCHMARK(BM_FillDirect)->Iterations(kIterations)->Repetitions(3)->ReportAggregatesOnly(true);
BENCHMARK(BM_FillDispatch)->Iterations(kIterations)->Repetitions(3)->ReportAggregatesOnly(true);
BENCHMARK(BM_Fill)->Apply([](auto* b) {
  modes(b, {kOff, kCpu, kShapes, kShapesMemory, kFlops, kStack});
});
BENCHMARK(BM_View)->Apply([](auto* b) { modes(b, {kOff, kCpu, kShapes}); });
BENCHMARK(BM_RecordFunction)->Apply([](auto* b) { modes(b, {kOff, kCpu}); });

}  // namespace

BENCHMARK_MAIN();
