// The vectorised activation kernels (sigmoid, silu, gelu with both approximations, tanh) and their
// fused backward (Note [Fused unary backward]) against float64 closed forms: a wide range of x
// (where exp overflows and sigmoid saturates), sizes around the vector width, NaN, infinities,
// -0.0, the 16-bit floats through float, and double backward by finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "dispatch/dispatch.h"
#include "ember/nn/functional.h"
#include "nn/nn_test_util.h"
#include "opdb.h"
#include "primitives/unary.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;
using Fn = Tensor (*)(const Tensor&);

constexpr double kBeta = 0.7978845608028654;  // sqrt(2 / pi)
constexpr double kKappa = 0.044715;
constexpr double kInf = std::numeric_limits<double>::infinity();

double sigmoid_ref(double x) { return 1 / (1 + std::exp(-x)); }
double phi(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2 * std::numbers::pi); }
double cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
double gelu_u(double x) { return kBeta * (x + kKappa * x * x * x); }
double tanh_u(double x) { return std::tanh(gelu_u(x)); }

struct Act {
  const char* name;
  Fn fn;
  double (*f)(double);
  double (*df)(double);  // f'(x)
};

const Act kActs[] = {
    {"sigmoid", [](const Tensor& x) { return x.sigmoid(); }, sigmoid_ref,
     [](double x) { return sigmoid_ref(x) * sigmoid_ref(-x); }},
    {"tanh", [](const Tensor& x) { return x.tanh(); }, [](double x) { return std::tanh(x); },
     [](double x) { return 1 - std::tanh(x) * std::tanh(x); }},
    {"silu", [](const Tensor& x) { return F::silu(x); },
     [](double x) { return x * sigmoid_ref(x); },
     [](double x) {
       const double s = sigmoid_ref(x);
       return s * (1 + x * (1 - s));
     }},
    {"gelu", [](const Tensor& x) { return F::gelu(x); }, [](double x) { return x * cdf(x); },
     [](double x) { return cdf(x) + x * phi(x); }},
    {"gelu_tanh",
     [](const Tensor& x) { return F::gelu(x, F::GELUFuncOptions().approximate("tanh")); },
     // x sigmoid(2u) = x (1 + tanh(u)) / 2, without the cancellation of 1 + tanh(u)
     [](double x) { return x / (1 + std::exp(-2 * gelu_u(x))); },
     [](double x) {
       const double t = tanh_u(x);
       return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * kBeta * (1 + 3 * kKappa * x * x);
     }},
};

// x from -100 to 100 in fine steps (every region of the exp and erf approximations), then the
// special values; n elements so that the vector loop and its scalar tail both run.
std::vector<double> wide_inputs(int64_t n) {
  const double special[] = {std::nan(""), kInf, -kInf, -0.0, 0.0, 88.72, -87.5, 1e-30, -1e-30};
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = -100 + 200.0 * static_cast<double>(i) / n;
  for (size_t i = 0; i < std::size(special) && i < v.size(); ++i)
    v[v.size() - 1 - i * 7 % v.size()] = special[i];
  return v;
}

// |actual - expected| <= atol + atol_x |x| + rtol |expected|, NaN matching NaN and signed zeros
// matching.
void expect_close(const std::vector<double>& x, const std::vector<double>& actual,
                  const std::vector<double>& expected, double rtol, double atol,
                  const std::string& what, double atol_x = 0) {
  ASSERT_EQ(actual.size(), expected.size());
  int bad = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i], e = expected[i];
    const double tol = atol + atol_x * std::abs(x[i]) + rtol * std::abs(e);
    bool ok = std::isnan(e) ? std::isnan(a) : (a == e || std::abs(a - e) <= tol);
    if (e == 0 && a == 0) ok = std::signbit(a) == std::signbit(e);
    if (!ok && bad++ < 5) {
      ADD_FAILURE() << what << " at x = " << x[i] << ": " << a << ", expected " << e;
    }
  }
}

