// Issue "Hardening": shared tensors and modules used from several threads at once. These tests run
// in the default preset and under ThreadSanitizer (the tsan preset, scripts/test.sh), where a data
// race fails them. Each compares with values computed serially, one thread at a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <set>
#include <thread>

#include "ember/compiler.h"
#include "ember/data/dataloader.h"
#include "ember/ember.h"
#include "ember/profiler.h"

namespace ember {
namespace {

constexpr int kThreads = 4;

// Runs body(t) on kThreads threads at once (released together) and joins them.
void run_threads(const std::function<void(int)>& body) {
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      body(t);
    });
  }
  go = true;
  for (auto& th : threads) th.join();
}

nn::Sequential small_model() {
  manual_seed(7);
  nn::Sequential m(nn::Linear(8, 16), nn::ReLU(), nn::Linear(16, 4));
  m->to(kFloat64);
  return m;
}

std::vector<Tensor> thread_inputs() {
  Generator gen(11);
  std::vector<Tensor> xs;
  for (int t = 0; t < kThreads; ++t) xs.push_back(randn({5, 8}, gen, kFloat64));
  return xs;
}

// Runs `call` on each thread's input `repeats` times from every thread at once, even threads
// without grad mode (inference), odd ones recording a graph into the shared leaves, and checks
// every result against the model's own no-grad forward.
template <typename Model, typename F>
void expect_concurrent_calls_match(Model& model, F&& call, int repeats) {
  const auto xs = thread_inputs();
  std::vector<Tensor> expected;
  {
    NoGradGuard no_grad;
    for (const auto& x : xs) expected.push_back(model->forward(x));
  }
  std::vector<std::vector<Tensor>> got(kThreads);
  run_threads([&](int t) {
    for (int r = 0; r < repeats; ++r) {
      if (t % 2 == 0) {
        NoGradGuard no_grad;
        got[t].push_back(call(xs[t]));
      } else {
        got[t].push_back(call(xs[t]).detach());
      }
    }
  });
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(got[t].size(), static_cast<size_t>(repeats));
    for (const auto& y : got[t]) EXPECT_TRUE(y.allclose(expected[t], 1e-12, 1e-12)) << t;
  }
}

TEST(Threads, ConcurrentInferenceOnOneModel) {
  auto model = small_model();
  expect_concurrent_calls_match(
      model, [&](const Tensor& x) { return model->forward(x); }, 20);
}

// One compiled model called from every thread at once, half of them recording autograd: the
// first calls race to capture (a grad-mode entry and a no-grad one), and every result is eager's.
TEST(Threads, ConcurrentCallsOfOneCompiledModel) {
  auto model = small_model();
  auto compiled = compile(model);
  expect_concurrent_calls_match(
      model, [&](const Tensor& x) { return compiled(x); }, 10);
  EXPECT_EQ(compiled.function().num_entries(), 2);
}

// Every parameter's accumulated gradient equals the sum of the gradients each thread's loss
// gives on its own (PyTorch locks the leaf's accumulation the same way).
TEST(Threads, ConcurrentBackwardIntoSharedLeavesSumsTheGradients) {
  auto model = small_model();
  const auto xs = thread_inputs();
  const auto params = model->parameters();
  auto loss = [&](int t) { return model->forward(xs[t]).pow(2).sum(); };
  std::vector<Tensor> expected;
  for (const auto& p : params) expected.push_back(zeros_like(p));
  for (int t = 0; t < kThreads; ++t) {
    model->zero_grad();
    loss(t).backward();
    for (size_t i = 0; i < params.size(); ++i) expected[i] = expected[i] + params[i].grad();
  }
  constexpr int kRounds = 10;
  model->zero_grad();
  run_threads([&](int t) {
    for (int r = 0; r < kRounds; ++r) loss(t).backward();
  });
  for (size_t i = 0; i < params.size(); ++i) {
    ASSERT_TRUE(params[i].grad().defined());
    EXPECT_TRUE(params[i].grad().allclose(expected[i] * kRounds, 1e-10, 1e-10)) << "param " << i;
  }
}

