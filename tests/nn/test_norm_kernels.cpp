// The fused softmax / log_softmax, layer_norm and rms_norm kernels and their backward primitives
// (src/backend/cpu/softmax.cpp, norm.cpp) against float64 closed forms computed here: rows long
// enough for the vector loops and their tails, rows of one element, -inf and NaN rows, huge and
// tiny values, dims other than the last, 16-bit inputs, empty tensors, gradients (first and
// second order) by finite differences, and grad_weight independent of the thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "dispatch/dispatch.h"
#include "ember/autograd.h"
#include "ember/core/parallel.h"
#include "ember/nn/functional.h"
#include "opdb.h"
#include "primitives/norm.h"
#include "primitives/softmax.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;
constexpr double kInf = std::numeric_limits<double>::infinity();

// softmax (or log_softmax) of each row of `cols` consecutive values.
std::vector<double> softmax_rows(const std::vector<double>& v, int64_t cols, bool log) {
  std::vector<double> out(v.size());
  for (size_t r = 0; r < v.size(); r += cols) {
    double mx = -kInf;
    for (int64_t i = 0; i < cols; ++i) mx = std::max(mx, v[r + i]);
    double s = 0;
    for (int64_t i = 0; i < cols; ++i) s += std::exp(v[r + i] - mx);
    for (int64_t i = 0; i < cols; ++i) {
      out[r + i] = log ? v[r + i] - mx - std::log(s) : std::exp(v[r + i] - mx) / s;
    }
  }
  return out;
}

// layer_norm (or rms_norm) of rows of `cols`, times w plus b (either may be empty).
std::vector<double> norm_rows(const std::vector<double>& v, int64_t cols, double eps, bool rms,
                              const std::vector<double>& w, const std::vector<double>& b) {
  std::vector<double> out(v.size());
  for (size_t r = 0; r < v.size(); r += cols) {
    double mean = 0, var = 0;
    if (!rms) {
      for (int64_t i = 0; i < cols; ++i) mean += v[r + i] / cols;
    }
    for (int64_t i = 0; i < cols; ++i) var += (v[r + i] - mean) * (v[r + i] - mean) / cols;
    for (int64_t i = 0; i < cols; ++i) {
      double y = (v[r + i] - mean) / std::sqrt(var + eps);
      if (!w.empty()) y *= w[i];
      if (!b.empty()) y += b[i];
      out[r + i] = y;
    }
  }
  return out;
}

TEST(NormKernels, SoftmaxRowsOfManyLengths) {
  // Lengths around the vector width (8 floats, 4 doubles) and its double-unrolled loops.
  for (ScalarType dt : {kFloat32, kFloat64}) {
    for (int64_t n : {1, 3, 7, 8, 9, 16, 17, 33, 1000}) {
      Tensor x = make_tensor({3, n}, dt, -20, 20, static_cast<uint64_t>(n));
      for (bool log : {false, true}) {
        Tensor y = log ? F::log_softmax(x, -1) : F::softmax(x, -1);
        auto [rtol, atol] = tolerances(dt);
        EXPECT_TRUE(close(y, {3, n}, softmax_rows(values(x), n, log), rtol, atol))
            << dtype_name(dt) << " n=" << n << " log=" << log;
      }
    }
  }
}

TEST(NormKernels, SoftmaxExtremeRows) {
  // Huge values (no overflow), tiny differences, a -inf entry, an all -inf row (NaN, as PyTorch)
  // and a NaN entry (the row becomes NaN).
  const double nan = std::nan("");
  Tensor x = from_values({5, 4}, {1e30,  1e30 - 1e24, -1e30, 0,       //
                                  1e-30, 2e-30,       0,     -1e-30,  //
                                  -kInf, 1,           2,     3,       //
                                  -kInf, -kInf,       -kInf, -kInf,   //
                                  1,     nan,         2,     3},
                         kFloat32);
  Tensor y = F::softmax(x, 1);
  auto v = values(y);
  EXPECT_FLOAT_EQ(v[0] + v[1], 1.0f);
  EXPECT_EQ(v[2], 0.0);
  for (int i = 4; i < 8; ++i) EXPECT_NEAR(v[i], 0.25, 1e-7);
  EXPECT_EQ(v[8], 0.0);
  const auto ref = softmax_rows({1, 2, 3}, 3, false);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(v[9 + i], ref[i], 1e-7);
  for (int i = 12; i < 20; ++i) EXPECT_TRUE(std::isnan(v[i])) << i;
  auto l = values(F::log_softmax(x, 1));
  EXPECT_EQ(l[8], -kInf);
  EXPECT_TRUE(std::isnan(l[12]) && std::isnan(l[17]));
}

