// Note [Tracer] and the graph interpreter: make_fx records what dispatch sees; running the graph
// gives eager's results.
#include <ember/compiler.h>
#include <gtest/gtest.h>

#include "dispatch/primitive.h"
#include "ember/ember.h"
#include "ember/nn.h"
#include "opdb.h"
#include "primitives/copy.h"

namespace ember::test {
namespace {

// Tensors with known values (independent of Ember's random and arange kernels' order).
Tensor values_tensor(const std::vector<int64_t>& shape, double scale) {
  Tensor t = empty(shape, kFloat32);
  float* p = t.data_ptr<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(scale * ((i * 7) % 11 - 5));
  return t;
}

// The interface snippet, static case (a dynamic spec is refused for now, below).
TEST(MakeFx, InterfaceSnippetStatic) {
  using ember::Tensor;
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {(xs[0].matmul(xs[1])).relu().sum(-1)};
  };
  Tensor x = values_tensor({4, 3}, 0.5), w = values_tensor({3, 5}, 0.25);
  Tensor x2 = values_tensor({4, 3}, -0.75);
  ember::fx::GraphModule gm = ember::make_fx(fn, {x, w}, ember::TraceOptions{});
  std::string text = gm.graph().to_string();
  std::string json = gm.graph().to_json();
  ember::fx::Graph g2 = ember::fx::Graph::from_json(json);
  EXPECT_EQ(g2, gm.graph());
  std::vector<Tensor> out = gm({x2, w});
  ASSERT_EQ(out.size(), 1u);
  // Reference: relu(x2 @ w).sum(-1) by plain loops.
  const float* a = x2.data_ptr<float>();
  const float* b = w.data_ptr<float>();
  for (int i = 0; i < 4; ++i) {
    double row = 0;
    for (int j = 0; j < 5; ++j) {
      double acc = 0;
      for (int k = 0; k < 3; ++k) acc += double(a[i * 3 + k]) * b[k * 5 + j];
      row += std::max(acc, 0.0);
    }
    EXPECT_NEAR(out[0][i].item<double>(), row, 1e-5) << i;
  }
  // matmul of two matrices runs as a batched mm between views (as Ember's matmul builds it;
  // which views is the view redesign's business: only the other calls are pinned here).
  std::vector<std::string> computing;
  for (const fx::Node& n : gm.graph().nodes()) {
    if (n.kind == fx::NodeKind::Call && !n.prim->is_view()) computing.push_back(n.op());
  }
  EXPECT_EQ(computing, (std::vector<std::string>{"mm", "relu", "sum"}));
  for (const char* line :
       {"def forward(self, arg0_1: \"f32[4, 3]\", arg1_1: \"f32[3, 5]\"):\n",
        "    mm: \"f32[1, 4, 5]\" = ember.mm(", "    relu: \"f32[4, 5]\" = ember.relu(",
        "    sum: \"f32[4]\" = ember.sum(relu, op=Sum, dims=[1], keepdim=False, param=0, "
        "dtype=Float)\n",
        "    return (sum,)\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << " in\n" << text;
  }
}

// TracingMode::Fake: the function sees meta tensors (no kernel runs), and the graph is the one a
// real trace records.
TEST(MakeFx, FakeModeRecordsTheRealGraph) {
  bool saw_meta = false;
  auto fn = [&](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    saw_meta = xs[0].device().is_meta() && xs[1].device().is_meta();
    Tensor y = (xs[0].matmul(xs[1])).relu();
    y.mul_(2);
    return {y.sum(-1), y.t()};
  };
  Tensor x = values_tensor({4, 3}, 0.5), w = values_tensor({3, 5}, 0.25);
  fx::GraphModule fake = make_fx(fn, {x, w}, {.mode = TracingMode::Fake});
  EXPECT_TRUE(saw_meta);
  fx::GraphModule real = make_fx(fn, {x, w});
  EXPECT_FALSE(saw_meta);
  EXPECT_EQ(fake.graph(), real.graph()) << fake.graph().to_string() << real.graph().to_string();
  const std::vector<Tensor> a = fake({x, w}), b = real({x, w});
  EXPECT_TRUE(a[0].equal(b[0]));
  EXPECT_TRUE(a[1].equal(b[1]));
  EXPECT_EQ(a[1].strides(), (std::vector<int64_t>{1, 5}));
  // A random op's generator state on meta has no value to hold.
  expect_errors<NotImplementedError>(
      {{"random",
        [&] {
          make_fx(
              [](const std::vector<Tensor>& xs) {
                return std::vector<Tensor>{xs[0] + randn({4, 3}, xs[0].options())};
              },
              {x}, {.mode = TracingMode::Fake});
        },
        "made outside dispatch"}});
}

// The spec's checks; tracing with it is tests/compiler/test_symbolic.cpp.
TEST(MakeFx, DynamicSpecIsChecked) {
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> { return {xs[0] + xs[1]}; };
  Tensor x = ones({8, 3}), w = ones({3});
  ember::Dim batch("batch", /*min=*/1, /*max=*/1024);
  ember::DynamicSpec spec = {{{0, batch}}, {}};
  fx::GraphModule gm = make_fx(fn, {x, w}, ember::TraceOptions{.dynamic = spec});
  EXPECT_NE(gm.graph().to_string().find("f32[s0, 3]"), std::string::npos) << gm.graph().to_string();
  // An example outside the range violates the spec before anything else.
  ember::Dim small("small", 1, 4);
  try {
    make_fx(fn, {x, w}, ember::TraceOptions{.dynamic = {{{0, small}}, {}}});
    ADD_FAILURE() << "no error";
  } catch (const ConstraintViolationError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("Constraints violated (small)"), std::string::npos) << m;
    EXPECT_NE(m.find("[1, 4]"), std::string::npos) << m;
    EXPECT_NE(m.find("max=8"), std::string::npos) << m;  // the suggested fix
  }
  // The same Dim on unequal sizes.
  try {
    make_fx(fn, {x, ones({3, 5})},
            ember::TraceOptions{.dynamic = {{{0, batch}}, {{1, batch}, {0, Dim("n", 1, 8)}}}});
    ADD_FAILURE() << "no error";
  } catch (const ConstraintViolationError& e) {
    EXPECT_NE(std::string(e.what()).find("same Dim means equal sizes"), std::string::npos);
  }
  expect_errors<ValueError>({
      {"dim out of range",
       [&] {
         make_fx(fn, {x, w}, {.dynamic = {{{2, batch}}, {}}});
       },
       "dim 2"},
      {"spec length",
       [&] {
         make_fx(fn, {x, w}, {.dynamic = {{{0, batch}}}});
       },
       "2 inputs"},
      {"bad name", [] { Dim("2b", 1, 4); }, "valid identifier, got 2b"},
      {"min > max", [] { Dim("b", 4, 2); }, "inconsistent min=4, max=2"},
      {"min == max", [] { Dim("b", 4, 4); }, "inconsistent min=4, max=4"},
      {"negative min", [] { Dim("b", -1, 4); }, "min=-1"},
  });
  EXPECT_TRUE(ember::DynamicSpec{}.empty());
  EXPECT_TRUE((ember::DynamicSpec{{}, {}}.empty()));
}

TEST(MakeFx, SingleTensorFunctionAndConstants) {
  Tensor c = values_tensor({3}, 1.0);  // captured: becomes a get_attr
  TracedTensorFn fn = [&](const std::vector<Tensor>& xs) { return xs[0] * c + 2; };
  Tensor x = values_tensor({2, 3}, 0.5);
  fx::GraphModule gm = make_fx(fn, {x});
  ASSERT_EQ(gm.attrs().size(), 1u);
  // A copy taken when first seen (op builders wrap short-lived memory), with c's values.
  EXPECT_FALSE(gm.attrs().begin()->second.is_same(c));
  EXPECT_TRUE(gm.attrs().begin()->second.equal(c));
  Tensor x2 = values_tensor({2, 3}, -1.5);
  EXPECT_TRUE(gm({x2})[0].equal(x2 * c + 2));
  // The scalar 2 enters as a node with no inputs that makes a 0-d tensor (PyTorch's full, its
  // value a parameter; the output from its inference), recorded that way before any
  // functionalisation.
  auto fulls = [](const fx::Graph& g) {
    int count = 0;
    for (const fx::Node& n : g.nodes()) {
      count += n.kind == fx::NodeKind::Call && !n.prim->inplace() && n.args.empty() &&
               std::string(n.prim->name()) == "full" && !n.alloc_outputs &&
               n.outputs.at(0).sizes.empty() &&
               static_cast<const Fill&>(*n.prim).value().to<double>() == 2.0;
    }
    return count;
  };
  EXPECT_EQ(fulls(gm.graph()), 1) << gm.graph().to_string();
  EXPECT_EQ(fulls(make_fx(fn, {x}, {.functionalize = false}).graph()), 1);
}

// Fill infers its output like the other factories; a fill_ of a tensor the function made is
// functionalised into a node that allocates that tensor with the strides empty_strided gave it.
TEST(MakeFx, FillOfAStridedTemporaryKeepsItsStrides) {
  const Fill full(1.5, {SymInt(2), SymInt(3)}, kFloat64, kCPU);
  ASSERT_TRUE(full.infers());
  EXPECT_EQ(full.infer({})[0], TensorMeta::contiguous({2, 3}, kFloat64, kCPU));
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    Tensor t = empty_strided({2, 3}, {1, 2}, TensorOptions().dtype(xs[0].dtype()));
    t.fill_(1.5);
    return {t, t * xs[0]};
  };
  Tensor x = values_tensor({2, 3}, 0.5);
  fx::GraphModule gm = make_fx(fn, {x});
  int fills = 0;
  for (const fx::Node& n : gm.graph().nodes()) {
    if (n.kind != fx::NodeKind::Call) continue;
    EXPECT_FALSE(n.prim->inplace()) << gm.graph().to_string();
    if (n.prim->kind() != PrimitiveKind::Fill) continue;
    ++fills;
    EXPECT_TRUE(n.alloc_outputs);
    EXPECT_EQ(n.outputs[0].strides, (SmallVector<SymInt, 6>{1, 2}));
  }
  EXPECT_EQ(fills, 1) << gm.graph().to_string();
  Tensor x2 = values_tensor({2, 3}, -2.0);
  const std::vector<Tensor> out = gm({x2});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].strides(), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(out[0].equal(full_like(x2, 1.5)));
  EXPECT_TRUE(out[1].equal(x2 * 1.5));
}