TEST(ActivationKernels, ForwardMatchesFloat64OverAWideRange) {
  for (const Act& act : kActs) {
    for (int64_t n : {1, 7, 8, 9, 15, 16, 17, 31, 33, 4001}) {
      const std::vector<double> x = wide_inputs(n);
      for (ScalarType dt : {kFloat32, kFloat64}) {
        // The reference from the input as the kernel sees it (rounded to float).
        const Tensor t = from_values({n}, x).to(dt);
        const std::vector<double> xs = values(t);
        std::vector<double> want(xs.size());
        for (size_t i = 0; i < xs.size(); ++i) want[i] = act.f(xs[i]);
        // float: exp flushes results below 2^-125 to 0 (AVX2); gelu's erf approximation errs by up
        // to about 6e-7 (GeluErfApproximationAccuracy), which |x| scales.
        const bool f32 = dt == kFloat32;
        // gelu_tanh: exp(-2u) of a large |2u| scales its relative error by |2u|.
        const bool tanh_form = std::string(act.name) == "gelu_tanh";
        const double rtol = f32 ? (tanh_form ? 1e-5 : 2e-6) : (tanh_form ? 1e-12 : 1e-13);
        const double atol = f32 ? 1e-30 : 1e-300;
        // gelu: 1 + erf(x / sqrt 2) cancels for negative x (PyTorch's formula): absolute error
        // up to 3e-7 |x| in float (with the erf approximation), 1e-16 |x| in double.
        const double atol_x = std::string(act.name) == "gelu" ? (f32 ? 3e-7 : 1e-16) : 0;
        expect_close(xs, values(act.fn(t)), want, rtol, atol,
                     std::string(act.name) + " " + dtype_name(dt) + " n=" + std::to_string(n),
                     atol_x);
      }
    }
  }
}

// The erf approximation gelu uses for float (vec.h: verf_fast, Abramowitz & Stegun 7.1.26)
// claims an absolute error below about 6e-7 after float rounding: gelu(x) = x Phi(x) then errs
// by at most |x| 3e-7 plus the rounding of the product.
TEST(ActivationKernels, GeluErfApproximationAccuracy) {
  const int64_t n = 200001;
  std::vector<double> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = -12 + 24.0 * static_cast<double>(i) / (n - 1);
  const Tensor t = from_values({n}, x).to(kFloat32);
  const std::vector<double> xs = values(t), y = values(F::gelu(t));
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double e = xs[i] * cdf(xs[i]);
    const double err = std::abs(y[i] - e) - 6e-8 * std::abs(e);  // less float rounding
    worst = std::max(worst, err / std::max(std::abs(xs[i]), 1e-3));
  }
  EXPECT_LT(worst, 3e-7);
  EXPECT_GT(worst, 0.0);  // the check sees the approximation at all
}

TEST(ActivationKernels, FusedBackwardMatchesClosedForm) {
  for (const Act& act : kActs) {
    for (int64_t n : {1, 9, 17, 33, 1001}) {
      std::vector<double> x(static_cast<size_t>(n)), g(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        x[i] = -30 + 60.0 * static_cast<double>(i) / n;
        g[i] = std::cos(0.37 * static_cast<double>(i));
      }
      for (ScalarType dt : {kFloat32, kFloat64}) {
        Tensor xt = from_values({n}, x).to(dt).requires_grad_(true);
        const Tensor gt = from_values({n}, g).to(dt);
        const std::vector<double> xs = values(xt), gs = values(gt);
        const Tensor dx = autograd::grad({act.fn(xt)}, {xt}, {gt})[0];
        ASSERT_EQ(dx.dtype(), dt);
        std::vector<double> want(xs.size());
        for (size_t i = 0; i < xs.size(); ++i) want[i] = gs[i] * act.df(xs[i]);
        const double rtol = dt == kFloat32 ? 1e-5 : 1e-12;
        const double atol = dt == kFloat32 ? 1e-6 : 1e-14;
        expect_close(xs, values(dx), want, rtol, atol,
                     std::string(act.name) + " backward " + dtype_name(dt));
      }
    }
  }
}

TEST(ActivationKernels, FusedBackwardSpecialValues) {
  // silu_backward and gelu_backward follow PyTorch's formulas at the extremes:
  // silu'(+-inf) is NaN (inf * 0), sigmoid saturates to 0 and 1.
  const std::vector<double> x = {-kInf, kInf, std::nan(""), -0.0, 0.0, -200, 200};
  const std::vector<double> one(x.size(), 1.0);
  Tensor xt = from_values({7}, x).to(kFloat32).requires_grad_(true);
  const Tensor g = from_values({7}, one).to(kFloat32);
  const std::vector<double> ds = values(autograd::grad({F::silu(xt)}, {xt}, {g})[0]);
  EXPECT_TRUE(std::isnan(ds[0]) && std::isnan(ds[1]) && std::isnan(ds[2]));
  EXPECT_EQ(ds[3], 0.5);
  EXPECT_EQ(ds[4], 0.5);
  EXPECT_EQ(ds[5], 0.0);
  EXPECT_EQ(ds[6], 1.0);
  const std::vector<double> dsig = values(autograd::grad({xt.sigmoid()}, {xt}, {g})[0]);
  EXPECT_EQ(dsig[0], 0.0);
  EXPECT_EQ(dsig[1], 0.0);
  EXPECT_EQ(dsig[3], 0.25);
  const std::vector<double> dg = values(autograd::grad({F::gelu(xt)}, {xt}, {g})[0]);
  EXPECT_EQ(dg[5], 0.0);
  EXPECT_EQ(dg[6], 1.0);
  EXPECT_EQ(dg[3], 0.5);
}

