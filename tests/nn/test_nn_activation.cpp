// nn::functional activations: softmax family (fused primitive) and the composite activations
// against float64 references written with plain loops, over the floating dtypes.
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

const std::vector<ScalarType> kNonFloat = integral_dtypes(true);

/// Samples {x, dim} for ops along a dim: 0-d, empty, negative dims, inner > 1, non-contiguous.
std::vector<Sample> dim_samples(ScalarType dt) {
  auto mk = [&](std::vector<int64_t> s, uint64_t seed) { return make_tensor(s, dt, -5, 5, seed); };
  std::vector<Sample> out = {
      {{mk({}, 1), arg(0)}, "0-d"},
      {{mk({}, 1), arg(-1)}, "0-d dim -1"},
      {{mk({0, 3}, 1), arg(1)}, "empty"},
      {{mk({7}, 2), arg(0)}, "1-d"},
      {{mk({3, 5}, 3), arg(1)}, "2-d dim 1"},
      {{mk({3, 5}, 3), arg(0)}, "2-d dim 0"},
      {{mk({3, 5}, 3), arg(-2)}, "2-d dim -2"},
      {{mk({2, 3, 4}, 4), arg(1)}, "3-d dim 1 (inner > 1)"},
      {{mk({40, 37}, 5), arg(-1)}, "2-d-large"},
      {{make_noncontiguous(mk({4, 6}, 6)), arg(1)}, "non-contiguous dim 1"},
      {{make_noncontiguous(mk({4, 6}, 6)), arg(0)}, "non-contiguous dim 0"},
      {{make_expanded(mk({1, 4}, 7), {5, 4}), arg(0)}, "expanded"},
  };
  if (dt == kFloat32 || dt == kFloat64) {
    out.push_back({{make_tensor({3, 9}, dt, -90, 90, 8), arg(1)}, "large magnitudes"});
  }
  return out;
}

OpInfo softmax_info(const std::string& name, bool log, bool min) {
  OpInfo info;
  info.name = name;
  info.dtypes = float_dtypes();
  info.samples = dim_samples;
  info.grad_samples = [] { return without_large(dim_samples(kFloat64)); };
  info.op = [log, min](const std::vector<Tensor>& in) {
    const int64_t dim = arg_of(in[1]);
    if (min) return F::softmin(in[0], dim);
    return log ? F::log_softmax(in[0], F::LogSoftmaxFuncOptions(dim)) : F::softmax(in[0], dim);
  };
  info.arg_inputs = {1};
  info.reference = [log, min](const std::vector<Tensor>& in) {
    Arr a(in[0]);
    if (min) {
      for (auto& x : a.v) x = -x;
    }
    return Reference{a.shape, nn::softmax_ref(a, arg_of(in[1]), log), in[0].dtype()};
  };
  info.tol_scale = 2;
  info.rejected_dtypes = kNonFloat;
  return info;
}

/// A pointwise activation: op(x) against f(x) elementwise.
OpInfo pointwise(const std::string& name, std::function<Tensor(const Tensor&)> op,
                 std::function<double(double)> f, std::vector<ScalarType> dtypes,
                 std::vector<ScalarType> rejected = {}, double tol = 1) {
  OpInfo info;
  info.name = name;
  info.dtypes = std::move(dtypes);
  info.samples = [](ScalarType dt) { return elementwise_samples(dt, 1); };
  info.grad_samples = [] { return elementwise_grad_samples(1); };
  info.op = [op](const std::vector<Tensor>& in) { return op(in[0]); };
  info.reference = [f](const std::vector<Tensor>& in) {
    auto v = values(in[0]);
    for (auto& x : v) x = f(x);
    return Reference{in[0].sizes(), v, in[0].dtype()};
  };
  info.rejected_dtypes = std::move(rejected);
  info.tol_scale = tol;
  return info;
}