TEST(MakeFx, InPlaceOpsAndViewsReplayAsEager) {
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    Tensor y = xs[0].clone();
    Tensor row = y.select(0, 1);  // a view of y
    row.mul_(3);                  // writes y through the view
    y.add_(xs[1]);
    xs[1].sub_(1);  // mutates a graph input, as eager does
    return {y, row.exp()};
  };
  Tensor a = values_tensor({3, 4}, 0.1), b = values_tensor({3, 4}, 0.2);
  Tensor b_eager = b.clone(), b_graph = b.clone();
  const std::vector<Tensor> eager = fn({a, b_eager});
  fx::GraphModule gm = make_fx(fn, {a, b.clone()});
  const std::vector<Tensor> traced = gm({a, b_graph});
  ASSERT_EQ(traced.size(), 2u);
  EXPECT_TRUE(traced[0].equal(eager[0]));
  EXPECT_TRUE(traced[1].equal(eager[1]));
  EXPECT_TRUE(b_graph.equal(b_eager));  // the same input mutation
  const std::string text = gm.graph().to_string();
  EXPECT_NE(text.find("# in place on"), std::string::npos) << text;
}

// Note [Functionalization]: writes nobody else sees become out-of-place calls; a write to an
// input or through a view stays in place. Results and input mutations equal eager's.
TEST(MakeFx, FunctionalizationKeepsOnlyVisibleWrites) {
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    Tensor y = xs[0] * 2;
    y.add_(1);
    y.mul_(xs[0]);
    Tensor z = xs[0].exp();
    z.clamp_(0, 2);
    xs[1].add_(y);  // an input: stays in place
    return {y, z};
  };
  auto inplace_targets = [](const fx::Graph& g) {
    std::vector<std::string> targets;
    for (const fx::Node& n : g.nodes()) {
      if (n.kind == fx::NodeKind::Call && n.prim->inplace()) {
        targets.push_back(n.inplace_target ? g.value_name(*n.inplace_target) : "new");
      }
    }
    return targets;
  };
  Tensor a = values_tensor({2, 3}, 0.3), b = values_tensor({2, 3}, 0.1);
  fx::GraphModule recorded = make_fx(fn, {a, b.clone()}, {.functionalize = false});
  fx::GraphModule functional = make_fx(fn, {a, b.clone()});
  // add_, mul_, clamp_ and the add_ into the input (the scalars 2 and 1 are out-of-place fulls).
  EXPECT_EQ(inplace_targets(recorded.graph()).size(), 4u) << recorded.graph().to_string();
  EXPECT_EQ(inplace_targets(functional.graph()), std::vector<std::string>{"arg1_1"})
      << functional.graph().to_string();
  Tensor b_eager = b.clone(), b_graph = b.clone();
  const std::vector<Tensor> eager = fn({a, b_eager});
  const std::vector<Tensor> out = functional({a, b_graph});
  EXPECT_TRUE(out[0].equal(eager[0]));
  EXPECT_TRUE(out[1].equal(eager[1]));
  EXPECT_TRUE(b_graph.equal(b_eager));
  // Running the pass again changes nothing.
  fx::Graph again = functional.graph();
  EXPECT_EQ(fx::functionalize(again), 0);
}

