// Normalization modules: PyTorch's names and defaults, running statistics against closed forms
// (momentum, cumulative average, unbiased variance), train/eval behaviour, forward references.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "ember/ember.h"
#include "opdb.h"

namespace ember {
namespace {

using test::expect_errors;
using test::values;

std::string str(const nn::Module& m) {
  std::ostringstream s;
  s << m;
  return s.str();
}

/// Per-channel mean and biased variance of x (N, C, S...) as plain loops.
struct ChannelStats {
  std::vector<double> mean, var;
  int64_t count = 0;
};
ChannelStats channel_stats(const Tensor& x) {
  const int64_t n = x.size(0), c = x.size(1), s = x.numel() / (n * c);
  auto v = values(x);
  ChannelStats st{std::vector<double>(c, 0), std::vector<double>(c, 0), n * s};
  for (int64_t ch = 0; ch < c; ++ch) {
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t k = 0; k < s; ++k) st.mean[ch] += v[(i * c + ch) * s + k];
    }
    st.mean[ch] /= static_cast<double>(n * s);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t k = 0; k < s; ++k) {
        const double d = v[(i * c + ch) * s + k] - st.mean[ch];
        st.var[ch] += d * d;
      }
    }
    st.var[ch] /= static_cast<double>(n * s);
  }
  return st;
}

std::vector<double> normalize_ref(const Tensor& x, const std::vector<double>& mean,
                                  const std::vector<double>& var, double eps) {
  const int64_t n = x.size(0), c = x.size(1), s = x.numel() / (n * c);
  auto v = values(x);
  for (int64_t i = 0; i < n * c * s; ++i) {
    const int64_t ch = (i / s) % c;
    v[i] = (v[i] - mean[ch]) / std::sqrt(var[ch] + eps);
  }
  return v;
}

