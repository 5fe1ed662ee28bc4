// ember::compile (Note [Compile], Note [Compile guards]): results against eager computations made
// separately, the stats of captures, compiles and recompiles, guards, dynamic dims, the
// recompile limit, training through a compiled module, logs, and calls from several threads.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>

#include "compiler/codecache.h"
#include "compiler/logs.h"
#include "compiler/lowering.h"
#include "ember/compiler.h"
#include "ember/ember.h"
#include "ember/nn.h"
#include "ember/optim.h"
#include "ember/testing.h"
#include "fx_test_util.h"

namespace ember::test {
namespace {

using Fn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// Each test starts from zeroed stats, so that counts are this test's.
class Compile : public ::testing::Test {
 protected:
  void SetUp() override { compiler::reset(); }
  void TearDown() override {
    unsetenv("EMBER_LOGS");
    compiler::reload_logs();
  }
};

// Tests of guard logic alone interpret their graphs: no C++ compiler run per recompile.
CompileOptions interpreted() {
  CompileOptions o;
  o.backend = "eager";
  return o;
}

std::vector<CompileOptions> both_backends() {
  CompileOptions eager, inductor;
  eager.backend = "eager";
  inductor.backend = "inductor";
  return {eager, inductor};
}

TEST_F(Compile, PointwiseMatchesClosedForm) {
  for (const CompileOptions& opts : both_backends()) {
    auto f = compile(
        [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
          return {(xs[0] * 2 + xs[1]).relu(), xs[0].exp()};
        },
        opts);
    Tensor a = randn({3, 5}), b = randn({5});
    std::vector<Tensor> out = f({a, b});
    ASSERT_EQ(out.size(), 2u);
    const float* pa = a.data_ptr<float>();
    const float* pb = b.data_ptr<float>();
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < 5; ++j) {
        const float x = pa[i * 5 + j];
        EXPECT_FLOAT_EQ(out[0].index({i, j}).item<float>(), std::max(x * 2 + pb[j], 0.0f));
        EXPECT_NEAR(out[1].index({i, j}).item<float>(), std::exp(x), 1e-5 * std::exp(x));
      }
    }
  }
}

TEST_F(Compile, SoftmaxAndLayerNormMatchEager) {
  namespace F = nn::functional;
  for (const CompileOptions& opts : both_backends()) {
    auto f = compile(
        [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
          return {F::softmax(xs[0], -1), F::layer_norm(xs[0], std::vector<int64_t>{8})};
        },
        opts);
    Tensor x = randn({4, 8});
    std::vector<Tensor> out = f({x});
    // Eager, computed independently from the definitions.
    Tensor e = (x - x.amax(-1, true)).exp();
    Tensor mean = x.mean(-1, true);
    Tensor var = ((x - mean) * (x - mean)).mean(-1, true);
    testing::assert_close(out[0], e / e.sum(-1, true), 1e-5, 1e-6);
    testing::assert_close(out[1], (x - mean) / (var + 1e-5).sqrt(), 1e-4, 1e-5);
  }
}

TEST_F(Compile, MlpModuleMatchesEager) {
  nn::Sequential mlp(nn::Linear(4, 16), nn::ReLU(), nn::Linear(16, 3));
  auto model = compile(mlp);
  Tensor x = randn({5, 4});
  Tensor want;
  {
    NoGradGuard no_grad;
    want = mlp->forward(x);
  }
  NoGradGuard no_grad;
  testing::assert_close(model(x), want);
  testing::assert_close(model->forward(x), want);
  EXPECT_EQ(model.module().get(), mlp.ptr().get());
  // New batch sizes: one recompile makes the batch dynamic.
  for (int64_t n : {9, 17, 2}) {
    Tensor xn = randn({n, 4});
    testing::assert_close(model(xn), mlp->forward(xn));
  }
  EXPECT_EQ(compiler::stats().recompiles, 1);
  EXPECT_EQ(model.function().num_entries(), 2);
}