TEST(ActivationKernels, HalfAndBFloat16ComputeInFloat) {
  for (const Act& act : kActs) {
    for (ScalarType dt : {kFloat16, kBFloat16}) {
      const int64_t n = 37;
      Tensor xt = make_tensor({n}, dt, -6, 6, 3).requires_grad_(true);
      const Tensor g = make_tensor({n}, dt, -1, 1, 4);
      const std::vector<double> xs = values(xt), gs = values(g);
      const Tensor y = act.fn(xt);
      const Tensor dx = autograd::grad({y}, {xt}, {g})[0];
      ASSERT_EQ(y.dtype(), dt);
      ASSERT_EQ(dx.dtype(), dt);
      std::vector<double> fy(n), fdx(n);
      for (int64_t i = 0; i < n; ++i) fy[i] = act.f(xs[i]), fdx[i] = gs[i] * act.df(xs[i]);
      // One rounding to the 16-bit type (the backward of sigmoid and tanh reads the rounded y).
      const double rtol = dt == kFloat16 ? 2e-3 : 1.6e-2;
      expect_close(xs, values(y), fy, rtol, 1e-3, std::string(act.name) + " " + dtype_name(dt));
      expect_close(xs, values(dx), fdx, 2 * rtol, 4e-3,
                   std::string(act.name) + " backward " + dtype_name(dt));
    }
  }
}

TEST(ActivationKernels, DoubleBackwardMatchesFiniteDifferences) {
  for (const Act& act : kActs) {
    const Tensor x = make_tensor({13}, kFloat64, -4, 4, 5);
    const Tensor gy = make_tensor({13}, kFloat64, -1, 1, 6);
    const Tensor ggx = make_tensor({13}, kFloat64, -1, 1, 7);
    // h(x) = grad of f at x weighted by gy; its vjp with ggx is the double backward.
    auto h = [&](const Tensor& v) {
      Tensor leaf = v.detach().requires_grad_(true);
      return autograd::grad({act.fn(leaf)}, {leaf}, {gy}, true, true)[0];
    };
    Tensor leaf = x.detach().requires_grad_(true);
    Tensor dx = autograd::grad({act.fn(leaf)}, {leaf}, {gy}, true, true)[0];
    const Tensor ddx = autograd::grad({dx}, {leaf}, {ggx})[0];
    SCOPED_TRACE(act.name);
    expect_matches_fd(x, h, ggx, ddx, 1e-6, 1e-6);
  }
}

TEST(ActivationKernels, BackwardOfTheFusedBackwardReachesTheGradient) {
  // d(silu_backward(g, x)) / dg is silu_backward itself: checked against f'(x).
  Tensor x = make_tensor({11}, kFloat64, -3, 3, 8).requires_grad_(true);
  Tensor g = make_tensor({11}, kFloat64, -1, 1, 9).requires_grad_(true);
  Tensor y = F::silu(x);
  Tensor dx = autograd::grad({y}, {x}, {g}, true, true)[0];
  ASSERT_TRUE(dx.grad_fn());
  EXPECT_EQ(dx.grad_fn()->name(), "SiluBackwardBackward0");
  const Tensor dg = autograd::grad({dx}, {g}, {ones_like(dx)})[0];
  const std::vector<double> xs = values(x), dgs = values(dg);
  std::vector<double> want(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) want[i] = kActs[2].df(xs[i]);
  expect_close(xs, dgs, want, 1e-12, 1e-14, "d silu_backward / d g");
}