TEST(NnModulesNorm, BatchNormNamesInitAndPrinting) {
  nn::BatchNorm2d bn(3);
  EXPECT_EQ(bn->state_dict().keys(),
            (std::vector<std::string>{"weight", "bias", "running_mean", "running_var",
                                      "num_batches_tracked"}));
  EXPECT_EQ(bn->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(values(bn->weight), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(values(bn->bias), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(values(bn->running_mean), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(values(bn->running_var), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(bn->num_batches_tracked.dtype(), kInt64);
  EXPECT_EQ(bn->num_batches_tracked.dim(), 0);
  EXPECT_EQ(str(*bn.ptr()),
            "ember::nn::BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=true, "
            "track_running_stats=true)");
  nn::BatchNorm1d plain(
      nn::BatchNormOptions(4).affine(false).track_running_stats(false).momentum(std::nullopt));
  EXPECT_TRUE(plain->state_dict().empty());
  EXPECT_EQ(str(*plain.ptr()),
            "ember::nn::BatchNorm1d(4, eps=1e-05, momentum=None, affine=false, "
            "track_running_stats=false)");
  nn::BatchNorm1d no_affine(nn::BatchNormOptions(4).affine(false));
  EXPECT_EQ(no_affine->state_dict().keys(),
            (std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"}));
  // Load a PyTorch-shaped state dict, then reset.
  StateDict sd = bn->state_dict();
  nn::BatchNorm2d other(3);
  other->load_state_dict(sd);
}

TEST(NnModulesNorm, BatchNormRunningStatsAndEval) {
  nn::BatchNorm2d bn(nn::BatchNorm2dOptions(3).momentum(0.3));
  bn->to(kFloat64);
  Tensor x1 = test::make_tensor({4, 3, 2, 2}, kFloat64, -2, 3, 51);
  Tensor x2 = test::make_tensor({4, 3, 2, 2}, kFloat64, -1, 5, 52).requires_grad_();
  auto s1 = channel_stats(x1), s2 = channel_stats(x2);
  Tensor y1 = bn(x1);
  EXPECT_TRUE(test::close(y1, x1.sizes(), normalize_ref(x1, s1.mean, s1.var, 1e-5), 1e-10, 1e-10));
  bn(x2);
  EXPECT_FALSE(bn->running_mean.requires_grad());
  EXPECT_FALSE(bn->running_var.requires_grad());
  const double unbias = 16.0 / 15.0;
  std::vector<double> rm, rv;
  for (int c = 0; c < 3; ++c) {
    const double m1 = 0.3 * s1.mean[c], v1 = 0.7 + 0.3 * s1.var[c] * unbias;
    rm.push_back(0.7 * m1 + 0.3 * s2.mean[c]);
    rv.push_back(0.7 * v1 + 0.3 * s2.var[c] * unbias);
  }
  EXPECT_TRUE(test::close(bn->running_mean, {3}, rm, 1e-12, 1e-12));
  EXPECT_TRUE(test::close(bn->running_var, {3}, rv, 1e-12, 1e-12));
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 2);

  // Evaluation: running statistics, affine applied, nothing updated.
  bn->eval();
  {
    NoGradGuard g;
    bn->weight.copy_(test::from_values({3}, {2, 0.5, -1}));
    bn->bias.copy_(test::from_values({3}, {0.1, 0.2, 0.3}));
  }
  auto ref = normalize_ref(x1, rm, rv, 1e-5);
  const double w[3] = {2, 0.5, -1}, b[3] = {0.1, 0.2, 0.3};
  for (size_t i = 0; i < ref.size(); ++i) ref[i] = ref[i] * w[(i / 4) % 3] + b[(i / 4) % 3];
  EXPECT_TRUE(test::close(bn(x1), x1.sizes(), ref, 1e-10, 1e-10));
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 2);
  EXPECT_TRUE(test::close(bn->running_mean, {3}, rm, 1e-12, 1e-12));
}

TEST(NnModulesNorm, BatchNormCumulativeAverageAndNoTracking) {
  // momentum None: the running mean is the plain average of the batch means.
  nn::BatchNorm1d bn(nn::BatchNorm1dOptions(2).momentum(std::nullopt));
  bn->to(kFloat64);
  std::vector<double> acc(2, 0), acc_var(2, 0);
  for (int step = 0; step < 3; ++step) {
    Tensor x = test::make_tensor({5, 2}, kFloat64, -3, 3, 60 + step);
    auto s = channel_stats(x);
    for (int c = 0; c < 2; ++c) {
      acc[c] += s.mean[c];
      acc_var[c] += s.var[c] * 5.0 / 4.0;
    }
    bn(x);
  }
  EXPECT_TRUE(test::close(bn->running_mean, {2}, {acc[0] / 3, acc[1] / 3}, 1e-12, 1e-12));
  // The first step replaces running_var (factor 1), so it is the average of the unbiased ones.
  EXPECT_TRUE(test::close(bn->running_var, {2}, {acc_var[0] / 3, acc_var[1] / 3}, 1e-12, 1e-12));
  // (N, C, L) input is accepted by BatchNorm1d.
  EXPECT_EQ(bn(test::make_tensor({2, 2, 3}, kFloat64, -1, 1, 63)).sizes(),
            (std::vector<int64_t>{2, 2, 3}));

  // Without tracking, evaluation still uses batch statistics.
  nn::BatchNorm1d nt(nn::BatchNorm1dOptions(2).track_running_stats(false));
  nt->to(kFloat64);
  nt->eval();
  Tensor x = test::make_tensor({6, 2}, kFloat64, -3, 3, 64);
  auto s = channel_stats(x);
  EXPECT_TRUE(test::close(nt(x), {6, 2}, normalize_ref(x, s.mean, s.var, 1e-5), 1e-10, 1e-10));

  // 3-d variants: statistics over (N, D, H, W) per channel.
  nn::BatchNorm3d bn3(2);
  bn3->to(kFloat64);
  Tensor x5 = test::make_tensor({2, 2, 2, 2, 2}, kFloat64, -1, 1, 66);
  auto s5 = channel_stats(x5);
  EXPECT_TRUE(
      test::close(bn3(x5), x5.sizes(), normalize_ref(x5, s5.mean, s5.var, 1e-5), 1e-10, 1e-10));
  EXPECT_EQ(nn::InstanceNorm3d(2)(x5).sizes(), x5.sizes());
  expect_errors<ValueError>({{"bn3d rank", [&] { bn3(ones({2, 2, 2, 2})); }, "[BatchNorm3d]"}});

  // Gradcheck through the module in training mode.
  nn::BatchNorm2d g(nn::BatchNorm2dOptions(2).momentum(0.5));
  g->to(kFloat64);
  EXPECT_TRUE(autograd::gradcheck(
      [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{g(in[0])}; },
      {test::make_tensor({3, 2, 2, 1}, kFloat64, -1, 1, 65).requires_grad_()}));
}

TEST(NnModulesNorm, InstanceLayerRmsGroup) {
  // InstanceNorm2d: no parameters or buffers by default; statistics per (n, c).
  nn::InstanceNorm2d in(3);
  EXPECT_TRUE(in->state_dict().empty());
  Tensor x = test::make_tensor({2, 3, 2, 3}, kFloat64, -2, 2, 71);
  auto xv = values(x);
  std::vector<double> ref(xv.size());
  for (int p = 0; p < 6; ++p) {
    double m = 0, v = 0;
    for (int k = 0; k < 6; ++k) m += xv[p * 6 + k] / 6;
    for (int k = 0; k < 6; ++k) v += (xv[p * 6 + k] - m) * (xv[p * 6 + k] - m) / 6;
    for (int k = 0; k < 6; ++k) ref[p * 6 + k] = (xv[p * 6 + k] - m) / std::sqrt(v + 1e-5);
  }
  EXPECT_TRUE(test::close(in(x), x.sizes(), ref, 1e-10, 1e-10));
  Tensor x0 = x.select(0, 1);
  EXPECT_TRUE(test::close(in(x0), x0.sizes(), std::vector<double>(ref.begin() + 18, ref.end()),
                          1e-10, 1e-10));
  nn::InstanceNorm1d tracked(nn::InstanceNorm1dOptions(3).affine(true).track_running_stats(true));
  EXPECT_EQ(tracked->state_dict().keys(),
            (std::vector<std::string>{"weight", "bias", "running_mean", "running_var",
                                      "num_batches_tracked"}));
  EXPECT_EQ(str(*tracked.ptr()),
            "ember::nn::InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=true, "
            "track_running_stats=true)");

  // LayerNorm over the last dim: weight = 1, bias = 0.
  nn::LayerNorm ln(std::vector<int64_t>{4});
  EXPECT_EQ(ln->state_dict().keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(values(ln->weight), (std::vector<double>{1, 1, 1, 1}));
  EXPECT_EQ(values(ln->bias), (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(str(*ln.ptr()), "ember::nn::LayerNorm([4], eps=1e-05, elementwise_affine=true)");
  ln->to(kFloat64);
  Tensor z = test::make_tensor({3, 4}, kFloat64, -2, 2, 72);
  auto zv = values(z);
  std::vector<double> lref, rref;
  for (int r = 0; r < 3; ++r) {
    double m = 0, v = 0, ms = 0;
    for (int k = 0; k < 4; ++k) m += zv[r * 4 + k] / 4;
    for (int k = 0; k < 4; ++k) v += (zv[r * 4 + k] - m) * (zv[r * 4 + k] - m) / 4;
    for (int k = 0; k < 4; ++k) ms += zv[r * 4 + k] * zv[r * 4 + k] / 4;
    for (int k = 0; k < 4; ++k) {
      lref.push_back((zv[r * 4 + k] - m) / std::sqrt(v + 1e-5));
      rref.push_back(zv[r * 4 + k] / std::sqrt(ms + std::numeric_limits<double>::epsilon()));
    }
  }
  EXPECT_TRUE(test::close(ln(z), {3, 4}, lref, 1e-10, 1e-10));
  EXPECT_EQ(nn::LayerNorm(nn::LayerNormOptions({4}).bias(false))->state_dict().keys(),
            (std::vector<std::string>{"weight"}));
  EXPECT_TRUE(
      nn::LayerNorm(nn::LayerNormOptions({4}).elementwise_affine(false))->state_dict().empty());
  nn::RMSNorm rms(std::vector<int64_t>{4});
  EXPECT_EQ(rms->state_dict().keys(), (std::vector<std::string>{"weight"}));
  rms->to(kFloat64);
  EXPECT_TRUE(test::close(rms(z), {3, 4}, rref, 1e-10, 1e-10));

  // GroupNorm(2, 4) on (2, 4, 3): groups of 2 channels x 3 positions.
  nn::GroupNorm gn(2, 4);
  EXPECT_EQ(gn->state_dict().keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(str(*gn.ptr()), "ember::nn::GroupNorm(2, 4, eps=1e-05, affine=true)");
  gn->to(kFloat64);
  Tensor gx = test::make_tensor({2, 4, 3}, kFloat64, -2, 2, 73);
  auto gv = values(gx);
  std::vector<double> gref(gv.size());
  for (int g = 0; g < 4; ++g) {
    double m = 0, v = 0;
    for (int k = 0; k < 6; ++k) m += gv[g * 6 + k] / 6;
    for (int k = 0; k < 6; ++k) v += (gv[g * 6 + k] - m) * (gv[g * 6 + k] - m) / 6;
    for (int k = 0; k < 6; ++k) gref[g * 6 + k] = (gv[g * 6 + k] - m) / std::sqrt(v + 1e-5);
  }
  EXPECT_TRUE(test::close(gn(gx), gx.sizes(), gref, 1e-10, 1e-10));
  EXPECT_TRUE(autograd::gradcheck(
      [&](const std::vector<Tensor>& inp) { return std::vector<Tensor>{gn(inp[0])}; },
      {gx.clone().requires_grad_()}));
}

TEST(NnModulesNorm, Errors) {
  nn::BatchNorm2d bn(3);
  nn::BatchNorm1d bn1(3);
  expect_errors<ValueError>({
      {"bn2d rank",
       [&] {
         bn(ones({2, 3, 4}));
       },
       "[BatchNorm2d] expected 4D input (got 3D input)"},
      {"bn1d rank",
       [&] {
         bn1(ones({2, 3, 4, 4}));
       },
       "[BatchNorm1d] expected 2D or 3D input (got 4D input)"},
      {"negative features", [] { nn::BatchNorm2d(-1); }, "[BatchNorm2d] num_features"},
      {"in rank",
       [] {
         nn::InstanceNorm2d(3)(ones({3, 4}));
       },
       "[InstanceNorm2d]"},
      {"in channels",
       [] {
         nn::InstanceNorm1d(nn::InstanceNorm1dOptions(3).affine(true))(ones({2, 4, 5}));
       },
       "[InstanceNorm1d] expected input's size at dim=1 to match num_features (3)"},
      {"group divisible", [] { nn::GroupNorm(3, 4); },
       "[GroupNorm] num_channels must be divisible by num_groups"},
      {"group zero", [] { nn::GroupNorm(0, 4); }, "[GroupNorm]"},
      {"ln negative", [] { nn::LayerNorm(std::vector<int64_t>{-2}); }, "[LayerNorm]"},
  });
  expect_errors<RuntimeError>({
      {"bn channels",
       [&] {
         bn(ones({2, 4, 2, 2}));
       },
       "[BatchNorm2d]"},
      {"bn one value",
       [&] {
         bn1(ones({1, 3}));
       },
       "Expected more than 1 value per channel"},
      {"ln shape",
       [] {
         nn::LayerNorm(std::vector<int64_t>{4})(ones({2, 3}));
       },
       "layer_norm"},
      {"gn channels",
       [] {
         nn::GroupNorm(2, 4)(ones({2, 6, 3}));
       },
       "group_norm"},
  });
}

}  // namespace
}  // namespace ember