// Note [Symbolic autograd]: a declared dynamic batch under grad mode traces the joint graph with
// the same symbols, so one capture's forward and backward graphs are built once (two compiled
// graphs) and serve every batch with eager's gradients; the mean loss divides by the batch inside
// the generated code.
TEST_F(Compile, TrainingWithADynamicBatchCompilesOnce) {
  manual_seed(2);
  nn::Sequential mlp(nn::Linear(3, 8), nn::Tanh(), nn::Linear(8, 2));
  auto loss = [&](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {(mlp->forward(xs[0]) - xs[1]).pow(2).mean()};
  };
  CompileOptions opts;
  opts.dynamic = DynamicSpec{{{0, Dim("batch", 1, 64)}}, {{0, Dim("batch", 1, 64)}}};
  auto step = compile(mlp, loss, opts);
  for (int64_t n : {1, 5, 64}) {
    const std::vector<Tensor> xs = {randn({n, 3}), randn({n, 2})};
    mlp->zero_grad();
    const Tensor l = step(xs)[0];
    ASSERT_TRUE(l.grad_fn() != nullptr);
    EXPECT_EQ(l.grad_fn()->name(), "CompiledFunctionBackward") << "batch " << n;
    l.backward();
    std::vector<Tensor> got;
    for (const Tensor& p : mlp->parameters()) got.push_back(p.grad().clone());
    mlp->zero_grad();
    loss(xs)[0].backward();
    const std::vector<Tensor> params = mlp->parameters();
    for (size_t i = 0; i < params.size(); ++i) {
      testing::assert_close(got[i], params[i].grad());
    }
  }
  const compiler::Stats s = compiler::stats();
  EXPECT_EQ(s.captures, 1);
  EXPECT_EQ(s.recompiles, 0);
  EXPECT_EQ(s.compiles, 2);  // the forward and backward graphs, once
}

TEST_F(Compile, StridesAreGuarded) {
  auto f = compile([](const std::vector<Tensor>& xs) -> std::vector<Tensor> { return {xs[0] + 1}; },
                   interpreted());
  Tensor x = randn({3, 4});
  testing::assert_close(f({x.t()})[0], x.t() + 1);
  Tensor y = randn({4, 3});
  testing::assert_close(f({y})[0], y + 1);
  const compiler::Stats s = compiler::stats();
  EXPECT_EQ(s.recompiles, 1);
  ASSERT_EQ(s.recompile_reasons.size(), 1u);
  EXPECT_EQ(s.recompile_reasons[0],
            "input 0: sizes [4, 3] and strides [3, 1], expected [4, 3] and [1, 4]");
}

TEST_F(Compile, DeclaredDimFromZero) {
  // Traced at 2 (sizes 0 and 1 specialise while tracing), run at 0, 1 and 16.
  CompileOptions opts;
  opts.dynamic = DynamicSpec{{{0, Dim("n", 0, 16)}}, {}};
  auto f = compile(
      [](const std::vector<Tensor>& xs) -> std::vector<Tensor> { return {(xs[0] - xs[1]).abs()}; },
      opts);
  Tensor b = randn({3});
  for (int64_t n : {0, 1, 16}) {
    Tensor a = randn({n, 3});
    std::vector<Tensor> out = f({a, b});
    EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{n, 3}));
    testing::assert_close(out[0], (a - b).abs());
  }
  EXPECT_EQ(compiler::stats().captures, 1);
  // Another size in range reuses the entry; one outside raises the spec's error.
  f({randn({4, 3}), randn({3})});
  EXPECT_EQ(compiler::stats().recompiles, 0);
  expect_has(message_of<ConstraintViolationError>([&] {
               f({randn({17, 3}), b});
             }),
             "outside the range of n [0, 16]");
}

TEST_F(Compile, StatsCountCapturesAndCompiles) {
  auto f = compile(
      [](const std::vector<Tensor>& xs) -> std::vector<Tensor> { return {xs[0].sin() + 1}; });
  Tensor x = randn({6});
  f({x});
  compiler::Stats s = compiler::stats();
  EXPECT_EQ(s.captures, 1);
  EXPECT_EQ(s.compiles, 1);
  EXPECT_EQ(s.recompiles, 0);
  for (int i = 0; i < 3; ++i) testing::assert_close(f({x})[0], x.sin() + 1);
  s = compiler::stats();
  EXPECT_EQ(s.captures, 1);
  EXPECT_EQ(s.compiles, 1);
  EXPECT_EQ(s.guard_failures, 0);
  // The "eager" backend captures but does not lower.
  CompileOptions eager;
  eager.backend = "eager";
  auto g = compile([](const std::vector<Tensor>& xs) -> std::vector<Tensor> { return {xs[0] * 3}; },
                   eager);
  testing::assert_close(g({x})[0], x * 3);
  EXPECT_EQ(compiler::stats().captures, 2);
  EXPECT_EQ(compiler::stats().compiles, 1);
  // reset() forgets the entries: the next call captures again.
  compiler::reset();
  EXPECT_EQ(compiler::stats().captures, 0);
  EXPECT_EQ(f.num_entries(), 0);
  f({x});
  EXPECT_EQ(compiler::stats().captures, 1);
  EXPECT_EQ(compiler::stats().recompiles, 0);
}

