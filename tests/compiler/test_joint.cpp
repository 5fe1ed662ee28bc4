// Joint forward+backward graphs (Note [Joint graph]), the partitioner (Note [Partitioner]) and
// aot_function: the graphs' outputs and gradients are held against eager autograd's.
#include <ember/compiler.h>
#include <ember/core/allocator.h>
#include <ember/fx/joint.h>
#include <ember/nn.h>
#include <ember/nn/functional/activation.h>
#include <ember/nn/functional/linear.h>
#include <ember/nn/functional/loss.h>
#include <gtest/gtest.h>

#include "cli/gpt.h"

namespace ember::test {
namespace {

// tanh(x @ w1 + b1) @ w2: x does not require grad, the weights do.
std::vector<Tensor> mlp(const std::vector<Tensor>& xs) {
  return {(xs[0].matmul(xs[1]) + xs[2]).tanh().matmul(xs[3])};
}

std::vector<Tensor> mlp_inputs() {
  manual_seed(11);
  return {randn({4, 5}), randn({5, 8}).requires_grad_(), randn({8}).requires_grad_(),
          randn({8, 3}).requires_grad_()};
}

// Eager outputs, then the gradients of the inputs that require grad weighted by `tangent`.
std::vector<Tensor> eager_mlp(const std::vector<Tensor>& in, const Tensor& tangent) {
  std::vector<Tensor> out = mlp(in);
  const std::vector<Tensor> g = autograd::grad(out, {in[1], in[2], in[3]}, {tangent});
  out.insert(out.end(), g.begin(), g.end());
  return out;
}

void expect_joint_matches_eager(const fx::JointGraph& joint) {
  const std::vector<Tensor> in = mlp_inputs();
  const Tensor tangent = randn({4, 3});
  const std::vector<Tensor> want = eager_mlp(in, tangent);
  const std::vector<Tensor> got = joint(in, {tangent});
  ASSERT_EQ(got.size(), 5u);
  EXPECT_TRUE(got[0].allclose(want[0], 1e-5, 1e-6));
  EXPECT_FALSE(got[1].defined());  // x does not require grad
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_TRUE(got[2 + k].allclose(want[1 + k], 1e-5, 1e-6)) << "gradient of input " << k + 1;
  }
}

TEST(Joint, GraphOfAnMlpEqualsEagerAutograd) {
  const fx::JointGraph joint = make_joint(mlp, mlp_inputs());
  EXPECT_EQ(joint.num_primals, 4u);
  EXPECT_EQ(joint.num_outputs, 1u);
  EXPECT_EQ(joint.num_tangents, 1u);
  EXPECT_EQ(joint.grad_of, (std::vector<int>{-1, 0, 1, 2}));
  const fx::Graph& g = joint.module.graph();
  EXPECT_EQ(g.num_placeholders(), 5u);
  EXPECT_EQ(g.nodes()[4].name, "tangents_1");
  EXPECT_EQ(g.nodes().back().args.size(), 4u);  // the output and three gradients
  // The vjps are recorded: tanh's backward multiplies by 1 - tanh^2, the matmuls' transposes.
  size_t mm = 0;
  for (const fx::Node& n : g.nodes()) mm += n.op() == "mm" || n.op() == "bmm";
  EXPECT_GE(mm, 5u) << g.to_string();
  expect_joint_matches_eager(joint);
  // The graph round-trips through JSON.
  EXPECT_EQ(fx::Graph::from_json(g.to_json()), g);
}

TEST(Joint, FakeTracingGivesTheSameGraph) {
  const fx::JointGraph joint = make_joint(mlp, mlp_inputs(), {.mode = TracingMode::Fake});
  expect_joint_matches_eager(joint);
}

// Modules traced fake: their forward reads the real parameters, not the meta twins the traced
// function receives, and the gradients still reach the parameter placeholders.
TEST(Joint, FakeTracingOfModules) {
  manual_seed(12);
  nn::Embedding emb(10, 4);
  nn::LayerNorm ln(std::vector<int64_t>{4});
  nn::Linear lin(4, 3);
  auto check = [](nn::Module& m, const std::function<Tensor(const Tensor&)>& f, const Tensor& in,
                  const char* name) {
    const JointFn fn = [&](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
      return {f(xs[0]).sin().sum()};
    };
    const fx::JointGraph joint = make_joint(m, fn, {in}, {.mode = TracingMode::Fake});
    std::vector<Tensor> primals = m.parameters();
    primals.push_back(in);
    const std::vector<Tensor> got = joint(primals, {ones({})});
    const std::vector<Tensor> want = autograd::grad(fn({in}), m.parameters());
    for (size_t k = 0; k < want.size(); ++k) {
      EXPECT_TRUE(got[1 + k].allclose(want[k], 1e-4, 1e-5)) << name << " parameter " << k;
    }
  };
  const Tensor x = randn({3, 4});
  check(
      *emb, [&](const Tensor& t) { return emb->forward(t); }, tensor<int64_t>({1, 2, 1, 5}),
      "Embedding");
  check(
      *ln, [&](const Tensor& t) { return ln->forward(t); }, x, "LayerNorm");
  check(
      *lin, [&](const Tensor& t) { return lin->forward(t); }, x, "Linear");
  // gelu's backward fills an output it preallocated (real in a fake trace) and reads it back.
  auto tied = [&](const Tensor& t) {
    return nn::functional::gelu(nn::functional::linear(emb->forward(t), emb->weight));
  };
  check(*emb, tied, tensor<int64_t>({1, 2, 1, 5}), "Embedding, a tied linear, gelu");
}

TEST(Joint, Errors) {
  const std::vector<Tensor> in = mlp_inputs();
  // A function that reads a declared-dynamic size as an integer specialises it.
  auto scaled = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {mlp(xs)[0] * static_cast<double>(xs[0].size(0))};
  };
  EXPECT_THROW(
      make_joint(scaled, in, {.dynamic = DynamicSpec{{{0, Dim("batch", 2, 8)}}, {}, {}, {}}}),
      ConstraintViolationError);
  // An in-place op on a view with dynamic shapes that needs gradients is not supported yet.
  auto view_inplace = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    Tensor y = xs[1] * 1;
    y.narrow(0, 0, 1).mul_(2);
    return {y};
  };
  const std::string message = [&] {
    try {
      make_joint(view_inplace, in, {.dynamic = DynamicSpec{{}, {{0, Dim("rows", 2, 8)}}, {}, {}}});
    } catch (const NotImplementedError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  }();
  EXPECT_NE(message.find("[mul_] an in-place operation on a view with dynamic shapes"),
            std::string::npos)
      << message;
  EXPECT_THROW(make_joint(JointFn{}, in), ValueError);
  const fx::JointGraph joint = make_joint(mlp, in);
  EXPECT_THROW(joint(in, {}), ValueError);  // one tangent expected
}

