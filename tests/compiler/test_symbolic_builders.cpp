// Note [Symbolic shapes] in op builders: factories given a traced size expression, arange of a
// symbolic size, and a loss under a dynamic batch keep the symbol, so one trace runs at other
// sizes and agrees with eager there.
#include <ember/compiler.h>
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "ember/nn.h"
#include "ops/factory_internal.h"
#include "ops/util.h"

namespace ember::test {
namespace {

namespace F = nn::functional;

void expect_has(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in: " << text;
}

const Dim kBatch("batch", 2, 64);

TEST(SymbolicBuilders, FactoriesKeepTheSymbol) {
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    const SymInt n = xs[0].sym_size(0);
    Tensor z = zeros({n, 3});
    Tensor o = ones({n, 3}, kFloat64);
    Tensor f = full({n, 3}, 2.5);
    Tensor e = empty({2 * n}).fill_(1);  // empty's values are unspecified: filled here
    return {xs[0] + z, (xs[0] * o.to(kFloat32)) + f, e.sum()};
  };
  fx::GraphModule gm = make_fx(fn, {randn({4, 3})}, {.dynamic = {{{0, kBatch}}}});
  const std::string text = gm.graph().to_string();
  expect_has(text, "f32[s0, 3]");
  expect_has(text, "f64[s0, 3]");
  expect_has(text, "f32[2*s0]");
  for (int64_t n : {2, 5, 11}) {
    Tensor x = randn({n, 3});
    std::vector<Tensor> got = gm({x});
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got[0].sizes(), (std::vector<int64_t>{n, 3}));
    EXPECT_TRUE(got[0].equal(x)) << "batch " << n;
    EXPECT_TRUE(got[1].equal(x + 2.5)) << "batch " << n;
    EXPECT_EQ(got[2].item<float>(), static_cast<float>(2 * n)) << "batch " << n;
  }
}

TEST(SymbolicBuilders, EmptyStridedAndNegativeSizes) {
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    const SymInt n = xs[0].sym_size(0);
    Tensor t = empty_strided({n, 2}, {1, n}).fill_(3);  // column-major
    return {t.add(xs[0])};
  };
  fx::GraphModule gm = make_fx(fn, {randn({3, 2})}, {.dynamic = {{{0, kBatch}}}});
  for (int64_t n : {2, 7}) {
    Tensor x = randn({n, 2});
    EXPECT_TRUE(gm({x})[0].equal(x + 3)) << "batch " << n;
  }
  // A size whose sign the range does not decide specialises (a declared-dynamic dim: raises).
  auto negative = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {zeros({xs[0].sym_size(0) - 5})};
  };
  EXPECT_THROW(make_fx(negative, {randn({8, 2})}, {.dynamic = {{{0, kBatch}}}}),
               ConstraintViolationError);
}

TEST(SymbolicBuilders, ArangeOfASymbolicSize) {
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    const SymInt n = xs[0].sym_size(0);
    Tensor i = ops::sym_arange(n);
    Tensor f = ops::sym_arange(n + 1, TensorOptions(kFloat32));
    return {xs[0] + i.to(kFloat32), f};
  };
  fx::GraphModule gm = make_fx(fn, {zeros({4})}, {.dynamic = {{{0, kBatch}}}});
  expect_has(gm.graph().to_string(), "i64[s0]");
  expect_has(gm.graph().to_string(), "f32[s0 + 1]");
  for (int64_t n : {2, 6, 13}) {
    std::vector<Tensor> got = gm({zeros({n})});
    EXPECT_TRUE(got[0].equal(arange(n, kFloat32))) << "batch " << n;
    EXPECT_EQ(got[1].dtype(), kFloat32);
    EXPECT_TRUE(got[1].equal(arange(n + 1, kFloat32))) << "batch " << n;
  }
  // Concrete sizes are the ordinary arange.
  EXPECT_TRUE(ops::sym_arange(3).equal(arange(3)));
  EXPECT_EQ(ops::sym_arange(3).dtype(), kInt64);
}

TEST(SymbolicBuilders, LossesUnderADynamicBatch) {
  // Traced once at batch 4, run at several batch sizes against eager.
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {
        F::cross_entropy(xs[0], xs[1]), F::nll_loss(xs[0].log_softmax(1), xs[1]),
        F::cross_entropy(xs[0], xs[1],
                         F::CrossEntropyFuncOptions().label_smoothing(0.1).reduction(ember::kSum))};
  };
  manual_seed(5);
  Tensor target = randint(0, 5, {4}, kInt64);
  fx::GraphModule gm =
      make_fx(fn, {randn({4, 5}), target}, {.dynamic = {{{0, kBatch}}, {{0, kBatch}}}});
  expect_has(gm.graph().to_string(), "i64[s0]");
  for (int64_t n : {2, 3, 9, 33}) {
    Tensor x = randn({n, 5});
    Tensor t = randint(0, 5, {n}, kInt64);
    std::vector<Tensor> got = gm({x, t});
    std::vector<Tensor> want = fn({x, t});
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT_TRUE(got[k].allclose(want[k], 1e-5, 1e-6)) << "batch " << n << " output " << k;
    }
  }
}