std::vector<OpInfo> activation_ops() {
  const auto fl = float_dtypes();
  const double sa = 1.6732632423543772848170429916717, ss = 1.0507009873554804934193349852946;
  std::vector<OpInfo> ops = {
      softmax_info("softmax", false, false),
      softmax_info("log_softmax", true, false),
      softmax_info("softmin", false, true),
      pointwise(
          "selu", [](const Tensor& x) { return F::selu(x); },
          [=](double x) { return x > 0 ? ss * x : ss * sa * std::expm1(x); }, fl),
      pointwise(
          "celu", [](const Tensor& x) { return F::celu(x, F::CELUFuncOptions().alpha(2)); },
          [](double x) { return std::max(0.0, x) + std::min(0.0, 2 * std::expm1(x / 2)); }, fl),
      pointwise(
          "relu6", [](const Tensor& x) { return F::relu6(x); },
          [](double x) { return std::min(std::max(x, 0.0), 6.0); },
          {kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64}, {}),
      pointwise(
          "softsign", [](const Tensor& x) { return F::softsign(x); },
          [](double x) { return x / (1 + std::fabs(x)); }, fl, {}),
      pointwise(
          "tanhshrink", [](const Tensor& x) { return F::tanhshrink(x); },
          [](double x) { return x - std::tanh(x); }, fl, {}),
      pointwise(
          "threshold",
          [](const Tensor& x) { return F::threshold(x, F::ThresholdFuncOptions(0.5, -2)); },
          [](double x) { return x <= 0.5 ? -2.0 : x; },
          {kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64},
          {kBool, kUInt8}),  // uint8 cannot hold the value -2, as in PyTorch
      pointwise(
          "logsigmoid", [](const Tensor& x) { return F::logsigmoid(x); },
          [](double x) { return -std::log1p(std::exp(-x)); }, fl),
      pointwise(
          "hardshrink", [](const Tensor& x) { return F::hardshrink(x, 1.5); },
          [](double x) { return std::fabs(x) <= 1.5 ? 0.0 : x; }, fl),
      pointwise(
          "softshrink", [](const Tensor& x) { return F::softshrink(x); },
          [](double x) { return x > 0.5    ? x - 0.5
                                : x < -0.5 ? x + 0.5
                                           : 0.0; }, fl),
      pointwise(
          "F_gelu_tanh",
          [](const Tensor& x) { return F::gelu(x, F::GELUFuncOptions().approximate("tanh")); },
          [](double x) {
            return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
          },
          fl, kNonFloat, 2),
      pointwise(
          "F_leaky_relu",
          [](const Tensor& x) {
            return F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2));
          },
          [](double x) { return x > 0 ? x : 0.2 * x; }, fl),
      pointwise(
          "F_elu", [](const Tensor& x) { return F::elu(x, F::ELUFuncOptions().alpha(0.5)); },
          [](double x) { return x > 0 ? x : 0.5 * std::expm1(x); }, fl),
      pointwise(
          "F_hardtanh",
          [](const Tensor& x) {
            return F::hardtanh(x, F::HardtanhFuncOptions().min_val(-2).max_val(3));
          },
          [](double x) { return std::min(std::max(x, -2.0), 3.0); }, fl, {}),
      pointwise(
          "F_softplus",
          [](const Tensor& x) {
            return F::softplus(x, F::SoftplusFuncOptions().beta(2).threshold(4));
          },
          [](double x) { return 2 * x > 4 ? x : std::log1p(std::exp(2 * x)) / 2; }, fl),
      pointwise(
          "F_silu", [](const Tensor& x) { return F::silu(x); },
          [](double x) { return x / (1 + std::exp(-x)); }, fl),
  };
  // glu: {x, dim}
  OpInfo glu;
  glu.name = "glu";
  glu.dtypes = fl;
  glu.samples = [](ScalarType dt) {
    auto mk = [&](std::vector<int64_t> s, uint64_t seed) {
      return make_tensor(s, dt, -5, 5, seed);
    };
    return std::vector<Sample>{{{mk({4, 6}, 1), arg(-1)}, "2-d last"},
                               {{mk({2, 4, 3}, 2), arg(1)}, "3-d dim 1"},
                               {{mk({0, 4}, 2), arg(1)}, "empty"},
                               {{make_noncontiguous(mk({3, 8}, 3)), arg(1)}, "non-contiguous"}};
  };
  glu.op = [](const std::vector<Tensor>& in) { return F::glu(in[0], arg_of(in[1])); };
  glu.arg_inputs = {1};
  glu.reference = [](const std::vector<Tensor>& in) {
    Arr a(in[0]);
    const int64_t d = nn::wrap(arg_of(in[1]), a.dim());
    Arr out = a;
    out.shape[d] /= 2;
    out.v.assign(a.numel() / 2, 0);
    std::vector<int64_t> idx(a.dim(), 0);
    for (int64_t i = 0; i < out.numel(); ++i) {
      // idx: multi-index of i in out
      int64_t r = i;
      for (int64_t k = a.dim() - 1; k >= 0; --k) {
        idx[k] = r % out.shape[k];
        r /= out.shape[k];
      }
      const double x = a.at(idx);
      auto j = idx;
      j[d] += out.shape[d];
      out.v[i] = x / (1 + std::exp(-a.at(j)));
    }
    return Reference{out.shape, out.v, in[0].dtype()};
  };
  glu.rejected_dtypes = kNonFloat;
  ops.push_back(glu);
  // prelu: {x, weight}
  OpInfo prelu;
  prelu.name = "prelu";
  prelu.dtypes = fl;
  prelu.samples = [](ScalarType dt) {
    auto mk = [&](std::vector<int64_t> s, uint64_t seed) {
      return make_tensor(s, dt, -5, 5, seed);
    };
    return std::vector<Sample>{{{mk({2, 3, 4}, 1), mk({3}, 2)}, "per channel"},
                               {{mk({5}, 1), mk({1}, 2)}, "1-d one weight"},
                               {{mk({}, 1), mk({1}, 2)}, "0-d"},
                               {{make_noncontiguous(mk({2, 4}, 3)), mk({4}, 4)}, "non-contiguous"}};
  };
  prelu.op = [](const std::vector<Tensor>& in) { return F::prelu(in[0], in[1]); };
  prelu.reference = [](const std::vector<Tensor>& in) {
    Arr a(in[0]);
    auto w = values(in[1]);
    int64_t inner = 1;
    for (int64_t d = 2; d < a.dim(); ++d) inner *= a.shape[d];
    for (int64_t i = 0; i < a.numel(); ++i) {
      const int64_t c = w.size() == 1 ? 0 : (i / inner) % a.shape[1];
      if (a.v[i] < 0) a.v[i] *= w[c];
    }
    return Reference{a.shape, a.v, in[0].dtype()};
  };
  ops.push_back(prelu);
  return ops;
}