// Gradients through a joint graph and its partitioned graphs at `primals`, in primal order
// (undefined where none): the joint graph's, then each partition's.
std::vector<std::vector<Tensor>> joint_gradients(const fx::JointGraph& joint,
                                                 const std::vector<fx::PartitionedGraphs>& parts,
                                                 const std::vector<Tensor>& primals,
                                                 const std::vector<Tensor>& tangents) {
  std::vector<std::vector<Tensor>> all;
  const std::vector<Tensor> j = joint(primals, tangents);
  all.emplace_back(j.begin() + static_cast<std::ptrdiff_t>(joint.num_outputs), j.end());
  for (const fx::PartitionedGraphs& p : parts) {
    std::vector<Tensor> fwd = p.forward(primals);
    std::vector<Tensor> bw(fwd.begin() + static_cast<std::ptrdiff_t>(p.num_outputs), fwd.end());
    bw.insert(bw.end(), tangents.begin(), tangents.end());
    const std::vector<Tensor> g = p.backward(bw);
    std::vector<Tensor> grads;
    for (int k : p.grad_of) grads.push_back(k < 0 ? Tensor() : g.at(k));
    all.push_back(std::move(grads));
  }
  return all;
}

// Note [Symbolic autograd]: one joint graph traced with a dynamic batch serves every batch in
// the Dim's range with eager autograd's outputs and gradients, and so do the forward and backward
// graphs the partitioner makes of it; a batch outside the range is refused.
TEST(Joint, MlpWithDynamicBatch) {
  const std::vector<Tensor> in = mlp_inputs();
  const fx::JointGraph joint =
      make_joint(mlp, in, {.dynamic = DynamicSpec{{{0, Dim("batch", 1, 64)}}, {}, {}, {}}});
  const std::string text = joint.module.graph().to_string();
  EXPECT_NE(text.find("f32[s0, 3]"), std::string::npos) << text;  // the tangent is symbolic
  const std::vector<fx::PartitionedGraphs> parts = {
      fx::partition(joint), fx::partition(joint, fx::PartitionPolicy::SaveAll)};
  for (int64_t batch : {1, 2, 4, 17, 64}) {
    std::vector<Tensor> xs = in;
    xs[0] = randn({batch, 5});
    const Tensor tangent = randn({batch, 3});
    const std::vector<Tensor> want = eager_mlp(xs, tangent);
    EXPECT_TRUE(joint(xs, {tangent})[0].allclose(want[0], 1e-5, 1e-6)) << "batch " << batch;
    const auto all = joint_gradients(joint, parts, xs, {tangent});
    for (size_t v = 0; v < all.size(); ++v) {
      EXPECT_FALSE(all[v][0].defined());
      for (size_t k = 0; k < 3; ++k) {
        EXPECT_TRUE(all[v][1 + k].allclose(want[1 + k], 1e-5, 1e-5))
            << "batch " << batch << ", graph " << v << ", gradient of input " << k + 1;
      }
    }
  }
  std::vector<Tensor> big = in;
  big[0] = randn({65, 5});
  EXPECT_THROW(joint(big, {randn({65, 3})}), ValueError);
}