TEST_F(Compile, DtypeChangeRecompilesWithReason) {
  auto f =
      compile([](const std::vector<Tensor>& xs) -> std::vector<Tensor> { return {xs[0] * xs[0]}; });
  Tensor x = randn({4});
  f({x});
  Tensor x64 = x.to(kFloat64);
  testing::assert_close(f({x64})[0], x64 * x64);
  compiler::Stats s = compiler::stats();
  EXPECT_EQ(s.recompiles, 1);
  EXPECT_EQ(s.captures, 2);
  ASSERT_EQ(s.recompile_reasons.size(), 1u);
  EXPECT_EQ(s.recompile_reasons[0], "input 0: dtype changed from float32 to float64");
  // Both entries stay: alternating dtypes recompiles no more.
  f({x});
  f({x64});
  EXPECT_EQ(compiler::stats().recompiles, 1);
  EXPECT_EQ(f.num_entries(), 2);
}

TEST_F(Compile, DeclaredDynamicDimRunsItsWholeRange) {
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {(xs[0] * 2).relu().sum(-1)};
  };
  for (int64_t first : {1, 7}) {
    compiler::reset();
    CompileOptions opts;
    opts.dynamic = DynamicSpec{{{0, Dim("batch", 1, 1024)}}};
    auto f = compile(fn, opts);
    std::vector<int64_t> batches = {1, 7, 512, 1024};
    if (first == 7) std::swap(batches[0], batches[1]);
    for (int64_t n : batches) {
      Tensor x = randn({n, 3});
      std::vector<Tensor> out = f({x});
      EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{n})) << "first " << first;
      testing::assert_close(out[0], (x * 2).relu().sum(-1));
    }
    compiler::Stats s = compiler::stats();
    EXPECT_EQ(s.captures, 1) << "first " << first;
    EXPECT_EQ(s.compiles, 1);
    EXPECT_EQ(s.recompiles, 0);
    const std::string m = message_of<ConstraintViolationError>([&] { f({randn({1025, 3})}); });
    expect_has(m, "batch");
    expect_has(m, "[1, 1024]");
    expect_has(m, "1025");
    EXPECT_EQ(compiler::stats().captures, 1);
  }
}

TEST_F(Compile, AutomaticDynamicRecompilesOnce) {
  auto f = compile(
      [](const std::vector<Tensor>& xs) -> std::vector<Tensor> { return {xs[0].exp() * xs[1]}; });
  for (int64_t n : {4, 8, 16, 32}) {
    Tensor x = randn({n, 3}), y = randn({n, 3});
    testing::assert_close(f({x, y})[0], x.exp() * y);
  }
  compiler::Stats s = compiler::stats();
  EXPECT_EQ(s.captures, 2);
  EXPECT_EQ(s.recompiles, 1);
  ASSERT_EQ(s.recompile_reasons.size(), 1u);
  EXPECT_EQ(s.recompile_reasons[0], "input 0 dim 0: size 8, expected 4");
  // Without automatic dynamic every new size recompiles.
  compiler::reset();
  CompileOptions opts = interpreted();
  opts.automatic_dynamic = false;
  auto g = compile([](const std::vector<Tensor>& xs) -> std::vector<Tensor> { return {xs[0] + 1}; },
                   opts);
  for (int64_t n : {4, 8, 16}) g({randn({n})});
  EXPECT_EQ(compiler::stats().recompiles, 2);
}

TEST_F(Compile, AutomaticDynamicGivesWayToSpecialisation) {
  // size(0) as an integer specialises the batch: each size gets a static entry, no eager run.
  auto f = compile(
      [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
        return {xs[0].reshape({xs[0].size(0) / 2, 2}) * 2};
      },
      interpreted());
  for (int64_t n : {4, 8, 12}) {
    Tensor x = randn({n});
    testing::assert_close(f({x})[0], x.reshape({n / 2, 2}) * 2);
  }
  const compiler::Stats s = compiler::stats();
  EXPECT_EQ(s.captures, 3);
  EXPECT_EQ(s.recompiles, 2);
  EXPECT_EQ(s.eager_fallbacks, 0);
}