INSTANTIATE_TEST_SUITE_P(NNActivation, OpTest, ::testing::ValuesIn(activation_ops()), op_test_name);

TEST(NNActivation, SoftmaxDtypeArgumentCastsFirst) {
  Tensor x = make_tensor({3, 4}, kFloat32, -3, 3, 1);
  Tensor y = F::softmax(x, F::SoftmaxFuncOptions(1).dtype(kFloat64));
  EXPECT_EQ(y.dtype(), kFloat64);
  Arr a(x);
  EXPECT_TRUE(close(y, {3, 4}, nn::softmax_ref(a, 1, false), 1e-12, 1e-12));
  // Integers are accepted once a floating dtype is requested, as torch.softmax(x, 0, dtype=...).
  Tensor xi = make_tensor({5}, kInt64, -3, 3, 2);
  Tensor yi = ember::log_softmax(xi, 0, kFloat64);
  EXPECT_TRUE(close(yi, {5}, nn::softmax_ref(Arr(xi), 0, true), 1e-12, 1e-12));
}

TEST(NNActivation, SoftmaxRowsSumToOneAndInfinities) {
  Tensor x = from_values({2, 3}, {-INFINITY, 0, 0, -INFINITY, -INFINITY, -INFINITY}, kFloat32);
  auto v = values(F::softmax(x, 1));
  EXPECT_DOUBLE_EQ(v[0], 0.0);
  EXPECT_DOUBLE_EQ(v[1], 0.5);
  EXPECT_TRUE(std::isnan(v[3]));  // a row of -inf is NaN, as PyTorch
  auto lv = values(F::log_softmax(x, 1));
  EXPECT_EQ(lv[0], -INFINITY);
  EXPECT_NEAR(lv[1], std::log(0.5), 1e-7);
}

