// Note [Symbolic shapes]: the compiler's SymNode (canonical expressions, ranges, guards) and
// make_fx with a DynamicSpec (graphs whose sizes are expressions, run on other sizes).
#include <ember/compiler.h>
#include <gtest/gtest.h>

#include "compiler/symbolic.h"
#include "ember/ember.h"
#include "ember/nn.h"
#include "fx_test_util.h"
#include "opdb.h"

namespace ember::test {
namespace {

using fx::ShapeEnv;

TEST(SymExpr, CanonicalForms) {
  auto env = ShapeEnv::make();
  SymInt s0 = env->symbol("batch", 2, 1024, 8, "input 0 dim 0");
  SymInt s1 = env->symbol("seq", 2, 64, 5, "input 0 dim 1");
  EXPECT_TRUE(s0.is_symbolic());
  EXPECT_EQ(s0.str(), "s0");
  EXPECT_EQ((s0 + s0).str(), "2*s0");
  EXPECT_EQ((s1 * 3 + s0 * 2 - 1).str(), (2 * s0 + 3 * s1 - 1).str());
  EXPECT_EQ(((s0 + 1) * (s0 - 1)).str(), "s0*s0 - 1");
  EXPECT_EQ((s0 * s1).str(), (s1 * s0).str());
  // Cancelling terms give a concrete SymInt.
  SymInt zero = s0 * s1 - s1 * s0;
  EXPECT_FALSE(zero.is_symbolic());
  EXPECT_EQ(zero.guard_int(), 0);
  // Division and remainder by a divisor of every term, or with a remainder in [0, divisor).
  EXPECT_EQ(floordiv(4 * s0 + 2, SymInt(2)).str(), "2*s0 + 1");
  EXPECT_EQ(floordiv(4 * s0 + 1, SymInt(4)).str(), "s0");
  EXPECT_FALSE(mod(4 * s0 + 1, SymInt(4)).is_symbolic());
  EXPECT_EQ(mod(4 * s0 + 1, SymInt(4)).guard_int(), 1);
  EXPECT_EQ(floordiv(s0 * s1, s1).str(), "s0");
  EXPECT_EQ(floordiv(s0, SymInt(2)).str(), "(s0//2)");
  EXPECT_EQ(floordiv(s0 + 1, SymInt(2)).str(), "((s0 + 1)//2)");
  EXPECT_EQ(mod(s0, SymInt(3)).str(), "Mod(s0, 3)");
  EXPECT_EQ(mod(6 * s0 + s1, SymInt(3)).str(), "Mod(s1, 3)");
  // min/max that the ranges decide vanish; the others are commutative atoms.
  EXPECT_EQ(sym_max(s0, SymInt(1)).str(), "s0");
  EXPECT_EQ(sym_min(s0, SymInt(1)).guard_int(), 1);
  EXPECT_EQ(sym_min(s0, s1).str(), "Min(s0, s1)");
  EXPECT_EQ(sym_min(s1, s0).str(), "Min(s0, s1)");
  EXPECT_EQ(sym_max(s1, s0 + 1).str(), "Max(s0 + 1, s1)");
  // Hints: the example's values (s0 = 8, s1 = 5), computed here by hand.
  EXPECT_EQ((2 * s0 + 1).hint(), 17);
  EXPECT_EQ(floordiv(s0 * 3, SymInt(5)).hint(), 24 / 5);
  EXPECT_EQ(mod(s0 + s1, SymInt(4)).hint(), 13 % 4);
  EXPECT_EQ(sym_min(s0, s1).hint(), 5);
  // Expressions of two traces do not mix.
  SymInt other = ShapeEnv::make()->symbol("batch", 2, 9, 4, "input 0 dim 0");
  EXPECT_THROW((void)(s0 + other), ValueError);
}

TEST(SymExpr, RangesDecideComparisonsAndTheRestRaise) {
  auto env = ShapeEnv::make();
  SymInt s0 = env->symbol("batch", 2, 1024, 8, "input 0 dim 0");
  SymInt s1 = env->symbol("seq", 2, 64, 5, "input 1 dim 0");
  // Decided by the ranges, no guard: broadcasting's "== 1", non-negativity, products.
  EXPECT_FALSE(s0 == 1);
  EXPECT_TRUE(s0 != 1);
  EXPECT_TRUE(s0 >= 2);
  EXPECT_TRUE(s0 * s1 > 3);
  EXPECT_TRUE(s0 + s1 <= 1088);
  EXPECT_TRUE(s0 == s0);
  EXPECT_TRUE(2 * s0 - s0 == s0);
  EXPECT_TRUE(mod(s0, SymInt(4)) < 4);
  EXPECT_TRUE(floordiv(s0, SymInt(2)) >= 1);
  // Shared factors come out before the ranges are added up: 32*s1 < 32*s0*s1 is
  // 32*s1*(s0 - 1) > 0, with s1 >= 2 and s0 - 1 >= 1 (a view's stride against a larger one).
  EXPECT_TRUE(32 * s1 < 32 * s0 * s1);
  EXPECT_TRUE(s0 * s1 - s1 >= 2);
  EXPECT_TRUE(s0 * s0 * s1 > s0 * s1);
  EXPECT_FALSE(s0 * s1 * 2 <= s1 * 3);
  // ... but not what still depends on the values: s1 * (s0 - 3) is -64..65472.
  EXPECT_THROW((void)(s0 * s1 > 3 * s1), ConstraintViolationError);
  // Min and Max against their operands: Min(a, b) <= a, b <= Max(a, b).
  EXPECT_TRUE(s0 >= sym_min(SymInt(5), s0));
  EXPECT_TRUE(sym_min(s0, s1) <= s1);
  EXPECT_TRUE(sym_max(s0, s1) + 1 > s0);
  EXPECT_TRUE(sym_max(s0, s1) - s1 >= 0);
  EXPECT_THROW((void)(sym_min(s0, s1) == s0), ConstraintViolationError);
  // Not decided: the program would specialise a declared-dynamic dim.
  std::string m = message_of([&] { (void)(s0 == 8); });
  expect_has(m, "Constraints violated (batch)!");
  expect_has(m, "s0 == 8");
  expect_has(m, "batch = s0 (input 0 dim 0) in [2, 1024], traced with 8");
  expect_has(m, "make batch static");  // a point: no range keeps the outcome
  // An inequality: the widest range around the example that keeps the outcome.
  m = message_of([&] { (void)(s0 <= 16); });
  expect_has(m, "s0 <= 16");
  expect_has(m, "Suggested fix: batch = Dim(\"batch\", min=2, max=16)");
  m = message_of([&] { (void)(2 * s0 + 1 > 9); });
  expect_has(m, "Dim(\"batch\", min=5, max=1024)");
  m = message_of([&] { (void)(s0 != 3); });
  expect_has(m, "Dim(\"batch\", min=4, max=1024)");
  // Two dims in one guard name both.
  m = message_of([&] { (void)(s0 == s1); });
  expect_has(m, "Constraints violated (batch, seq)!");
  // A concrete value.
  m = message_of([&] { (void)s0.guard_int("view"); });
  expect_has(m, "[view] Constraints violated (batch)! view needs the concrete value of s0");
  EXPECT_THROW((void)static_cast<int64_t>(s0 * 2), ConstraintViolationError);
}

TEST(SymExpr, ParseAndEvaluate) {
  auto env = ShapeEnv::make();
  SymInt s0 = env->symbol("batch", 2, 1024, 8, "input 0 dim 0");
  SymInt s1 = env->symbol("seq", 2, 64, 5, "input 0 dim 1");
  const std::vector<SymInt> exprs = {s0,
                                     2 * s0 + 1,
                                     s0 * s1 - 3,
                                     floordiv(s0, SymInt(2)),
                                     floordiv(s0 + s1, SymInt(3)),
                                     mod(s0 * s1, SymInt(7)),
                                     sym_min(s0, s1),
                                     sym_max(s0 * 2, s1 + 1) - s1,
                                     floordiv(3 - s0 * 5, SymInt(2))};
  for (const SymInt& e : exprs) {
    EXPECT_EQ(env->parse(e.str(), "test").str(), e.str());
  }
  // Evaluation at other values, against the arithmetic written out (floor division).
  const fx::SymbolValues v = {{"s0", 7}, {"s1", 3}};
  EXPECT_EQ(fx::evaluate(exprs[1], v, "test"), 15);
  EXPECT_EQ(fx::evaluate(exprs[2], v, "test"), 18);
  EXPECT_EQ(fx::evaluate(exprs[3], v, "test"), 3);
  EXPECT_EQ(fx::evaluate(exprs[4], v, "test"), 3);
  EXPECT_EQ(fx::evaluate(exprs[5], v, "test"), 0);
  EXPECT_EQ(fx::evaluate(exprs[6], v, "test"), 3);
  EXPECT_EQ(fx::evaluate(exprs[7], v, "test"), 14 - 3);
  EXPECT_EQ(fx::evaluate(exprs[8], v, "test"), -16);  // floor(-32 / 2)
  EXPECT_EQ(fx::evaluate(SymInt(4), v, "test"), 4);
  EXPECT_THROW(fx::evaluate(s0, {{"s1", 3}}, "test"), ValueError);
  expect_errors<ValueError>({
      {"unknown symbol", [&] { env->parse("s0 + s9", "test"); }, "unknown symbol 's9'"},
      {"trailing", [&] { env->parse("s0 )", "test"); }, "unexpected ')'"},
      {"open", [&] { env->parse("(s0 + 1", "test"); }, "expected ')'"},
      {"empty", [&] { env->parse("", "test"); }, "unexpected end"},
      {"overflow", [&] { env->parse("99999999999999999999", "test"); }, "overflows int64"},
      {"deep", [&] { env->parse(std::string(100, '(') + "s0" + std::string(100, ')'), "test"); },
       "nested more than 64"},
  });
}

// A model whose batch is dynamic: one graph runs every batch size, equal to eager.
TEST(SymbolicTrace, MlpWithDynamicBatch) {
  manual_seed(3);
  nn::Sequential model(nn::Linear(4, 8), nn::ReLU(), nn::Linear(8, 3));
  auto fn = [&](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    Tensor y = model->forward(xs[0]);
    // sym_size reads the dynamic size without specialising it.
    EXPECT_EQ(xs[0].sym_size(0).str(), "s0");
    EXPECT_EQ(xs[0].sym_numel().str(), "4*s0");
    EXPECT_EQ(xs[0].size(1), 4);  // a static dim is concrete
    return {y.log_softmax(-1), y.sum(0)};
  };
  Dim batch("batch", 1, 512);
  fx::GraphModule gm = make_fx(*model, fn, {randn({6, 4})}, {.dynamic = {{{0, batch}}}});
  const std::string text = gm.graph().to_string();
  expect_has(text, "f32[s0, 4]");
  expect_has(text, "f32[s0, 3]");
  // The graph round-trips through JSON with its symbols.
  const std::string json = gm.graph().to_json();
  expect_has(json, "\"symbols\"");
  fx::Graph back = fx::Graph::from_json(json);
  EXPECT_EQ(back.to_string(), text);
  fx::GraphModule gm2(back, gm.attrs());
  // Batch 1 runs too: the Dim's min is 1, though tracing reasons from 2.
  for (int64_t n : {1, 2, 3, 6, 17}) {
    Tensor x = randn({n, 4});
    NoGradGuard no_grad;
    Tensor y = model->forward(x);
    for (const fx::GraphModule* m : {&gm, &gm2}) {
      std::vector<Tensor> out = (*m)({x});
      ASSERT_EQ(out.size(), 2u);
      EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{n, 3}));
      EXPECT_TRUE(out[0].equal(y.log_softmax(-1))) << "batch " << n;
      EXPECT_TRUE(out[1].equal(y.sum(0))) << "batch " << n;
    }
  }
  // Sizes outside the Dim's range [1, 512], and a wrong static dim.
  expect_errors<ValueError>({
      {"size 0",
       [&] {
         gm({randn({0, 4})});
       },
       "batch (s0) is 0, outside the range [1, 512]"},
      {"above max",
       [&] {
         gm({randn({513, 4})});
       },
       "outside the range [1, 512]"},
      {"static dim",
       [&] {
         gm({randn({5, 5})});
       },
       "expected f32[s0, 4]"},
  });
}

