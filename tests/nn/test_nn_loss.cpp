// nn::functional losses against float64 references written with plain loops: every reduction,
// class weights, ignore_index, label smoothing, N-d inputs, probability targets, stable forms at
// extreme logits, and PyTorch's errors.
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

enum Red : int64_t { kRedNone = 0, kRedMean = 1, kRedSum = 2 };
constexpr int64_t kSmooth = 4;  // flag: label_smoothing 0.1

/// Options `o` with the reduction coded in flags' low bits.
template <typename O>
O red(O o, int64_t flags) {
  switch (flags & 3) {
    case kRedNone:
      return o.reduction(ember::kNone);
    case kRedSum:
      return o.reduction(ember::kSum);
    default:
      return o.reduction(ember::kMean);
  }
}

Reference reduce_ref(const std::vector<double>& l, const std::vector<int64_t>& shape, int64_t flags,
                     ScalarType dt) {
  double s = 0;
  for (double x : l) s += x;
  switch (flags & 3) {
    case kRedNone:
      return {shape, l, dt};
    case kRedSum:
      return {{}, {s}, dt};
    default:
      return {{}, {s / static_cast<double>(l.size())}, dt};
  }
}

/// Integer class targets with a few ignore_index (-100) entries.
Tensor class_target(const std::vector<int64_t>& shape, int64_t c, uint64_t seed, bool ignore) {
  Tensor t = make_tensor(shape, kFloat64, 0, static_cast<double>(c), seed);
  auto v = values(t);
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = std::floor(v[i]);
    if (ignore && i % 5 == 3) v[i] = -100;
  }
  return from_values(shape, v, kInt64);
}

/// Samples {input, target, flags[, weight]} for class-index losses with C = 5.
std::vector<Sample> class_samples(ScalarType dt, bool smoothing) {
  auto mk = [&](std::vector<int64_t> s, uint64_t seed) { return make_tensor(s, dt, -4, 4, seed); };
  Tensor w = make_tensor({5}, dt, 0.2, 2, 9);
  const int64_t sm = smoothing ? kSmooth : 0;
  std::vector<Sample> out;
  for (int64_t red : {kRedNone, kRedMean, kRedSum}) {
    const std::string r = red == kRedNone ? " none" : red == kRedMean ? " mean" : " sum";
    out.push_back({{mk({4, 5}, 1), class_target({4}, 5, 2, false), arg(red | sm)}, "2-d" + r});
    out.push_back(
        {{mk({6, 5}, 1), class_target({6}, 5, 3, true), arg(red | sm), w}, "weight ignore" + r});
    out.push_back(
        {{mk({2, 5, 3, 2}, 4), class_target({2, 3, 2}, 5, 5, true), arg(red | sm), w}, "4-d" + r});
    out.push_back({{mk({5}, 6), class_target({}, 5, 7, false), arg(red | sm)}, "1-d" + r});
    out.push_back(
        {{make_noncontiguous(mk({3, 5}, 8)), class_target({3}, 5, 8, false), arg(red | sm)},
         "non-contiguous" + r});
  }
  out.push_back({{mk({0, 5}, 1), class_target({0}, 5, 2, false), arg(kRedSum | sm)}, "empty sum"});
  out.push_back(
      {{mk({0, 5}, 1), class_target({0}, 5, 2, false), arg(kRedMean | sm)}, "empty mean (nan)"});
  return out;
}

