// The autograd engine: leaves, accumulation, graph lifetime, in-place safety, views, hooks,
// higher-order gradients, custom functions. Expected values are closed forms.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "opdb.h"

namespace ember {
namespace {

using test::expect_errors;
using test::values;

Tensor leaf(std::vector<double> v, std::vector<int64_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
  return test::from_values(shape, v).requires_grad_();
}

void expect_values(const Tensor& t, const std::vector<double>& want, double tol = 1e-12) {
  ASSERT_TRUE(t.defined());
  auto got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

TEST(Autograd, LeafAndGradFn) {
  Tensor x = leaf({1, 2, 3});
  EXPECT_TRUE(x.requires_grad());
  EXPECT_TRUE(x.is_leaf());
  EXPECT_EQ(x.grad_fn(), nullptr);
  Tensor y = x * x;
  EXPECT_FALSE(y.is_leaf());
  ASSERT_NE(y.grad_fn(), nullptr);
  EXPECT_EQ(y.grad_fn()->name(), "MulBackward0");
  Tensor s = y.sum();
  EXPECT_EQ(s.grad_fn()->name(), "SumBackward0");
  s.backward();
  expect_values(x.grad(), {2, 4, 6});
  EXPECT_FALSE(y.grad().defined());  // non-leaf without retain_grad
  // Integer tensors cannot require grad; non-leaves cannot change the flag.
  expect_errors<RuntimeError>({
      {"int", [] { zeros({2}, kInt64).requires_grad_(); }, "floating point"},
      {"non-leaf", [&] { y.requires_grad_(false); }, "leaf"},
  });
}

TEST(Autograd, AccumulatesAcrossBackwardCalls) {
  Tensor x = leaf({1, -2});
  (x * 3).sum().backward();
  (x * x).sum().backward();
  expect_values(x.grad(), {3 + 2, 3 - 4});
  x.mutable_grad() = Tensor();
  (x * 5).sum().backward();
  expect_values(x.grad(), {5, 5});
}

TEST(Autograd, BroadcastAndDtypeReduceToInput) {
  Tensor a = leaf({1, 2, 3}, {3, 1});
  Tensor b = leaf({10, 20}, {2});
  Tensor y = a * b;  // [3, 2]
  y.sum().backward();
  expect_values(a.grad(), {30, 30, 30});
  expect_values(b.grad(), {6, 6});
  Tensor f = ones({2}, kFloat32).requires_grad_();
  (f.to(kFloat64) * 2).sum().backward();
  EXPECT_EQ(f.grad().dtype(), kFloat32);
  expect_values(f.grad(), {2, 2});
}

TEST(Autograd, RetainGraphAndFreedSavedTensors) {
  Tensor x = leaf({2});
  Tensor y = (x * x).sum();
  y.backward(Tensor(), /*retain_graph=*/true);
  y.backward();
  expect_values(x.grad(), {8});
  expect_errors<RuntimeError>({{"second backward", [&] { y.backward(); }, "second time"}});
  // Graphs without saved tensors may be run again, as in PyTorch.
  Tensor z = (x + 1).sum();
  z.backward();
  z.backward();
  expect_values(x.grad(), {10});
}

TEST(Autograd, BackwardErrors) {
  Tensor x = leaf({1, 2});
  Tensor c = zeros({2});
  expect_errors<RuntimeError>({
      {"no grad", [&] { c.sum().backward(); }, "does not require grad"},
      {"non-scalar", [&] { (x * 2).backward(); }, "only for scalar outputs"},
      {"shape", [&] { (x * 2).backward(ones({3}, kFloat64)); }, "Mismatch in shape"},
  });
}

TEST(Autograd, VersionCounterDetectsInplaceModification) {
  Tensor x = leaf({1, 2});
  Tensor a = x * 1;
  Tensor b = a.exp();  // saves its output
  b.add_(1);
  expect_errors<RuntimeError>(
      {{"exp output", [&] { b.sum().backward(); }, "modified by an inplace operation"}});
  Tensor a2 = x * 1;
  Tensor c = a2 * a2;  // saves a2
  a2.mul_(2);
  expect_errors<RuntimeError>({{"mul input", [&] { c.sum().backward(); }, "is at version"}});
  // Ops that save nothing do not care.
  Tensor a3 = x * 1;
  Tensor d = a3 + 1;
  a3.add_(1);
  d.sum().backward();
  expect_values(x.grad(), {1, 1});
}

TEST(Autograd, InplaceOnLeafRules) {
  Tensor x = leaf({1, 2});
  expect_errors<RuntimeError>({
      {"leaf", [&] { x.add_(1); },
       "a leaf Variable that requires grad is being used in an "
       "in-place operation"},
      {"view of leaf", [&] { x.narrow(0, 0, 1).mul_(2); }, "a view of a leaf Variable"},
  });
  {
    NoGradGuard g;
    x.add_(1);  // allowed without grad mode (optimizers)
  }
  expect_values(x, {2, 3});
}

TEST(Autograd, InplaceOnNonLeaf) {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * 2;
  y.mul_(y);  // y = (2x)^2, d/dx = 8x
  y.sum().backward();
  expect_values(x.grad(), {8, 16, 24});
}

TEST(Autograd, InplaceOnViewRewritesBaseHistory) {
  Tensor x = leaf({1, 2, 3, 4});
  Tensor y = x * 1;
  y.narrow(0, 1, 2).mul_(10);
  EXPECT_EQ(y.grad_fn()->name(), "CopySlices");
  (y * y).sum().backward();  // y = [1, 20, 30, 4]; d/dx = 2 y * dy/dx
  expect_values(x.grad(), {2, 2 * 20 * 10, 2 * 30 * 10, 8});

  // A buffer without gradients receives a value that has them.
  Tensor w = leaf({5, 6});
  Tensor buf = zeros({4}, kFloat64);
  buf.narrow(0, 1, 2).copy_(w * w);
  EXPECT_TRUE(buf.requires_grad());
  (buf * test::from_values({4}, {1, 2, 3, 4})).sum().backward();
  expect_values(w.grad(), {2 * 5 * 2, 2 * 6 * 3});

  // A view made before its base changed follows the base's new history.
  Tensor x2 = leaf({1, 2, 3});
  Tensor b = x2 * 1;
  Tensor v = b.narrow(0, 0, 2);
  b.mul_(3);
  v.sum().backward();
  expect_values(x2.grad(), {3, 3, 0});
}

TEST(Autograd, IndexPutAndAdvancedIndexing) {
  Tensor x = leaf({1, 2, 3, 4});
  Tensor idx = test::from_values({3}, {0, 2, 0}).to(kInt64);
  Tensor g = x.index({idx});  // [1, 3, 1]
  (g * test::from_values({3}, {1, 10, 100})).sum().backward();
  expect_values(x.grad(), {101, 0, 10, 0});

  Tensor v = leaf({7, 8});
  Tensor base = x * 1;
  base.index_put_({test::from_values({2}, {1, 3}).to(kInt64)}, v * 2);
  x.mutable_grad() = Tensor();
  (base * test::from_values({4}, {1, 2, 3, 4})).sum().backward();
  expect_values(x.grad(), {1, 0, 3, 0});
  expect_values(v.grad(), {4, 8});
}

TEST(Autograd, Hooks) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 3;
  std::vector<double> seen;
  unsigned id = y.register_hook([&](const Tensor& g) { seen = values(g); });
  y.register_hook([](const Tensor& g) { return g * 10; });
  int post_calls = 0;
  x.register_post_accumulate_grad_hook([&](const Tensor& t) {
    ++post_calls;
    EXPECT_TRUE(t.grad().defined());
  });
  x.register_hook([](const Tensor& g) { return g + 1; });
  y.sum().backward();
  EXPECT_EQ(seen, (std::vector<double>{1, 1}));
  expect_values(x.grad(), {31, 31});
  EXPECT_EQ(post_calls, 1);
  y.remove_hook(id);
  expect_errors<RuntimeError>({
      {"no grad", [] { zeros({1}).register_hook([](const Tensor&) {}); }, "require gradient"},
      {"post on non-leaf", [&] { y.register_post_accumulate_grad_hook([](const Tensor&) {}); },
       "non-leaf"},
  });
}

TEST(Autograd, RetainGrad) {
  Tensor x = leaf({1, 2});
  Tensor y = x * x;
  y.retain_grad();
  EXPECT_TRUE(y.retains_grad());
  (y * 3).sum().backward();
  expect_values(y.grad(), {3, 3});
  expect_values(x.grad(), {6, 12});
}

TEST(Autograd, GradFunction) {
  Tensor x = leaf({1, 2});
  Tensor w = leaf({3, 4});
  Tensor y = (x * w).sum();
  auto g = autograd::grad({y}, {x, w});
  expect_values(g[0], {3, 4});
  expect_values(g[1], {1, 2});
  EXPECT_FALSE(x.grad().defined());  // grad() does not accumulate
  Tensor unused = leaf({1});
  Tensor y2 = (x * 2).sum();
  expect_errors<RuntimeError>(
      {{"unused", [&] { autograd::grad({y2}, {unused}); }, "allow_unused"}});
  auto u = autograd::grad({(x * 2).sum()}, {unused}, {}, std::nullopt, false, true);
  EXPECT_FALSE(u[0].defined());
}

TEST(Autograd, BackwardWithInputsOnlyAccumulatesThere) {
  Tensor x = leaf({1});
  Tensor w = leaf({2});
  (x * w).sum().backward(Tensor(), std::nullopt, false, {x});
  expect_values(x.grad(), {2});
  EXPECT_FALSE(w.grad().defined());
}

TEST(Autograd, HigherOrderGradients) {
  Tensor x = leaf({0.5, 2});
  Tensor y = (x * x * x).sum();
  auto g1 = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true);
  expect_values(g1[0], {0.75, 12});  // 3x^2
  auto g2 = autograd::grad({g1[0].sum()}, {x});
  expect_values(g2[0], {3, 12});  // 6x
  // Through saved outputs: d2/dx2 exp(x) = exp(x); d2/dx2 tanh = -2 tanh (1 - tanh^2).
  Tensor e = x.exp().sum();
  auto ge = autograd::grad({e}, {x}, {}, std::nullopt, true);
  auto gge = autograd::grad({ge[0].sum()}, {x});
  expect_values(gge[0], {std::exp(0.5), std::exp(2.0)}, 1e-12);
  Tensor t = x.tanh().sum();
  auto gt = autograd::grad({t}, {x}, {}, std::nullopt, true);
  auto ggt = autograd::grad({gt[0].sum()}, {x});
  for (int i = 0; i < 2; ++i) {
    const double v = i == 0 ? 0.5 : 2.0, th = std::tanh(v);
    EXPECT_NEAR(values(ggt[0])[i], -2 * th * (1 - th * th), 1e-12);
  }
}

TEST(Autograd, DeepGraphNeedsNoRecursion) {
  Tensor x = leaf({1});
  Tensor y = x;
  for (int i = 0; i < 100000; ++i) y = y * 1.0;
  y.sum().backward();
  expect_values(x.grad(), {1});
  y = Tensor();  // freeing 100,000 nodes must not recurse either
}

TEST(Autograd, GradModes) {
  Tensor x = leaf({1});
  {
    NoGradGuard g;
    EXPECT_FALSE(is_grad_enabled());
    EXPECT_FALSE((x * 2).requires_grad());
    AutoGradMode on(true);
    EXPECT_TRUE((x * 2).requires_grad());
  }
  EXPECT_TRUE(is_grad_enabled());
  Tensor t;
  {
    InferenceMode guard;
    EXPECT_TRUE(InferenceMode::is_enabled());
    t = x * 2;
    EXPECT_FALSE(t.requires_grad());
    EXPECT_TRUE(t.is_inference());
  }
  EXPECT_FALSE(InferenceMode::is_enabled());
  expect_errors<RuntimeError>({
      {"inplace inference", [&] { t.add_(1); }, "inference tensor"},
      {"save inference", [&] { (x * t).sum().backward(); }, "Inference tensors cannot be saved"},
  });
}

TEST(Autograd, DetachAndData) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2;
  Tensor d = y.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_alias_of(y));
  Tensor z = x * 3;
  z.detach_();
  EXPECT_FALSE(z.requires_grad());
  EXPECT_TRUE(z.is_leaf());
  EXPECT_FALSE(x.data().requires_grad());
}

