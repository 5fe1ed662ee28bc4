// Note [Unbacked symbols]: unique, unique_consecutive and bincount traced fake give their
// data-dependent sizes unbacked symbols with PyTorch's bounds, bound from the data on every run.
#include <ember/compiler.h>
#include <gtest/gtest.h>

#include "compiler/symbolic.h"
#include "ember/ember.h"
#include "fx_test_util.h"

namespace ember::test {
namespace {

using Fn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// Output `i`'s size `d` as the graph records it.
SymInt output_size(const fx::GraphModule& gm, size_t i, size_t d) {
  const fx::ValueMeta m = gm.graph().meta(gm.graph().nodes().back().args.at(i));
  EMBER_CHECK(d < m.sizes.size(), "[test] output ", i, " has no dim ", d);
  return m.sizes[d];
}

const fx::SymbolInfo& info_of(const SymInt& s) {
  const auto env = fx::env_of(s);
  EMBER_CHECK(env && fx::as_symbol(s), "[test] not a symbol: ", s.str());
  return *env->find(*fx::as_symbol(s));
}

// The graph gives eager's results (sizes, dtypes and values) on each input.
void expect_runs_as_eager(const fx::GraphModule& gm, const Fn& fn,
                          const std::vector<Tensor>& inputs) {
  for (const Tensor& in : inputs) {
    const auto got = gm({in}), want = fn({in});
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].sizes(), want[i].sizes()) << "output " << i;
      EXPECT_EQ(got[i].dtype(), want[i].dtype()) << "output " << i;
      EXPECT_TRUE(equal(got[i], want[i])) << "output " << i;
    }
  }
}

TEST(SymbolicTrace, UniqueIsAnUnbackedSize) {
  Fn fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    auto [values, inverse, counts] = unique(xs[0], true, true, true);
    return {values * 2, inverse, counts, values.sum()};
  };
  const Tensor x = tensor<int64_t>({3, 1, 3, 2, 1, 3}).reshape({2, 3});
  fx::GraphModule gm = make_fx(fn, {x}, {.mode = TracingMode::Fake});
  const SymInt count = output_size(gm, 0, 0);
  EXPECT_EQ(count.str(), "u0");
  const fx::SymbolInfo& u = info_of(count);
  EXPECT_TRUE(u.unbacked);
  EXPECT_EQ(u.dim, "the count of unique");
  EXPECT_EQ(u.min, 0);
  EXPECT_EQ(u.max, 6);  // every element distinct
  // counts has the values' length; inverse has the input's shape.
  EXPECT_TRUE(output_size(gm, 2, 0).same_as(count));
  EXPECT_EQ(output_size(gm, 1, 0).str(), "2");
  EXPECT_EQ(output_size(gm, 1, 1).str(), "3");
  // All equal, all distinct, some repeated: one graph, eager's results.
  expect_runs_as_eager(gm, fn,
                       {full({2, 3}, 7, kInt64), arange(6).reshape({2, 3}).flip({1}),
                        tensor<int64_t>({5, 5, 0, 9, 0, 5}).reshape({2, 3})});
  const std::string text = gm.graph().to_string();
  EXPECT_EQ(fx::Graph::from_json(gm.graph().to_json()).to_string(), text);
  // The same value's unique twice is one size (PyTorch's unique_memo), so the two broadcast.
  Fn twice = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {std::get<0>(unique(xs[0])) + std::get<0>(unique(xs[0]))};
  };
  fx::GraphModule both = make_fx(twice, {tensor<int64_t>({1, 2, 3})}, {.mode = TracingMode::Fake});
  expect_runs_as_eager(both, twice, {tensor<int64_t>({4, 4, 1})});
}

TEST(SymbolicTrace, UniqueOfADynamicInputIsBoundedByItsRange) {
  Fn fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {std::get<0>(unique(xs[0])).to(kFloat32).sum()};
  };
  fx::GraphModule gm =
      make_fx(fn, {tensor<int64_t>({2, 2, 5, 1})}, {.dynamic = {{{0, Dim("n", 2, 16)}}}});
  const fx::Node* call = nullptr;
  for (const fx::Node& n : gm.graph().nodes()) {
    if (n.prim && n.prim->kind() == PrimitiveKind::Unique) call = &n;
  }
  ASSERT_NE(call, nullptr);
  const fx::SymbolInfo& u = info_of(call->outputs[0].sizes[0]);
  EXPECT_EQ(u.max, 16);  // numel's largest value over n's range
  expect_runs_as_eager(
      gm, fn,
      {tensor<int64_t>({0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0}), tensor<int64_t>({8, 8})});
}