TEST_F(Compile, RecompileLimitFallsBackToEager) {
  CompileOptions opts = interpreted();
  opts.automatic_dynamic = false;
  auto f = compile(
      [](const std::vector<Tensor>& xs) -> std::vector<Tensor> { return {xs[0] * 2 + 1}; }, opts);
  // Ten signatures: dtypes and ranks. The first compiles, eight recompile, the tenth runs eagerly.
  std::vector<Tensor> inputs;
  for (ScalarType t : {kFloat32, kFloat64, kInt32, kInt64, kInt16}) {
    inputs.push_back(ones({3}, TensorOptions().dtype(t)));
    inputs.push_back(ones({3, 1}, TensorOptions().dtype(t)));
  }
  ::testing::internal::CaptureStderr();
  for (const Tensor& x : inputs) testing::assert_close(f({x})[0], x * 2 + 1);
  for (const Tensor& x : inputs) testing::assert_close(f({x})[0], x * 2 + 1);
  const std::string err = ::testing::internal::GetCapturedStderr();
  expect_has(err, "hit recompile_limit (8)");
  EXPECT_EQ(err.find("recompile_limit"), err.rfind("recompile_limit (8)")) << "warned once";
  compiler::Stats s = compiler::stats();
  EXPECT_EQ(s.recompiles, 8);
  EXPECT_EQ(s.captures, 9);
  EXPECT_EQ(s.eager_fallbacks, 2);
  EXPECT_EQ(f.num_entries(), 9);
}

TEST_F(Compile, InvalidOptionsRaise) {
  auto fn = [](const std::vector<Tensor>& xs) { return xs; };
  CompileOptions bad_mode;
  bad_mode.mode = "fast";
  expect_has(message_of<ValueError>([&] { compile(fn, bad_mode); }),
             "[compile] Unrecognized mode=fast, should be one of: default, reduce-overhead, "
             "max-autotune");
  CompileOptions bad_backend;
  bad_backend.backend = "tvm";
  expect_has(message_of<ValueError>([&] { compile(fn, bad_backend); }),
             "[compile] Invalid backend: 'tvm', available backends: eager, inductor");
  CompileOptions bad_limit;
  bad_limit.recompile_limit = -1;
  expect_has(message_of<ValueError>([&] { compile(fn, bad_limit); }), "recompile_limit");
  // Accepted modes behave as "default".
  for (const char* mode : {"default", "reduce-overhead", "max-autotune"}) {
    CompileOptions o;
    o.mode = mode;
    Tensor x = randn({2});
    testing::assert_close(compile(fn, o)({x})[0], x);
  }
}

TEST_F(Compile, ModuleSeesOptimizerUpdatesWithoutRecompiling) {
  nn::Linear fc(3, 2);
  auto model = compile(fc);
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.5));
  Tensor x = randn({4, 3});
  {
    NoGradGuard no_grad;
    testing::assert_close(model(x), fc->forward(x));
  }
  // One SGD step, computed eagerly.
  opt.zero_grad();
  fc->forward(x).pow(2).sum().backward();
  opt.step();
  NoGradGuard no_grad;
  Tensor want = x.matmul(fc->weight.t()) + fc->bias;
  testing::assert_close(model(x), want);
  const compiler::Stats s = compiler::stats();
  EXPECT_EQ(s.captures, 1);
  EXPECT_EQ(s.recompiles, 0);
}

