// nn::functional normalization against float64 references written with plain loops: layer_norm,
// rms_norm, group_norm, batch_norm (training with running statistics, evaluation),
// instance_norm, normalize.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/nn/functional.h"
#include "nn/nn_ref.h"
#include "opdb.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;
using nn::Arr;

/// Normalises groups of `group` consecutive elements of a (row-major), then y = y * w[c] + b[c]
/// with c = (i / inner) % channels (or i % channels when inner == 0, the trailing layout).
std::vector<double> norm_groups(const std::vector<double>& v, int64_t group, double eps, bool rms) {
  std::vector<double> out(v.size());
  for (size_t g0 = 0; g0 < v.size(); g0 += group) {
    double mean = 0, sq = 0;
    for (int64_t i = 0; i < group; ++i) mean += v[g0 + i] / group;
    for (int64_t i = 0; i < group; ++i) {
      const double d = rms ? v[g0 + i] : v[g0 + i] - mean;
      sq += d * d / group;
    }
    for (int64_t i = 0; i < group; ++i) {
      out[g0 + i] = (rms ? v[g0 + i] : v[g0 + i] - mean) / std::sqrt(sq + eps);
    }
  }
  return out;
}

Tensor opt(const std::vector<Tensor>& in, size_t i) { return in.size() > i ? in[i] : Tensor(); }

std::vector<OpInfo> norm_ops() {
  std::vector<OpInfo> ops;
  auto mk = [](ScalarType dt) {
    return [dt](std::vector<int64_t> s, uint64_t seed) { return make_tensor(s, dt, -3, 3, seed); };
  };
  {  // layer_norm over the last 2 dims with weight and bias, or the last dim plain
    OpInfo info;
    info.name = "layer_norm";
    info.dtypes = float_dtypes();
    info.samples = [mk](ScalarType dt) {
      auto m = mk(dt);
      return std::vector<Sample>{
          {{m({3, 2, 4}, 1), m({2, 4}, 2), m({2, 4}, 3)}, "affine last 2 dims"},
          {{m({5, 6}, 1)}, "plain"},
          {{make_noncontiguous(m({4, 6}, 1))}, "non-contiguous"},
          {{m({0, 6}, 1)}, "empty batch"},
          {{m({6}, 4)}, "1-d"},
      };
    };
    info.op = [](const std::vector<Tensor>& in) {
      std::vector<int64_t> ns =
          in.size() > 1 ? in[1].sizes() : std::vector<int64_t>{in[0].size(-1)};
      return F::layer_norm(
          in[0], F::LayerNormFuncOptions(ns).weight(opt(in, 1)).bias(opt(in, 2)).eps(1e-3));
    };
    info.reference = [](const std::vector<Tensor>& in) {
      const int64_t group = in.size() > 1 ? in[1].numel() : in[0].size(-1);
      auto y = norm_groups(values(in[0]), group, 1e-3, false);
      if (in.size() > 1) {
        auto w = values(in[1]), b = values(in[2]);
        for (size_t i = 0; i < y.size(); ++i) y[i] = y[i] * w[i % group] + b[i % group];
      }
      return Reference{in[0].sizes(), y, in[0].dtype()};
    };
    info.tol_scale = 4;
    info.rejected_dtypes = integral_dtypes(true);
    ops.push_back(info);
  }
  {  // rms_norm with the default eps (the dtype's) or an explicit one
    OpInfo info;
    info.name = "rms_norm";
    info.dtypes = float_dtypes();
    info.samples = [mk](ScalarType dt) {
      auto m = mk(dt);
      return std::vector<Sample>{{{m({3, 8}, 1), m({8}, 2)}, "weight"},
                                 {{m({2, 3, 5}, 1)}, "plain"},
                                 {{make_noncontiguous(m({4, 6}, 3))}, "non-contiguous"}};
    };
    info.op = [](const std::vector<Tensor>& in) {
      return F::rms_norm(in[0], {in[0].size(-1)}, opt(in, 1), 1e-4);
    };
    info.reference = [](const std::vector<Tensor>& in) {
      const int64_t group = in[0].size(-1);
      auto y = norm_groups(values(in[0]), group, 1e-4, true);
      if (in.size() > 1) {
        auto w = values(in[1]);
        for (size_t i = 0; i < y.size(); ++i) y[i] *= w[i % group];
      }
      return Reference{in[0].sizes(), y, in[0].dtype()};
    };
    info.tol_scale = 4;
    info.rejected_dtypes = integral_dtypes(true);
    ops.push_back(info);
  }
  {  // group_norm: (N, C, *) with per-channel affine
    OpInfo info;
    info.name = "group_norm";
    info.dtypes = float_dtypes();
    info.samples = [mk](ScalarType dt) {
      auto m = mk(dt);
      return std::vector<Sample>{{{m({2, 6, 5}, 1), m({6}, 2), m({6}, 3)}, "3 groups affine"},
                                 {{m({3, 6}, 1)}, "2-d"},
                                 {{m({2, 6, 2, 3}, 1)}, "4-d"}};
    };
    info.op = [](const std::vector<Tensor>& in) {
      return F::group_norm(in[0], F::GroupNormFuncOptions(3).weight(opt(in, 1)).bias(opt(in, 2)));
    };
    info.reference = [](const std::vector<Tensor>& in) {
      const int64_t c = in[0].size(1), inner = in[0].numel() / (in[0].size(0) * c);
      auto y = norm_groups(values(in[0]), c / 3 * inner, 1e-5, false);
      if (in.size() > 1) {
        auto w = values(in[1]), b = values(in[2]);
        for (size_t i = 0; i < y.size(); ++i) {
          const int64_t ch = (i / inner) % c;
          y[i] = y[i] * w[ch] + b[ch];
        }
      }
      return Reference{in[0].sizes(), y, in[0].dtype()};
    };
    info.tol_scale = 4;
    ops.push_back(info);
  }
  {  // normalize along dim 1 with p = 2 and p = 1
    for (double p : {2.0, 1.0}) {
      OpInfo info;
      info.name = p == 2 ? "normalize_p2" : "normalize_p1";
      info.dtypes = float_dtypes();
      info.samples = [mk](ScalarType dt) {
        auto m = mk(dt);
        Tensor zero_row = from_values({2, 3}, {0, 0, 0, 1, 2, 3}, dt);
        return std::vector<Sample>{{{m({3, 4}, 1)}, "2-d"},
                                   {{m({2, 3, 4}, 2)}, "3-d"},
                                   {{zero_row},
                                    "a zero column clamps at eps",
                                    "the clamp at eps = 1e-12 is a kink inside the "
                                    "finite-difference step"}};
      };
      info.op = [p](const std::vector<Tensor>& in) {
        return F::normalize(in[0], F::NormalizeFuncOptions().p(p).dim(1));
      };
      info.reference = [p](const std::vector<Tensor>& in) {
        Arr a(in[0]);
        auto out = a.v;
        nn::for_each_line(a.shape, 1, [&](int64_t base, int64_t st, int64_t len) {
          double n = 0;
          for (int64_t k = 0; k < len; ++k) n += std::pow(std::fabs(a.v[base + k * st]), p);
          n = std::max(std::pow(n, 1 / p), 1e-12);
          for (int64_t k = 0; k < len; ++k) out[base + k * st] = a.v[base + k * st] / n;
        });
        return Reference{a.shape, out, in[0].dtype()};
      };
      info.tol_scale = 4;
      ops.push_back(info);
    }
  }
  return ops;
}

