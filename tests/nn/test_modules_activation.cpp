// Activation, dropout and distance modules against closed forms in float64, their printing,
// options checks and train/eval behaviour.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "ember/ember.h"
#include "nn_ref.h"
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

double sigm(double x) { return 1 / (1 + std::exp(-x)); }

struct ActCase {
  std::string name;
  std::function<Tensor(const Tensor&)> forward;
  std::function<double(double)> ref;
};

TEST(NnModulesActivation, ElementwiseMatchClosedForms) {
  const double kSeluAlpha = 1.6732632423543772848170429916717;
  const double kSeluScale = 1.0507009873554804934193349852946;
  const double kPi = 3.14159265358979323846;
  nn::ReLU relu;
  nn::ReLU6 relu6;
  nn::LeakyReLU leaky(nn::LeakyReLUOptions().negative_slope(0.2));
  nn::ELU elu(nn::ELUOptions().alpha(1.5));
  nn::SELU selu;
  nn::CELU celu(nn::CELUOptions().alpha(2));
  nn::GELU gelu;
  nn::GELU gelu_tanh(nn::GELUOptions().approximate("tanh"));
  nn::Softplus softplus(nn::SoftplusOptions().beta(2).threshold(3));
  nn::Hardtanh hardtanh(nn::HardtanhOptions().min_val(-0.5).max_val(1.5));
  nn::Softshrink softshrink(0.5);
  nn::Hardshrink hardshrink(0.7);
  nn::SiLU silu;
  nn::Mish mish;
  nn::Sigmoid sigmoid;
  nn::Tanh tanh_m;
  nn::Softsign softsign;
  nn::Tanhshrink tanhshrink;
  nn::LogSigmoid logsigmoid;
  nn::Hardswish hardswish;
  nn::Hardsigmoid hardsigmoid;
  nn::Threshold threshold(0.1, 20);
  std::vector<ActCase> cases = {
      {"ReLU", [&](const Tensor& x) { return relu(x); }, [](double x) { return x > 0 ? x : 0; }},
      {"ReLU6", [&](const Tensor& x) { return relu6(x); },
       [](double x) { return std::min(std::max(x, 0.0), 6.0); }},
      {"LeakyReLU", [&](const Tensor& x) { return leaky(x); },
       [](double x) { return x > 0 ? x : 0.2 * x; }},
      {"ELU", [&](const Tensor& x) { return elu(x); },
       [](double x) { return x > 0 ? x : 1.5 * (std::exp(x) - 1); }},
      {"SELU", [&](const Tensor& x) { return selu(x); },
       [&](double x) { return kSeluScale * (x > 0 ? x : kSeluAlpha * (std::exp(x) - 1)); }},
      {"CELU", [&](const Tensor& x) { return celu(x); },
       [](double x) { return std::max(0.0, x) + std::min(0.0, 2 * (std::exp(x / 2) - 1)); }},
      {"GELU", [&](const Tensor& x) { return gelu(x); },
       [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }},
      {"GELU-tanh", [&](const Tensor& x) { return gelu_tanh(x); },
       [&](double x) {
         return 0.5 * x * (1 + std::tanh(std::sqrt(2 / kPi) * (x + 0.044715 * x * x * x)));
       }},
      {"Softplus", [&](const Tensor& x) { return softplus(x); },
       [](double x) { return 2 * x > 3 ? x : std::log1p(std::exp(2 * x)) / 2; }},
      {"Hardtanh", [&](const Tensor& x) { return hardtanh(x); },
       [](double x) { return std::min(std::max(x, -0.5), 1.5); }},
      {"Softshrink", [&](const Tensor& x) { return softshrink(x); },
       [](double x) { return x > 0.5    ? x - 0.5
                             : x < -0.5 ? x + 0.5
                                        : 0; }},
      {"Hardshrink", [&](const Tensor& x) { return hardshrink(x); },
       [](double x) { return std::abs(x) > 0.7 ? x : 0; }},
      {"SiLU", [&](const Tensor& x) { return silu(x); }, [](double x) { return x * sigm(x); }},
      {"Mish", [&](const Tensor& x) { return mish(x); },
       [](double x) { return x * std::tanh(std::log1p(std::exp(x))); }},
      {"Sigmoid", [&](const Tensor& x) { return sigmoid(x); }, sigm},
      {"Tanh", [&](const Tensor& x) { return tanh_m(x); }, [](double x) { return std::tanh(x); }},
      {"Softsign", [&](const Tensor& x) { return softsign(x); },
       [](double x) { return x / (1 + std::abs(x)); }},
      {"Tanhshrink", [&](const Tensor& x) { return tanhshrink(x); },
       [](double x) { return x - std::tanh(x); }},
      {"LogSigmoid", [&](const Tensor& x) { return logsigmoid(x); },
       [](double x) { return std::log(sigm(x)); }},
      {"Hardswish", [&](const Tensor& x) { return hardswish(x); },
       [](double x) { return x * std::min(std::max(x + 3, 0.0), 6.0) / 6; }},
      {"Hardsigmoid", [&](const Tensor& x) { return hardsigmoid(x); },
       [](double x) { return std::min(std::max(x + 3, 0.0), 6.0) / 6; }},
      {"Threshold", [&](const Tensor& x) { return threshold(x); },
       [](double x) { return x > 0.1 ? x : 20; }},
  };
  Tensor x = test::make_tensor({2, 3, 4}, kFloat64, -4, 4, 11);
  const auto xv = values(x);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Tensor y = c.forward(x);
    ASSERT_EQ(y.sizes(), x.sizes());
    EXPECT_EQ(y.dtype(), kFloat64);
    std::vector<double> ref;
    for (double v : xv) ref.push_back(c.ref(v));
    EXPECT_TRUE(test::close(y, x.sizes(), ref, 1e-10, 1e-10));
    // Float32 input keeps its dtype.
    EXPECT_EQ(c.forward(x.to(kFloat32)).dtype(), kFloat32);
  }
}

