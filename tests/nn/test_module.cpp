// nn::Module infrastructure, containers, Linear, init and utils against closed forms.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "opdb.h"

namespace ember {
namespace {

using test::expect_errors;
using test::values;

struct NetImpl : nn::Module {
  NetImpl() : Module("Net") {
    fc1 = register_module("fc1", nn::Linear(3, 4));
    fc2 = register_module("fc2", nn::Linear(nn::LinearOptions(4, 2).bias(false)));
    scale = register_parameter("scale", ones({1}));
    steps = register_buffer("steps", zeros({}, kInt64));
  }
  Tensor forward(const Tensor& x) { return fc2->forward(fc1->forward(x).relu()) * scale; }
  nn::Linear fc1{nullptr}, fc2{nullptr};
  Tensor scale, steps;
};
EMBER_MODULE(Net);

TEST(NnModule, RegistrationAndNames) {
  Net net;
  auto names = net->named_parameters().keys();
  EXPECT_EQ(names, (std::vector<std::string>{"scale", "fc1.weight", "fc1.bias", "fc2.weight"}));
  EXPECT_EQ(net->parameters().size(), 4u);
  EXPECT_EQ(net->named_buffers().keys(), (std::vector<std::string>{"steps"}));
  EXPECT_EQ(net->children().size(), 2u);
  auto mods = net->named_modules().keys();
  EXPECT_EQ(mods, (std::vector<std::string>{"", "fc1", "fc2"}));
  for (const auto& p : net->parameters()) EXPECT_TRUE(p.requires_grad());
  net->eval();
  EXPECT_FALSE(net->fc1->is_training());
  net->train();
  EXPECT_TRUE(net->fc1->is_training());
  expect_errors<ValueError>({
      {"dup", [&] { net->register_parameter("scale", ones({1})); }, "already defined"},
      {"dot", [&] { net->register_buffer("a.b", ones({1})); }, "dot"},
  });
  nn::Linear empty{nullptr};
  EXPECT_TRUE(empty.is_empty());
  expect_errors<RuntimeError>({{"empty holder", [&] { empty->forward(ones({3})); }, "empty"}});
}

TEST(NnModule, LinearForwardBackwardAndInit) {
  nn::Linear fc(3, 2);
  // PyTorch's default init: weight and bias within ±1/sqrt(in_features).
  const double bound = 1 / std::sqrt(3.0);
  for (double v : values(fc->weight)) EXPECT_LE(std::abs(v), bound + 1e-7);
  for (double v : values(fc->bias)) EXPECT_LE(std::abs(v), bound + 1e-7);
  Tensor x = test::from_values({2, 3}, {1, 2, 3, 4, 5, 6}).to(kFloat32);
  Tensor y = fc(x);
  auto w = values(fc->weight), b = values(fc->bias), xv = values(x), yv = values(y);
  for (int i = 0; i < 2; ++i) {
    for (int o = 0; o < 2; ++o) {
      double ref = b[o];
      for (int k = 0; k < 3; ++k) ref += xv[i * 3 + k] * w[o * 3 + k];
      EXPECT_NEAR(yv[i * 2 + o], ref, 1e-5);
    }
  }
  y.sum().backward();
  // d sum / d W[o, k] = sum_i x[i, k]; d / d b = batch size.
  auto gw = values(fc->weight.grad());
  for (int o = 0; o < 2; ++o) {
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(gw[o * 3 + k], xv[k] + xv[3 + k], 1e-5);
  }
  EXPECT_EQ(values(fc->bias.grad()), (std::vector<double>{2, 2}));
  fc->zero_grad();
  EXPECT_FALSE(fc->weight.grad().defined());
  expect_errors<RuntimeError>({{"shape", [&] { fc(ones({2, 4})); }, "[Linear]"}});
}

TEST(NnModule, StateDictRoundTripAndStrictErrors) {
  Net a, b;
  a->steps.fill_(7);
  b->load_state_dict(a->state_dict());
  EXPECT_TRUE(b->fc1->weight.equal(a->fc1->weight));
  EXPECT_EQ(b->steps.item<int64_t>(), 7);
  StateDict sd = a->state_dict();
  sd.erase("fc2.weight");
  sd.insert("extra", ones({1}));
  sd["fc1.bias"] = zeros({5});
  try {
    b->load_state_dict(sd);
    ADD_FAILURE() << "no error";
  } catch (const RuntimeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("Missing key(s) in state_dict: \"fc2.weight\""), std::string::npos) << m;
    EXPECT_NE(m.find("Unexpected key(s) in state_dict: \"extra\""), std::string::npos) << m;
    EXPECT_NE(m.find("size mismatch for fc1.bias"), std::string::npos) << m;
  }
  StateDict partial;
  partial.insert("scale", full({1}, 3.0));
  auto [missing, unexpected] = b->load_state_dict(partial, /*strict=*/false);
  EXPECT_EQ(missing.size(), 4u);
  EXPECT_TRUE(unexpected.empty());
  EXPECT_EQ(b->scale.item<float>(), 3.0f);
}

TEST(NnModule, ToDtypeKeepsHandles) {
  Net net;
  Tensor w = net->fc1->weight;
  net->to(kFloat64);
  EXPECT_EQ(w.dtype(), kFloat64);
  EXPECT_EQ(net->fc1->weight.dtype(), kFloat64);
  EXPECT_EQ(net->steps.dtype(), kInt64);
  Tensor y = net->forward(ones({2, 3}, kFloat64));
  EXPECT_EQ(y.dtype(), kFloat64);
}

TEST(NnModule, Containers) {
  nn::Sequential seq(nn::Linear(2, 3), nn::Functional(ember::relu), nn::Linear(3, 1));
  EXPECT_EQ(seq->size(), 3u);
  EXPECT_EQ(seq->named_parameters().keys(),
            (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  Tensor x = ones({4, 2});
  auto l0 = seq->ptr<nn::LinearImpl>(0), l2 = seq->ptr<nn::LinearImpl>(2);
  Tensor ref = l2->forward(l0->forward(x).relu());
  EXPECT_TRUE(seq->forward(x).equal(ref));
  nn::Sequential named({{"fc", nn::Linear(2, 2)}, {"id", nn::Identity()}});
  EXPECT_EQ(named->named_children().keys(), (std::vector<std::string>{"fc", "id"}));

  nn::ModuleList list(nn::Linear(1, 1), nn::Linear(1, 2));
  list->push_back(nn::Identity());
  EXPECT_EQ(list->size(), 3u);
  EXPECT_EQ(list->parameters().size(), 4u);
  EXPECT_NE(list->ptr<nn::LinearImpl>(1), nullptr);
  expect_errors<IndexError>({{"range", [&] { (*list)[5]; }, "out of range"}});

  nn::ModuleDict dict({{"a", nn::Linear(1, 1).ptr()}, {"b", nn::Identity().ptr()}});
  EXPECT_TRUE(dict->contains("a"));
  EXPECT_EQ(dict->parameters().size(), 2u);
  dict->pop("a");
  EXPECT_EQ(dict->parameters().size(), 0u);
  expect_errors<IndexError>({{"missing", [&] { (*dict)["zz"]; }, "zz"}});
}

TEST(NnModule, FlattenUnflatten) {
  Tensor x = arange(24).reshape({2, 3, 4});
  EXPECT_EQ(nn::Flatten()(x).sizes(), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(nn::Unflatten(1, std::vector<int64_t>{3, 4})(x.flatten(1)).sizes(), x.sizes());
}

TEST(NnInit, Distributions) {
  manual_seed(0);
  Tensor w = empty({256, 128});
  nn::init::xavier_uniform_(w);
  const double a = std::sqrt(6.0 / (256 + 128));
  for (double v : values(w)) EXPECT_LE(std::abs(v), a + 1e-7);
  nn::init::kaiming_normal_(w, 0, kFanIn, kReLU);
  double sq = 0;
  for (double v : values(w)) sq += v * v;
  EXPECT_NEAR(std::sqrt(sq / w.numel()), std::sqrt(2.0 / 128), 0.01);
  nn::init::trunc_normal_(w, 0, 1, -0.5, 0.5);
  for (double v : values(w)) EXPECT_LE(std::abs(v), 0.5);
  Tensor q = empty({5, 3});
  nn::init::orthogonal_(q);
  Tensor qtq = q.t().matmul(q);
  EXPECT_TRUE(qtq.allclose(eye(3), 1e-5, 1e-5));
  EXPECT_NEAR(nn::init::calculate_gain(kLeakyReLU, 0.2), std::sqrt(2.0 / 1.04), 1e-12);
  expect_errors<ValueError>({{"1-d fan", [] { nn::init::xavier_uniform_(empty({3})); }, "[init]"}});
}

TEST(NnUtils, ClipAndVectors) {
  Tensor a = zeros({2}).requires_grad_(), b = zeros({1}).requires_grad_();
  a.mutable_grad() = test::from_values({2}, {3, 0}).to(kFloat32);
  b.mutable_grad() = test::from_values({1}, {4}).to(kFloat32);
  Tensor total = nn::utils::clip_grad_norm_({a, b}, 1.0);
  EXPECT_NEAR(total.item<double>(), 5.0, 1e-6);
  EXPECT_NEAR(values(a.grad())[0], 3.0 / (5 + 1e-6), 1e-6);
  EXPECT_NEAR(values(b.grad())[0], 4.0 / (5 + 1e-6), 1e-6);
  nn::utils::clip_grad_value_({a, b}, 0.1);
  EXPECT_NEAR(values(b.grad())[0], 0.1, 1e-7);
  Tensor v = nn::utils::parameters_to_vector({a, b});
  EXPECT_EQ(v.sizes(), (std::vector<int64_t>{3}));
  nn::utils::vector_to_parameters(arange(3, kFloat32), {a, b});
  EXPECT_EQ(values(b), (std::vector<double>{2}));
  a.mutable_grad() = full({2}, std::nan(""));
  expect_errors<RuntimeError>(
      {{"nonfinite", [&] { nn::utils::clip_grad_norm_({a}, 1, 2, true); }, "non-finite"}});
}

}  // namespace
}  // namespace ember
