// The graph passes (Note [Graph passes] in ember/fx/passes.h), each on graphs that make_fx
// records from small functions: node counts before and after, the rewritten graph interpreted
// equal to eager, and the calls that must not be touched (in place, random, written memory).
#include <ember/compiler.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "compiler/logs.h"
#include "compiler/lowering.h"
#include "fx_test_util.h"

namespace ember::test {
namespace {

using Fn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

size_t count_op(const fx::Graph& g, const std::string& op) {
  size_t n = 0;
  for (const fx::Node& node : g.nodes()) n += node.op() == op;
  return n;
}

size_t count_kind(const fx::Graph& g, PrimitiveKind kind) {
  size_t n = 0;
  for (const fx::Node& node : g.nodes()) n += node.prim && node.prim->kind() == kind;
  return n;
}

size_t calls(const fx::Graph& g) {
  size_t n = 0;
  for (const fx::Node& node : g.nodes()) n += node.kind == fx::NodeKind::Call;
  return n;
}

// `pass` applied to make_fx's graph of `fn`; returns the new module.
fx::GraphModule after(const fx::GraphModule& gm, const fx::Pass& pass, int* changed = nullptr) {
  std::vector<fx::PassRecord> records;
  fx::GraphModule out = fx::PassManager().add(pass).run(gm, &records);
  if (changed) *changed = records.at(0).changed;
  return out;
}

const fx::Pass kDce{"dce", [](fx::Graph& g, fx::Attrs&) { return fx::eliminate_dead_code(g); }};
const fx::Pass kCse{
    "cse", [](fx::Graph& g, fx::Attrs&) { return fx::eliminate_common_subexpressions(g); }};
const fx::Pass kViews{"views", [](fx::Graph& g, fx::Attrs&) { return fx::canonicalize_views(g); }};
const fx::Pass kFold{"fold", [](fx::Graph& g, fx::Attrs& a) { return fx::fold_constants(g, a); }};
const fx::Pass kDecompose{"decompose",
                          [](fx::Graph& g, fx::Attrs& a) { return fx::decompose(g, a); }};

// Runs both modules on copies of `inputs`: equal results and equal inputs afterwards.
void expect_same_run(const fx::GraphModule& a, const fx::GraphModule& b,
                     const std::vector<Tensor>& inputs, double rtol = 0, double atol = 0) {
  std::vector<Tensor> ia = exact_copies(inputs), ib = exact_copies(inputs);
  const std::vector<Tensor> ra = a(ia), rb = b(ib);
  ASSERT_EQ(ra.size(), rb.size());
  for (size_t k = 0; k < ra.size(); ++k) {
    ASSERT_EQ(ra[k].sizes(), rb[k].sizes()) << "result " << k;
    ASSERT_EQ(ra[k].dtype(), rb[k].dtype()) << "result " << k;
    if (rtol == 0 && atol == 0) {
      EXPECT_TRUE(ra[k].equal(rb[k])) << "result " << k << "\n" << b.graph().to_string();
    } else {
      EXPECT_TRUE(ra[k].allclose(rb[k], rtol, atol)) << "result " << k;
    }
  }
  for (size_t k = 0; k < ia.size(); ++k) EXPECT_TRUE(ia[k].equal(ib[k])) << "input " << k;
}

TEST(Passes, DeadCodeElimination) {
  const Tensor x = randn({3, 4});
  Fn fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    Tensor unused = xs[0].exp().sum();  // two dead calls
    return {xs[0] + 1};
  };
  const fx::GraphModule gm = make_fx(fn, {x});
  int removed = 0;
  const fx::GraphModule out = after(gm, kDce, &removed);
  EXPECT_EQ(count_op(gm.graph(), "exp"), 1u);
  EXPECT_EQ(count_op(out.graph(), "exp"), 0u);
  EXPECT_EQ(count_op(out.graph(), "sum"), 0u);
  EXPECT_GE(removed, 2);
  EXPECT_EQ(calls(out.graph()), calls(gm.graph()) - 2);
  expect_same_run(gm, out, {x});
  // Nothing to remove: the same graph.
  EXPECT_TRUE(after(out, kDce).graph() == out.graph());
}

TEST(Passes, DeadCodeEliminationKeepsEffects) {
  manual_seed(1);
  const Tensor x = randn({4});
  // An in-place write to the input and a random draw: nothing reads them, both stay.
  Fn fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    xs[0].mul_(2);
    Tensor noise = rand({4});
    return {xs[0].sin()};
  };
  const fx::GraphModule gm = make_fx(fn, {x.clone()});
  const fx::GraphModule out = after(gm, kDce);
  EXPECT_EQ(count_op(out.graph(), "mul_"), 1u) << out.graph().to_string();
  EXPECT_EQ(calls(out.graph()), calls(gm.graph()));
  expect_same_run(gm, out, {x});
}