// A module's joint graph with the batch of its inputs dynamic (the spec names fn's inputs, not
// the parameters): a mean loss divides by the batch, a symbolic count the graph computes.
TEST(Joint, ModuleWithDynamicBatchAndAMeanLoss) {
  manual_seed(3);
  nn::Sequential net(nn::Linear(6, 16), nn::GELU(), nn::Linear(16, 4));
  auto loss = [&](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    const Tensor out = net->forward(xs[0]);
    return {(out - xs[1]).pow(2).mean() + nn::functional::cross_entropy(out, xs[2]) +
            out.var(0).sum()};
  };
  const Dim batch("batch", 2, 128);
  const std::vector<Tensor> example = {randn({5, 6}), randn({5, 4}), randint(0, 4, {5}, kInt64)};
  const fx::JointGraph joint = make_joint(
      *net, loss, example, {.dynamic = DynamicSpec{{{0, batch}}, {{0, batch}}, {{0, batch}}}});
  const std::vector<fx::PartitionedGraphs> parts = {fx::partition(joint)};
  const std::vector<Tensor> params = net->parameters();
  for (int64_t b : {2, 7, 128}) {
    const std::vector<Tensor> xs = {randn({b, 6}), randn({b, 4}), randint(0, 4, {b}, kInt64)};
    const Tensor want_loss = loss(xs)[0];
    const std::vector<Tensor> want = autograd::grad({want_loss}, params);
    std::vector<Tensor> primals = params;
    primals.insert(primals.end(), xs.begin(), xs.end());
    EXPECT_TRUE(joint(primals, {ones({})})[0].allclose(want_loss, 1e-5, 1e-6)) << "batch " << b;
    const auto all = joint_gradients(joint, parts, primals, {ones({})});
    for (size_t v = 0; v < all.size(); ++v) {
      for (size_t k = 0; k < params.size(); ++k) {
        EXPECT_TRUE(all[v][k].allclose(want[k], 1e-4, 1e-5))
            << "batch " << b << ", graph " << v << ", parameter " << k;
      }
    }
  }
}

// The forward graph then the backward graph compute what the joint graph does, under both
// policies; recomputing saves no more than saving everything.
TEST(Joint, PartitionedGraphsEqualTheJointGraph) {
  const std::vector<Tensor> in = mlp_inputs();
  const fx::JointGraph joint = make_joint(mlp, in);
  const Tensor tangent = randn({4, 3});
  const std::vector<Tensor> want = joint(in, {tangent});
  int64_t bytes[2] = {};
  for (fx::PartitionPolicy policy :
       {fx::PartitionPolicy::SaveAll, fx::PartitionPolicy::Recompute}) {
    const fx::PartitionedGraphs p = fx::partition(joint, policy);
    std::vector<Tensor> fwd = p.forward(in);
    ASSERT_EQ(fwd.size(), 1 + p.num_saved);
    EXPECT_TRUE(fwd[0].allclose(want[0]));
    std::vector<Tensor> bw_in(fwd.begin() + 1, fwd.end());
    bw_in.push_back(tangent);
    const std::vector<Tensor> grads = p.backward(bw_in);
    ASSERT_EQ(grads.size(), 3u);
    for (size_t k = 0; k < 3; ++k) EXPECT_TRUE(grads[k].allclose(want[2 + k], 1e-5, 1e-6));
    bytes[policy == fx::PartitionPolicy::Recompute] = p.saved_bytes;
    // No backward (tangent-dependent) value is computed in the forward graph.
    EXPECT_EQ(p.forward.graph().to_string().find("tangents"), std::string::npos);
  }
  EXPECT_LE(bytes[1], bytes[0]);
}