TEST(MakeFx, RandomOpsTakeTheGeneratorStateAsAnAttribute) {
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {xs[0] + randn({2, 3})};
  };
  manual_seed(7);
  Tensor x = zeros({2, 3});
  fx::GraphModule gm = make_fx(fn, {x});
  manual_seed(7);
  const Tensor eager = fn({x})[0];
  EXPECT_TRUE(gm({x})[0].equal(eager));  // the recorded draws replay
  bool rng = false;
  for (const auto& [name, t] : gm.attrs()) {
    rng = rng || (name.rfind("_rng_state", 0) == 0 && t.dtype() == kInt64 && t.numel() == 2);
  }
  EXPECT_TRUE(rng) << gm.graph().to_string();
}

TEST(MakeFx, ModuleParametersAreGetAttrs) {
  nn::Linear fc(3, 2);
  Tensor x = values_tensor({4, 3}, 0.5);
  fx::GraphModule gm = make_fx(
      *fc,
      [&](const std::vector<Tensor>& xs) -> std::vector<Tensor> { return {fc->forward(xs[0])}; },
      {x});
  EXPECT_EQ(gm.attrs().count("weight"), 1u);
  EXPECT_EQ(gm.attrs().count("bias"), 1u);
  const std::string text = gm.graph().to_string();
  EXPECT_NE(text.find("weight: \"f32[2, 3]\" = self.weight"), std::string::npos) << text;
  Tensor out = gm({x})[0];
  EXPECT_TRUE(out.allclose(fc->forward(x)));
  EXPECT_TRUE(out.requires_grad());  // through dispatch: autograd records the graph's ops
  out.sum().backward();
  EXPECT_TRUE(fc->weight.grad().defined());
}

