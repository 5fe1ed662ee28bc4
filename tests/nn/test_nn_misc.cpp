// nn::functional embedding, embedding_bag, one_hot, dropout, linear, bilinear and distances
// against float64 references written with plain loops.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/nn/functional.h"
#include "nn/nn_ref.h"
#include "opdb.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;
using nn::arg;
using nn::arg_of;
using nn::Arr;

Tensor ids(std::vector<int64_t> shape, std::vector<double> v) {
  return from_values(shape, v, kInt64);
}

std::vector<OpInfo> misc_ops() {
  std::vector<OpInfo> ops;
  {
    OpInfo info;
    info.name = "embedding";
    info.dtypes = float_dtypes();
    info.samples = [](ScalarType dt) {
      Tensor w = make_tensor({6, 3}, dt, -2, 2, 1);
      return std::vector<Sample>{
          {{ids({4}, {0, 5, 2, 2}), w}, "1-d"},
          {{ids({2, 3}, {1, 0, 4, 3, 3, 5}), w}, "2-d"},
          {{ids({}, {3}), w}, "0-d"},
          {{ids({0}, {}), w}, "empty"},
          {{ids({2}, {1, 2}), make_noncontiguous(w)}, "non-contiguous weight"}};
    };
    info.op = [](const std::vector<Tensor>& in) { return F::embedding(in[0], in[1]); };
    info.reference = [](const std::vector<Tensor>& in) {
      auto idx = values(in[0]);
      Arr w(in[1]);
      std::vector<double> out;
      for (double i : idx) {
        for (int64_t d = 0; d < w.shape[1]; ++d) out.push_back(w.at({static_cast<int64_t>(i), d}));
      }
      auto shape = in[0].sizes();
      shape.push_back(w.shape[1]);
      return Reference{shape, out, in[1].dtype()};
    };
    ops.push_back(info);
  }
  {  // embedding_bag: {input, weight, offsets (or empty), mode, psw?}
    OpInfo info;
    info.name = "embedding_bag";
    info.dtypes = float_dtypes();
    info.samples = [](ScalarType dt) {
      Tensor w = make_tensor({6, 3}, dt, -2, 2, 1);
      Tensor flat = ids({7}, {0, 5, 2, 2, 4, 1, 3});
      Tensor off = ids({4}, {0, 2, 2, 5});  // bags: [0, 2), [2, 2) empty, [2, 5), [5, 7)
      Tensor psw = make_tensor({7}, dt, 0.5, 2, 3);
      std::vector<Sample> out;
      for (int64_t mode : {0, 1, 2}) {  // sum, mean, max
        out.push_back({{flat, w, off, arg(mode)}, "offsets " + std::to_string(mode)});
        out.push_back({{ids({2, 3}, {1, 0, 4, 3, 3, 5}), w, Tensor(), arg(mode)},
                       "2-d " + std::to_string(mode)});
        out.push_back(
            {{flat, w, off, arg(mode | 4)}, "padding_idx 2, mode " + std::to_string(mode)});
      }
      out.push_back({{flat, w, off, arg(0), psw}, "per_sample_weights"});
      out.push_back({{flat, w, ids({5}, {0, 2, 2, 5, 7}), arg(1 | 8)}, "include_last_offset"});
      return out;
    };
    auto run = [](const std::vector<Tensor>& in) {
      const int64_t f = arg_of(in[3]);
      F::EmbeddingBagFuncOptions o;
      if (in[2].defined()) o.offsets(in[2]);
      if ((f & 3) == 0)
        o.mode(ember::kSum);
      else if ((f & 3) == 1)
        o.mode(ember::kMean);
      else
        o.mode(ember::kMax);
      if (f & 4) o.padding_idx(2);
      if (f & 8) o.include_last_offset(true);
      if (in.size() > 4) o.per_sample_weights(in[4]);
      return F::embedding_bag(in[0], in[1], o);
    };
    info.op = run;
    info.arg_inputs = {3};
    info.reference = [](const std::vector<Tensor>& in) {
      const int64_t f = arg_of(in[3]);
      auto idx = values(in[0]);
      Arr w(in[1]);
      std::vector<int64_t> starts;
      if (in[2].defined()) {
        for (double s : values(in[2])) starts.push_back(static_cast<int64_t>(s));
        if (!(f & 8)) starts.push_back(static_cast<int64_t>(idx.size()));
      } else {
        for (int64_t b = 0; b <= in[0].size(0); ++b) starts.push_back(b * in[0].size(1));
      }
      std::vector<double> psw = in.size() > 4 ? values(in[4]) : std::vector<double>();
      const int64_t bags = static_cast<int64_t>(starts.size()) - 1, d = w.shape[1];
      std::vector<double> out(bags * d, 0);
      for (int64_t b = 0; b < bags; ++b) {
        for (int64_t k = 0; k < d; ++k) {
          double acc = (f & 3) == 2 ? -INFINITY : 0;
          int64_t n = 0;
          for (int64_t i = starts[b]; i < starts[b + 1]; ++i) {
            const int64_t r = static_cast<int64_t>(idx[i]);
            if ((f & 4) && r == 2) continue;
            const double x = w.at({r, k}) * (psw.empty() ? 1 : psw[i]);
            acc = (f & 3) == 2 ? std::max(acc, x) : acc + x;
            ++n;
          }
          if (n == 0)
            acc = 0;
          else if ((f & 3) == 1)
            acc /= n;
          out[b * d + k] = acc;
        }
      }
      return Reference{{bags, d}, out, in[1].dtype()};
    };
    info.tol_scale = 4;
    ops.push_back(info);
  }
  {  // linear and bilinear: {x, w, b, kind}
    OpInfo info;
    info.name = "linear_bilinear";
    info.dtypes = float_dtypes();
    info.samples = [](ScalarType dt) {
      auto m = [&](std::vector<int64_t> s, uint64_t seed) {
        return make_tensor(s, dt, -2, 2, seed);
      };
      return std::vector<Sample>{
          {{m({4, 3}, 1), m({5, 3}, 2), m({5}, 3), arg(0)}, "linear 2-d"},
          {{m({2, 4, 3}, 1), m({5, 3}, 2), Tensor(), arg(0)}, "linear 3-d no bias"},
          {{m({3}, 1), m({5, 3}, 2), m({5}, 3), arg(0)}, "linear 1-d"},
          {{m({4, 3}, 1), m({4, 2}, 4), m({5, 3, 2}, 2), m({5}, 3), arg(1)}, "bilinear"}};
    };
    info.op = [](const std::vector<Tensor>& in) {
      if (arg_of(in.back()) == 1) return F::bilinear(in[0], in[1], in[2], in[3]);
      return F::linear(in[0], in[1], in[2]);
    };
    info.arg_inputs = {-1};
    info.reference = [](const std::vector<Tensor>& in) {
      if (arg_of(in.back()) == 1) {
        Arr x1(in[0]), x2(in[1]), w(in[2]);
        auto b = values(in[3]);
        const int64_t n = x1.shape[0], o = w.shape[0], i1 = w.shape[1], i2 = w.shape[2];
        std::vector<double> out(n * o);
        for (int64_t r = 0; r < n; ++r) {
          for (int64_t k = 0; k < o; ++k) {
            double acc = b[k];
            for (int64_t a = 0; a < i1; ++a) {
              for (int64_t c = 0; c < i2; ++c)
                acc += x1.at({r, a}) * w.at({k, a, c}) * x2.at({r, c});
            }
            out[r * o + k] = acc;
          }
        }
        return Reference{{n, o}, out, in[0].dtype()};
      }
      Arr x(in[0]), w(in[1]);
      std::vector<double> b =
          in[2].defined() ? values(in[2]) : std::vector<double>(w.shape[0], 0.0);
      const int64_t in_f = w.shape[1], out_f = w.shape[0], rows = x.numel() / in_f;
      std::vector<double> out(rows * out_f);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t k = 0; k < out_f; ++k) {
          double acc = b[k];
          for (int64_t j = 0; j < in_f; ++j) acc += x.v[r * in_f + j] * w.at({k, j});
          out[r * out_f + k] = acc;
        }
      }
      auto shape = in[0].sizes();
      shape.back() = out_f;
      return Reference{shape, out, in[0].dtype()};
    };
    info.tol_scale = 8;
    ops.push_back(info);
  }
  {  // distances: {x1, x2, kind}: 0 cosine_similarity, 1 pairwise_distance, 2.. cdist with p
    OpInfo info;
    info.name = "distances";
    info.dtypes = float_dtypes();
    // `large`: also a batched cdist on the mm path (too large for finite differences).
    auto samples = [](ScalarType dt, bool large) {
      auto m = [&](std::vector<int64_t> s, uint64_t seed) {
        return make_tensor(s, dt, -2, 2, seed);
      };
      std::vector<Sample> out = {{{m({4, 3}, 1), m({4, 3}, 2), arg(0)}, "cosine 2-d"},
                                 {{m({4, 3}, 1), m({1, 3}, 2), arg(0)}, "cosine broadcast"},
                                 {{m({4, 3}, 1), m({4, 3}, 2), arg(1)}, "pairwise"},
                                 {{m({3}, 1), m({3}, 2), arg(1)}, "pairwise 1-d"}};
      for (int64_t p : {0, 1, 2, 3, 4}) {  // p: 0, 1, 2, 3, inf (4)
        out.push_back({{m({4, 3}, 3), m({5, 3}, 4), arg(2 + p)}, "cdist p " + std::to_string(p)});
      }
      if (large) {
        out.push_back({{m({2, 30, 3}, 5), m({2, 27, 3}, 6), arg(4)}, "cdist batched mm path"});
      }
      return out;
    };
    info.samples = [samples](ScalarType dt) { return samples(dt, true); };
    info.grad_samples = [samples] { return samples(kFloat64, false); };
    info.op = [](const std::vector<Tensor>& in) {
      const int64_t k = arg_of(in[2]);
      if (k == 0) return F::cosine_similarity(in[0], in[1]);
      if (k == 1) return F::pairwise_distance(in[0], in[1]);
      const double p = k == 6 ? INFINITY : static_cast<double>(k - 2);
      return F::cdist(in[0], in[1], p);
    };
    info.arg_inputs = {2};
    info.reference = [](const std::vector<Tensor>& in) {
      const int64_t k = arg_of(in[2]);
      Arr a(in[0]), b(in[1]);
      std::vector<double> out;
      if (k <= 1) {
        const int64_t d = a.shape.back(), rows = std::max(a.numel(), b.numel()) / d;
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t ra = a.numel() == d ? 0 : r, rb = b.numel() == d ? 0 : r;
          double dot = 0, na = 0, nb = 0, dist = 0;
          for (int64_t j = 0; j < d; ++j) {
            const double x = a.v[ra * d + j], y = b.v[rb * d + j];
            dot += x * y, na += x * x, nb += y * y;
            dist += (x - y + 1e-6) * (x - y + 1e-6);
          }
          out.push_back(k == 0
                            ? dot / (std::max(std::sqrt(na), 1e-8) * std::max(std::sqrt(nb), 1e-8))
                            : std::sqrt(dist));
        }
        auto shape = a.numel() >= b.numel() ? a.shape : b.shape;
        shape.pop_back();
        return Reference{shape, out, in[0].dtype()};
      }
      const double p = k == 6 ? INFINITY : static_cast<double>(k - 2);
      const int64_t batch = a.dim() == 3 ? a.shape[0] : 1, P = a.size(-2), R = b.size(-2),
                    M = a.size(-1);
      for (int64_t bb = 0; bb < batch; ++bb) {
        for (int64_t i = 0; i < P; ++i) {
          for (int64_t j = 0; j < R; ++j) {
            double acc = 0;
            for (int64_t m = 0; m < M; ++m) {
              const double d = std::fabs(a.v[(bb * P + i) * M + m] - b.v[(bb * R + j) * M + m]);
              if (p == 0)
                acc += d != 0;
              else if (std::isinf(p))
                acc = std::max(acc, d);
              else
                acc += std::pow(d, p);
            }
            out.push_back(p == 0 || std::isinf(p) ? acc : std::pow(acc, 1 / p));
          }
        }
      }
      std::vector<int64_t> shape = {P, R};
      if (a.dim() == 3) shape.insert(shape.begin(), batch);
      return Reference{shape, out, in[0].dtype()};
    };
    info.tol_scale = 8;
    ops.push_back(info);
  }
  return ops;
}