// y = sin(x).exp() * 2: recomputing keeps x alone, which the caller holds anyway.
TEST(Joint, RecomputesPointwiseChains) {
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {(xs[0].sin().exp() * 2.0).sum()};
  };
  const Tensor x = randn({16}).requires_grad_();
  const fx::JointGraph joint = make_joint(fn, {x});
  const fx::PartitionedGraphs all = fx::partition(joint, fx::PartitionPolicy::SaveAll);
  const fx::PartitionedGraphs re = fx::partition(joint);
  // Save-all: exp's output, the scalar 2 as a tensor, and cos(x) (sin's vjp reads no tangent
  // to make it, so it is a forward value, as in functorch's default_partition).
  EXPECT_EQ(all.saved_bytes, 2 * 16 * 4 + 4) << all.backward.graph().to_string();
  EXPECT_EQ(re.saved_bytes, 0) << re.backward.graph().to_string();
  EXPECT_EQ(re.num_saved, 1u);
  EXPECT_GE(re.recomputed, 2u);
  const Tensor out = aot_function(fn, {x})({x})[0];
  const Tensor want = autograd::grad(fn({x}), {x})[0];
  const Tensor got = autograd::grad({out}, {x})[0];
  EXPECT_TRUE(got.allclose(want, 1e-5, 1e-6));
}

TEST(Joint, AotFunctionGradientsAccumulateAsInEager) {
  const std::vector<Tensor> in = mlp_inputs();
  const JointFn compiled = aot_function(mlp, in);
  std::vector<Tensor> eager_in;
  for (const Tensor& t : in) {
    eager_in.push_back(t.detach().clone().requires_grad_(t.requires_grad()));
  }
  for (int call = 0; call < 2; ++call) {  // the second call accumulates into .grad
    const Tensor got = compiled(in)[0], want = mlp(eager_in)[0];
    EXPECT_TRUE(got.allclose(want, 1e-5, 1e-6));
    ASSERT_TRUE(got.grad_fn() != nullptr);
    EXPECT_EQ(got.grad_fn()->name(), "CompiledFunctionBackward");
    (got * got).sum().backward();
    (want * want).sum().backward();
  }
  EXPECT_FALSE(in[0].grad().defined());
  for (size_t k = 1; k < 4; ++k) {
    ASSERT_TRUE(in[k].grad().defined());
    EXPECT_TRUE(in[k].grad().allclose(eager_in[k].grad(), 1e-4, 1e-5)) << "input " << k;
  }
  {  // without grad mode: no node
    NoGradGuard no_grad;
    EXPECT_TRUE(compiled(in)[0].grad_fn() == nullptr);
  }
  std::vector<Tensor> frozen = in;
  frozen[1] = in[1].detach();
  EXPECT_THROW(compiled(frozen), ValueError);  // traced with input 1 requiring grad
}

// fw_compiler and bw_compiler see the partitioned graphs once each, and what they return runs.
TEST(Joint, AotFunctionRunsTheGraphCompilers) {
  const std::vector<Tensor> in = mlp_inputs();
  int fw_compiles = 0, bw_compiles = 0, fw_runs = 0, bw_runs = 0;
  size_t bw_inputs = 0;
  AotOptions options;
  options.fw_compiler = [&](const fx::GraphModule& gm) -> JointFn {
    ++fw_compiles;
    return [&fw_runs, gm](const std::vector<Tensor>& xs) {
      ++fw_runs;
      return gm(xs);
    };
  };
  options.bw_compiler = [&](const fx::GraphModule& gm) -> JointFn {
    ++bw_compiles;
    bw_inputs = gm.graph().num_placeholders();
    return [&bw_runs, gm](const std::vector<Tensor>& xs) {
      ++bw_runs;
      return gm(xs);
    };
  };
  const JointFn compiled = aot_function(mlp, in, options);
  EXPECT_EQ(fw_compiles, 1);
  EXPECT_EQ(bw_compiles, 1);
  EXPECT_GE(bw_inputs, 2u);  // at least one saved value and the tangent
  const Tensor out = compiled(in)[0];
  EXPECT_EQ(fw_runs, 1);
  EXPECT_EQ(bw_runs, 0);
  out.sum().backward();
  EXPECT_EQ(bw_runs, 1);
  const Tensor want = autograd::grad({mlp(in)[0].sum()}, {in[3]})[0];
  EXPECT_TRUE(in[3].grad().allclose(want, 1e-5, 1e-6));
}