// A backward whose gradient is 32 MiB or more streams its rows (Note [Streaming stores]); rows of
// 4099 floats start unaligned every other row and take plain stores there. Both give the closed
// form: softmax gx = y * (g - sum(g * y)), log_softmax gx = g - exp(y) * sum(g).
TEST(NormKernels, SoftmaxBackwardStreamedRows) {
  const int64_t rows = 2048, n = 4099;  // 33.6 MB of float32
  Tensor x = make_tensor({rows, n}, kFloat32, -4, 4, 11),
         g = make_tensor({rows, n}, kFloat32, -1, 1, 12);
  const std::vector<double> vx = values(x), vg = values(g);
  for (bool log : {false, true}) {
    Tensor xl = x.detach().requires_grad_(true);
    Tensor gx = autograd::grad({log ? F::log_softmax(xl, -1) : F::softmax(xl, -1)}, {xl}, {g})[0];
    const std::vector<double> y = softmax_rows(vx, n, false), got = values(gx);
    for (int64_t r = 0; r < rows; ++r) {
      double s = 0;
      for (int64_t i = 0; i < n; ++i) s += log ? vg[r * n + i] : vg[r * n + i] * y[r * n + i];
      for (int64_t i = 0; i < n; ++i) {
        const int64_t k = r * n + i;
        const double want = log ? vg[k] - y[k] * s : y[k] * (vg[k] - s);
        ASSERT_NEAR(got[k], want, 1e-5 * (1 + std::abs(want))) << "log=" << log << " at " << k;
      }
    }
  }
}

TEST(NormKernels, SoftmaxOtherDimsNonContiguousAndEmpty) {
  Tensor x = make_tensor({3, 5, 4}, kFloat64, -3, 3, 7);
  for (int64_t dim : {0, 1}) {
    Tensor moved = x.movedim({dim}, {-1}).contiguous();
    Tensor expected = F::softmax(moved, -1).movedim({-1}, {dim});
    EXPECT_TRUE(close(F::softmax(x, dim), x.sizes(), values(expected), 1e-14, 1e-15));
  }
  Tensor nc = make_noncontiguous(make_tensor({4, 9}, kFloat32, -3, 3, 2));
  EXPECT_TRUE(close(F::log_softmax(nc, 1), {4, 9}, softmax_rows(values(nc), 9, true), 1e-6, 1e-6));
  EXPECT_EQ(F::softmax(make_tensor({0, 5}, kFloat32), 1).sizes(), (std::vector<int64_t>{0, 5}));
  EXPECT_EQ(F::softmax(make_tensor({3, 0}, kFloat32), 1).numel(), 0);
}

TEST(NormKernels, SixteenBitComputesInFloat) {
  for (ScalarType dt : {kFloat16, kBFloat16}) {
    Tensor x = make_tensor({4, 300}, dt, -4, 4, 3);
    const auto xv = values(x);  // the 16-bit values, exactly
    auto [rtol, atol] = tolerances(dt);
    EXPECT_TRUE(close(F::softmax(x, 1), {4, 300}, softmax_rows(xv, 300, false), rtol, atol));
    Tensor ln = F::layer_norm(x, {300});
    EXPECT_EQ(ln.dtype(), dt);
    EXPECT_TRUE(close(ln, {4, 300}, norm_rows(xv, 300, 1e-5, false, {}, {}), rtol, 2 * atol));
  }
}