INSTANTIATE_TEST_SUITE_P(NNMisc, OpTest, ::testing::ValuesIn(misc_ops()), op_test_name);

TEST(NNMisc, OneHot) {
  Tensor t = ids({2, 2}, {0, 3, 1, 1});
  Tensor r = F::one_hot(t);
  EXPECT_EQ(r.dtype(), kInt64);
  EXPECT_TRUE(close(r, {2, 2, 4}, {1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0}, 0, 0));
  EXPECT_EQ(F::one_hot(t, 6).sizes(), (std::vector<int64_t>{2, 2, 6}));
  EXPECT_EQ(F::one_hot(ids({0}, {}), 3).sizes(), (std::vector<int64_t>{0, 3}));
  expect_errors<RuntimeError>({
      {"too small", [&] { F::one_hot(t, 3); }, "Class values must be smaller than num_classes."},
      {"negative", [&] { F::one_hot(ids({1}, {-1})); }, "Class values must be non-negative."},
      {"empty infer", [&] { F::one_hot(ids({0}, {})); },
       "Can not infer total number of classes from empty tensor."},
      {"float", [&] { F::one_hot(make_tensor({2}, kFloat32)); }, "[one_hot]"},
  });
}

TEST(NNMisc, EmbeddingMaxNormRenormalizesWeightInPlace) {
  Tensor w = from_values({3, 2}, {3, 4, 0.3, 0.4, 6, 8}, kFloat64);
  Tensor out = F::embedding(ids({2}, {0, 1}), w, F::EmbeddingFuncOptions().max_norm(1.0));
  const double s = 1.0 / (5 + 1e-7);
  EXPECT_TRUE(close(out, {2, 2}, {3 * s, 4 * s, 0.3, 0.4}, 1e-12, 0));
  EXPECT_TRUE(close(w, {3, 2}, {3 * s, 4 * s, 0.3, 0.4, 6, 8}, 1e-12, 0));  // row 2 untouched
}