// pair_compiler sees the forward and backward graphs in one call (fw_compiler is then unused),
// and what it returns runs.
TEST(Joint, AotFunctionRunsThePairCompiler) {
  const std::vector<Tensor> in = mlp_inputs();
  int pair_compiles = 0, fw_compiles = 0, bw_runs = 0;
  size_t fw_outputs = 0, bw_inputs = 0;
  AotOptions options;
  options.fw_compiler = [&](const fx::GraphModule& gm) -> JointFn {
    ++fw_compiles;
    return [gm](const std::vector<Tensor>& xs) { return gm(xs); };
  };
  options.pair_compiler = [&](const fx::GraphModule& fw, const fx::GraphModule& bw) {
    ++pair_compiles;
    fw_outputs = fw.graph().nodes().back().args.size();
    bw_inputs = bw.graph().num_placeholders();
    JointFn f = [fw](const std::vector<Tensor>& xs) { return fw(xs); };
    JointFn b = [&bw_runs, bw](const std::vector<Tensor>& xs) {
      ++bw_runs;
      return bw(xs);
    };
    return std::make_pair(f, b);
  };
  const JointFn compiled = aot_function(mlp, in, options);
  EXPECT_EQ(pair_compiles, 1);
  EXPECT_EQ(fw_compiles, 0);
  EXPECT_GE(fw_outputs, 2u);  // the output and at least one saved value
  EXPECT_GE(bw_inputs, 2u);   // at least one saved value and the tangent
  compiled(in)[0].sum().backward();
  EXPECT_EQ(bw_runs, 1);
  const Tensor want = autograd::grad({mlp(in)[0].sum()}, {in[3]})[0];
  EXPECT_TRUE(in[3].grad().allclose(want, 1e-5, 1e-6));
}

// ember::compile trains through the joint graph: one autograd node per call, eager's gradients.
TEST(Joint, CompileTrainsThroughTheJointGraph) {
  auto f = compile([](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {(xs[0] * xs[1]).sin().sum()};
  });
  const Tensor a = randn({5}).requires_grad_(), b = randn({5}).requires_grad_();
  const Tensor out = f({a, b})[0];
  ASSERT_TRUE(out.grad_fn() != nullptr);
  EXPECT_EQ(out.grad_fn()->name(), "CompiledFunctionBackward");
  out.backward();
  const Tensor a2 = a.detach().requires_grad_(), b2 = b.detach().requires_grad_();
  (a2 * b2).sin().sum().backward();
  EXPECT_TRUE(a.grad().allclose(a2.grad(), 1e-5, 1e-6));
  EXPECT_TRUE(b.grad().allclose(b2.grad(), 1e-5, 1e-6));

  // A module (the `ember train` GPT): its parameters' .grad as in eager mode.
  manual_seed(7);
  cli::GPTConfig config{/*vocab_size=*/65, /*context=*/8, /*layers=*/1, /*heads=*/2, /*dim=*/16};
  cli::GPT gpt(config);
  auto model = compile(gpt);
  const Tensor idx = randint(0, config.vocab_size, {2, 8}, kInt64);
  const Tensor logits = model(idx);
  ASSERT_TRUE(logits.grad_fn() != nullptr);
  EXPECT_EQ(logits.grad_fn()->name(), "CompiledFunctionBackward");
  logits.pow(2).mean().backward();
  std::vector<Tensor> got;
  for (const Tensor& p : gpt->parameters()) got.push_back(p.grad().clone());
  gpt->zero_grad();
  gpt->forward(idx).pow(2).mean().backward();
  const std::vector<Tensor> params = gpt->parameters();
  for (size_t k = 0; k < params.size(); ++k) {
    EXPECT_TRUE(got[k].allclose(params[k].grad(), 1e-4, 1e-5)) << "parameter " << k;
  }
}

// Bytes eager autograd keeps alive for the backward: allocated after a forward with grad minus
// after the same forward without (both keep the output).
int64_t eager_saved_bytes(const std::function<Tensor()>& forward) {
  int64_t without = 0, with = 0;
  {
    NoGradGuard no_grad;
    const int64_t before = memory_stats().allocated;
    const Tensor out = forward();
    without = memory_stats().allocated - before;
  }
  const int64_t before = memory_stats().allocated;
  const Tensor out = forward();
  with = memory_stats().allocated - before;
  return with - without;
}