TEST_F(Compile, GradientsMatchEager) {
  // A function: gradients reach its inputs.
  auto f = compile([](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {(xs[0] * xs[1]).tanh().sum()};
  });
  Tensor a = randn({5}).requires_grad_(), b = randn({5}).requires_grad_();
  f({a, b})[0].backward();
  Tensor a2 = a.detach().requires_grad_(), b2 = b.detach().requires_grad_();
  (a2 * b2).tanh().sum().backward();
  testing::assert_close(a.grad(), a2.grad());
  testing::assert_close(b.grad(), b2.grad());
  // A module: gradients land in the parameters' .grad.
  nn::Sequential mlp(nn::Linear(3, 8), nn::Tanh(), nn::Linear(8, 1));
  auto model = compile(mlp);
  Tensor x = randn({6, 3});
  model(x).pow(2).mean().backward();
  std::vector<Tensor> compiled_grads;
  for (const Tensor& p : mlp->parameters()) compiled_grads.push_back(p.grad().clone());
  mlp->zero_grad();
  mlp->forward(x).pow(2).mean().backward();
  const std::vector<Tensor> params = mlp->parameters();
  ASSERT_EQ(params.size(), compiled_grads.size());
  for (size_t i = 0; i < params.size(); ++i) {
    testing::assert_close(compiled_grads[i], params[i].grad());
  }
  // New batch sizes under grad mode: the dynamic entry records autograd too.
  for (int64_t n : {4, 11}) {
    Tensor xn = randn({n, 3});
    mlp->zero_grad();
    model(xn).pow(2).mean().backward();
    std::vector<Tensor> got;
    for (const Tensor& p : mlp->parameters()) got.push_back(p.grad().clone());
    mlp->zero_grad();
    mlp->forward(xn).pow(2).mean().backward();
    for (size_t i = 0; i < params.size(); ++i) testing::assert_close(got[i], params[i].grad());
  }
  EXPECT_EQ(model.function().num_entries(), 2);
}

// A training call's forward and backward graphs are lowered in one call: one unit loaded for
// both (one cold compile), both logged under output_code, gradients as eager's.
TEST_F(Compile, TrainingLowersForwardAndBackwardTogether) {
  setenv("EMBER_LOGS", "output_code", 1);
  compiler::reload_logs();
  nn::Sequential mlp(nn::Linear(3, 8), nn::Tanh(), nn::Linear(8, 2));
  auto model = compile(mlp);
  Tensor x = randn({5, 3});
  auto loads = [] {
    const compiler::CodeCacheStats s = compiler::code_cache_stats();
    return s.compiles + s.disk_hits + s.memory_hits;
  };
  ::testing::internal::CaptureStderr();
  model(x).sin().sum().backward();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(compiler::stats().compiles, 2);  // two graphs
  EXPECT_EQ(loads(), 1);                     // one unit
  expect_has(err, "Output code of forward graph of module");
  expect_has(err, "Output code of backward graph of module");
  std::vector<Tensor> grads;
  for (const Tensor& p : mlp->parameters()) grads.push_back(p.grad().clone());
  mlp->zero_grad();
  mlp->forward(x).sin().sum().backward();
  for (size_t i = 0; i < grads.size(); ++i) {
    testing::assert_close(grads[i], mlp->parameters()[i].grad());
  }
}

TEST_F(Compile, CrossEntropyIsCaptured) {
  // cross_entropy makes an arange on its input's device: traced fake, that factory runs on the
  // meta device and is recorded on the CPU.
  auto f = compile([](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {nn::functional::cross_entropy(xs[0], xs[1])};
  });
  Tensor logits = randn({4, 5});
  Tensor target = tensor<int64_t>({1, 0, 4, 2});
  Tensor got = f({logits, target})[0];
  EXPECT_EQ(compiler::stats().captures, 1);
  EXPECT_EQ(compiler::stats().eager_fallbacks, 0);
  // -mean(logit[target] - logsumexp(logits)), by loops.
  const float* p = logits.data_ptr<float>();
  double want = 0;
  const int64_t t[] = {1, 0, 4, 2};
  for (int64_t i = 0; i < 4; ++i) {
    double m = -1e30, s = 0;
    for (int64_t j = 0; j < 5; ++j) m = std::max(m, static_cast<double>(p[i * 5 + j]));
    for (int64_t j = 0; j < 5; ++j) s += std::exp(p[i * 5 + j] - m);
    want -= p[i * 5 + t[i]] - (m + std::log(s));
  }
  EXPECT_NEAR(got.item<float>(), want / 4, 1e-5);
}

TEST_F(Compile, GradModeIsGuarded) {
  nn::Linear fc(3, 2);
  auto model = compile(fc);
  Tensor x = randn({2, 3});
  Tensor y = model(x);
  EXPECT_TRUE(y.requires_grad());
  {
    NoGradGuard no_grad;
    Tensor z = model(x);
    EXPECT_FALSE(z.requires_grad());
    testing::assert_close(z, y.detach());
  }
  compiler::Stats s = compiler::stats();
  EXPECT_EQ(s.recompiles, 1);
  ASSERT_EQ(s.recompile_reasons.size(), 1u);
  EXPECT_EQ(s.recompile_reasons[0], "grad mode changed from enabled to disabled");
  // The module's training flag is guarded too.
  model->eval();
  EXPECT_FALSE(fc->is_training());
  model(x);
  s = compiler::stats();
  EXPECT_EQ(s.recompiles, 2);
  expect_has(s.recompile_reasons.back(), "training changed from true to false");
}