TEST(SymbolicTrace, SameDimMeansEqualSizes) {
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {xs[0] * xs[1] + xs[1]};
  };
  Dim n("n", 2, 100);
  fx::GraphModule gm = make_fx(fn, {ones({5, 3}), ones({5, 3})}, {.dynamic = {{{0, n}}, {{0, n}}}});
  Tensor a = randn({9, 3}), b = randn({9, 3});
  EXPECT_TRUE(gm({a, b})[0].equal(a * b + b));
  expect_errors<ValueError>({
      {"unequal",
       [&] {
         gm({randn({4, 3}), randn({6, 3})});
       },
       "but it is 4 in input 0"},
  });
  // Two different dims cannot be broadcast together without deciding they are equal.
  const std::string m = message_of([&] {
    make_fx(fn, {ones({5, 3}), ones({5, 3})},
            {.dynamic = {{{0, Dim("a", 2, 10)}}, {{0, Dim("b", 2, 10)}}}});
  });
  expect_has(m, "Constraints violated (a, b)!");
}

// A slice with a constant end on a dynamic dim has size Min(5, s0) (PyTorch's sympy form); the
// graph takes each run's size, shorter or longer than the end.
TEST(SymbolicTrace, SliceOfADynamicDim) {
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {xs[0].slice(0, 0, 5) * 2 + 1};
  };
  fx::GraphModule gm = make_fx(fn, {randn({8, 3})}, {.dynamic = {{{0, Dim("n", 2, 64)}}}});
  for (int64_t n : {2, 5, 9, 64}) {
    Tensor x = randn({n, 3});
    EXPECT_TRUE(gm({x})[0].equal(x.slice(0, 0, 5) * 2 + 1)) << n;
  }
}