TEST(MakeFx, NoneInputIsAnUnusedPlaceholder) {
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {xs[1].defined() ? xs[0] + xs[1] : xs[0] * 2};
  };
  Tensor x = values_tensor({2, 2}, 1.0);
  fx::GraphModule gm = make_fx(fn, {x, Tensor()});
  EXPECT_NE(gm.graph().to_string().find("arg1_1: \"None\""), std::string::npos);
  EXPECT_EQ(fx::Graph::from_json(gm.graph().to_json()), gm.graph());
  EXPECT_TRUE(gm({x, Tensor()})[0].equal(x * 2));
  expect_errors<ValueError>({{"None expected", [&] { gm({x, x}); }, "expected None as traced"}});
}

TEST(MakeFx, Errors) {
  auto identity = [](const std::vector<Tensor>& xs) { return xs; };
  fx::GraphModule gm = make_fx(identity, {ones({2})});
  expect_errors<ValueError>({
      {"undefined output",
       [&] {
         make_fx([](const std::vector<Tensor>&) { return std::vector<Tensor>{Tensor()}; }, {});
       },
       "[make_fx] output 0"},
      {"input count", [&] { gm({}); }, "[GraphModule] expected 1 inputs, got 0"},
      {"input shape", [&] { gm({ones({3})}); }, "expected f32[2] as traced"},
      {"input dtype", [&] { gm({ones({2}, kFloat64)}); }, "got f64[2]"},
      {"input None", [&] { gm({Tensor()}); }, "got None"},
      {"input offset", [&] { gm({ones({3}).slice(0, 1, 3)}); }, "got f32[2] offset=1"},
  });
  // An untraced alias of a traced tensor under another geometry cannot be recorded.
  auto sneaky = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    const TensorImpl* impl = xs[0].unsafeGetTensorImpl();
    Tensor alias(std::make_shared<TensorImpl>(impl->storage(), kFloat32, std::vector<int64_t>{1},
                                              std::vector<int64_t>{1}, 1));
    return {alias + 1};
  };
  expect_errors<NotImplementedError>(
      {{"untraced view", [&] { make_fx(sneaky, {ones({2})}); }, "shares the memory of traced"}});
}

}  // namespace
}  // namespace ember::test