TEST(NormKernels, LayerNormAndRmsNormLongRows) {
  for (int64_t n : {1, 5, 8, 23, 1024}) {
    Tensor x = make_tensor({6, n}, kFloat64, -3, 3, 11);
    Tensor w = make_tensor({n}, kFloat64, 0.5, 1.5, 12), b = make_tensor({n}, kFloat64, -1, 1, 13);
    EXPECT_TRUE(close(F::layer_norm(x, {n}, w, b, 1e-5), {6, n},
                      norm_rows(values(x), n, 1e-5, false, values(w), values(b)), 1e-12, 1e-12))
        << n;
    EXPECT_TRUE(close(F::rms_norm(x, {n}, w, 1e-6), {6, n},
                      norm_rows(values(x), n, 1e-6, true, values(w), {}), 1e-12, 1e-12))
        << n;
  }
  // A large offset: two passes over the row keep the variance exact (no E[x^2] - E[x]^2).
  Tensor big = from_values({1, 4}, {1e4 + 1, 1e4 + 2, 1e4 + 3, 1e4 + 4}, kFloat32);
  EXPECT_TRUE(close(F::layer_norm(big, {4}), {1, 4},
                    norm_rows({1, 2, 3, 4}, 4, 1e-5, false, {}, {}), 1e-3, 1e-3));
  EXPECT_EQ(F::layer_norm(make_tensor({0, 4}, kFloat32), {4}).numel(), 0);
}

TEST(NormKernels, GradientsByFiniteDifferences) {
  Tensor x = make_tensor({3, 11}, kFloat64, -2, 2, 1).requires_grad_(true);
  Tensor w = make_tensor({11}, kFloat64, 0.5, 1.5, 2).requires_grad_(true);
  Tensor b = make_tensor({11}, kFloat64, -1, 1, 3).requires_grad_(true);
  using V = std::vector<Tensor>;
  const std::vector<std::pair<const char*, autograd::DifferentiableFn>> fns = {
      {"softmax", [](const V& in) { return V{F::softmax(in[0], 1)}; }},
      {"log_softmax", [](const V& in) { return V{F::log_softmax(in[0], 0)}; }},
      {"layer_norm", [](const V& in) { return V{F::layer_norm(in[0], {11}, in[1], in[2])}; }},
      {"layer_norm plain",
       [](const V& in) {
         return V{F::layer_norm(in[0], {3, 11})};
       }},
      {"rms_norm", [](const V& in) { return V{F::rms_norm(in[0], {11}, in[1], 1e-5)}; }},
  };
  for (const auto& [name, fn] : fns) {
    EXPECT_TRUE(autograd::gradcheck(fn, {x, w, b})) << name;
  }
  // Double backward on smaller inputs (through the composite formula of the gradient).
  Tensor xs = make_tensor({2, 4}, kFloat64, -2, 2, 4).requires_grad_(true);
  Tensor ws = make_tensor({4}, kFloat64, 0.5, 1.5, 5).requires_grad_(true);
  Tensor bs = make_tensor({4}, kFloat64, -1, 1, 6).requires_grad_(true);
  const std::vector<std::pair<const char*, autograd::DifferentiableFn>> small = {
      {"softmax", [](const V& in) { return V{F::softmax(in[0], 1) * in[1]}; }},
      {"log_softmax", [](const V& in) { return V{F::log_softmax(in[0], 1) * in[1]}; }},
      {"layer_norm", [](const V& in) { return V{F::layer_norm(in[0], {4}, in[1], in[2])}; }},
      {"rms_norm", [](const V& in) { return V{F::rms_norm(in[0], {4}, in[1], 1e-5)}; }},
  };
  for (const auto& [name, fn] : small) {
    EXPECT_TRUE(autograd::gradgradcheck(fn, {xs, ws, bs})) << name;
  }
}