TEST_F(Compile, RecompilesAreLogged) {
  setenv("EMBER_LOGS", "recompiles,graph", 1);
  compiler::reload_logs();
  EXPECT_TRUE(compiler::log_enabled("recompiles"));
  EXPECT_FALSE(compiler::log_enabled("output_code"));
  auto f =
      compile([](const std::vector<Tensor>& xs) -> std::vector<Tensor> { return {xs[0].neg()}; },
              interpreted());
  ::testing::internal::CaptureStderr();
  f({randn({3})});
  f({randn({3}, TensorOptions().dtype(kFloat64))});
  const std::string err = ::testing::internal::GetCapturedStderr();
  expect_has(err, "[ember:recompiles] Recompiling compiled function");
  expect_has(err,
             "triggered by the guard failure(s): input 0: dtype changed from float32 to float64");
  expect_has(err, "[ember:graph] Captured graph");
  expect_has(err, "ember.neg");
}

TEST_F(Compile, OutputCodeIsLogged) {
  setenv("EMBER_LOGS", "output_code", 1);
  compiler::reload_logs();
  Fn fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {(xs[0] * 2 + 1).relu().exp()};
  };
  Tensor x = randn({16});
  // What the backend makes of this graph, lowered directly (the same source, from the cache).
  std::shared_ptr<const compiler::CompiledGraph> lowered =
      compiler::lower(make_fx(fn, {x}, {.mode = TracingMode::Fake}));
  ::testing::internal::CaptureStderr();
  testing::assert_close(compile(fn)({x})[0], (x * 2 + 1).relu().exp());
  const std::string err = ::testing::internal::GetCapturedStderr();
  // A pointwise chain is one generated kernel, so there is always source to log.
  ASSERT_EQ(lowered->kernel_names().size(), 1u);
  expect_has(err, "[ember:output_code] Output code of compiled function");
  expect_has(err, lowered->source_path());
  expect_has(err, lowered->source());
}

TEST_F(Compile, ThreadsShareOneCompiledFunction) {
  auto f =
      compile([](const std::vector<Tensor>& xs) -> std::vector<Tensor> { return {xs[0] * 3 - 1}; });
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        Tensor x = full({4 + t}, static_cast<double>(i));
        Tensor y = f({x})[0];
        if (!y.equal(full({4 + t}, 3.0 * i - 1))) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  // Four sizes: one static capture, then one dynamic one serves the rest.
  EXPECT_LE(compiler::stats().captures, 3);
}

TEST_F(Compile, CaptureFailureRunsEagerlyUnlessFullgraph) {
  // item() reads a value: fake tensors cannot trace it (a graph break).
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {xs[0] * xs[0].sum().item<float>()};
  };
  Tensor x = randn({4});
  auto f = compile(fn);
  ::testing::internal::CaptureStderr();
  testing::assert_close(f({x})[0], x * x.sum().item<float>());
  Tensor x2 = randn({4});
  testing::assert_close(f({x2})[0], x2 * x2.sum().item<float>());
  const std::string err = ::testing::internal::GetCapturedStderr();
  expect_has(err, "could not be captured as one graph");
  EXPECT_EQ(err.find("could not be captured"), err.rfind("could not be captured"));
  EXPECT_EQ(compiler::stats().eager_fallbacks, 2);
  CompileOptions full;
  full.fullgraph = true;
  auto g = compile(fn, full);
  EXPECT_THROW(g({x}), Error);
  // A declared dim that the program specialises.
  CompileOptions dyn;
  dyn.dynamic = DynamicSpec{{{0, Dim("n", 2, 64)}}};
  dyn.fullgraph = true;
  auto h = compile(
      [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
        return {xs[0].reshape({2, xs[0].size(0) / 2})};
      },
      dyn);
  EXPECT_THROW(h({randn({8})}), ConstraintViolationError);
  dyn.fullgraph = false;
  auto h2 = compile(
      [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
        return {xs[0].reshape({2, xs[0].size(0) / 2})};
      },
      dyn);
  ::testing::internal::CaptureStderr();
  Tensor v = randn({8});
  testing::assert_close(h2({v})[0], v.reshape({2, 4}));
  (void)::testing::internal::GetCapturedStderr();
}

}  // namespace
}  // namespace ember::test