TEST(NnModulesActivation, SoftmaxFamilyGluPrelu) {
  Tensor x = test::make_tensor({2, 3, 4}, kFloat64, -3, 3, 12);
  test::nn::Arr a(x);
  EXPECT_TRUE(
      test::close(nn::Softmax(1)(x), x.sizes(), test::nn::softmax_ref(a, 1, false), 1e-12, 1e-12));
  EXPECT_TRUE(test::close(nn::LogSoftmax(-1)(x), x.sizes(), test::nn::softmax_ref(a, -1, true),
                          1e-12, 1e-12));
  test::nn::Arr neg = a;
  for (double& v : neg.v) v = -v;
  EXPECT_TRUE(test::close(nn::Softmin(0)(x), x.sizes(), test::nn::softmax_ref(neg, 0, false), 1e-12,
                          1e-12));
  Tensor x4 = test::make_tensor({2, 3, 2, 2}, kFloat64, -3, 3, 13);
  EXPECT_TRUE(test::close(nn::Softmax2d()(x4), x4.sizes(),
                          test::nn::softmax_ref(test::nn::Arr(x4), 1, false), 1e-12, 1e-12));

  // GLU halves the last dim: a * sigmoid(b).
  Tensor g = nn::GLU()(x);
  std::vector<double> gref;
  for (int64_t r = 0; r < 6; ++r) {
    for (int64_t k = 0; k < 2; ++k) gref.push_back(a.v[r * 4 + k] * sigm(a.v[r * 4 + k + 2]));
  }
  EXPECT_TRUE(test::close(g, {2, 3, 2}, gref, 1e-12, 1e-12));

  // PReLU: one weight per channel (dim 1), initialised to `init`.
  nn::PReLU prelu(nn::PReLUOptions().num_parameters(3).init(0.1));
  EXPECT_EQ(prelu->named_parameters().keys(), (std::vector<std::string>{"weight"}));
  EXPECT_EQ(prelu->weight.sizes(), (std::vector<int64_t>{3}));
  EXPECT_EQ(values(prelu->weight), (std::vector<double>(3, static_cast<float>(0.1))));
  prelu->to(kFloat64);
  {
    NoGradGuard ng;
    prelu->weight.copy_(test::from_values({3}, {0.1, -0.5, 2}));
  }
  Tensor p = prelu(x);
  std::vector<double> pref;
  const double w[3] = {0.1, -0.5, 2};
  for (int64_t i = 0; i < 24; ++i) {
    const double v = a.v[i];
    pref.push_back(v >= 0 ? v : w[(i / 4) % 3] * v);
  }
  EXPECT_TRUE(test::close(p, x.sizes(), pref, 1e-12, 1e-12));
  p.sum().backward();
  EXPECT_TRUE(prelu->weight.grad().defined());
}