TEST(Autograd, UndifferentiableOpRaisesNaming) {
  // histc has no derivative (as in PyTorch): an error naming the op, not a guess.
  Tensor z = leaf({0, 2});
  Tensor c = histc(z, 4).sum();
  expect_errors<NotImplementedError>({{"histc", [&] { c.backward(); }, "[histc]"}});
}

TEST(Autograd, CumprodThroughZeros) {
  // y = cumprod([2, 0, 3]) = [2, 0, 0]; d sum(y) / dx = [1 + x1 + x1 x2, x0 + x0 x2, x0 x1].
  Tensor x = leaf({2, 0, 3});
  x.cumprod(0).sum().backward();
  expect_values(x.grad(), {1, 8, 0});
  // Several zeros, on either dim: finite differences, first and second order.
  auto fn = [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{in[0].cumprod(1), in[0].cumprod(0)};
  };
  Tensor m = leaf({1.5, 0.0, 2.0, 0.0, -3.0, 0.5, 0.0, 0.0, 2.5}, {3, 3});
  EXPECT_TRUE(autograd::gradcheck(fn, {m}));
  EXPECT_TRUE(autograd::gradgradcheck(fn, {m}));
}

struct MulConstant : autograd::Function<MulConstant> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor x, double c) {
    ctx->saved_data["c"] = c;
    ctx->save_for_backward({x});
    return x * c;
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx,
                                          autograd::variable_list grads) {
    auto saved = ctx->get_saved_variables();
    EXPECT_EQ(saved.size(), 1u);
    return {grads[0] * ctx->saved_data["c"].toDouble(), Tensor()};
  }
};