TEST(NNMisc, EmbeddingErrors) {
  Tensor w = make_tensor({4, 2}, kFloat32);
  expect_errors<IndexError>({
      {"index too large",
       [&] {
         F::embedding(ids({2}, {1, 4}), w);
       },
       "index out of range in self"},
      {"negative index", [&] { F::embedding(ids({1}, {-1}), w); }, "[embedding]"},
      {"bag index",
       [&] {
         F::embedding_bag(ids({2, 2}, {0, 9, 1, 1}), w);
       },
       "[embedding_bag]"},
  });
  expect_errors<TypeError>({
      {"float indices", [&] { F::embedding(make_tensor({2}, kFloat32), w); }, "float32"},
  });
  expect_errors<ValueError>({
      {"padding_idx",
       [&] { F::embedding(ids({1}, {0}), w, F::EmbeddingFuncOptions().padding_idx(4)); },
       "Padding_idx must be within num_embeddings"},
      {"2-d with offsets",
       [&] {
         F::embedding_bag(ids({2, 2}, {0, 1, 1, 1}), w,
                          F::EmbeddingBagFuncOptions().offsets(ids({2}, {0, 1})));
       },
       "offsets has to be None"},
      {"1-d without offsets",
       [&] {
         F::embedding_bag(ids({2}, {0, 1}), w);
       },
       "offsets has to be a 1D Tensor"},
  });
  expect_errors<RuntimeError>({
      {"psw with mean",
       [&] {
         F::embedding_bag(ids({2, 2}, {0, 1, 1, 1}), w,
                          F::EmbeddingBagFuncOptions().per_sample_weights(ember::ones({2, 2})));
       },
       "per_sample_weights is only supported for mode='sum'"},
      {"offsets[0] != 0",
       [&] {
         F::embedding_bag(ids({3}, {0, 1, 1}), w,
                          F::EmbeddingBagFuncOptions().offsets(ids({2}, {1, 2})));
       },
       "offsets[0] has to be 0"},
      {"decreasing offsets (the kernel reads them)",
       [&] {
         F::embedding_bag(ids({3}, {0, 1, 1}), w,
                          F::EmbeddingBagFuncOptions().offsets(ids({3}, {0, 2, 1})));
       },
       "offsets must be non-decreasing and within the input, but got offsets[2] = 1"},
      {"offsets past the indices",
       [&] {
         F::embedding_bag(ids({3}, {0, 1, 1}), w,
                          F::EmbeddingBagFuncOptions().offsets(ids({2}, {0, 4})));
       },
       "but got offsets[1] = 4"},
      {"include_last_offset without offsets",
       [&] {
         F::embedding_bag(ids({0}, {}), w,
                          F::EmbeddingBagFuncOptions().offsets(ids({0}, {})).include_last_offset(
                              true));
       },
       "number of offsets should be at least 1"},
  });
}