// A slice at a dynamic position starts at a symbolic storage offset: the graph records it as an
// expression (printed, written to JSON and read back), and runs at every size.
TEST(SymbolicTrace, SliceAtADynamicPosition) {
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    const Tensor& x = xs[0];
    return {x.narrow(0, x.sym_size(0) - 2, 2) * 2};
  };
  fx::GraphModule gm = make_fx(fn, {randn({8, 3})}, {.dynamic = {{{0, Dim("n", 2, 64)}}}});
  const std::string text = gm.graph().to_string();
  EXPECT_NE(text.find("offset=3*s0 - 6"), std::string::npos) << text;
  const fx::Graph back = fx::Graph::from_json(gm.graph().to_json());
  EXPECT_EQ(back, gm.graph());
  const fx::GraphModule gm2(back, gm.attrs());
  for (int64_t n : {2, 5, 64}) {
    Tensor x = randn({n, 3});
    const Tensor want = x.narrow(0, n - 2, 2) * 2;
    EXPECT_TRUE(gm({x})[0].equal(want)) << n;
    EXPECT_TRUE(gm2({x})[0].equal(want)) << n;
  }
}

// Derived dims (2*n, n + 1) are affine functions of their root's symbol; static pins check.
TEST(SymbolicTrace, DerivedDimsAndStaticPins) {
  Dim n("n", 2, 50);
  Dim two_n = 2 * n;
  EXPECT_EQ(two_n.name, "2*n");
  EXPECT_EQ((n + 1).name, "n + 1");
  EXPECT_EQ(((n + 1) * 2).name, "2*n + 2");
  EXPECT_EQ((n * 3 - 1).name, "3*n - 1");
  EXPECT_EQ(two_n.min, 4);
  EXPECT_EQ(two_n.max, 100);
  // y holds pairs of rows of x: y.view(n, 2, 3).sum(1) + x.
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {xs[1].view({xs[0].sym_size(0), 2, 3}).sum(1) + xs[0]};
  };
  fx::GraphModule gm = make_fx(fn, {randn({4, 3}), randn({8, 3})},
                               {.dynamic = {{{0, n}}, {{0, two_n}, {1, Dim(3)}}}});
  const std::string text = gm.graph().to_string();
  expect_has(text, "f32[2*s0, 3]");
  for (int64_t k : {2, 5, 9}) {
    Tensor x = randn({k, 3}), y = randn({2 * k, 3});
    EXPECT_TRUE(gm({x, y})[0].equal(y.view({k, 2, 3}).sum(1) + x)) << "n = " << k;
  }
  expect_errors<ValueError>({
      {"odd",
       [&] {
         gm({randn({3, 3}), randn({7, 3})});
       },
       "not of the form 2*s0"},
      {"unequal",
       [&] {
         gm({randn({3, 3}), randn({8, 3})});
       },
       "but it is 3 in input 0"},
  });
  // A root that appears only through a derived dim is solved from it.
  fx::GraphModule inc = make_fx([](const std::vector<Tensor>& xs) { return xs[0] * 2; },
                                {ones({6, 2})}, {.dynamic = {{{0, n + 1}}}});
  expect_has(inc.graph().to_string(), "f32[s0 + 1, 2]");
  Tensor z = randn({11, 2});
  EXPECT_TRUE(inc({z})[0].equal(z * 2));
  // The spec's errors, with PyTorch's messages for what is not an increasing affine map.
  expect_errors<NotImplementedError>({
      {"negate", [&] { (void)(1 - n); }, "Attempted to negate n."},
      {"zero", [&] { (void)(n * 0); }, "Attempted to multiply 0 with n, where a positive integer"},
      {"negative", [&] { (void)(-2 * n); }, "Only increasing linear operations"},
  });
  std::string m = message_of([&] {
    make_fx(fn, {randn({4, 3}), randn({7, 3})}, {.dynamic = {{{0, n}}, {{0, two_n}}}});
  });
  expect_has(m, "Expected input 1 dim 0 = 7 to be of the form 2*n, where n is an integer");
  m = message_of([&] {
    make_fx(fn, {randn({4, 3}), randn({10, 3})}, {.dynamic = {{{0, n}}, {{0, two_n}}}});
  });
  expect_has(m, "n is used for sizes 4 and 5");
  m = message_of([&] {
    make_fx(fn, {randn({4, 3}), randn({8, 3})}, {.dynamic = {{{0, n}}, {{1, Dim(4)}}}});
  });
  expect_has(m, "input 1 dim 1 is pinned to the static size 4, but the example input has 3");
}

