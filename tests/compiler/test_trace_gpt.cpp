// make_fx on the `ember train` GPT (default size: 4 blocks, 128 wide, 4 heads, context 64): the
// forward is captured in both tracing modes, verified, written to JSON and read back, and the
// replayed graph equals the eager forward exactly. Prints the node count and the tracing time
// (issue "Compiler, part 1" asks for the joint forward+backward graph under 1 s on one core;
// this is the forward alone).
#include <ember/compiler.h>
#include <ember/fx/joint.h>
#include <ember/nn/functional/loss.h>
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

// Note [Symbolic autograd]: the GPT's forward, loss and backward traced as one joint graph with
// batch and sequence dynamic; at every size the parameters' gradients equal eager autograd's.
TEST(TraceGpt, JointGraphWithDynamicBatchAndSequence) {
  const cli::GPTConfig& config = kSmall;
  manual_seed(6);
  cli::GPT model(config);
  model->eval();
  auto loss = [&](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    const Tensor logits = model->forward(xs[0]);
    return {nn::functional::cross_entropy(logits.reshape({-1, config.vocab_size}),
                                          xs[1].reshape({-1}))};
  };
  const Dim batch("batch", 1, 64), seq("seq", 1, config.context);
  const DynamicSpec spec{{{0, batch}, {1, seq}}, {{0, batch}, {1, seq}}};
  const std::vector<Tensor> example = {randint(0, config.vocab_size, {3, 8}, kInt64),
                                       randint(0, config.vocab_size, {3, 8}, kInt64)};
  const auto start = std::chrono::steady_clock::now();
  const fx::JointGraph joint = make_joint(*model, loss, example, {.dynamic = spec});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "[ trace    ] GPT (2 layers, dim 32) joint graph with dynamic batch and sequence: "
      "%zu nodes, traced in %.3f s\n",
      joint.module.graph().nodes().size(), seconds);
  const std::vector<Tensor> params = model->parameters();
  for (auto [b, t] : {std::pair<int64_t, int64_t>{1, 1}, {2, 9}, {5, 16}}) {
    const std::vector<Tensor> xs = {randint(0, config.vocab_size, {b, t}, kInt64),
                                    randint(0, config.vocab_size, {b, t}, kInt64)};
    const Tensor want_loss = loss(xs)[0];
    const std::vector<Tensor> want = autograd::grad({want_loss}, params);
    std::vector<Tensor> primals = params;
    primals.insert(primals.end(), xs.begin(), xs.end());
    const std::vector<Tensor> got = joint(primals, {ones({})});
    EXPECT_TRUE(got[0].allclose(want_loss, 1e-5, 1e-6)) << "batch " << b << " seq " << t;
    for (size_t k = 0; k < params.size(); ++k) {
      EXPECT_TRUE(got[1 + k].allclose(want[k], 1e-4, 1e-5))
          << "batch " << b << " seq " << t << ", parameter " << k;
    }
  }
}

}  // namespace
}  // namespace ember::test