TEST(NnModulesActivation, InplaceAndPrinting) {
  Tensor x = test::from_values({4}, {-1, 2, -3, 4});
  Tensor y = nn::ReLU(true)(x);
  EXPECT_EQ(values(x), (std::vector<double>{0, 2, 0, 4}));
  EXPECT_EQ(y.data_ptr<double>(), x.data_ptr<double>());
  Tensor z = test::from_values({2}, {-1, 1});
  nn::ReLU()(z);
  EXPECT_EQ(values(z), (std::vector<double>{-1, 1}));

  EXPECT_EQ(str(*nn::ReLU().ptr()), "ember::nn::ReLU()");
  EXPECT_EQ(str(*nn::ReLU(true).ptr()), "ember::nn::ReLU(inplace=true)");
  EXPECT_EQ(str(*nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)).ptr()),
            "ember::nn::LeakyReLU(negative_slope=0.2)");
  EXPECT_EQ(str(*nn::ELU().ptr()), "ember::nn::ELU(alpha=1)");
  EXPECT_EQ(str(*nn::Softmax(1).ptr()), "ember::nn::Softmax(dim=1)");
  EXPECT_EQ(str(*nn::GELU(nn::GELUOptions().approximate("tanh")).ptr()),
            "ember::nn::GELU(approximate='tanh')");
  EXPECT_EQ(str(*nn::Hardtanh().ptr()), "ember::nn::Hardtanh(min_val=-1, max_val=1)");
  EXPECT_EQ(str(*nn::Threshold(0.5, 2).ptr()), "ember::nn::Threshold(threshold=0.5, value=2)");
  EXPECT_EQ(str(*nn::PReLU().ptr()), "ember::nn::PReLU(num_parameters=1)");
  EXPECT_EQ(str(*nn::Softshrink().ptr()), "ember::nn::Softshrink(0.5)");
  EXPECT_EQ(str(*nn::Sigmoid().ptr()), "ember::nn::Sigmoid()");
  nn::Sequential seq(nn::Linear(2, 3), nn::ReLU(), nn::Dropout(0.25));
  EXPECT_EQ(str(*seq.ptr()),
            "ember::nn::Sequential(\n  (0): ember::nn::Linear(in_features=2, out_features=3, "
            "bias=true)\n  (1): ember::nn::ReLU()\n  (2): ember::nn::Dropout(p=0.25, "
            "inplace=false)\n)");
}

TEST(NnModulesActivation, Errors) {
  expect_errors<ValueError>({
      {"hardtanh range", [] { nn::Hardtanh(nn::HardtanhOptions().min_val(2).max_val(1)); },
       "[Hardtanh]"},
      {"prelu count", [] { nn::PReLU(nn::PReLUOptions().num_parameters(0)); }, "[PReLU]"},
  });
  expect_errors<RuntimeError>({
      {"celu alpha", [] { nn::CELU(nn::CELUOptions().alpha(0)); }, "[CELU]"},
      {"gelu approximate", [] { nn::GELU(nn::GELUOptions().approximate("fast")); }, "[GELU]"},
      {"softshrink lambda", [] { nn::Softshrink(-1.0); }, "[Softshrink]"},
      {"prelu channels",
       [] {
         nn::PReLU(nn::PReLUOptions().num_parameters(3))(ones({2, 4}));
       },
       "[prelu]"},
      {"glu odd",
       [] {
         nn::GLU()(ones({2, 3}));
       },
       "[glu]"},
      {"softmax2d rank",
       [] {
         nn::Softmax2d()(ones({2, 3}));
       },
       "[Softmax2d]"},
  });
  expect_errors<IndexError>({{"softmax dim", [] { nn::Softmax(3)(ones({2, 3})); }, "softmax"}});
  expect_errors<TypeError>({{"gelu int", [] { nn::GELU()(ones({2}, kInt64)); }, "[gelu]"}});
}