INSTANTIATE_TEST_SUITE_P(NNNormalization, OpTest, ::testing::ValuesIn(norm_ops()), op_test_name);

TEST(NNNormalization, BatchNormTrainingUpdatesRunningStats) {
  for (ScalarType dt : {kFloat32, kFloat64, kBFloat16}) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor x = make_tensor({4, 3, 5}, dt, -2, 2, 1);
    Tensor w = make_tensor({3}, dt, 0.5, 2, 2), b = make_tensor({3}, dt, -1, 1, 3);
    Tensor rm = from_values({3}, {0.5, -1, 2}, kFloat32),
           rv = from_values({3}, {1, 2, 0.5}, kFloat32);
    Tensor y = F::batch_norm(
        x, rm, rv, F::BatchNormFuncOptions().weight(w).bias(b).training(true).momentum(0.2));
    Arr a(x);
    auto wv = values(w), bv = values(b);
    std::vector<double> expect(a.numel()), mean(3, 0), var(3, 0);
    for (int64_t i = 0; i < a.numel(); ++i) mean[(i / 5) % 3] += a.v[i] / 20;
    for (int64_t i = 0; i < a.numel(); ++i) {
      const double d = a.v[i] - mean[(i / 5) % 3];
      var[(i / 5) % 3] += d * d / 20;
    }
    for (int64_t i = 0; i < a.numel(); ++i) {
      const int64_t c = (i / 5) % 3;
      expect[i] = (a.v[i] - mean[c]) / std::sqrt(var[c] + 1e-5) * wv[c] + bv[c];
    }
    auto [rtol, atol] = tolerances(dt);
    EXPECT_TRUE(close(y, {4, 3, 5}, expect, rtol * 4, atol * 4));
    const std::vector<double> rm0 = {0.5, -1, 2}, rv0 = {1, 2, 0.5};
    std::vector<double> rm1(3), rv1(3);
    for (int c = 0; c < 3; ++c) {
      rm1[c] = 0.8 * rm0[c] + 0.2 * mean[c];
      rv1[c] = 0.8 * rv0[c] + 0.2 * var[c] * 20 / 19;  // unbiased
    }
    EXPECT_TRUE(close(rm, {3}, rm1, 1e-5, 1e-6));
    EXPECT_TRUE(close(rv, {3}, rv1, 1e-5, 1e-6));
    // Evaluation uses the running statistics and leaves them alone.
    Tensor ye = F::batch_norm(x, rm, rv, w, b, /*training=*/false);
    for (int64_t i = 0; i < a.numel(); ++i) {
      const int64_t c = (i / 5) % 3;
      expect[i] = (a.v[i] - rm1[c]) / std::sqrt(rv1[c] + 1e-5) * wv[c] + bv[c];
    }
    EXPECT_TRUE(close(ye, {4, 3, 5}, expect, rtol * 4, atol * 4));
    EXPECT_TRUE(close(rm, {3}, rm1, 1e-5, 1e-6));
  }
}