TEST(SymbolicBuilders, ProbabilityTargetsMeanOverTheBatch) {
  // The mean of a class-probability cross_entropy divides by numel / C, the (dynamic) batch.
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {F::cross_entropy(xs[0], xs[1])};
  };
  fx::GraphModule gm = make_fx(fn, {randn({3, 4}), randn({3, 4}).softmax(1)},
                               {.dynamic = {{{0, kBatch}}, {{0, kBatch}}}});
  for (int64_t n : {2, 10}) {
    Tensor x = randn({n, 4}), p = randn({n, 4}).softmax(1);
    // Closed form: -sum(p * log_softmax(x)) / n.
    Tensor want = -(p * x.log_softmax(1)).sum() / static_cast<double>(n);
    EXPECT_TRUE(gm({x, p})[0].allclose(want, 1e-5, 1e-6)) << "batch " << n;
  }
  // Empty input: NaN, as PyTorch.
  EXPECT_TRUE(std::isnan(F::cross_entropy(randn({0, 4}), randn({0, 4})).item<float>()));
}

TEST(SymbolicBuilders, SlicesOfADynamicDimKeepTheirExpressions) {
  // x[::2], x[1:], x[:-1] and a narrow whose length is computed from the size: one trace, any
  // size. (A start computed from it would put a view at a symbolic storage offset, which a graph
  // does not record.)
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    const Tensor& x = xs[0];
    const SymInt n = x.sym_size(0);
    return {x.slice(0, std::nullopt, std::nullopt, 2), x.slice(0, 1), x.slice(0, 0, -1),
            x.narrow(0, 1, n - 1), x.index({indexing::Slice(indexing::None, indexing::None, 3)})};
  };
  fx::GraphModule gm = make_fx(fn, {randn({6, 2})}, {.dynamic = {{{0, kBatch}}}});
  expect_has(gm.graph().to_string(), "s0 + 1)//2");
  for (int64_t n : {2, 5, 8}) {
    Tensor x = randn({n, 2});
    std::vector<Tensor> got = gm({x});
    std::vector<Tensor> want = fn({x});
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT_EQ(got[k].sizes(), want[k].sizes()) << "size " << n << " output " << k;
      EXPECT_TRUE(got[k].equal(want[k])) << "size " << n << " output " << k;
    }
  }
  // A start the range does not place (x[3:] may be empty or not) is a guard on the dim.
  auto from3 = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {xs[0].narrow(0, 3, xs[0].sym_size(0) - 3)};
  };
  EXPECT_THROW(make_fx(from3, {randn({6, 2})}, {.dynamic = {{{0, kBatch}}}}),
               ConstraintViolationError);
}

TEST(SymbolicBuilders, RollOfADynamicDim) {
  // Note [Symbolic roll]: (i - shift) mod size at each run's size, forwards and backwards, and
  // the flattened roll; the static dim keeps the Roll primitive.
  auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {xs[0].roll({3, 1}, {0, 1}), xs[0].roll({-5}, {0}), xs[0].roll(7)};
  };
  fx::GraphModule gm = make_fx(fn, {randn({4, 3})}, {.dynamic = {{{0, kBatch}}}});
  for (int64_t n : {2, 3, 9}) {
    Tensor x = randn({n, 3});
    std::vector<Tensor> got = gm({x});
    // Closed form: out[i] = x[(i - shift) mod n] along dim 0.
    for (int64_t i = 0; i < n; ++i) {
      const int64_t src = ((i - 3) % n + n) % n;
      EXPECT_TRUE(got[0][i].equal(x[src].roll(1, 0))) << "size " << n << " row " << i;
      EXPECT_TRUE(got[1][i].equal(x[((i + 5) % n + n) % n])) << "size " << n << " row " << i;
    }
    EXPECT_TRUE(got[2].equal(x.roll(7))) << "size " << n;
  }
  // sym_size_tensor: the size itself, as a 0-d tensor.
  EXPECT_EQ(ops::sym_size_tensor(5).item<int64_t>(), 5);
  EXPECT_EQ(ops::sym_size_tensor(5).dim(), 0);
}

}  // namespace
}  // namespace ember::test
