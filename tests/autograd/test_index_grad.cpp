// Gradients of the scatter/index family and of selection where the generic op-database gradcheck
// cannot reach: zeros in products, ties, repeated indices, tensor fill values, double backward.
// Expected values are closed forms or central finite differences in float64.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "opdb.h"

namespace ember {
namespace {

using test::values;

Tensor leaf(std::vector<double> v, std::vector<int64_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
  return test::from_values(shape, v).requires_grad_();
}

Tensor longs(std::vector<int64_t> v, std::vector<int64_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
  std::vector<double> d(v.begin(), v.end());
  return test::from_values(shape, d, kInt64);
}

void expect_values(const Tensor& t, const std::vector<double>& want, double tol = 1e-12) {
  ASSERT_TRUE(t.defined());
  auto got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

using Fn = autograd::DifferentiableFn;

TEST(IndexGrad, ScatterReduceProdThroughZeros) {
  // self = [2, 0, 3], src = [0, 5, 4, 0] to positions [0, 0, 1, 2]: one zero, two zeros, none.
  Tensor index = longs({0, 0, 1, 2});
  for (bool include_self : {true, false}) {
    Fn fn = [&](const std::vector<Tensor>& in) {
      return std::vector<Tensor>{in[0].scatter_reduce(0, index, in[1], "prod", include_self)};
    };
    Tensor self = leaf({2, 0, 3}), src = leaf({0, 5, 4, 0});
    EXPECT_TRUE(autograd::gradcheck(fn, {self, src})) << include_self;
    fn({self, src})[0].sum().backward();
    // include_self: out = [2*0*5, 0*4, 3*0]; d/dself = [0*5, 4, 0], d/dsrc = [2*5, 0, 0, 3].
    if (include_self) {
      expect_values(self.grad(), {0, 4, 0});
      expect_values(src.grad(), {10, 0, 0, 3});
    } else {
      expect_values(self.grad(), {0, 0, 0});
      expect_values(src.grad(), {5, 0, 1, 1});
    }
  }
}

TEST(IndexGrad, ScatterReduceAmaxSharesTies) {
  // Position 0 receives 3 (self), 3 and 1: the two 3s share the gradient; position 1 gets 7 > 2.
  Tensor self = leaf({3, 2}), src = leaf({3, 1, 7});
  Tensor index = longs({0, 0, 1});
  self.scatter_reduce(0, index, src, "amax").backward(ones({2}, TensorOptions().dtype(kFloat64)));
  expect_values(self.grad(), {0.5, 0});
  expect_values(src.grad(), {0.5, 0, 1});
}

TEST(IndexGrad, RepeatedIndicesOnlyLastWriteGetsGradient) {
  // scatter: index [1, 1, 0] along dim 0 writes src[1] last into position 1.
  Tensor src = leaf({10, 20, 30});
  Tensor self = zeros({2}, TensorOptions().dtype(kFloat64));
  (self.scatter(0, longs({1, 1, 0}), src) * tensor({2.0, 3.0})).sum().backward();
  expect_values(src.grad(), {0, 3, 2});
  // index_copy along dim 1 of a 2x2 with index [0, 0]: column 1 of source lands.
  Tensor source = leaf({1, 2, 3, 4}, {2, 2});
  Tensor base = zeros({2, 2}, TensorOptions().dtype(kFloat64));
  (base.index_copy(1, longs({0, 0}), source) * tensor({1.0, 2.0, 3.0, 4.0}).view({2, 2}))
      .sum()
      .backward();
  expect_values(source.grad(), {0, 1, 0, 3});
}

TEST(IndexGrad, TensorFillValueGetsGradient) {
  Tensor x = leaf({1, 2, 3, 4}, {2, 2});
  Tensor v = test::from_values({}, {5}).requires_grad_();
  Tensor w = tensor({1.0, 2.0, 3.0, 4.0}).view({2, 2});
  (x.index_fill(1, longs({1}), v) * w).sum().backward();
  expect_values(v.grad(), {2 + 4});
  expect_values(x.grad(), {1, 0, 3, 0});
  Tensor mask = tensor({true, false, false, true}).view({2, 2});
  Tensor v2 = test::from_values({}, {5}).requires_grad_();
  (x.masked_fill(mask, v2) * w).sum().backward();
  expect_values(v2.grad(), {1 + 4});
  // The gradient path checks the mask too.
  test::expect_errors<TypeError>(
      {{"int mask", [&] { (void)x.masked_fill(mask.to(kInt64), v2); }, "[masked_fill]"}});
}

TEST(IndexGrad, MaskedScatterAndTake) {
  Tensor mask = tensor({true, false, true, true}).view({2, 2});
  Fn scatter_fn = [&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{in[0].masked_scatter(mask, in[1])};
  };
  Tensor x = leaf({1, 2, 3, 4}, {2, 2}), src = leaf({5, 6, 7, 8, 9});
  EXPECT_TRUE(autograd::gradcheck(scatter_fn, {x, src}));
  EXPECT_TRUE(autograd::gradgradcheck(scatter_fn, {x, src}));
  // Only the first three source elements are used.
  scatter_fn({x, src})[0].sum().backward();
  expect_values(src.grad(), {1, 1, 1, 0, 0});
  Tensor idx = longs({-1, 0, 3, 3});
  Fn take_fn = [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{take(in[0], idx)}; };
  Tensor y = leaf({1, 2, 3, 4}, {2, 2});
  EXPECT_TRUE(autograd::gradcheck(take_fn, {y}));
  take_fn({y})[0].sum().backward();
  expect_values(y.grad(), {1, 0, 0, 3});  // index -1 and two 3s all reach element 3
}

TEST(IndexGrad, MedianOfAllSharesTies) {
  // median() sends its gradient evenly to every element equal to it (PyTorch's rule).
  Tensor x = leaf({3, 1, 3, 5, 2, 3});
  x.median().backward();
  expect_values(x.grad(), {1.0 / 3, 0, 1.0 / 3, 0, 0, 1.0 / 3});
  // median(dim) picks one index.
  Tensor y = leaf({4, 1, 2});
  std::get<0>(y.median(0)).backward();
  expect_values(y.grad(), {0, 0, 1});
}

TEST(IndexGrad, DoubleBackwardThroughScatterAndSort) {
  Tensor index = longs({0, 2, 1, 0}, {2, 2});
  Fn fn = [&](const std::vector<Tensor>& in) {
    Tensor s = in[0].scatter_add(1, index, in[1] * in[1]);
    Tensor g = s.gather(1, index);
    return std::vector<Tensor>{std::get<0>(g.sort(1)), s.index_add(0, longs({1, 1}), in[0] * 2)};
  };
  Tensor x = leaf({0.5, -1, 2, 1.5, 0.25, -2}, {2, 3}), src = leaf({1.5, -0.5, 0.75, 2.5}, {2, 2});
  EXPECT_TRUE(autograd::gradcheck(fn, {x, src}));
  EXPECT_TRUE(autograd::gradgradcheck(fn, {x, src}));
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

TEST(IndexGrad, SelectionsOfExpandedTensors) {
  // An expanded leaf shares memory between its rows: the gradient still goes to the row (and
  // element) each selection took, as in PyTorch.
  Tensor base = tensor({1.0, 2.0, 3.0}, TensorOptions().dtype(kFloat64));
  Tensor x = base.expand({2, 3});
  x.requires_grad_();
  (x.select(0, 1) * tensor({1.0, 10.0, 100.0})).sum().backward();
  expect_values(x.grad(), {0, 0, 0, 1, 10, 100});
  Tensor y = base.expand({3, 3});
  y.requires_grad_();
  (y.slice(0, 1, 3).narrow(1, 0, 2).sum() + y.diagonal().sum() * 10).backward();
  expect_values(y.grad(), {10, 0, 0, 1, 11, 0, 1, 1, 10});
  // Finite differences agree.
  Tensor z = base.expand({2, 3});
  z.requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{in[0].select(1, 2) * in[0][0][1], in[0].diagonal(1)};
      },
      {z}));
}

}  // namespace
}  // namespace ember