TEST(NNMisc, Dropout) {
  Tensor x = ember::ones({200, 50});
  manual_seed(3);
  Tensor a = F::dropout(x, F::DropoutFuncOptions().p(0.3));
  manual_seed(3);
  Tensor b = F::dropout(x, 0.3);
  EXPECT_TRUE(a.equal(b));
  int64_t zeros = 0;
  for (double v : values(a)) {
    if (v == 0)
      ++zeros;
    else
      EXPECT_NEAR(v, 1 / 0.7, 1e-6);
  }
  EXPECT_NEAR(static_cast<double>(zeros) / 10000, 0.3, 0.03);
  EXPECT_TRUE(F::dropout(x, F::DropoutFuncOptions().training(false)).is_same(x));
  for (double v : values(F::dropout(x, 1.0))) EXPECT_EQ(v, 0.0);
  // dropout2d zeroes whole channels: each (n, c) plane is all zero or all 1 / (1 - p).
  Tensor y = F::dropout2d(ember::ones({4, 8, 3, 3}), F::Dropout2dFuncOptions().p(0.5));
  auto yv = values(y);
  for (int64_t plane = 0; plane < 32; ++plane) {
    for (int64_t i = 1; i < 9; ++i) EXPECT_EQ(yv[plane * 9 + i], yv[plane * 9]);
  }
  EXPECT_EQ(F::dropout2d(ember::ones({8, 3, 3})).sizes(), (std::vector<int64_t>{8, 3, 3}));
  // alpha_dropout keeps mean 0 and variance 1 of a standard normal input (training only).
  Tensor n = ember::randn({100000});
  Tensor ad = F::alpha_dropout(n, F::AlphaDropoutFuncOptions().p(0.2).training(true));
  double mean = 0, var = 0;
  auto av = values(ad);
  for (double v : av) mean += v / av.size();
  for (double v : av) var += (v - mean) * (v - mean) / av.size();
  EXPECT_NEAR(mean, 0, 0.02);
  EXPECT_NEAR(var, 1, 0.03);
  EXPECT_TRUE(F::alpha_dropout(n).is_same(n));  // training defaults to false
  Tensor inplace = ember::ones({10});
  F::dropout(inplace, F::DropoutFuncOptions().p(0.5).inplace(true));
  for (double v : values(inplace)) EXPECT_TRUE(v == 0 || v == 2);
  expect_errors<ValueError>({
      {"p > 1", [&] { F::dropout(x, 1.5); },
       "dropout probability has to be between 0 and 1, but got 1.5"},
      {"p < 0",
       [&] {
         F::dropout2d(ember::ones({2, 2, 2}), F::Dropout2dFuncOptions().p(-0.1));
       },
       "[dropout2d]"},
      {"alpha p", [&] { F::alpha_dropout(x, F::AlphaDropoutFuncOptions().p(2)); },
       "[alpha_dropout]"},
  });
}