TEST(Passes, CommonSubexpressionElimination) {
  const Tensor x = randn({5}), y = randn({5});
  Fn fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    Tensor a = (xs[0] * xs[1]).sin(), b = (xs[0] * xs[1]).sin();
    Tensor c = xs[0].sum(0), d = xs[0].sum(0);  // equal reductions
    Tensor e = xs[0].sum(0, /*keepdim=*/true);  // other parameters: kept apart
    return {a + b, c * d, e};
  };
  const fx::GraphModule gm = make_fx(fn, {x, y});
  int merged = 0;
  const fx::GraphModule out = after(after(gm, kCse, &merged), kDce);
  EXPECT_EQ(merged, 3);
  EXPECT_EQ(count_op(gm.graph(), "sin"), 2u);
  EXPECT_EQ(count_op(out.graph(), "sin"), 1u);
  EXPECT_EQ(count_op(out.graph(), "mul"), 2u);  // x * y and c * d
  EXPECT_EQ(count_op(out.graph(), "sum"), 2u);
  expect_same_run(gm, out, {x, y});
}

TEST(Passes, CommonSubexpressionEliminationLeavesWritesAndRandomAlone) {
  const Tensor x = randn({4});
  // The same sin of x before and after a write of x through a view: one argument value, two
  // different contents.
  Fn writes = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    Tensor view = xs[0].view({2, 2});
    Tensor a = xs[0].sin();
    view.add_(1);
    Tensor b = xs[0].sin();
    return {a, b};
  };
  const fx::GraphModule gm = make_fx(writes, {x.clone()});
  int merged = -1;
  const fx::GraphModule out = after(gm, kCse, &merged);
  EXPECT_EQ(merged, 0);
  EXPECT_EQ(count_op(out.graph(), "sin"), 2u);
  expect_same_run(gm, out, {x});
  std::vector<Tensor> in = {x.clone()};
  const std::vector<Tensor> r = out(in);
  EXPECT_FALSE(r[0].equal(r[1]));
  // Two random draws of one shape: two calls.
  Fn draws = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {xs[0] + rand({4}), xs[0] + rand({4})};
  };
  const fx::GraphModule rg = make_fx(draws, {x});
  EXPECT_EQ(after(rg, kCse).graph().nodes().size(), rg.graph().nodes().size());
}

TEST(Passes, ConstantFolding) {
  const Tensor x = randn({4});
  const Tensor captured = tensor<float>({1.f, 2.f, 3.f, 4.f});
  Fn fn = [&](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    Tensor splat = ones({4}) * 2 + 1;            // all equal: a fill of 3
    Tensor ramp = arange(4).to(kFloat32) * 0.5;  // an attribute
    Tensor scaled = captured.exp();              // a captured constant, folded
    return {xs[0] * splat + ramp + scaled};
  };
  const fx::GraphModule gm = make_fx(fn, {x});
  int folded = 0;
  const fx::GraphModule out = after(after(gm, kFold, &folded), kDce);
  EXPECT_EQ(folded, 3) << out.graph().to_string();
  EXPECT_EQ(count_op(out.graph(), "exp"), 0u);
  EXPECT_EQ(count_op(out.graph(), "arange"), 0u) << out.graph().to_string();
  // x * 3 + ramp + exp(captured): three calls left, one of them the fill of 3.
  EXPECT_EQ(calls(out.graph()), 4u) << out.graph().to_string();
  EXPECT_EQ(count_op(out.graph(), "full"), 1u) << out.graph().to_string();
  size_t folded_attrs = 0;
  for (const auto& [name, t] : out.attrs()) folded_attrs += name.rfind("_folded_constant", 0) == 0;
  EXPECT_EQ(folded_attrs, 2u);
  expect_same_run(gm, out, {x});
  // A size cap keeps large non-uniform constants as computations.
  fx::GraphModule capped = gm;
  capped =
      fx::PassManager()
          .add({"fold", [](fx::Graph& g,
                           fx::Attrs& a) { return fx::fold_constants(g, a, {.max_numel = 2}); }})
          .run(gm);
  EXPECT_EQ(count_op(capped.graph(), "exp"), 1u);
  expect_same_run(gm, capped, {x});
}