TEST(NnModulesDropout, TrainEvalAndStatistics) {
  manual_seed(3);
  nn::Dropout drop(0.25);
  EXPECT_TRUE(drop->parameters().empty());
  Tensor x = ones({4000}, kFloat64);
  Tensor y = drop(x);
  int zeros_n = 0;
  for (double v : values(y)) {
    if (v == 0) {
      ++zeros_n;
    } else {
      EXPECT_NEAR(v, 1 / 0.75, 1e-12);
    }
  }
  // Binomial(4000, 0.25): mean 1000, sd ~27.
  EXPECT_NEAR(zeros_n, 1000, 140);
  drop->eval();
  EXPECT_TRUE(drop(x).equal(x));

  // Dropout2d zeroes whole channels.
  nn::Dropout2d drop2(0.5);
  Tensor c = drop2(ones({8, 16, 3, 3}, kFloat64));
  auto cv = values(c);
  for (int64_t ch = 0; ch < 8 * 16; ++ch) {
    for (int k = 1; k < 9; ++k) EXPECT_EQ(cv[ch * 9 + k], cv[ch * 9]);
    EXPECT_TRUE(cv[ch * 9] == 0 || cv[ch * 9] == 2);
  }
  drop2->eval();
  Tensor u = test::make_tensor({2, 3, 2, 2}, kFloat64, -1, 1, 4);
  EXPECT_TRUE(drop2(u).equal(u));

  // AlphaDropout keeps mean 0 / variance 1 of a standard normal input in training.
  nn::AlphaDropout ad(0.2);
  Tensor n = randn({20000}, kFloat64);
  Tensor an = ad(n);
  EXPECT_NEAR(an.mean().item<double>(), 0, 0.05);
  EXPECT_NEAR(an.var().item<double>(), 1, 0.08);
  ad->eval();
  EXPECT_TRUE(ad(n).equal(n));
  nn::FeatureAlphaDropout fad(0.2);
  fad->eval();
  EXPECT_TRUE(fad(u).equal(u));
  nn::Dropout3d d3(0.5);
  d3->eval();
  EXPECT_TRUE(d3(u).equal(u));
  nn::Dropout1d d1(0.5);
  d1->eval();
  EXPECT_TRUE(d1(u.select(0, 0)).equal(u.select(0, 0)));

  // p == 1 drops everything; p == 0 is the identity.
  EXPECT_EQ(nn::Dropout(1.0)(x).abs().sum().item<double>(), 0);
  EXPECT_TRUE(nn::Dropout(0.0)(x).equal(x));
  expect_errors<ValueError>({
      {"p > 1", [] { nn::Dropout(1.5); }, "[Dropout] dropout probability has to be between 0"},
      {"p < 0", [] { nn::Dropout2d(-0.1); }, "[Dropout2d]"},
      {"alpha p", [] { nn::AlphaDropout(2.0); }, "[AlphaDropout]"},
  });
  expect_errors<RuntimeError>(
      {{"dropout2d rank", [] { nn::Dropout2d()(ones({2})); }, "dropout2d"}});
}

TEST(NnModulesDistance, CosineAndPairwise) {
  Tensor a = test::make_tensor({3, 4}, kFloat64, -2, 2, 21);
  Tensor b = test::make_tensor({3, 4}, kFloat64, -2, 2, 22);
  auto av = values(a), bv = values(b);
  std::vector<double> cref, dref, d1ref;
  for (int i = 0; i < 3; ++i) {
    double dot = 0, na = 0, nb = 0, d2 = 0, d1 = 0;
    for (int k = 0; k < 4; ++k) {
      const double x = av[i * 4 + k], y = bv[i * 4 + k];
      dot += x * y;
      na += x * x;
      nb += y * y;
      d2 += (x - y + 1e-6) * (x - y + 1e-6);
      d1 += std::abs(x - y + 1e-6);
    }
    cref.push_back(dot / std::max(std::sqrt(na) * std::sqrt(nb), 1e-8));
    dref.push_back(std::sqrt(d2));
    d1ref.push_back(d1);
  }
  EXPECT_TRUE(test::close(nn::CosineSimilarity()(a, b), {3}, cref, 1e-10, 1e-10));
  EXPECT_TRUE(test::close(nn::PairwiseDistance()(a, b), {3}, dref, 1e-10, 1e-10));
  EXPECT_TRUE(
      test::close(nn::PairwiseDistance(nn::PairwiseDistanceOptions().p(1).keepdim(true))(a, b),
                  {3, 1}, d1ref, 1e-10, 1e-10));
  EXPECT_EQ(str(*nn::CosineSimilarity().ptr()), "ember::nn::CosineSimilarity(dim=1, eps=1e-08)");
  EXPECT_TRUE(autograd::gradcheck(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{nn::CosineSimilarity()(in[0], in[1])};
      },
      {a.clone().requires_grad_(), b.clone().requires_grad_()}));
}

}  // namespace
}  // namespace ember