TEST(NormKernels, BackwardMatchesClosedForm) {
  // d layer_norm: gx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)), gw_j = g_j * w_j.
  const int64_t n = 37;
  Tensor x = make_tensor({5, n}, kFloat32, -3, 3, 21).requires_grad_(true);
  Tensor w = make_tensor({n}, kFloat32, 0.5, 1.5, 22).requires_grad_(true);
  Tensor b = make_tensor({n}, kFloat32, -1, 1, 23).requires_grad_(true);
  Tensor g = make_tensor({5, n}, kFloat32, -1, 1, 24);
  auto grads = autograd::grad({F::layer_norm(x, {n}, w, b)}, {x, w, b}, {g});
  const auto xv = values(x), wv = values(w), gv = values(g);
  std::vector<double> gx(xv.size()), gw(n, 0), gb(n, 0);
  for (int64_t r = 0; r < 5; ++r) {
    double mean = 0, var = 0, a = 0, c = 0;
    for (int64_t i = 0; i < n; ++i) mean += xv[r * n + i] / n;
    for (int64_t i = 0; i < n; ++i) var += std::pow(xv[r * n + i] - mean, 2) / n;
    const double rstd = 1 / std::sqrt(var + 1e-5);
    for (int64_t i = 0; i < n; ++i) {
      const double xh = (xv[r * n + i] - mean) * rstd, d = gv[r * n + i] * wv[i];
      a += d / n;
      c += d * xh / n;
      gw[i] += gv[r * n + i] * xh;
      gb[i] += gv[r * n + i];
    }
    for (int64_t i = 0; i < n; ++i) {
      const double xh = (xv[r * n + i] - mean) * rstd;
      gx[r * n + i] = rstd * (gv[r * n + i] * wv[i] - a - xh * c);
    }
  }
  EXPECT_TRUE(close(grads[0], {5, n}, gx, 1e-4, 1e-5));
  EXPECT_TRUE(close(grads[1], {n}, gw, 1e-4, 1e-5));
  EXPECT_TRUE(close(grads[2], {n}, gb, 1e-5, 1e-5));
  // d softmax: y * (g - sum(g * y)).
  Tensor s = make_tensor({5, n}, kFloat32, -3, 3, 25).requires_grad_(true);
  Tensor gs = autograd::grad({F::softmax(s, 1)}, {s}, {g})[0];
  const auto yv = softmax_rows(values(s), n, false);
  std::vector<double> es(yv.size());
  for (int64_t r = 0; r < 5; ++r) {
    double dot = 0;
    for (int64_t i = 0; i < n; ++i) dot += gv[r * n + i] * yv[r * n + i];
    for (int64_t i = 0; i < n; ++i) es[r * n + i] = yv[r * n + i] * (gv[r * n + i] - dot);
  }
  EXPECT_TRUE(close(gs, {5, n}, es, 1e-4, 1e-6));
}

TEST(NormKernels, ParameterGradientsIndependentOfThreads) {
  Tensor x = make_tensor({333, 40}, kFloat32, -3, 3, 31).requires_grad_(true);
  Tensor w = make_tensor({40}, kFloat32, 0.5, 1.5, 32).requires_grad_(true);
  Tensor b = make_tensor({40}, kFloat32, -1, 1, 33).requires_grad_(true);
  Tensor g = make_tensor({333, 40}, kFloat32, -1, 1, 34);
  const int before = get_num_threads();
  std::vector<std::vector<double>> runs;
  for (int t : {1, 2, 3}) {
    set_num_threads(t);
    auto grads = autograd::grad({F::layer_norm(x, {40}, w, b)}, {x, w, b}, {g});
    auto r = autograd::grad({F::rms_norm(x, {40}, w)}, {w}, {g});
    std::vector<double> all = values(grads[1]);
    for (const Tensor& t2 : {grads[2], r[0]}) {
      auto v = values(t2);
      all.insert(all.end(), v.begin(), v.end());
    }
    runs.push_back(all);
  }
  set_num_threads(before);
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_EQ(runs[0], runs[2]);
}

