// Note [Assumptions]: relations between a DynamicSpec's dims (batch > seq, a == b) are facts while
// tracing and are checked on the examples and on every run's inputs.
#include <ember/compiler.h>
#include <gtest/gtest.h>

#include "compiler/symbolic.h"
#include "ember/ember.h"
#include "fx_test_util.h"

namespace ember::test {
namespace {

Tensor vec(int64_t n, double scale = 1) { return arange(n).to(kFloat32) * scale; }

// The env of a graph's first placeholder's dim 0.
std::shared_ptr<fx::ShapeEnv> env_of_graph(const fx::Graph& g) {
  return fx::env_of(g.nodes().front().outputs[0].sizes[0]);
}

// A branch on batch > seq, which only the assumption decides.
std::vector<Tensor> longer_first(const std::vector<Tensor>& xs) {
  const bool longer = xs[0].sym_size(0) > xs[1].sym_size(0);
  return {longer ? xs[0].sum() - xs[1].sum() : xs[0].sum() + xs[1].sum()};
}

TEST(SymbolicTrace, AssumptionsAreFactsCheckedOnEveryRun) {
  const Dim batch("batch", 2, 64), seq("seq", 2, 64);
  const std::vector<Tensor> ex = {vec(6), vec(4)};
  DynamicSpec spec = {{{0, batch}}, {{0, seq}}};
  // Without the assumption the branch depends on the sizes: tracing raises.
  expect_has(message_of([&] { make_fx(longer_first, ex, {.dynamic = spec}); }),
             "Constraints violated (batch, seq)!");
  spec.assumptions = {batch > seq};
  fx::GraphModule gm = make_fx(longer_first, ex, {.dynamic = spec});
  // One trace, eager's value (sum(0..b-1) - 3 * sum(0..s-1)) at several sizes.
  for (auto [b, s] : {std::pair<int64_t, int64_t>{10, 4}, {3, 2}, {64, 63}}) {
    const double want = b * (b - 1) / 2.0 - 3.0 * s * (s - 1) / 2.0;
    EXPECT_DOUBLE_EQ(gm({vec(b), vec(s, 3)})[0].item<double>(), want) << b << " " << s;
  }
  // PyTorch's runtime assertion, with the user's relation and the dims' values.
  std::string m = message_of<RuntimeError>([&] { gm({vec(3), vec(5)}); });
  expect_has(m, "[GraphModule] Runtime assertion failed for expression batch > seq");
  expect_has(m, "(batch = 3, seq = 5)");
  EXPECT_THROW(gm({vec(4), vec(4)}), RuntimeError);  // the boundary breaks a strict relation
  // The JSON form keeps the facts, and the read-back graph checks them too.
  const std::string json = gm.graph().to_json();
  expect_has(json, "\"assumptions\"");
  expect_has(json, "\"text\":\"batch > seq\"");
  fx::GraphModule back(fx::Graph::from_json(json), {});
  EXPECT_DOUBLE_EQ(back({vec(9), vec(2)})[0].item<double>(), 36.0 - 1.0);
  EXPECT_THROW(back({vec(4), vec(4)}), RuntimeError);
}

TEST(SymbolicTrace, AnEqualityAssumptionLetsDimsBroadcast) {
  const Dim batch("batch", 2, 64), seq("seq", 2, 64);
  auto add = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> { return {xs[0] + xs[1]}; };
  DynamicSpec same = {{{0, batch}}, {{0, seq}}};
  // Two unrelated dims cannot broadcast without a guard.
  EXPECT_THROW(make_fx(add, {vec(5), vec(5)}, {.dynamic = same}), ConstraintViolationError);
  same.assumptions = {batch == seq};
  fx::GraphModule gm = make_fx(add, {vec(5), vec(5)}, {.dynamic = same});
  EXPECT_TRUE(equal(gm({vec(7), ones({7})})[0], vec(7) + 1));
  expect_has(message_of<RuntimeError>([&] {
               gm({vec(7), ones({6})});
             }),
             "batch == seq (batch = 7, seq = 6)");
  // A derived side: width == 2 * half, so a view to [half, 2] of width elements is exact.
  const Dim half("half", 2, 32), width("width", 4, 64);
  DynamicSpec spec = {{{0, width}}, {{0, half}}};
  spec.assumptions = {width == 2 * half};
  auto pairs = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {xs[0].reshape({xs[1].sym_size(0), 2}).sum(1) + xs[1]};
  };
  fx::GraphModule folded = make_fx(pairs, {vec(8), vec(4)}, {.dynamic = spec});
  // Row i of [0..2h-1] viewed as [h, 2] sums to 4i + 1; plus i.
  EXPECT_TRUE(equal(folded({vec(10), vec(5)})[0], vec(5, 5) + 1));
  EXPECT_THROW(folded({vec(10), vec(4)}), RuntimeError);
}

// A fact on one dim narrows its range; a multiple of a fact decides too.
TEST(SymbolicTrace, AssumptionsNarrowRangesAndScale) {
  const Dim batch("batch", 2, 1024), seq("seq", 2, 1024);
  DynamicSpec spec = {{{0, batch}}, {{0, seq}}};
  spec.assumptions = {seq <= 16, batch >= seq};
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    const SymInt b = xs[0].sym_size(0), s = xs[1].sym_size(0);
    // seq > 16 is decided false by the narrowed range; 2*batch - 2*seq >= 0 by 2 * (batch >= seq).
    const bool short_seq = !(s > 16), wide = 2 * b - 2 * s >= 0;
    return {short_seq && wide ? xs[0].sum() : xs[1].sum()};
  };
  fx::GraphModule gm = make_fx(fn, {vec(8), vec(5)}, {.dynamic = spec});
  const auto env = env_of_graph(gm.graph());
  ASSERT_TRUE(env);
  const fx::SymbolInfo* s = env->find("s1");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->dim, "seq");
  EXPECT_EQ(s->max, 16);
  EXPECT_EQ(env->find("s0")->max, 1024);
  EXPECT_DOUBLE_EQ(gm({vec(20), vec(16)})[0].item<double>(), 190.0);
  expect_has(message_of<ValueError>([&] { gm({vec(20), vec(17)}); }), "outside the range [2, 16]");
  EXPECT_THROW(gm({vec(3), vec(4)}), RuntimeError);  // batch >= seq
}