TEST(Passes, ConstantFoldingLeavesRandomParametersAndWritesAlone) {
  const Tensor x = randn({3});
  Tensor weight = randn({3});
  weight.requires_grad_(true);  // a parameter, held by reference: it may change between calls
  Fn fn = [&](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    Tensor noise = rand({3}) * 2;
    Tensor buffer = zeros({3});
    buffer.view({3}).add_(1);  // a constant written in place is no longer a constant to fold
    return {xs[0] + noise + buffer + weight * 2};
  };
  const fx::GraphModule gm = make_fx(fn, {x});
  const fx::GraphModule out = after(after(gm, kFold), kDce);
  // The scalars (a fill converted by a copy) fold into fills; nothing else does.
  EXPECT_EQ(count_kind(out.graph(), PrimitiveKind::Random), 1u) << out.graph().to_string();
  EXPECT_EQ(count_op(out.graph(), "add_"), 1u) << out.graph().to_string();
  EXPECT_EQ(count_op(out.graph(), "mul"), 2u) << out.graph().to_string();
  for (const auto& [name, t] : out.attrs()) {
    EXPECT_EQ(name.rfind("_folded_constant", 0), std::string::npos) << name;
  }
  expect_same_run(gm, out, {x});
}

TEST(Passes, ViewCanonicalisation) {
  const Tensor x = randn({2, 3, 4});
  Fn fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    const Tensor& t = xs[0];
    Tensor a = t.reshape({6, 4}).reshape({24});                                 // one reshape
    Tensor b = t.permute({1, 0, 2}).permute({0, 2, 1});                         // one permute
    Tensor c = t.unsqueeze(0).squeeze(0);                                       // nothing
    Tensor d = t.sum(-1).unsqueeze(-1).expand({2, 3, 4}).expand({5, 2, 3, 4});  // one expand
    return {a * 2, b * 2, c * 2, d * 2};
  };
  const fx::GraphModule gm = make_fx(fn, {x});
  int changed = 0;
  const fx::GraphModule out = after(after(gm, kViews, &changed), kDce);
  EXPECT_EQ(changed, 4) << out.graph().to_string();
  EXPECT_EQ(count_kind(gm.graph(), PrimitiveKind::Reshape), 2u) << gm.graph().to_string();
  EXPECT_EQ(count_kind(out.graph(), PrimitiveKind::Reshape), 1u) << out.graph().to_string();
  EXPECT_EQ(count_kind(out.graph(), PrimitiveKind::Permute), 1u);
  EXPECT_EQ(count_kind(out.graph(), PrimitiveKind::Squeeze), 0u);
  EXPECT_EQ(count_kind(out.graph(), PrimitiveKind::Unsqueeze), 1u);  // the one before expand
  EXPECT_EQ(count_kind(out.graph(), PrimitiveKind::Expand), 1u);
  EXPECT_EQ(calls(out.graph()), calls(gm.graph()) - 5) << out.graph().to_string();
  expect_same_run(gm, out, {x});
  // A view the graph returns stays, even when it changes nothing.
  Fn returned = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {xs[0].reshape({2, 3, 4})};
  };
  const fx::GraphModule rg = make_fx(returned, {x});
  EXPECT_TRUE(after(rg, kViews).graph() == rg.graph());
}