TEST(NNMisc, LinearAndDistanceErrors) {
  expect_errors<RuntimeError>({
      {"linear shapes",
       [&] {
         F::linear(make_tensor({2, 3}, kFloat32), make_tensor({4, 5}, kFloat32));
       },
       "["},
      {"bilinear weight",
       [&] {
         F::bilinear(make_tensor({2, 3}, kFloat32), make_tensor({2, 4}, kFloat32),
                     make_tensor({5, 3, 3}, kFloat32));
       },
       "input2 size does not match weight size"},
      {"cdist columns",
       [&] {
         F::cdist(make_tensor({2, 3}, kFloat32), make_tensor({2, 4}, kFloat32));
       },
       "X1 and X2 must have the same number of columns"},
      {"cdist 1-d",
       [&] {
         F::cdist(make_tensor({3}, kFloat32), make_tensor({2, 3}, kFloat32));
       },
       "cdist only supports at least 2D tensors"},
      {"cdist p",
       [&] {
         F::cdist(make_tensor({2, 3}, kFloat32), make_tensor({2, 3}, kFloat32), -1);
       },
       "non-negative p"},
  });
  expect_errors<TypeError>({
      {"cdist int",
       [&] {
         F::cdist(make_tensor({2, 3}, kInt64), make_tensor({2, 3}, kInt64));
       },
       "int64"},
  });
}

}  // namespace
}  // namespace ember::test