TEST(NNActivation, InplaceOptionsWriteTheInput) {
  Tensor x = from_values({4}, {-2, -0.5, 0.5, 7}, kFloat32);
  Tensor r = F::relu6(x, F::ReLU6FuncOptions(true));
  EXPECT_TRUE(r.is_same(x));
  EXPECT_TRUE(close(x, {4}, {0, 0, 0.5, 6}, 0, 0));
  Tensor y = from_values({3}, {-1, 0, 2}, kFloat64);
  F::elu(y, F::ELUFuncOptions().alpha(2).inplace(true));
  EXPECT_TRUE(close(y, {3}, {2 * std::expm1(-1.0), 0, 2}, 1e-15, 0));
  Tensor z = from_values({3}, {-1, 0.25, 2}, kFloat64);
  F::threshold(z, F::ThresholdFuncOptions(0.5, 9).inplace(true));
  EXPECT_TRUE(close(z, {3}, {9, 9, 2}, 0, 0));
  Tensor w = from_values({2}, {-1, 3}, kFloat32);
  F::relu(w, true);
  EXPECT_TRUE(close(w, {2}, {0, 3}, 0, 0));
}

TEST(NNActivation, Errors) {
  Tensor x = make_tensor({2, 3}, kFloat32);
  expect_errors<IndexError>({
      {"softmax dim out of range", [&] { F::softmax(x, 2); }, "[softmax]"},
      {"log_softmax dim out of range", [&] { F::log_softmax(x, -3); }, "[log_softmax]"},
      {"glu dim out of range", [&] { F::glu(x, 5); }, "[glu]"},
  });
  expect_errors<TypeError>({
      {"softmax int", [&] { F::softmax(make_tensor({3}, kInt32), 0); }, "int32"},
      {"logsigmoid int", [&] { F::logsigmoid(make_tensor({3}, kInt64)); }, "int64"},
      {"hardshrink bool", [&] { F::hardshrink(make_tensor({3}, kBool)); }, "bool"},
  });
  expect_errors<RuntimeError>({
      {"glu odd", [&] { F::glu(x, 1); }, "Halving dimension must be even"},
      {"glu 0-d", [&] { F::glu(make_tensor({}, kFloat32)); }, "[glu]"},
      {"prelu channels",
       [&] {
         F::prelu(make_tensor({2, 3, 4}, kFloat32), make_tensor({4}, kFloat32));
       },
       "Mismatch of parameter numbers and input channel size"},
      {"relu6 bool", [&] { F::relu6(make_tensor({3}, kBool)); }, "[hardtanh]"},
      {"celu alpha 0", [&] { F::celu(x, F::CELUFuncOptions().alpha(0)); }, "[celu]"},
      {"softshrink negative lambda", [&] { F::softshrink(x, -1); },
       "lambda must be greater or equal to 0"},
      {"hardtanh min > max",
       [&] { F::hardtanh(x, F::HardtanhFuncOptions().min_val(2).max_val(1)); }, "[hardtanh]"},
  });
}

}  // namespace
}  // namespace ember::test
