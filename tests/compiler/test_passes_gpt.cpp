// Issue "Compiler, part 1"'s benchmark: the joint forward+backward graph of the default
// `ember train` GPT (4 layers, 128 wide, 4 heads, context 64, batch 32, 65 symbols) traced with
// fake tensors, then the default pass pipeline (Note [Graph passes]); prints the tracing time
// and the node counts before and after each pass, and checks that the passed graph computes
// the same loss and gradients.
#include <ember/compiler.h>
#include <ember/fx/joint.h>
#include <gtest/gtest.h>

#include <chrono>

#include "cli/gpt.h"

namespace ember::test {
namespace {

TEST(PassesGpt, JointGraphOfTheTrainModel) {
  manual_seed(7);
  cli::GPTConfig config{/*vocab_size=*/65, /*context=*/64, /*layers=*/4, /*heads=*/4, /*dim=*/128};
  cli::GPT model(config);
  const Tensor idx = randint(0, config.vocab_size, {32, 64}, kInt64);
  const Tensor target = randint(0, config.vocab_size, {32, 64}, kInt64);
  auto loss = [&](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    const Tensor logits = model->forward(xs[0]);
    return {nn::functional::cross_entropy(logits.reshape({-1, config.vocab_size}),
                                          xs[1].reshape({-1}))};
  };
  auto seconds_of = [](auto&& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  fx::JointGraph joint;
  const double trace_s = seconds_of([&] {
    joint = make_joint(*model, loss, {idx, target}, {.mode = TracingMode::Fake});
  });
  std::vector<fx::PassRecord> records;
  fx::GraphModule passed;
  const double passes_s = seconds_of([&] { passed = fx::run_passes(joint.module, &records); });
  std::printf(
      "[ passes   ] GPT joint graph (train defaults, batch 32 x 64): traced (fake) in %.3f "
      "s, %zu nodes; passes in %.3f s:\n",
      trace_s, joint.module.graph().nodes().size(), passes_s);
  for (const fx::PassRecord& r : records) {
    std::printf("[ passes   ]   %-32s %5d changed, %zu -> %zu nodes\n", r.name.c_str(), r.changed,
                r.nodes_before, r.nodes_after);
  }
  RecordProperty("joint_nodes", static_cast<int>(joint.module.graph().nodes().size()));
  RecordProperty("passed_nodes", static_cast<int>(passed.graph().nodes().size()));
  EXPECT_LT(passed.graph().nodes().size(), joint.module.graph().nodes().size());
  // The passed graph computes the same loss and gradients (a smaller batch, to keep it fast).
  const Tensor small_idx = idx.slice(0, 0, 2).slice(1, 0, 16).contiguous();
  const Tensor small_target = target.slice(0, 0, 2).slice(1, 0, 16).contiguous();
  const fx::JointGraph small = make_joint(*model, loss, {small_idx, small_target});
  const fx::GraphModule small_passed = fx::run_passes(small.module);
  std::vector<Tensor> in = model->parameters();
  in.push_back(small_idx);
  in.push_back(small_target);
  in.push_back(ones({}));
  const std::vector<Tensor> want = small.module(in), got = small_passed(in);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    EXPECT_TRUE(got[k].allclose(want[k], 1e-4, 1e-6)) << "output " << k;
  }
}

}  // namespace
}  // namespace ember::test