TEST(SymbolicTrace, UniqueConsecutiveAndUniqueByDim) {
  Fn runs = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    auto [values, inverse, counts] = unique_consecutive(xs[0], false, true);
    return {values, counts, inverse};
  };
  fx::GraphModule gm =
      make_fx(runs, {tensor<float>({1, 1, 2, 2, 2, 1})}, {.mode = TracingMode::Fake});
  const fx::SymbolInfo& u = info_of(output_size(gm, 0, 0));
  EXPECT_EQ(u.dim, "the count of unique_consecutive");
  EXPECT_EQ(u.max, 6);
  EXPECT_EQ(output_size(gm, 2, 0).str(), "0");  // no inverse asked for: empty
  expect_runs_as_eager(gm, runs,
                       {tensor<float>({3, 3, 3, 3, 3, 3}), tensor<float>({1, 2, 1, 2, 1, 2})});
  // By dim: rows of a [4, 3] tensor, at most 4 of them, each keeping its 3 columns.
  Fn rows = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    auto [values, inverse, counts] = unique(xs[0], true, true, false, 0);
    return {values, inverse};
  };
  const Tensor m = tensor<int64_t>({1, 2, 3, 0, 0, 0, 1, 2, 3, 4, 4, 4}).reshape({4, 3});
  fx::GraphModule by_dim = make_fx(rows, {m}, {.mode = TracingMode::Fake});
  EXPECT_EQ(info_of(output_size(by_dim, 0, 0)).max, 4);
  EXPECT_EQ(output_size(by_dim, 0, 1).str(), "3");
  EXPECT_EQ(output_size(by_dim, 1, 0).str(), "4");
  expect_runs_as_eager(by_dim, rows, {zeros({4, 3}, kInt64), arange(12).reshape({4, 3})});
}

TEST(SymbolicTrace, BincountIsAnUnbackedSizeOfAtLeastMinlength) {
  Fn fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    Tensor counts = bincount(xs[0], std::nullopt, 3);
    // minlength bounds the length below: this branch needs no guard.
    return {counts.sym_size(0) >= 3 ? counts * 2 : counts};
  };
  fx::GraphModule gm = make_fx(fn, {tensor<int64_t>({0, 4, 4})}, {.mode = TracingMode::Fake});
  const fx::SymbolInfo& u = info_of(output_size(gm, 0, 0));
  EXPECT_EQ(u.dim, "the length of bincount");
  EXPECT_EQ(u.min, 3);
  expect_runs_as_eager(gm, fn, {tensor<int64_t>({1, 1, 0}), tensor<int64_t>({7, 0, 2})});
  // Weights give the weights' dtype.
  Fn weighted = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {bincount(xs[0], xs[0].to(kFloat32) * 0.5)};
  };
  fx::GraphModule w = make_fx(weighted, {tensor<int64_t>({2, 2, 0})}, {.mode = TracingMode::Fake});
  EXPECT_EQ(info_of(output_size(w, 0, 0)).min, 0);
  expect_runs_as_eager(w, weighted, {tensor<int64_t>({5, 1, 5})});
}

TEST(SymbolicTrace, GuardOnAUniqueCountRaises) {
  std::string m = message_of([&] {
    make_fx(
        [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
          Tensor values = std::get<0>(unique(xs[0]));
          return {values.sym_size(0) > 2 ? values * 2 : values};
        },
        {tensor<int64_t>({1, 2, 3, 4})}, {.mode = TracingMode::Fake});
  });
  expect_has(m, "Could not guard on data-dependent expression");
  expect_has(m, "u0 is the count of unique");
  expect_has(m, "in [0, 4]");
  // An empty input has no count to know: a literal 0, no symbol.
  fx::GraphModule empty = make_fx(
      [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
        return {std::get<0>(unique(xs[0])), nonzero(xs[0])};
      },
      {zeros({0}, kInt64)}, {.mode = TracingMode::Fake});
  EXPECT_EQ(output_size(empty, 0, 0).str(), "0");
  EXPECT_EQ(output_size(empty, 1, 0).str(), "0");
}

}  // namespace
}  // namespace ember::test
