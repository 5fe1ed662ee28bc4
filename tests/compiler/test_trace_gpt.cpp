// make_fx on the `ember train` GPT (default size: 4 blocks, 128 wide, 4 heads, context 64): the
// forward is captured in both tracing modes, verified, written to JSON and read back, and the
// replayed graph equals the eager forward exactly. Prints the node count and the tracing time
// (issue "Compiler, part 1" asks for the joint forward+backward graph under 1 s on one core;
// this is the forward alone).
#include <ember/compiler.h>
#include <gtest/gtest.h>

#include <chrono>

#include "cli/gpt.h"

namespace ember::test {
namespace {

TEST(TraceGpt, ForwardOfTheTrainModel) {
  manual_seed(3);
  cli::GPTConfig config{/*vocab_size=*/65, /*context=*/64, /*layers=*/4, /*heads=*/4, /*dim=*/128};
  cli::GPT model(config);
  model->eval();
  const Tensor idx = randint(0, config.vocab_size, {1, 64}, kInt64);
  auto forward = [&](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {model->forward(xs[0])};
  };
  auto seconds_of = [](auto&& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const double eager_seconds = seconds_of([&] { model->forward(idx); });
  {
    fx::GraphModule gm;
    const double seconds = seconds_of([&] { gm = make_fx(*model, forward, {idx}); });
    const char* name = "real";
    size_t calls = 0, inplace = 0;
    for (const fx::Node& n : gm.graph().nodes()) {
      calls += n.kind == fx::NodeKind::Call;
      inplace += n.inplace();
    }
    std::printf(
        "[ trace    ] GPT forward (%s): %zu nodes, %zu calls (%zu in place), traced in "
        "%.3f s (the eager forward alone: %.3f s)\n",
        name, gm.graph().nodes().size(), calls, inplace, seconds, eager_seconds);
    RecordProperty(std::string(name) + "_nodes", static_cast<int>(gm.graph().nodes().size()));
    EXPECT_EQ(gm.attrs().count("wte.weight"), 1u);
    EXPECT_EQ(gm.attrs().count("h.3.mlp.c_proj.weight"), 1u);
    const fx::GraphModule replayed(fx::Graph::from_json(gm.graph().to_json()), gm.attrs());
    const Tensor got = replayed({idx})[0], want = model->forward(idx);
    EXPECT_EQ(got.sizes(), (std::vector<int64_t>{1, 64, 65}));
    EXPECT_TRUE(got.equal(want)) << name;
  }
  // On meta tensors (no kernel runs): the same graph structure, and it replays exactly.
  {
    const fx::GraphModule fake = make_fx(*model, forward, {idx}, {.mode = TracingMode::Fake});
    EXPECT_TRUE(fake({idx})[0].equal(model->forward(idx)));
  }
}

// A small GPT (context 16), seeded, and its eval-mode forward traced at ids of `example` shape
// with `spec`.
const cli::GPTConfig kSmall{/*vocab_size=*/65, /*context=*/16, /*layers=*/2, /*heads=*/4,
                            /*dim=*/32};
std::pair<cli::GPT, fx::GraphModule> trace_small_gpt(uint64_t seed, std::vector<int64_t> example,
                                                     DynamicSpec spec) {
  manual_seed(seed);
  cli::GPT model(kSmall);
  model->eval();
  auto forward = [model](const std::vector<Tensor>& xs) mutable -> std::vector<Tensor> {
    return {model->forward(xs[0])};
  };
  fx::GraphModule gm = make_fx(*model, forward, {randint(0, kSmall.vocab_size, example, kInt64)},
                               {.dynamic = std::move(spec)});
  return {model, std::move(gm)};
}

// Issue "Compiler, part 1": the GPT forward with a dynamic batch. One graph, traced at batch 3,
// serves every batch in the Dim's range and equals the eager forward; outside the range the
// interpreter raises.
TEST(TraceGpt, ForwardWithDynamicBatch) {
  const cli::GPTConfig& config = kSmall;
  auto [model, gm] = trace_small_gpt(4, {3, 16}, DynamicSpec{{{0, Dim("batch", 2, 64)}}});
  EXPECT_NE(gm.graph().to_string().find("f32[s0, 16, 65]"), std::string::npos)
      << gm.graph().to_string();
  for (int64_t batch : {2, 5, 64}) {
    const Tensor idx = randint(0, config.vocab_size, {batch, 16}, kInt64);
    const Tensor got = gm({idx})[0], want = model->forward(idx);
    EXPECT_EQ(got.sizes(), (std::vector<int64_t>{batch, 16, 65}));
    EXPECT_TRUE(got.allclose(want, 1e-5, 1e-6)) << "batch " << batch;
  }
  EXPECT_THROW(gm({randint(0, config.vocab_size, {65, 16}, kInt64)}), ValueError);
}

// The test: batch and sequence declared dynamic (batch 1..64, sequence 1..context), one
// trace runs every size in range with no retrace and equals eager.
TEST(TraceGpt, ForwardWithDynamicBatchAndSequence) {
  const cli::GPTConfig& config = kSmall;
  auto [model, gm] = trace_small_gpt(
      5, {3, 8}, DynamicSpec{{{0, Dim("batch", 1, 64)}, {1, Dim("seq", 1, config.context)}}});
  EXPECT_NE(gm.graph().to_string().find("f32[s0, s1, 65]"), std::string::npos)
      << gm.graph().to_string();
  for (int64_t batch : {1, 2, 64}) {
    for (int64_t seq : {1, 2, 9, 16}) {
      const Tensor idx = randint(0, config.vocab_size, {batch, seq}, kInt64);
      const Tensor got = gm({idx})[0], want = model->forward(idx);
      EXPECT_EQ(got.sizes(), (std::vector<int64_t>{batch, seq, 65}));
      EXPECT_TRUE(got.allclose(want, 1e-5, 1e-6)) << "batch " << batch << " seq " << seq;
    }
  }
  EXPECT_THROW(gm({randint(0, config.vocab_size, {65, 4}, kInt64)}), ValueError);
  EXPECT_THROW(gm({randint(0, config.vocab_size, {2, 17}, kInt64)}), ValueError);
}

}  // namespace
}  // namespace ember::test