/// -w[t] * logp[t] with class dim 1 (0 for 1-d), ignore_index -100, optional label smoothing.
Reference class_ref(const std::vector<Tensor>& in, bool log_softmax_first) {
  Arr x(in[0]);
  auto t = values(in[1]);
  const int64_t flags = arg_of(in[2]);
  const double ls = (flags & kSmooth) ? 0.1 : 0.0;
  std::vector<double> w = in.size() > 3 ? values(in[3]) : std::vector<double>();
  const int64_t cd = x.dim() == 1 ? 0 : 1, c = x.shape[cd];
  std::vector<double> logp = log_softmax_first ? nn::softmax_ref(x, cd, true) : x.v;
  int64_t inner = 1;
  for (int64_t d = cd + 1; d < x.dim(); ++d) inner *= x.shape[d];
  std::vector<double> nll(t.size()), smooth(t.size());
  double wsum = 0, nvalid = 0;
  for (size_t p = 0; p < t.size(); ++p) {
    const int64_t n = static_cast<int64_t>(p) / inner, r = static_cast<int64_t>(p) % inner;
    auto lp = [&](int64_t k) { return logp[(n * c + k) * inner + r]; };
    if (t[p] == -100) continue;
    const int64_t k = static_cast<int64_t>(t[p]);
    const double wk = w.empty() ? 1 : w[k];
    nll[p] = -wk * lp(k);
    wsum += wk;
    nvalid += 1;
    for (int64_t j = 0; j < c; ++j) smooth[p] -= (w.empty() ? 1 : w[j]) * lp(j);
  }
  std::vector<double> l(t.size());
  for (size_t p = 0; p < t.size(); ++p) l[p] = (1 - ls) * nll[p] + ls / c * smooth[p];
  auto shape = in[1].sizes();
  if ((flags & 3) == kRedNone) return {shape, l, in[0].dtype()};
  double sn = 0, ss = 0;
  for (size_t p = 0; p < t.size(); ++p) sn += nll[p], ss += smooth[p];
  if ((flags & 3) == kRedSum) return {{}, {(1 - ls) * sn + ls / c * ss}, in[0].dtype()};
  const double mean = (1 - ls) * sn / wsum + ls / c * ss / (w.empty() ? nvalid : wsum);
  return {{}, {mean}, in[0].dtype()};
}

OpInfo class_loss(const std::string& name, bool smoothing, bool nll) {
  OpInfo info;
  info.name = name;
  info.dtypes = float_dtypes();
  info.samples = [smoothing](ScalarType dt) { return class_samples(dt, smoothing); };
  info.op = [nll](const std::vector<Tensor>& in) {
    const int64_t flags = arg_of(in[2]);
    Tensor w = in.size() > 3 ? in[3] : Tensor();
    if (nll) return F::nll_loss(in[0], in[1], red(F::NLLLossFuncOptions().weight(w), flags));
    return F::cross_entropy(in[0], in[1],
                            red(F::CrossEntropyFuncOptions().weight(w), flags)
                                .label_smoothing((flags & kSmooth) ? 0.1 : 0.0));
  };
  info.arg_inputs = {2};
  info.reference = [nll](const std::vector<Tensor>& in) { return class_ref(in, !nll); };
  info.tol_scale = 4;
  info.rejected_dtypes = integral_dtypes(true);
  return info;
}

/// A pointwise loss of (input, target): samples {input, target, flags}; f(x, y) per element.
OpInfo pointwise_loss(const std::string& name,
                      std::function<Tensor(const Tensor&, const Tensor&, int64_t)> op,
                      std::function<double(double, double)> f, double lo = -3, double hi = 3,
                      double tlo = -3, double thi = 3) {
  OpInfo info;
  info.name = name;
  info.dtypes = float_dtypes();
  info.samples = [=](ScalarType dt) {
    std::vector<Sample> out;
    for (int64_t red : {kRedNone, kRedMean, kRedSum}) {
      const std::string r = red == kRedNone ? " none" : red == kRedMean ? " mean" : " sum";
      out.push_back(
          {{make_tensor({4, 5}, dt, lo, hi, 1), make_tensor({4, 5}, dt, tlo, thi, 2), arg(red)},
           "2-d" + r});
      out.push_back({{make_tensor({}, dt, lo, hi, 3), make_tensor({}, dt, tlo, thi, 4), arg(red)},
                     "0-d" + r});
      out.push_back({{make_noncontiguous(make_tensor({3, 4}, dt, lo, hi, 5)),
                      make_tensor({3, 4}, dt, tlo, thi, 6), arg(red)},
                     "non-contiguous" + r});
    }
    out.push_back(
        {{make_tensor({0, 3}, dt, lo, hi, 1), make_tensor({0, 3}, dt, tlo, thi, 2), arg(kRedSum)},
         "empty sum"});
    return out;
  };
  info.op = [op](const std::vector<Tensor>& in) { return op(in[0], in[1], arg_of(in[2])); };
  info.arg_inputs = {2};
  info.reference = [f](const std::vector<Tensor>& in) {
    auto x = values(in[0]), y = values(in[1]);
    std::vector<double> l(x.size());
    for (size_t i = 0; i < x.size(); ++i) l[i] = f(x[i], y[i]);
    return reduce_ref(l, in[0].sizes(), arg_of(in[2]), in[0].dtype());
  };
  info.tol_scale = 4;
  info.rejected_dtypes = integral_dtypes(true);
  return info;
}