TEST(SymbolicTrace, AssumptionErrors) {
  const Dim batch("batch", 2, 64), seq("seq", 2, 64), other("other", 2, 8);
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> { return {xs[0] * 2}; };
  DynamicSpec spec = {{{0, batch}}, {{0, seq}}};
  spec.assumptions = {batch > seq};
  std::string m = message_of([&] { make_fx(fn, {ones({3}), ones({5})}, {.dynamic = spec}); });
  expect_has(m,
             "[make_fx] Constraints violated (batch, seq)! The example inputs break the "
             "assumption batch > seq (batch = 3, seq = 5)");
  spec.assumptions = {batch > other};
  m = message_of<ValueError>([&] { make_fx(fn, {ones({6}), ones({5})}, {.dynamic = spec}); });
  expect_has(m, "names other, which no input's dynamic_shapes uses");
  DynamicSpec none;
  none.assumptions = {batch > seq};
  m = message_of<ValueError>([&] { make_fx(fn, {ones({6}), ones({5})}, {.dynamic = none}); });
  expect_has(m, "has assumptions (batch > seq) but no dynamic dims");
  EXPECT_EQ((seq <= 16).str(), "seq <= 16");
  EXPECT_EQ((2 * seq == batch).str(), "2*seq == batch");
  EXPECT_EQ((seq + 1 < batch).str(), "seq + 1 < batch");
}