TEST(NormKernels, SixteenBitGradients) {
  // bfloat16 input with bfloat16 parameters: gradients in the parameters' dtype, close to the
  // float32 computation of the same values.
  Tensor x = make_tensor({4, 64}, kBFloat16, -2, 2, 41).requires_grad_(true);
  Tensor w = make_tensor({64}, kBFloat16, 0.5, 1.5, 42).requires_grad_(true);
  Tensor g = make_tensor({4, 64}, kBFloat16, -1, 1, 43);
  auto gb16 = autograd::grad({F::layer_norm(x, {64}, w, Tensor())}, {x, w}, {g});
  EXPECT_EQ(gb16[0].dtype(), kBFloat16);
  EXPECT_EQ(gb16[1].dtype(), kBFloat16);
  Tensor xf = x.detach().to(kFloat32).requires_grad_(true);
  Tensor wf = w.detach().to(kFloat32).requires_grad_(true);
  auto gf = autograd::grad({F::layer_norm(xf, {64}, wf, Tensor())}, {xf, wf}, {g.to(kFloat32)});
  EXPECT_TRUE(close(gb16[0], {4, 64}, values(gf[0]), 1e-2, 1e-2));
  EXPECT_TRUE(close(gb16[1], {64}, values(gf[1]), 1e-2, 1e-2));
}

TEST(NormKernels, DecompositionsMatchTheKernels) {
  // decompose() (the composite the compiler fuses) against the fused kernels, in float64.
  Tensor x = make_tensor({3, 4, 9}, kFloat64, -2, 2, 51),
         g = make_tensor({3, 4, 9}, kFloat64, -1, 1, 52);
  Tensor w = make_tensor({4, 9}, kFloat64, 0.5, 1.5, 53),
         b = make_tensor({4, 9}, kFloat64, -1, 1, 54);
  Tensor w1 = make_tensor({9}, kFloat64, 0.5, 1.5, 55);
  auto check = [](const Primitive& prim, const std::vector<Tensor>& in) {
    SCOPED_TRACE(prim.name());
    ASSERT_TRUE(prim.has_decomposition());
    const auto eager = dispatch(prim, in), comp = prim.decompose(in);
    ASSERT_EQ(eager.size(), comp.size());
    for (size_t i = 0; i < eager.size(); ++i) {
      EXPECT_EQ(comp[i].dtype(), eager[i].dtype());
      EXPECT_TRUE(close(comp[i], eager[i].sizes(), values(eager[i]), 1e-12, 1e-12)) << i;
    }
  };
  const NormParams p{2, 1e-5, true, true}, pr{1, 1e-6, true, false};
  check(ember::LayerNorm(p), {x, w, b});
  const auto fw = dispatch(ember::LayerNorm(p), {x, w, b});
  EXPECT_EQ(fw[1].sizes(), (std::vector<int64_t>{3, 1, 1}));
  check(LayerNormBackward(p), {g, x, fw[1], fw[2], w});
  check(RmsNorm(pr), {x, w1});
  const auto fr = dispatch(RmsNorm(pr), {x, w1});
  check(RmsNormBackward(pr), {g, x, fr[1], w1});
  check(SoftmaxBackward(1, false), {g, F::softmax(x, 1)});
  check(SoftmaxBackward(2, true), {g, F::log_softmax(x, 2)});
}

TEST(NormKernels, PrimitiveInputsAreChecked) {
  // A hand-built graph may give the primitives anything: their shape inference says what is wrong.
  Tensor x = make_tensor({3, 4}, kFloat32);
  expect_errors<RuntimeError>({
      {"weight shape",
       [&] {
         dispatch(ember::LayerNorm(NormParams{1, 1e-5, true, false}),
                  {x, make_tensor({5}, kFloat32)});
       },
       "[native_layer_norm] expected weight of float32 with the normalized shape"},
      {"weight dtype",
       [&] {
         dispatch(RmsNorm(NormParams{1, 1e-5, true, false}), {x, make_tensor({4}, kFloat64)});
       },
       "[_fused_rms_norm] expected weight of float32"},
      {"normalized dims",
       [&] {
         dispatch(ember::LayerNorm(NormParams{3, 1e-5, false, false}), {x});
       },
       "normalized_ndim 3 is out of range for a 2-d input"},
      {"grad shape",
       [&] {
         dispatch(SoftmaxBackward(1, false), {make_tensor({3, 5}, kFloat32), x});
       },
       "[_softmax_backward_data] grad_output"},
  });
}

}  // namespace
}  // namespace ember::test
