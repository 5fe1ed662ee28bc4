// Loss modules against plain-loop float64 references; weight buffers, state_dict keys, to(dtype).
#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "opdb.h"

namespace ember {
namespace {

using test::expect_errors;
using test::values;

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? NAN : s / static_cast<double>(v.size());
}
double sum_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

TEST(NnModulesLoss, RegressionLosses) {
  Tensor x = test::make_tensor({3, 4}, kFloat64, -2, 2, 31);
  Tensor t = test::make_tensor({3, 4}, kFloat64, -2, 2, 32);
  auto xv = values(x), tv = values(t);
  std::vector<double> se, ae, sl1, hub;
  for (size_t i = 0; i < xv.size(); ++i) {
    const double d = xv[i] - tv[i], a = std::abs(d);
    se.push_back(d * d);
    ae.push_back(a);
    sl1.push_back(a < 0.5 ? 0.5 * d * d / 0.5 : a - 0.25);
    hub.push_back(a <= 1.5 ? 0.5 * d * d : 1.5 * (a - 0.75));
  }
  EXPECT_NEAR(nn::MSELoss()(x, t).item<double>(), mean_of(se), 1e-12);
  EXPECT_NEAR(nn::MSELoss(kSum)(x, t).item<double>(), sum_of(se), 1e-12);
  EXPECT_TRUE(test::close(nn::MSELoss(nn::MSELossOptions(kNone))(x, t), {3, 4}, se, 1e-12, 1e-12));
  EXPECT_NEAR(nn::L1Loss()(x, t).item<double>(), mean_of(ae), 1e-12);
  EXPECT_NEAR(nn::SmoothL1Loss(nn::SmoothL1LossOptions().beta(0.5))(x, t).item<double>(),
              mean_of(sl1), 1e-12);
  EXPECT_NEAR(nn::HuberLoss(nn::HuberLossOptions().delta(1.5))(x, t).item<double>(), mean_of(hub),
              1e-12);
  EXPECT_TRUE(nn::MSELoss()->state_dict().empty());
  std::ostringstream s;
  s << *nn::MSELoss().ptr();
  EXPECT_EQ(s.str(), "ember::nn::MSELoss()");
}

TEST(NnModulesLoss, ClassificationLossesWithWeightBuffers) {
  const int64_t n = 5, c = 4;
  Tensor logits = test::make_tensor({n, c}, kFloat64, -3, 3, 33);
  Tensor target = test::from_values({n}, {0, 3, 1, 3, 2}, kInt64);
  Tensor w = test::from_values({c}, {0.5, 1, 2, 0.25}).to(kFloat32);
  nn::CrossEntropyLoss ce(nn::CrossEntropyLossOptions().weight(w));
  EXPECT_EQ(ce->state_dict().keys(), (std::vector<std::string>{"weight"}));
  EXPECT_TRUE(ce->parameters().empty());
  EXPECT_TRUE(nn::CrossEntropyLoss()->state_dict().empty());
  ce->to(kFloat64);
  EXPECT_EQ(ce->weight.dtype(), kFloat64);
  auto lv = values(logits), tv = values(target), wv = values(w);
  double num = 0, den = 0, nll_num = 0, nll_cnt = 0;
  for (int64_t i = 0; i < n; ++i) {
    double mx = -INFINITY, se = 0;
    for (int64_t k = 0; k < c; ++k) mx = std::max(mx, lv[i * c + k]);
    for (int64_t k = 0; k < c; ++k) se += std::exp(lv[i * c + k] - mx);
    const int64_t y = static_cast<int64_t>(tv[i]);
    const double logp = lv[i * c + y] - mx - std::log(se);
    num += -wv[y] * logp;
    den += wv[y];
    if (y != 3) {  // NLLLoss below ignores class 3
      nll_num += -lv[i * c + y];
      nll_cnt += 1;
    }
  }
  EXPECT_NEAR(ce(logits, target).item<double>(), num / den, 1e-10);
  nn::NLLLoss nll(nn::NLLLossOptions().ignore_index(3));
  EXPECT_NEAR(nll(logits, target).item<double>(), nll_num / nll_cnt, 1e-12);

  // BCE with a weight buffer; BCEWithLogits with pos_weight (broadcast along the last dim).
  Tensor p = test::make_tensor({2, 3}, kFloat64, 0.05, 0.95, 34);
  Tensor y = test::from_values({2, 3}, {1, 0, 1, 0, 0, 1});
  Tensor bw = test::from_values({3}, {1, 2, 3});
  nn::BCELoss bce(nn::BCELossOptions().weight(bw));
  EXPECT_EQ(bce->named_buffers().keys(), (std::vector<std::string>{"weight"}));
  auto pv = values(p), yv = values(y);
  std::vector<double> bref, lref;
  const double pw[3] = {2, 0.5, 1};
  for (int i = 0; i < 6; ++i) {
    bref.push_back(-(i % 3 + 1) * (yv[i] * std::log(pv[i]) + (1 - yv[i]) * std::log(1 - pv[i])));
    const double s = 1 / (1 + std::exp(-pv[i]));
    lref.push_back(-(pw[i % 3] * yv[i] * std::log(s) + (1 - yv[i]) * std::log(1 - s)));
  }
  EXPECT_NEAR(bce(p, y).item<double>(), mean_of(bref), 1e-12);
  nn::BCEWithLogitsLoss bl(
      nn::BCEWithLogitsLossOptions().pos_weight(test::from_values({3}, {2, 0.5, 1})));
  EXPECT_EQ(bl->state_dict().keys(), (std::vector<std::string>{"pos_weight"}));
  EXPECT_NEAR(bl(p, y).item<double>(), mean_of(lref), 1e-12);
  nn::BCEWithLogitsLoss bl_sum(nn::BCEWithLogitsLossOptions().reduction(kSum).pos_weight(
      test::from_values({3}, {2, 0.5, 1})));
  EXPECT_NEAR(bl_sum(p, y).item<double>(), sum_of(lref), 1e-12);

  // Gradient through the module (float64).
  EXPECT_TRUE(autograd::gradcheck(
      [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{ce(in[0], target)}; },
      {logits.clone().requires_grad_()}));
}

TEST(NnModulesLoss, KLDivMarginRankingCosineEmbedding) {
  Tensor logq = test::make_tensor({2, 3}, kFloat64, -3, -0.1, 35);
  Tensor tp = test::make_tensor({2, 3}, kFloat64, 0.1, 1, 36);
  auto qv = values(logq), pv = values(tp);
  double kl = 0;
  for (int i = 0; i < 6; ++i) kl += pv[i] * (std::log(pv[i]) - qv[i]);
  EXPECT_NEAR(nn::KLDivLoss(nn::KLDivLossOptions(kBatchMean))(logq, tp).item<double>(), kl / 2,
              1e-12);
  EXPECT_NEAR(nn::KLDivLoss(kSum)(logq, tp).item<double>(), kl, 1e-12);

  Tensor a = test::make_tensor({4}, kFloat64, -1, 1, 37),
         b = test::make_tensor({4}, kFloat64, -1, 1, 38);
  Tensor s = test::from_values({4}, {1, -1, 1, -1});
  auto av = values(a), bv = values(b), sv = values(s);
  double mr = 0;
  for (int i = 0; i < 4; ++i) mr += std::max(0.0, -sv[i] * (av[i] - bv[i]) + 0.5);
  EXPECT_NEAR(
      nn::MarginRankingLoss(nn::MarginRankingLossOptions().margin(0.5))(a, b, s).item<double>(),
      mr / 4, 1e-12);

  Tensor x1 = test::make_tensor({3, 4}, kFloat64, -1, 1, 39);
  Tensor x2 = test::make_tensor({3, 4}, kFloat64, -1, 1, 40);
  Tensor yy = test::from_values({3}, {1, -1, -1});
  auto x1v = values(x1), x2v = values(x2);
  double ce = 0;
  for (int i = 0; i < 3; ++i) {
    double dot = 0, n1 = 0, n2 = 0;
    for (int k = 0; k < 4; ++k) {
      dot += x1v[i * 4 + k] * x2v[i * 4 + k];
      n1 += x1v[i * 4 + k] * x1v[i * 4 + k];
      n2 += x2v[i * 4 + k] * x2v[i * 4 + k];
    }
    const double cs = dot / std::sqrt(n1 * n2);
    ce += i == 0 ? 1 - cs : std::max(0.0, cs - 0.2);
  }
  EXPECT_NEAR(nn::CosineEmbeddingLoss(nn::CosineEmbeddingLossOptions().margin(0.2))(x1, x2, yy)
                  .item<double>(),
              ce / 3, 1e-9);
}

TEST(NnModulesLoss, Errors) {
  Tensor logits = zeros({2, 3});
  expect_errors<RuntimeError>({
      {"huber delta", [] { nn::HuberLoss(nn::HuberLossOptions().delta(0)); }, "[HuberLoss]"},
      {"smoothl1 beta", [] { nn::SmoothL1Loss(nn::SmoothL1LossOptions().beta(-1)); },
       "[SmoothL1Loss]"},
      {"bce range", [] { nn::BCELoss()(full({2}, 2.0), zeros({2})); }, "[binary_cross_entropy]"},
      {"ce weight size",
       [&] {
         nn::CrossEntropyLoss(nn::CrossEntropyLossOptions().weight(ones({5})))(logits,
                                                                               zeros({2}, kInt64));
       },
       "cross_entropy"},
  });
  expect_errors<IndexError>({
      {"ce target", [&] { nn::CrossEntropyLoss()(logits, full({2}, 7, kInt64)); },
       "[cross_entropy]"},
  });
}

}  // namespace
}  // namespace ember