TEST(ActivationKernels, ReluBackwardIsThresholdBackward) {
  // relu's vjp is PyTorch's threshold_backward(g, y, 0): g where y > 0 or y is NaN, exactly
  // +0.0 elsewhere (y = 0 and y = -0.0 included); every lane of the vector loop and the tail.
  const double special[] = {std::nan(""), kInf, -kInf, -0.0, 0.0, -1e-30, 1e-30, -1, 2};
  for (int64_t n : {1, 9, 17, 33, 1001}) {
    std::vector<double> x(static_cast<size_t>(n)), g(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      x[i] = i < 9 ? special[(i + n) % 9] : -3 + 6.0 * static_cast<double>(i) / n;
      g[i] = 1 + std::cos(0.37 * static_cast<double>(i));  // never 0: a kept g shows
    }
    for (ScalarType dt : {kFloat32, kFloat64, kBFloat16, kFloat16}) {
      Tensor xt = from_values({n}, x).to(dt).requires_grad_(true);
      const Tensor gt = from_values({n}, g).to(dt);
      const Tensor dx = autograd::grad({xt.relu()}, {xt}, {gt})[0];
      ASSERT_EQ(dx.dtype(), dt);
      const std::vector<double> xs = values(xt), gs = values(gt), ds = values(dx);
      for (size_t i = 0; i < xs.size(); ++i) {
        const double want = xs[i] > 0 || std::isnan(xs[i]) ? gs[i] : 0.0;
        EXPECT_EQ(ds[i], want) << "x = " << xs[i] << ", n " << n << ", " << dtype_name(dt);
        if (want == 0) {
          EXPECT_FALSE(std::signbit(ds[i])) << "x = " << xs[i];
        }
      }
    }
  }
  const UnaryBackward prim(UnaryOp::Relu);
  EXPECT_STREQ(prim.name(), "threshold_backward");
  const Tensor y = make_tensor({5, 6}, kFloat32, -4, 4, 3).relu();
  const Tensor g = make_tensor({5, 6}, kFloat32, -1, 1, 4);
  EXPECT_EQ(values(dispatch(prim, {g, y})[0]), values(prim.decompose({g, y})[0]));
  EXPECT_EQ(values(dispatch(prim, {g.t(), y.t()})[0]), values(prim.decompose({g.t(), y.t()})[0]));
  // Double backward: linear in g with the same mask, and nothing through y.
  Tensor x = make_tensor({40}, kFloat64, -2, 2, 5).requires_grad_(true);
  Tensor gy = make_tensor({40}, kFloat64, -1, 1, 6).requires_grad_(true);
  const Tensor dx = autograd::grad({x.relu()}, {x}, {gy}, /*retain_graph=*/true,
                                   /*create_graph=*/true)[0];
  const Tensor ggx = make_tensor({40}, kFloat64, -1, 1, 7);
  const auto second = autograd::grad({dx}, {gy, x}, {ggx}, std::nullopt, false, true);
  const std::vector<double> xs = values(x), gg = values(ggx), dgy = values(second[0]);
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_EQ(dgy[i], xs[i] > 0 ? gg[i] : 0.0);
  if (second[1].defined()) {
    EXPECT_EQ(values(second[1]), std::vector<double>(40, 0.0));
  }
}

TEST(ActivationKernels, UnaryBackwardPrimitive) {
  const Tensor x = make_tensor({5, 6}, kFloat32, -4, 4, 1);
  const Tensor g = make_tensor({5, 6}, kFloat32, -1, 1, 2);
  for (bool tanh : {false, true}) {
    UnaryArgs args;
    args.tanh_approx = tanh;
    const UnaryBackward prim(UnaryOp::Gelu, args);
    EXPECT_STREQ(prim.name(), "gelu_backward");
    EXPECT_EQ(prim.describe(), tanh ? "approximate='tanh'" : "approximate='none'");
    const Tensor fused = dispatch(prim, {g, x})[0];
    const Tensor composite = prim.decompose({g, x})[0];
    expect_close(values(x), values(fused), values(composite), 1e-5, 1e-6, "decomposition");
    // A non-contiguous pair runs the strided path.
    const Tensor xt = x.t(), gt = g.t();
    expect_close(values(xt), values(dispatch(prim, {gt, xt})[0]),
                 values(prim.decompose({gt, xt})[0]), 1e-5, 1e-6, "strided");
  }
  EXPECT_STREQ(UnaryBackward(UnaryOp::Silu).name(), "silu_backward");
  EXPECT_STREQ(UnaryBackward(UnaryOp::Sigmoid).name(), "sigmoid_backward");
  EXPECT_STREQ(UnaryBackward(UnaryOp::Tanh).name(), "tanh_backward");
  EXPECT_THROW(dispatch(UnaryBackward(UnaryOp::Silu), {g.to(kFloat64), x}), TypeError);
  try {
    dispatch(UnaryBackward(UnaryOp::Exp), {g, x});
    ADD_FAILURE() << "no error";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("[unary_backward] no fused backward for exp"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ember::test