// A one-block GPT (embedding, a pre-norm transformer block, the head) with its loss: gradients
// of every parameter through aot_module equal eager's, and the saved bytes are reported.
TEST(Joint, GptBlockThroughAotModule) {
  manual_seed(5);
  cli::GPTConfig config{/*vocab_size=*/65, /*context=*/16, /*layers=*/1, /*heads=*/4, /*dim=*/32};
  cli::GPT model(config);
  const Tensor idx = randint(0, config.vocab_size, {2, 16}, kInt64);
  const Tensor target = randint(0, config.vocab_size, {2, 16}, kInt64);
  auto loss = [&](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    const Tensor logits = model->forward(xs[0]);
    return {nn::functional::cross_entropy(logits.reshape({-1, config.vocab_size}),
                                          xs[1].reshape({-1}))};
  };
  const fx::JointGraph joint = make_joint(*model, loss, {idx, target});
  const fx::PartitionedGraphs all = fx::partition(joint, fx::PartitionPolicy::SaveAll);
  const fx::PartitionedGraphs re = fx::partition(joint);
  const int64_t eager = eager_saved_bytes([&] { return loss({idx, target})[0]; });
  std::printf(
      "[ joint    ] GPT block (1 layer, dim 32, batch 2 x 16): joint graph %zu nodes; saved for "
      "backward: eager autograd %lld bytes, save-all %lld bytes (%zu values), recompute %lld "
      "bytes (%zu values, %zu calls recomputed)\n",
      joint.module.graph().nodes().size(), static_cast<long long>(eager),
      static_cast<long long>(all.saved_bytes), all.num_saved,
      static_cast<long long>(re.saved_bytes), re.num_saved, re.recomputed);
  {
    const std::vector<Tensor> params0 = model->parameters();
    std::vector<Tensor> primals = params0;
    primals.push_back(idx);
    primals.push_back(target);
    const std::vector<Tensor> j = joint(primals, {ones({})});
    const std::vector<Tensor> e = autograd::grad(loss({idx, target}), params0);
    // Traced fake too (gelu's backward preallocates a real output the tracer must follow).
    const fx::JointGraph fake =
        make_joint(*model, loss, {idx, target}, {.mode = TracingMode::Fake});
    const std::vector<Tensor> jf = fake(primals, {ones({})});
    for (size_t k = 0; k < params0.size(); ++k) {
      EXPECT_TRUE(j[1 + k].allclose(e[k], 1e-4, 1e-5)) << "joint parameter " << k;
    }
    for (const fx::PartitionedGraphs* p : {&all, &re}) {
      std::vector<Tensor> fwd = p->forward(primals);
      std::vector<Tensor> bw(fwd.begin() + 1, fwd.end());
      bw.push_back(ones({}));
      const std::vector<Tensor> gr = p->backward(bw);
      for (size_t k = 0; k < params0.size(); ++k) {
        EXPECT_TRUE(gr[k].allclose(e[k], 1e-4, 1e-5))
            << "parameter " << k << (p == &re ? " (recompute)" : " (save all)");
      }
    }
  }
  EXPECT_LT(re.saved_bytes, all.saved_bytes);
  EXPECT_LT(re.saved_bytes, eager);
  EXPECT_GT(re.recomputed, 0u);

  const std::vector<Tensor> params = model->parameters();
  auto grads_of = [&](const Tensor& l) {
    for (Tensor p : params) p.mutable_grad() = Tensor();
    l.backward();
    std::vector<Tensor> g;
    for (const Tensor& p : params) g.push_back(p.grad().clone());
    return g;
  };
  const Tensor eager_loss = loss({idx, target})[0];
  const std::vector<Tensor> want = grads_of(eager_loss);
  const JointFn compiled = aot_module(*model, loss, {idx, target});
  for (int call = 0; call < 2; ++call) {
    const Tensor l = compiled({idx, target})[0];
    EXPECT_TRUE(l.allclose(eager_loss, 1e-5, 1e-6));
    const std::vector<Tensor> got = grads_of(l);
    for (size_t k = 0; k < params.size(); ++k) {
      EXPECT_TRUE(got[k].allclose(want[k], 1e-4, 1e-5))
          << "parameter " << model->named_parameters().keys()[k] << " max diff "
          << (got[k] - want[k]).abs().max().item<double>() << " scale "
          << want[k].abs().max().item<double>();
    }
  }
}

}  // namespace
}  // namespace ember::test
