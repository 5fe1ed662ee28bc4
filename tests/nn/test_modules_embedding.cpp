// Embedding, EmbeddingBag and Bilinear modules: parameter names, PyTorch's default init,
// forward against plain loops, from_pretrained, max_norm, gradients and errors.
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

std::pair<double, double> mean_var(const std::vector<double>& v) {
  double m = 0, s = 0;
  for (double x : v) m += x;
  m /= static_cast<double>(v.size());
  for (double x : v) s += (x - m) * (x - m);
  return {m, s / static_cast<double>(v.size())};
}

TEST(NnModulesEmbedding, InitNamesAndLookup) {
  manual_seed(5);
  nn::Embedding big(2000, 16);
  EXPECT_EQ(big->state_dict().keys(), (std::vector<std::string>{"weight"}));
  EXPECT_EQ(big->weight.sizes(), (std::vector<int64_t>{2000, 16}));
  EXPECT_EQ(big->weight.dtype(), kFloat32);
  EXPECT_TRUE(big->weight.requires_grad());
  auto [m, v] = mean_var(values(big->weight));  // N(0, 1), 32000 samples
  EXPECT_NEAR(m, 0, 0.03);
  EXPECT_NEAR(v, 1, 0.05);

  nn::Embedding emb(nn::EmbeddingOptions(6, 3).padding_idx(-2));
  EXPECT_EQ(*emb->options.padding_idx(), 4);  // stored wrapped
  EXPECT_EQ(values(emb->weight.select(0, 4)), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(str(*emb.ptr()),
            "ember::nn::Embedding(num_embeddings=6, embedding_dim=3, padding_idx=4)");
  Tensor idx = test::from_values({2, 3}, {0, 5, 4, 4, 1, 0}, kInt64);
  Tensor y = emb(idx);
  ASSERT_EQ(y.sizes(), (std::vector<int64_t>{2, 3, 3}));
  auto w = values(emb->weight), iv = values(idx), yv = values(y);
  for (int i = 0; i < 6; ++i) {
    for (int k = 0; k < 3; ++k) EXPECT_EQ(yv[i * 3 + k], w[static_cast<int>(iv[i]) * 3 + k]);
  }
  // Gradient: counts of each index; the padding row gets none (as PyTorch).
  y.sum().backward();
  auto g = values(emb->weight.grad());
  const double counts[6] = {2, 1, 0, 0, 0, 1};
  for (int r = 0; r < 6; ++r) {
    for (int k = 0; k < 3; ++k) EXPECT_EQ(g[r * 3 + k], counts[r]) << "row " << r;
  }
  emb->to(kFloat64);
  EXPECT_EQ(emb(idx).dtype(), kFloat64);
}

TEST(NnModulesEmbedding, MaxNormAndFromPretrained) {
  Tensor table = test::from_values({3, 2}, {3, 4, 0.3, 0.4, 6, 8});
  nn::Embedding emb(nn::EmbeddingOptions(3, 2).max_norm(1.0)._weight(table.clone()));
  emb(test::from_values({2}, {0, 1}, kInt64));
  auto w = values(emb->weight);
  // Row 0 (norm 5) rescaled by 1 / (5 + 1e-7); row 1 (norm 0.5) kept; row 2 not looked up.
  EXPECT_NEAR(w[0], 3 / (5 + 1e-7), 1e-12);
  EXPECT_NEAR(w[1], 4 / (5 + 1e-7), 1e-12);
  EXPECT_EQ(w[2], 0.3);
  EXPECT_EQ(w[4], 6);

  auto frozen = nn::Embedding::from_pretrained(table);
  EXPECT_FALSE(frozen->weight.requires_grad());
  EXPECT_TRUE(frozen->weight.equal(table));
  EXPECT_EQ(frozen->weight.data_ptr<double>(), table.data_ptr<double>());  // shares storage
  auto trainable = nn::Embedding::from_pretrained(
      table, nn::EmbeddingFromPretrainedOptions().freeze(false).padding_idx(1));
  EXPECT_TRUE(trainable->weight.requires_grad());
  EXPECT_EQ(values(trainable->weight.select(0, 1)), (std::vector<double>{0.3, 0.4}));  // not zeroed
  auto bag =
      nn::EmbeddingBag::from_pretrained(table, nn::EmbeddingBagFromPretrainedOptions().mode(kSum));
  EXPECT_TRUE(test::close(bag(test::from_values({1, 2}, {0, 2}, kInt64)), {1, 2}, {9, 12}, 0, 0));
}

TEST(NnModulesEmbedding, BagModes) {
  manual_seed(6);
  nn::EmbeddingBag bag(nn::EmbeddingBagOptions(5, 2).mode(kSum));
  EXPECT_EQ(bag->state_dict().keys(), (std::vector<std::string>{"weight"}));
  bag->to(kFloat64);
  auto w = values(bag->weight);
  Tensor input = test::from_values({6}, {1, 2, 4, 0, 3, 3}, kInt64);
  Tensor offsets = test::from_values({3}, {0, 2, 2}, kInt64);  // bags [1, 2], [], [4, 0, 3, 3]
  Tensor psw = test::from_values({6}, {0.5, 2, 1, -1, 3, 0.25});
  auto ids = values(input), pv = values(psw);
  const int starts[4] = {0, 2, 2, 6};
  auto ref = [&](const std::string& mode, bool weighted) {
    std::vector<double> out;
    for (int b = 0; b < 3; ++b) {
      for (int k = 0; k < 2; ++k) {
        double acc = mode == "max" ? -INFINITY : 0;
        for (int j = starts[b]; j < starts[b + 1]; ++j) {
          const double e = w[static_cast<int>(ids[j]) * 2 + k] * (weighted ? pv[j] : 1);
          acc = mode == "max" ? std::max(acc, e) : acc + e;
        }
        const int len = starts[b + 1] - starts[b];
        if (len == 0) acc = 0;
        if (mode == "mean" && len > 0) acc /= len;
        out.push_back(acc);
      }
    }
    return out;
  };
  EXPECT_TRUE(test::close(bag(input, offsets), {3, 2}, ref("sum", false), 1e-12, 1e-12));
  EXPECT_TRUE(test::close(bag(input, offsets, psw), {3, 2}, ref("sum", true), 1e-12, 1e-12));
  bag->options.mode(kMean);
  EXPECT_TRUE(test::close(bag(input, offsets), {3, 2}, ref("mean", false), 1e-12, 1e-12));
  bag->options.mode(kMax);
  EXPECT_TRUE(test::close(bag(input, offsets), {3, 2}, ref("max", false), 1e-12, 1e-12));
  // 2-D input: each row a bag (mean by default).
  nn::EmbeddingBag mean_bag(4, 3);
  Tensor rows = test::from_values({2, 2}, {0, 3, 1, 1}, kInt64);
  auto mw = values(mean_bag->weight);
  std::vector<double> mref;
  for (int b = 0; b < 2; ++b) {
    for (int k = 0; k < 3; ++k) {
      const int i0 = b == 0 ? 0 : 1, i1 = b == 0 ? 3 : 1;
      mref.push_back((mw[i0 * 3 + k] + mw[i1 * 3 + k]) / 2);
    }
  }
  EXPECT_TRUE(test::close(mean_bag(rows), {2, 3}, mref, 1e-6, 1e-6));
  EXPECT_EQ(str(*mean_bag.ptr()),
            "ember::nn::EmbeddingBag(num_embeddings=4, embedding_dim=3, mode=mean)");
  expect_errors<RuntimeError>({
      {"psw with mean",
       [&] {
         mean_bag(rows, Tensor(), ones({2, 2}));
       },
       "[embedding_bag]"},
  });
}

TEST(NnModulesEmbedding, Errors) {
  nn::Embedding emb(4, 2);
  expect_errors<ValueError>({
      {"negative size", [] { nn::Embedding(-1, 2); }, "[Embedding]"},
      {"padding_idx", [] { nn::Embedding(nn::EmbeddingOptions(4, 2).padding_idx(4)); },
       "[Embedding] Padding_idx must be within num_embeddings"},
      {"bag padding_idx", [] { nn::EmbeddingBag(nn::EmbeddingBagOptions(4, 2).padding_idx(-5)); },
       "[EmbeddingBag]"},
  });
  expect_errors<IndexError>({{"index", [&] { emb(full({2}, 4, kInt64)); }, "[embedding]"}});
  expect_errors<TypeError>({{"float idx", [&] { emb(zeros({2})); }, "[embedding]"}});
  expect_errors<RuntimeError>({
      {"_weight shape",
       [] {
         nn::Embedding(nn::EmbeddingOptions(4, 2)._weight(zeros({3, 2})));
       },
       "[Embedding] Shape of _weight"},
      {"pretrained 1-d", [] { nn::Embedding::from_pretrained(zeros({3})); }, "2-dimensional"},
  });
}

TEST(NnModulesBilinear, InitForwardGrad) {
  manual_seed(7);
  nn::Bilinear bl(16, 5, 40);
  EXPECT_EQ(bl->state_dict().keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(bl->weight.sizes(), (std::vector<int64_t>{40, 16, 5}));
  EXPECT_EQ(bl->bias.sizes(), (std::vector<int64_t>{40}));
  // U(-b, b) with b = 1/sqrt(in1): range and variance b^2 / 3 (3200 samples, rel. sd ~2.2%).
  const double b = 0.25;
  auto wv = values(bl->weight);
  for (double x : wv) EXPECT_LE(std::abs(x), b);
  EXPECT_NEAR(mean_var(wv).second, b * b / 3, 0.1 * b * b / 3);
  for (double x : values(bl->bias)) EXPECT_LE(std::abs(x), b);
  EXPECT_EQ(str(*bl.ptr()),
            "ember::nn::Bilinear(in1_features=16, in2_features=5, out_features=40, bias=true)");
  EXPECT_FALSE(nn::Bilinear(nn::BilinearOptions(2, 3, 4).bias(false))->bias.defined());

  nn::Bilinear small(3, 2, 2);
  small->to(kFloat64);
  Tensor x1 = test::make_tensor({4, 3}, kFloat64, -1, 1, 41);
  Tensor x2 = test::make_tensor({4, 2}, kFloat64, -1, 1, 42);
  auto a = values(x1), c = values(x2), w = values(small->weight), bb = values(small->bias);
  std::vector<double> ref;
  for (int n = 0; n < 4; ++n) {
    for (int o = 0; o < 2; ++o) {
      double s = bb[o];
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 2; ++j) s += a[n * 3 + i] * w[(o * 3 + i) * 2 + j] * c[n * 2 + j];
      }
      ref.push_back(s);
    }
  }
  EXPECT_TRUE(test::close(small(x1, x2), {4, 2}, ref, 1e-12, 1e-12));
  EXPECT_TRUE(autograd::gradcheck(
      [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{small(in[0], in[1])}; },
      {x1.clone().requires_grad_(), x2.clone().requires_grad_()}));
  expect_errors<RuntimeError>({{"in2 size", [&] { small(x1, x1); }, "[bilinear]"}});
  expect_errors<ValueError>({{"negative", [] { nn::Bilinear(1, -2, 3); }, "[Bilinear]"}});
}

}  // namespace
}  // namespace ember