double log_sigmoid(double x) { return std::min(x, 0.0) - std::log1p(std::exp(-std::fabs(x))); }

std::vector<OpInfo> loss_ops() {
  std::vector<OpInfo> ops = {
      class_loss("cross_entropy", false, false),
      class_loss("cross_entropy_label_smoothing", true, false),
      class_loss("nll_loss", false, true),
      pointwise_loss(
          "mse_loss",
          [](const Tensor& x, const Tensor& y, int64_t r) {
            return F::mse_loss(x, y, red(F::MSELossFuncOptions(), r));
          },
          [](double x, double y) { return (x - y) * (x - y); }),
      pointwise_loss(
          "l1_loss",
          [](const Tensor& x, const Tensor& y, int64_t r) {
            return F::l1_loss(x, y, red(F::L1LossFuncOptions(), r));
          },
          [](double x, double y) { return std::fabs(x - y); }),
      pointwise_loss(
          "smooth_l1_loss",
          [](const Tensor& x, const Tensor& y, int64_t r) {
            return F::smooth_l1_loss(x, y, red(F::SmoothL1LossFuncOptions(), r).beta(0.5));
          },
          [](double x, double y) {
            const double z = std::fabs(x - y);
            return z < 0.5 ? 0.5 * z * z / 0.5 : z - 0.25;
          }),
      pointwise_loss(
          "smooth_l1_loss_beta0",
          [](const Tensor& x, const Tensor& y, int64_t r) {
            return F::smooth_l1_loss(x, y, red(F::SmoothL1LossFuncOptions(), r), 0.0);
          },
          [](double x, double y) { return std::fabs(x - y); }),
      pointwise_loss(
          "huber_loss",
          [](const Tensor& x, const Tensor& y, int64_t r) {
            return F::huber_loss(x, y, red(F::HuberLossFuncOptions(), r).delta(0.7));
          },
          [](double x, double y) {
            const double z = std::fabs(x - y);
            return z < 0.7 ? 0.5 * z * z : 0.7 * (z - 0.35);
          }),
      pointwise_loss(
          "binary_cross_entropy",
          [](const Tensor& x, const Tensor& y, int64_t r) {
            return F::binary_cross_entropy(x, y, red(F::BinaryCrossEntropyFuncOptions(), r));
          },
          [](double x, double y) { return -(y * std::log(x) + (1 - y) * std::log1p(-x)); }, 0.02,
          0.98, 0, 1),
      pointwise_loss(
          "binary_cross_entropy_with_logits",
          [](const Tensor& x, const Tensor& y, int64_t r) {
            return F::binary_cross_entropy_with_logits(
                x, y, red(F::BinaryCrossEntropyWithLogitsFuncOptions(), r));
          },
          [](double x, double y) { return (1 - y) * x - log_sigmoid(x); }, -30, 30, 0, 1),
      pointwise_loss(
          "kl_div",
          [](const Tensor& x, const Tensor& y, int64_t r) {
            return F::kl_div(x, y, red(F::KLDivFuncOptions(), r));
          },
          [](double x, double y) { return (y == 0 ? 0 : y * std::log(y)) - y * x; }, -3, 0, 0, 1),
      pointwise_loss(
          "kl_div_log_target",
          [](const Tensor& x, const Tensor& y, int64_t r) {
            return F::kl_div(x, y, red(F::KLDivFuncOptions(), r).log_target(true));
          },
          [](double x, double y) { return std::exp(y) * (y - x); }, -3, 0, -3, 0),
  };
  // Weighted variants with broadcast weights: {x, y, weight}.
  {
    OpInfo info;
    info.name = "bce_weight_and_bce_with_logits_pos_weight";
    info.dtypes = float_dtypes();
    info.samples = [](ScalarType dt) {
      return std::vector<Sample>{
          {{make_tensor({4, 3}, dt, 0.05, 0.95, 1), make_tensor({4, 3}, dt, 0, 1, 2),
            make_tensor({3}, dt, 0.5, 2, 3), arg(0)},
           "bce weight"},
          {{make_tensor({4, 3}, dt, -40, 40, 1), make_tensor({4, 3}, dt, 0, 1, 2),
            make_tensor({3}, dt, 0.5, 3, 3), arg(1)},
           "logits pos_weight"}};
    };
    info.op = [](const std::vector<Tensor>& in) {
      if (arg_of(in[3]) == 0) {
        return F::binary_cross_entropy(
            in[0], in[1], F::BinaryCrossEntropyFuncOptions().weight(in[2]).reduction(ember::kNone));
      }
      return F::binary_cross_entropy_with_logits(
          in[0], in[1],
          F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(in[2]).weight(in[2]).reduction(
              ember::kNone));
    };
    info.arg_inputs = {3};
    info.reference = [](const std::vector<Tensor>& in) {
      auto x = values(in[0]), y = values(in[1]), w = values(in[2]);
      std::vector<double> l(x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        const double wi = w[i % 3];
        l[i] = arg_of(in[3]) == 0
                   ? -wi * (y[i] * std::log(x[i]) + (1 - y[i]) * std::log1p(-x[i]))
                   : wi * ((1 - y[i]) * x[i] - (1 + (wi - 1) * y[i]) * log_sigmoid(x[i]));
      }
      return Reference{in[0].sizes(), l, in[0].dtype()};
    };
    info.tol_scale = 4;
    ops.push_back(info);
  }
  {  // class probabilities
    OpInfo info;
    info.name = "cross_entropy_probabilities";
    info.dtypes = float_dtypes();
    info.samples = [](ScalarType dt) {
      std::vector<Sample> out;
      for (int64_t flags :
           std::initializer_list<int64_t>{kRedNone, kRedMean, kRedSum, kRedMean | kSmooth}) {
        out.push_back({{make_tensor({3, 4}, dt, -3, 3, 1), make_tensor({3, 4}, dt, 0, 1, 2),
                        arg(flags), make_tensor({4}, dt, 0.5, 2, 3)},
                       "2-d " + std::to_string(flags)});
        out.push_back({{make_tensor({2, 4, 3}, dt, -3, 3, 4), make_tensor({2, 4, 3}, dt, 0, 1, 5),
                        arg(flags)},
                       "3-d " + std::to_string(flags)});
      }
      return out;
    };
    info.op = [](const std::vector<Tensor>& in) {
      const int64_t flags = arg_of(in[2]);
      return F::cross_entropy(in[0], in[1],
                              red(F::CrossEntropyFuncOptions(), flags)
                                  .weight(in.size() > 3 ? in[3] : Tensor())
                                  .label_smoothing((flags & kSmooth) ? 0.1 : 0.0));
    };
    info.arg_inputs = {2};
    info.reference = [](const std::vector<Tensor>& in) {
      Arr x(in[0]);
      auto t = values(in[1]);
      const int64_t flags = arg_of(in[2]);
      const double ls = (flags & kSmooth) ? 0.1 : 0.0;
      std::vector<double> w = in.size() > 3 ? values(in[3]) : std::vector<double>();
      const int64_t c = x.shape[1], inner = x.numel() / (x.shape[0] * c);
      auto lp = nn::softmax_ref(x, 1, true);
      std::vector<double> l(x.shape[0] * inner, 0);
      for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t n = i / (c * inner), k = (i / inner) % c, r = i % inner;
        const double ti = t[i] * (1 - ls) + ls / c;
        l[n * inner + r] -= (w.empty() ? 1 : w[k]) * lp[i] * ti;
      }
      std::vector<int64_t> shape = in[0].sizes();
      shape.erase(shape.begin() + 1);
      auto ref = reduce_ref(l, shape, flags, in[0].dtype());
      return ref;
    };
    info.tol_scale = 4;
    ops.push_back(info);
  }
  {  // margin_ranking_loss and cosine_embedding_loss: {x1, x2, target, flags}
    OpInfo info;
    info.name = "margin_ranking_and_cosine_embedding";
    info.dtypes = float_dtypes();
    info.samples = [](ScalarType dt) {
      Tensor y = from_values({4}, {1, -1, -1, 1}, dt);
      std::vector<Sample> out;
      for (int64_t red : {kRedNone, kRedMean, kRedSum}) {
        out.push_back(
            {{make_tensor({4}, dt, -2, 2, 1), make_tensor({4}, dt, -2, 2, 2), y, arg(red)},
             "ranking"});
        out.push_back({{make_tensor({4, 3}, dt, -2, 2, 3), make_tensor({4, 3}, dt, -2, 2, 4), y,
                        arg(red | 8)},
                       "cosine"});
      }
      out.push_back({{make_tensor({3}, dt, -2, 2, 3), make_tensor({3}, dt, -2, 2, 4),
                      from_values({}, {-1}, dt), arg(kRedNone | 8)},
                     "cosine 0-d target"});
      return out;
    };
    info.op = [](const std::vector<Tensor>& in) {
      const int64_t flags = arg_of(in[3]);
      if (flags & 8) {
        return F::cosine_embedding_loss(
            in[0], in[1], in[2], red(F::CosineEmbeddingLossFuncOptions().margin(0.3), flags));
      }
      return F::margin_ranking_loss(in[0], in[1], in[2],
                                    red(F::MarginRankingLossFuncOptions().margin(0.2), flags));
    };
    info.arg_inputs = {3};
    info.reference = [](const std::vector<Tensor>& in) {
      const int64_t flags = arg_of(in[3]);
      auto a = values(in[0]), b = values(in[1]), y = values(in[2]);
      std::vector<double> l;
      if (flags & 8) {
        const int64_t rows = static_cast<int64_t>(y.size()),
                      d = static_cast<int64_t>(a.size()) / rows;
        for (int64_t r = 0; r < rows; ++r) {
          double p = 0, m1 = 1e-12, m2 = 1e-12;
          for (int64_t k = 0; k < d; ++k) {
            p += a[r * d + k] * b[r * d + k];
            m1 += a[r * d + k] * a[r * d + k];
            m2 += b[r * d + k] * b[r * d + k];
          }
          const double cs = p / std::sqrt(m1 * m2);
          l.push_back(y[r] == 1 ? 1 - cs : std::max(0.0, cs - 0.3));
        }
        return reduce_ref(l, in[2].sizes(), flags, in[0].dtype());
      }
      for (size_t i = 0; i < a.size(); ++i) l.push_back(std::max(0.0, -y[i] * (a[i] - b[i]) + 0.2));
      return reduce_ref(l, in[0].sizes(), flags, in[0].dtype());
    };
    info.tol_scale = 4;
    ops.push_back(info);
  }
  return ops;
}