TEST(NNNormalization, InstanceNorm) {
  Tensor x = make_tensor({2, 3, 4}, kFloat64, -2, 2, 1);
  Tensor rm = ember::zeros({3}, kFloat64), rv = ember::ones({3}, kFloat64);
  Tensor y = F::instance_norm(x, F::InstanceNormFuncOptions().running_mean(rm).running_var(rv));
  auto v = values(x);
  auto expect = norm_groups(v, 4, 1e-5, false);
  EXPECT_TRUE(close(y, {2, 3, 4}, expect, 1e-10, 1e-10));
  // running stats: the batch mean of per-instance means / unbiased variances, momentum 0.1
  for (int c = 0; c < 3; ++c) {
    double m = 0, var = 0;
    for (int n = 0; n < 2; ++n) {
      double mu = 0, sq = 0;
      for (int i = 0; i < 4; ++i) mu += v[(n * 3 + c) * 4 + i] / 4;
      for (int i = 0; i < 4; ++i) sq += std::pow(v[(n * 3 + c) * 4 + i] - mu, 2) / 3;
      m += mu / 2;
      var += sq / 2;
    }
    EXPECT_NEAR(values(rm)[c], 0.1 * m, 1e-12);
    EXPECT_NEAR(values(rv)[c], 0.9 + 0.1 * var, 1e-12);
  }
  // use_input_stats(false): normalise with the running statistics.
  Tensor z = F::instance_norm(
      x, F::InstanceNormFuncOptions().running_mean(rm).running_var(rv).use_input_stats(false));
  auto rmv = values(rm), rvv = values(rv);
  std::vector<double> ez(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const int64_t c = (i / 4) % 3;
    ez[i] = (v[i] - rmv[c]) / std::sqrt(rvv[c] + 1e-5);
  }
  EXPECT_TRUE(close(z, {2, 3, 4}, ez, 1e-12, 1e-12));
}

TEST(NNNormalization, RmsNormDefaultEpsIsTheDtypes) {
  Tensor x = from_values({1, 2}, {0, 0}, kFloat32);
  // mean(x^2) = 0: y = x / sqrt(eps) = 0, finite.
  for (double e : values(F::rms_norm(x, {2}))) EXPECT_EQ(e, 0.0);
  Tensor t = from_values({1, 2}, {1e-4, 1e-4}, kFloat32);
  const double eps = 1.1920928955078125e-07;
  auto v = values(F::rms_norm(t, {2}));
  EXPECT_NEAR(v[0], 1e-4 / std::sqrt(1e-8 + eps), 1e-5);
}

TEST(NNNormalization, Errors) {
  Tensor x = make_tensor({2, 6, 4}, kFloat32);
  expect_errors<RuntimeError>({
      {"layer_norm shape", [&] { F::layer_norm(x, {3}); },
       "Given normalized_shape=[3], expected input with shape [*, 3]"},
      {"layer_norm weight", [&] { F::layer_norm(x, {4}, make_tensor({5}, kFloat32)); },
       "Expected weight to be of same shape as normalized_shape"},
      {"rms_norm shape",
       [&] {
         F::rms_norm(x, {6, 5});
       },
       "[rms_norm]"},
      {"group_norm groups", [&] { F::group_norm(x, 4); },
       "Expected number of channels in input to be divisible by num_groups"},
      {"batch_norm one value",
       [&] {
         F::batch_norm(make_tensor({1, 3}, kFloat32), {}, {},
                       F::BatchNormFuncOptions().training(true));
       },
       "Expected more than 1 value per channel when training"},
      {"batch_norm eval without stats", [&] { F::batch_norm(x, {}, {}); }, "[batch_norm]"},
      {"batch_norm running size",
       [&] {
         F::batch_norm(x, ember::zeros({5}), ember::ones({6}),
                       F::BatchNormFuncOptions().training(true));
       },
       "[batch_norm]"},
      {"instance_norm one element",
       [&] {
         F::instance_norm(make_tensor({2, 3, 1}, kFloat32));
       },
       "Expected more than 1 spatial element when training"},
  });
  expect_errors<TypeError>({
      {"layer_norm int",
       [&] {
         F::layer_norm(make_tensor({2, 3}, kInt64), {3});
       },
       "int64"},
      {"batch_norm int",
       [&] {
         F::batch_norm(make_tensor({2, 3}, kInt32), {}, {});
       },
       "int32"},
  });
  expect_errors<IndexError>({
      {"normalize dim", [&] { F::normalize(x, F::NormalizeFuncOptions().dim(3)); }, "["},
  });
}

}  // namespace
}  // namespace ember::test