struct Square : autograd::Function<Square> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx,
                                          autograd::variable_list grads) {
    Tensor x = ctx->get_saved_variables()[0];
    return {grads[0] * 2 * x};
  }
};

TEST(Autograd, CustomFunction) {
  Tensor x = leaf({1, 2});
  Tensor y = MulConstant::apply(x, 5.0);
  ASSERT_NE(y.grad_fn(), nullptr);
  EXPECT_NE(y.grad_fn()->name().find("MulConstant"), std::string::npos);
  y.sum().backward();
  expect_values(x.grad(), {5, 5});
  // Differentiable backward: second derivative of x^2 is 2.
  Tensor x2 = leaf({3});
  Tensor s = Square::apply(x2).sum();
  auto g = autograd::grad({s}, {x2}, {}, std::nullopt, true);
  expect_values(g[0], {6});
  auto gg = autograd::grad({g[0].sum()}, {x2});
  expect_values(gg[0], {2});
  EXPECT_TRUE(autograd::gradcheck(
      [](const std::vector<Tensor>& in) { return std::vector<Tensor>{Square::apply(in[0])}; },
      {leaf({0.3, -1.2})}));
}

TEST(Autograd, GradcheckDetectsWrongGradient) {
  struct Wrong : autograd::Function<Wrong> {
    static Tensor forward(autograd::AutogradContext*, Tensor x) { return x * x; }
    static autograd::variable_list backward(autograd::AutogradContext*, autograd::variable_list g) {
      return {g[0] * 3};
    }
  };
  auto fn = [](const std::vector<Tensor>& in) { return std::vector<Tensor>{Wrong::apply(in[0])}; };
  EXPECT_FALSE(autograd::gradcheck(fn, {leaf({0.7})}, 1e-6, 1e-5, 1e-3, false));
  expect_errors<autograd::GradcheckError>(
      {{"raise", [&] { autograd::gradcheck(fn, {leaf({0.7})}); }, "Jacobian mismatch"}});
}

TEST(Autograd, GradgradcheckOnComposites) {
  auto fn = [](const std::vector<Tensor>& in) {
    Tensor a = in[0], b = in[1];
    return std::vector<Tensor>{(a.matmul(b)).tanh().sum(1) + (a * a).exp().mean(0).sum()};
  };
  Tensor a = test::make_tensor({2, 3}, kFloat64, -1, 1, 1).requires_grad_();
  Tensor b = test::make_tensor({3, 2}, kFloat64, -1, 1, 2).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(fn, {a, b}));
  EXPECT_TRUE(autograd::gradgradcheck(fn, {a, b}));
}

}  // namespace
}  // namespace ember