INSTANTIATE_TEST_SUITE_P(NNLoss, OpTest, ::testing::ValuesIn(loss_ops()), op_test_name);

TEST(NNLoss, StableAtExtremeLogits) {
  Tensor x = from_values({2, 3}, {1000, 0, -1000, -1000, 0, 1000}, kFloat32);
  Tensor t = from_values({2}, {0, 0}, kInt64);
  auto l = values(F::cross_entropy(x, t, F::CrossEntropyFuncOptions().reduction(ember::kNone)));
  EXPECT_NEAR(l[0], 0.0, 1e-6);
  EXPECT_NEAR(l[1], 2000.0, 1e-2);
  Tensor z = from_values({3}, {-200, 0, 200}, kFloat32);
  auto b = values(F::binary_cross_entropy_with_logits(
      z, from_values({3}, {1, 1, 0}, kFloat32),
      F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(ember::kNone)));
  EXPECT_NEAR(b[0], 200.0, 1e-3);
  EXPECT_NEAR(b[1], std::log(2.0), 1e-6);
  EXPECT_NEAR(b[2], 200.0, 1e-3);
  // binary_cross_entropy clamps log terms at -100.
  auto c = values(F::binary_cross_entropy(
      from_values({2}, {0, 1}, kFloat32), from_values({2}, {1, 0}, kFloat32),
      F::BinaryCrossEntropyFuncOptions().reduction(ember::kNone)));
  EXPECT_EQ(c[0], 100.0);
  EXPECT_EQ(c[1], 100.0);
}