TEST(Passes, DecomposeToCoreOps) {
  manual_seed(2);
  const Tensor a = randn({3, 4}), b = randn({3, 4}), w = rand({3, 4}), lo = randn({4}),
               hi = randn({3, 1}).abs() + 1;
  Fn fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    const Tensor &a = xs[0], &b = xs[1], &w = xs[2], &lo = xs[3], &hi = xs[4];
    return {a.lerp(b, 0.3),       a.lerp(b, 0.75),          a.lerp(b, w),
            a.addcmul(b, w, 0.5), a.addcdiv(b, w + 1, 2.0), a.isclose(b + 1e-6, 1e-5, 1e-3),
            a.clamp(lo, hi),      a.clamp(0.5, 1.0)};
  };
  const std::vector<Tensor> in = {a, b, w, lo, hi};
  const fx::GraphModule gm = make_fx(fn, in);
  int count = 0;
  const fx::GraphModule out = after(gm, kDecompose, &count);
  EXPECT_EQ(count, 7);
  for (const char* op : {"lerp", "addcmul", "addcdiv", "isclose"}) {
    EXPECT_EQ(count_op(gm.graph(), op), op == std::string("lerp") ? 3u : 1u) << op;
    EXPECT_EQ(count_op(out.graph(), op), 0u) << op << "\n" << out.graph().to_string();
  }
  EXPECT_EQ(count_op(out.graph(), "clamp"), 1u);  // scalar bounds are core
  EXPECT_GT(count_op(out.graph(), "maximum"), 0u);
  for (const fx::Node& n : out.graph().nodes()) {
    if (n.kind == fx::NodeKind::Call) {
      EXPECT_TRUE(fx::is_core(n)) << n.name;
    }
  }
  // The kernels may contract a * b + c into one rounding (FMA); the decompositions round twice.
  expect_same_run(gm, out, in, 1e-6, 1e-6);
  // make_fx's option does the same.
  const fx::GraphModule direct = make_fx(fn, in, {.decompose = true});
  EXPECT_EQ(direct.graph().nodes().size(), out.graph().nodes().size());
}

TEST(Passes, DecomposeWithDynamicShapes) {
  Fn fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {xs[0].lerp(xs[1], xs[1].sigmoid()).addcmul(xs[0], xs[1])};
  };
  const fx::GraphModule gm =
      make_fx(fn, {randn({3, 8}), randn({3, 8})},
              {.dynamic = DynamicSpec{{{0, Dim("batch", 2, 16)}}, {{0, Dim("batch", 2, 16)}}},
               .decompose = true});
  EXPECT_EQ(count_op(gm.graph(), "lerp"), 0u) << gm.graph().to_string();
  EXPECT_EQ(count_op(gm.graph(), "addcmul"), 0u);
  EXPECT_NE(gm.graph().to_string().find("f32[s0, 8]"), std::string::npos);
  for (int64_t batch : {2, 7, 16}) {
    const Tensor x = randn({batch, 8}), y = randn({batch, 8});
    EXPECT_TRUE(gm({x, y})[0].allclose(fn({x, y})[0], 1e-6, 1e-6)) << batch;
  }
}

TEST(Passes, DecomposeLeavesInPlaceCallsOnInputs) {
  const Tensor x = randn({4}), y = randn({4});
  Fn fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    xs[0].lerp_(xs[1], 0.25);  // writes the graph's input
    return {xs[0] * 2};
  };
  const fx::GraphModule gm = make_fx(fn, {x.clone(), y});
  int count = -1;
  const fx::GraphModule out = after(gm, kDecompose, &count);
  EXPECT_EQ(count, 0);
  ASSERT_EQ(count_op(out.graph(), "lerp"), 1u) << out.graph().to_string();
  for (const fx::Node& n : out.graph().nodes()) {
    if (n.op() == "lerp") {
      EXPECT_TRUE(n.inplace());
    }
  }
  expect_same_run(gm, out, {x, y});
}