TEST(SymbolicTrace, SpecialisingADynamicDimRaises) {
  Dim batch("batch", 2, 64);
  // Reading the whole shape as integers specialises every dim.
  std::string m = message_of([&] {
    make_fx(
        [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
          return {xs[0] * static_cast<double>(xs[0].sizes()[0])};
        },
        {ones({4, 2})}, {.dynamic = {{{0, batch}}}});
  });
  expect_has(m, "[Tensor.sizes()] Constraints violated (batch)!");
  expect_has(m, "batch = s0 (input 0 dim 0) in [2, 64], traced with 4");
  expect_has(m, "sym_size()");
  // An example of size 1 cannot trace a dynamic dim.
  m = message_of([&] {
    make_fx([](const std::vector<Tensor>& xs) -> std::vector<Tensor> { return {xs[0] + 1}; },
            {ones({1, 2})}, {.dynamic = {{{0, Dim("b", 1, 8)}}}});
  });
  expect_has(m, "sizes 0 and 1 specialise");
}

// Note [Unbacked symbols]: a boolean mask's selection traced fake has a size only the data
// decides; the graph keeps it as u<k> in [0, numel] and every run binds it from the data.
TEST(SymbolicTrace, MaskSelectionIsAnUnbackedSize) {
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    Tensor picked = xs[0].index({xs[0] > 0});  // the positive entries, however many
    return {picked * 2, picked.sum(), nonzero(xs[0])};
  };
  const Tensor x = tensor<float>({1, -2, 3, 0, 5, -6}).reshape({2, 3});
  fx::GraphModule gm = make_fx(fn, {x}, {.mode = TracingMode::Fake});
  const std::string text = gm.graph().to_string();
  expect_has(text, "u0");
  // Output 0 (picked * 2) is [u0].
  const SymInt count = gm.graph().meta(gm.graph().nodes().back().args[0]).sizes[0];
  EXPECT_EQ(count.str(), "u0");
  const auto env = fx::env_of(count);
  ASSERT_TRUE(env);
  const fx::SymbolInfo* info = env->find("u0");
  ASSERT_NE(info, nullptr);
  EXPECT_TRUE(info->unbacked);
  EXPECT_EQ(info->min, 0);
  EXPECT_EQ(info->max, 6);  // at most every element
  // Inputs with 0, some and all entries selected: the same graph, eager's results.
  for (const Tensor& in : {tensor<float>({-1, -2, -3, 0, -5, -6}).reshape({2, 3}),
                           tensor<float>({7, 8, -9, 1, 0, 2}).reshape({2, 3}),
                           tensor<float>({1, 2, 3, 4, 5, 6}).reshape({2, 3})}) {
    const auto got = gm({in}), want = fn({in});
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].sizes(), want[i].sizes()) << i;
      EXPECT_TRUE(equal(got[i], want[i])) << i;
    }
  }
  // The JSON form keeps the symbol unbacked, and the read-back graph runs the same.
  const fx::Graph back = fx::Graph::from_json(gm.graph().to_json());
  EXPECT_EQ(back.to_string(), text);
}

TEST(SymbolicTrace, GuardOnAnUnbackedSizeRaises) {
  // Branching on how many entries were selected depends on the data: tracing raises rather than
  // specialising to the example.
  std::string m = message_of([&] {
    make_fx(
        [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
          Tensor picked = xs[0].index({xs[0] > 0});
          return {picked.sym_size(0) > 3 ? picked * 2 : picked};
        },
        {tensor<float>({1, -2, 3, 4})}, {.mode = TracingMode::Fake});
  });
  expect_has(m, "Could not guard on data-dependent expression");
  expect_has(m, "u0 is the count of nonzero");
  expect_has(m, "in [0, 4]");
}

}  // namespace
}  // namespace ember::test