TEST(NNLoss, KlDivBatchmeanAndAllIgnored) {
  Tensor x = make_tensor({4, 3}, kFloat64, -3, 0, 1), y = make_tensor({4, 3}, kFloat64, 0, 1, 2);
  const double sum = F::kl_div(x, y, ember::kSum).item<double>();
  EXPECT_NEAR(F::kl_div(x, y, ember::kBatchMean).item<double>(), sum / 4, 1e-12);
  Tensor logits = make_tensor({2, 3}, kFloat32);
  Tensor all_ignored = from_values({2}, {-100, -100}, kInt64);
  EXPECT_TRUE(std::isnan(F::cross_entropy(logits, all_ignored).item<double>()));
  EXPECT_EQ(
      F::cross_entropy(logits, all_ignored, F::CrossEntropyFuncOptions().reduction(ember::kSum))
          .item<double>(),
      0.0);
}

TEST(NNLoss, Errors) {
  Tensor x = make_tensor({3, 5}, kFloat32);
  Tensor t = from_values({3}, {1, 7, 2}, kInt64);
  expect_errors<IndexError>({
      {"cross_entropy class out of range", [&] { F::cross_entropy(x, t); },
       "Target 7 is out of bounds."},
      {"cross_entropy names the op", [&] { F::cross_entropy(x, t); }, "[cross_entropy]"},
      {"nll_loss negative class",
       [&] {
         F::nll_loss(x, from_values({3}, {1, -1, 2}, kInt64));
       },
       "Target -1 is out of bounds."},
  });
  expect_errors<ValueError>({
      {"batch size",
       [&] {
         F::cross_entropy(x, from_values({2}, {1, 2}, kInt64));
       },
       "Expected input batch_size (3) to match target batch_size (2)."},
      {"bce sizes",
       [&] {
         F::binary_cross_entropy(make_tensor({3}, kFloat32, 0, 1),
                                 make_tensor({3, 1}, kFloat32, 0, 1));
       },
       "Using a target size (torch.Size([3, 1])) that is different to the input size "
       "(torch.Size([3]))"},
      {"bce logits sizes",
       [&] {
         F::binary_cross_entropy_with_logits(make_tensor({3}, kFloat32),
                                             make_tensor({3, 1}, kFloat32));
       },
       "must be the same as input size"},
      {"0-d input",
       [&] { F::cross_entropy(make_tensor({}, kFloat32), from_values({}, {0}, kInt64)); },
       "Expected 1 or more dimensions"},
  });
  expect_errors<RuntimeError>({
      {"N-d target shape",
       [&] {
         F::cross_entropy(make_tensor({2, 5, 3}, kFloat32), class_target({2, 4}, 5, 1, false));
       },
       "Expected target size [2, 3], got [2, 4]"},
      {"weight size",
       [&] {
         F::cross_entropy(x, from_values({3}, {1, 0, 2}, kInt64),
                          F::CrossEntropyFuncOptions().weight(ember::ones({4})));
       },
       "weight tensor should be defined either for all 5 classes or no classes"},
      {"label smoothing range",
       [&] {
         F::cross_entropy(x, from_values({3}, {1, 0, 2}, kInt64),
                          F::CrossEntropyFuncOptions().label_smoothing(1.5));
       },
       "label_smoothing must be between 0.0 and 1.0"},
      {"probabilities with ignore_index",
       [&] {
         F::cross_entropy(x, make_tensor({3, 5}, kFloat32),
                          F::CrossEntropyFuncOptions().ignore_index(1));
       },
       "ignore_index is not supported for floating point target"},
      {"bce input range",
       [&] {
         F::binary_cross_entropy(from_values({2}, {0.5, 1.5}, kFloat32),
                                 from_values({2}, {0, 1}, kFloat32));
       },
       "all elements of input should be between 0 and 1"},
      {"smooth_l1 beta", [&] { F::smooth_l1_loss(x, x, F::SmoothL1LossFuncOptions().beta(-1)); },
       "negative values for beta"},
      {"huber delta", [&] { F::huber_loss(x, x, F::HuberLossFuncOptions().delta(0)); },
       "non-positive values for delta"},
      {"margin ranking dims",
       [&] {
         F::margin_ranking_loss(make_tensor({3}, kFloat32), make_tensor({3}, kFloat32),
                                make_tensor({3, 1}, kFloat32));
       },
       "All input tensors should have same dimension"},
      {"cosine embedding dims",
       [&] {
         F::cosine_embedding_loss(make_tensor({3}, kFloat32), make_tensor({3}, kFloat32),
                                  make_tensor({3}, kFloat32));
       },
       "1D target tensor expects 2D input tensors"},
  });
  expect_errors<TypeError>({
      {"int32 class target", [&] { F::cross_entropy(x, t.to(kInt32)); }, "int32"},
      {"float target of another shape", [&] { F::nll_loss(x, make_tensor({3}, kFloat32)); },
       "float32"},
      {"int input", [&] { F::mse_loss(make_tensor({3}, kInt64), make_tensor({3}, kInt64)); },
       "int64"},
  });
}

}  // namespace
}  // namespace ember::test