// Non-leaf tensors that retain their gradient, and autograd::backward's inputs, accumulate under
// the same lock as leaves.
TEST(Threads, ConcurrentRetainedAndInputGradients) {
  Tensor w = ones({3}, kFloat64).requires_grad_();
  Tensor mid = w * 2;  // shared non-leaf
  mid.retain_grad();
  constexpr int kRounds = 20;
  run_threads([&](int t) {
    for (int r = 0; r < kRounds; ++r) {
      (mid * (t + 1.0)).sum().backward(Tensor(), /*retain_graph=*/true);
    }
  });
  // d/dmid sum((t + 1) mid) = t + 1, summed over threads and rounds; dw = 2 dmid.
  const double per_round = 1 + 2 + 3 + 4;
  for (double g : mid.grad().tolist<double>()) EXPECT_DOUBLE_EQ(g, kRounds * per_round);
  for (double g : w.grad().tolist<double>()) EXPECT_DOUBLE_EQ(g, 2 * kRounds * per_round);
}

// One generator shared by threads: each call reserves its own Philox range under the generator's
// lock, so the concurrent draws are the serial draws in some order.
TEST(Threads, SharedGeneratorGivesDisjointDraws) {
  constexpr int kRounds = 25;
  Generator serial(3);
  std::multiset<std::vector<float>> expected, got;
  for (int i = 0; i < kThreads * kRounds; ++i) expected.insert(rand({7}, serial).tolist<float>());
  Generator shared(3);
  std::vector<std::vector<std::vector<float>>> per_thread(kThreads);
  run_threads([&](int t) {
    for (int r = 0; r < kRounds; ++r) per_thread[t].push_back(rand({7}, shared).tolist<float>());
  });
  for (const auto& v : per_thread) got.insert(v.begin(), v.end());
  EXPECT_EQ(got, expected);
  EXPECT_EQ(shared.offset(), serial.offset());
}

// DataLoader workers load batches while other threads run ops (and draw from the default
// generator): every sample arrives exactly once, with its own values.
TEST(Threads, DataLoaderWorkersWhileOtherThreadsRunOps) {
  constexpr int64_t n = 64;
  Tensor x = arange(3 * n, kFloat32).reshape({n, 3});
  auto ds = std::make_shared<data::TensorDataset>(std::vector<Tensor>{x, arange(n)});
  data::DataLoader loader(ds, data::DataLoaderOptions().batch_size(5).shuffle(true).workers(2));
  std::atomic<bool> stop{false};
  std::vector<std::thread> busy;
  for (int t = 0; t < 2; ++t) {
    busy.emplace_back([&] {
      while (!stop.load()) (randn({16, 16}).matmul(randn({16, 16})) + 1).sum();
    });
  }
  for (int epoch = 0; epoch < 3; ++epoch) {
    std::vector<int64_t> seen;
    for (auto& batch : loader) {
      const auto idx = batch[1].tolist<int64_t>();
      const auto rows = batch[0].tolist<float>();
      ASSERT_EQ(rows.size(), 3 * idx.size());
      for (size_t r = 0; r < idx.size(); ++r) {
        for (int c = 0; c < 3; ++c) EXPECT_EQ(rows[3 * r + c], 3.0f * idx[r] + c);
      }
      seen.insert(seen.end(), idx.begin(), idx.end());
    }
    std::sort(seen.begin(), seen.end());
    std::vector<int64_t> all(n);
    for (int64_t i = 0; i < n; ++i) all[i] = i;
    EXPECT_EQ(seen, all) << "epoch " << epoch;
  }
  stop = true;
  for (auto& th : busy) th.join();
}

// The profiler started and stopped while other threads run ops: their ops land in the window.
TEST(Threads, ProfilerStartedWhileOtherThreadsRunOps) {
  std::atomic<bool> stop{false};
  std::atomic<int64_t> ops{0};
  std::vector<std::thread> busy;
  for (int t = 0; t < 3; ++t) {
    busy.emplace_back([&] {
      const Tensor a = ones({8, 8});
      while (!stop.load()) {
        (a.matmul(a) + 1).sum();
        ++ops;
      }
    });
  }
  for (int window = 0; window < 3; ++window) {
    profiler::profile p;
    p.start();
    const int64_t at_start = ops.load();
    // Bounded wait until the other threads have run ops inside the window.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (ops.load() < at_start + 30 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    (ones({2}) * 3).sum();  // this thread's op
    p.stop();
    ASSERT_GE(ops.load(), at_start + 30) << "the busy threads made no progress";
    std::set<int64_t> threads;
    int64_t matmuls = 0;
    for (const auto& e : p.events()) {
      threads.insert(e.thread);
      matmuls += e.name == "aten::matmul" || e.name == "aten::mm";
    }
    EXPECT_GE(threads.size(), 2u) << "window " << window;
    EXPECT_GT(matmuls, 0) << "window " << window;
  }
  stop = true;
  for (auto& th : busy) th.join();
}

}  // namespace
}  // namespace ember