TEST(Passes, CoreOpsetTable) {
  const std::vector<fx::OpsetEntry> table = fx::core_opset_table();
  EXPECT_EQ(table.size(), all_primitive_kinds().size());
  std::map<std::string, std::string> role;
  for (const fx::OpsetEntry& e : table) {
    role[e.kind] = e.role;
    EXPECT_FALSE(e.why.empty()) << e.kind;
    EXPECT_EQ(e.why.find("decomposition missing"), std::string::npos) << e.kind;
  }
  EXPECT_EQ(role["Lerp"], "decomposed");
  EXPECT_EQ(role["Addc"], "decomposed");
  EXPECT_EQ(role["IsClose"], "decomposed");
  EXPECT_EQ(role["Clamp"], "core except some ops");
  EXPECT_EQ(role["Binary"], "core");
  EXPECT_EQ(role["Matmul"], "core");
}

// The default pipeline, logged under EMBER_LOGS=graph: each pass's name and node counts.
TEST(Passes, PipelineLogsEachPass) {
  Fn fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    Tensor dead = xs[0].cos();
    Tensor c = full({4}, 2.0) + 1;
    return {xs[0].lerp(xs[1], 0.5) * c + xs[0].reshape({2, 2}).reshape({4}) * c + xs[1].sin() +
            xs[1].sin()};
  };
  const Tensor x = randn({4}), y = randn({4});
  const fx::GraphModule gm = make_fx(fn, {x, y});
  ::setenv("EMBER_LOGS", "graph", 1);
  compiler::reload_logs();
  ::testing::internal::CaptureStderr();
  std::vector<fx::PassRecord> records;
  const fx::GraphModule out = fx::run_passes(gm, &records);
  const std::string log = ::testing::internal::GetCapturedStderr();
  ::unsetenv("EMBER_LOGS");
  compiler::reload_logs();
  ASSERT_EQ(records.size(), 5u);
  const std::vector<std::string> names = {"decompose", "canonicalize_views", "fold_constants",
                                          "eliminate_common_subexpressions", "eliminate_dead_code"};
  for (size_t k = 0; k < names.size(); ++k) {
    EXPECT_EQ(records[k].name, names[k]);
    EXPECT_GT(records[k].changed, 0) << names[k];
    EXPECT_NE(log.find("After pass " + names[k] + " ("), std::string::npos) << log;
    if (k > 0) {
      EXPECT_EQ(records[k].nodes_before, records[k - 1].nodes_after);
    }
  }
  EXPECT_EQ(records.back().nodes_after, out.graph().nodes().size());
  EXPECT_LT(out.graph().nodes().size(), gm.graph().nodes().size());
  expect_same_run(gm, out, {x, y}, 1e-6, 1e-6);
  // make_fx runs the same pipeline when asked.
  EXPECT_TRUE(make_fx(fn, {x, y}, {.passes = true}).graph() == out.graph());
}

// Decomposed, lerp fuses with what follows: one generated kernel instead of a call of the lerp
// primitive between two kernels. lower() decomposes by itself, so the graph without passes (which
// still holds the lerp call) lowers to the same one kernel.
TEST(Passes, DecompositionsFuseInTheLowering) {
  const Tensor x = randn({64}), y = randn({64});
  Fn fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {(xs[0].exp().lerp(xs[1], 0.3) * 2).relu()};
  };
  const fx::GraphModule gm = make_fx(fn, {x, y});
  const auto plain = compiler::lower(gm);
  const fx::GraphModule passed = fx::run_passes(gm);
  const auto fused = compiler::lower(passed);
  EXPECT_NE(gm.graph().to_string().find("lerp"), std::string::npos);
  EXPECT_EQ(passed.graph().to_string().find("lerp"), std::string::npos);
  EXPECT_EQ(plain->kernel_names().size(), 1u);
  ASSERT_EQ(fused->kernel_names().size(), 1u);
  EXPECT_TRUE((*fused)({x, y})[0].allclose(fn({x, y})[0], 1e-6, 1e-6));
}

}  // namespace
}  // namespace ember::test