// The JSON reader treats assumptions as hostile input: each refusal is a ValueError naming them.
TEST(SymbolicTrace, AssumptionsFromJsonAreChecked) {
  const Dim batch("batch", 2, 64), seq("seq", 2, 64);
  DynamicSpec spec = {{{0, batch}}, {{0, seq}}};
  spec.assumptions = {batch > seq};
  const std::string json =
      make_fx(longer_first, {vec(6), vec(4)}, {.dynamic = spec}).graph().to_json();
  const std::string fact = R"({"equal":false,"expr":"s0 - s1 - 1","text":"batch > seq"})";
  ASSERT_NE(json.find(fact), std::string::npos) << json;
  auto with_fact = [&](const std::string& other) {
    std::string j = json;
    j.replace(j.find(fact), fact.size(), other);
    return message_of<ValueError>([&] { fx::Graph::from_json(j); });
  };
  expect_has(
      with_fact(R"({"equal":false,"expr":"s0 - s7","text":"t"})"),
      "[Graph.from_json] assumptions: [assumption] cannot read the size expression 's0 - s7'");
  expect_has(with_fact(R"({"equal":"no","expr":"s0","text":"t"})"),
             "an assumption needs a string 'expr', a boolean 'equal' and a short 'text'");
  expect_has(with_fact(R"({"equal":false,"expr":"1 - s1","text":"seq <= 1"})"),
             "the assumption seq <= 1 leaves no value for seq (s1)");
  expect_has(with_fact(R"({"equal":false,"expr":"s0","text":"t","why":1})"), "why");
}

// ember::compile with the spec: one capture serves every call that keeps the assumption; a call
// that breaks it raises the graph's runtime assertion (as torch.export's module does).
TEST(SymbolicTrace, CompiledFunctionsCheckAssumptions) {
  const Dim batch("batch", 2, 64), seq("seq", 2, 64);
  CompileOptions options;
  options.backend = "eager";  // the graph interpreter: no C++ compiler run
  options.fullgraph = true;
  options.dynamic = {{{0, batch}}, {{0, seq}}};
  options.dynamic.assumptions = {batch > seq};
  compiler::reset();  // zeroed stats: the counts below are this test's
  auto f = compile(longer_first, options);
  for (auto [b, s] : {std::pair<int64_t, int64_t>{6, 4}, {10, 2}, {33, 32}}) {
    const double want = b * (b - 1) / 2.0 - s * (s - 1) / 2.0;
    EXPECT_DOUBLE_EQ(f({vec(b), vec(s)})[0].item<double>(), want) << b << " " << s;
  }
  EXPECT_EQ(compiler::stats().captures, 1);
  expect_has(message_of<RuntimeError>([&] {
               f({vec(5), vec(7)});
             }),
             "Runtime assertion failed for expression batch > seq (batch = 5, seq = 7)");
}

// The leak ASan found (a fact holding a SymInt, whose node owns the env): the env must be freed
// with the last graph that uses it, the JSON round trip's included.
TEST(SymbolicTrace, AssumptionsDoNotKeepTheirShapeEnvAlive) {
  const Dim batch("batch", 2, 64), seq("seq", 2, 64);
  DynamicSpec spec = {{{0, batch}}, {{0, seq}}};
  spec.assumptions = {batch > seq, seq <= 32};
  std::weak_ptr<fx::ShapeEnv> traced, read_back;
  {
    fx::GraphModule gm = make_fx(longer_first, {vec(6), vec(4)}, {.dynamic = spec});
    traced = env_of_graph(gm.graph());
    ASSERT_FALSE(traced.expired());
    EXPECT_EQ(traced.lock()->facts().size(), 2u);
    fx::GraphModule back(fx::Graph::from_json(gm.graph().to_json()), {});
    read_back = env_of_graph(back.graph());
    ASSERT_FALSE(read_back.expired());
    EXPECT_EQ(read_back.lock()->facts().size(), 2u);
    EXPECT_DOUBLE_EQ(back({vec(5), vec(2)})[0].item<double>(), 10.0 - 1.0);
  }
  EXPECT_TRUE(traced.expired()) << "the traced graph's ShapeEnv outlived its graph";
  EXPECT_TRUE(read_back.expired()) << "the JSON graph's ShapeEnv outlived its graph";
}

}  // namespace
}  // namespace ember::test
