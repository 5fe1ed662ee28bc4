// where, clamp/clip, lerp, addcmul/addcdiv, masked_fill and isclose: OpInfo entries over every
// supported dtype, then semantics and error tables.
#include <cmath>
#include <limits>

#include "elementwise/binary_test_util.h"

namespace ember::test {
namespace {

using binary::is_int;
using binary::ref_map;
using Args = std::vector<double>;
using V = std::vector<double>;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<ScalarType> without(std::initializer_list<ScalarType> drop) {
  std::vector<ScalarType> r;
  for (ScalarType t : all_dtypes()) {
    if (std::find(drop.begin(), drop.end(), t) == drop.end()) r.push_back(t);
  }
  return r;
}

std::vector<ScalarType> ints_and_bool() { return integral_dtypes(true); }

// Samples with a bool condition/mask in front of `arity` data inputs.
std::vector<Sample> masked_samples(ScalarType dt, int arity) {
  auto samples = elementwise_samples(dt, arity);
  for (auto& s : samples) {
    s.inputs.insert(s.inputs.begin(), make_tensor(s.inputs[0].sizes(), kBool, 0, 1, 7));
  }
  // A condition that broadcasts against both data inputs.
  Sample b{{make_tensor({4}, kBool, 0, 1, 8), make_tensor({3, 1}, dt, -5, 5, 1)}, "cond-broadcast"};
  for (int i = 1; i < arity; ++i) b.inputs.push_back(make_tensor({1, 4}, dt, -5, 5, i + 1));
  samples.push_back(b);
  return samples;
}

OpInfo info(std::string name, std::vector<ScalarType> dtypes,
            std::function<std::vector<Sample>(ScalarType)> samples,
            std::function<Tensor(const std::vector<Tensor>&)> op,
            std::function<ScalarType(ScalarType)> dt_rule, std::function<double(const Args&)> ref,
            std::vector<ScalarType> rejected = {}) {
  OpInfo i;
  i.name = std::move(name);
  i.dtypes = std::move(dtypes);
  i.grad_samples = [samples] { return without_large(samples(kFloat64)); };
  i.samples = std::move(samples);
  i.op = std::move(op);
  // The data dtype is that of the last input (the first may be a bool condition).
  i.reference = [dt_rule, ref](const std::vector<Tensor>& in) {
    return ref_map(in, dt_rule(in.back().dtype()), ref);
  };
  i.rejected_dtypes = std::move(rejected);
  i.not_differentiable = nondifferentiable_reason(i.dtypes, dt_rule(kFloat64));
  return i;
}

auto arity(int n) {
  return [n](ScalarType dt) { return elementwise_samples(dt, n); };
}
ScalarType same(ScalarType t) { return t; }

double clampd(double x, double lo, double hi) { return std::min(std::max(x, lo), hi); }
double lerpd(double a, double b, double w) { return a + w * (b - a); }

std::vector<OpInfo> ternary_ops() {
  const auto& all = all_dtypes();
  const auto& floats = float_dtypes();
  std::vector<OpInfo> v;
  v.push_back(info(
      "where", all, [](ScalarType dt) { return masked_samples(dt, 2); },
      [](auto& in) { return ember::where(in[0], in[1], in[2]); }, same,
      [](const Args& x) { return x[0] != 0 ? x[1] : x[2]; }));
  v.push_back(info(
      "where_scalar_other", all, [](ScalarType dt) { return masked_samples(dt, 1); },
      [](auto& in) { return ember::where(in[0], in[1], 2); },
      [](ScalarType t) { return t == kBool ? kInt64 : t; },
      [](const Args& x) { return x[0] != 0 ? x[1] : 2; }));
  {
    // clamp with int bounds: bool tensors promote to int64 (a higher kind). A uint8 tensor keeps
    // uint8 and the bound -2 wraps to 254 (> max), so every element becomes max, as in PyTorch.
    OpInfo i = info(
        "clamp_int_bounds", all, arity(1), [](auto& in) { return ember::clamp(in[0], -2, 3); },
        [](ScalarType t) { return t == kBool ? kInt64 : t; }, nullptr);
    i.reference = [](const std::vector<Tensor>& in) {
      ScalarType dt = in[0].dtype() == kBool ? kInt64 : in[0].dtype();
      double lo = binary::store_as(dt, -2);
      return ref_map(in, dt, [lo](const Args& x) { return std::min(std::max(x[0], lo), 3.0); });
    };
    v.push_back(i);
  }
  v.push_back(info(
      "clamp_float_bounds", all, arity(1), [](auto& in) { return in[0].clamp(-2.5, 3.5); },
      [](ScalarType t) { return is_int(t) ? kFloat32 : t; },
      [](const Args& x) { return clampd(x[0], -2.5, 3.5); }));
  v.push_back(info(
      "clamp_min", without({kBool}), arity(1), [](auto& in) { return in[0].clamp_min(1); }, same,
      [](const Args& x) { return std::max(x[0], 1.0); }));
  v.push_back(info(
      "clip_max", without({kBool}), arity(1),
      [](auto& in) { return ember::clip(in[0], std::nullopt, 1); }, same,
      [](const Args& x) { return std::min(x[0], 1.0); }));
  v.push_back(info(
      "clamp_tensor", without({kBool}), arity(3),
      [](auto& in) {
        return ember::clamp(in[0], std::optional<Tensor>(in[1]), std::optional<Tensor>(in[2]));
      },
      same, [](const Args& x) { return clampd(x[0], x[1], x[2]); }, {kBool}));
  v.push_back(info(
      "clamp_tensor_min", all, arity(2),
      [](auto& in) { return in[0].clamp(std::optional<Tensor>(in[1])); }, same,
      [](const Args& x) { return std::max(x[0], x[1]); }));
  v.push_back(info(
      "lerp_scalar", floats, arity(2), [](auto& in) { return ember::lerp(in[0], in[1], 0.3); },
      same, [](const Args& x) { return lerpd(x[0], x[1], 0.3); }, ints_and_bool()));
  v.push_back(info(
      "lerp_scalar_large_weight", floats, arity(2), [](auto& in) { return in[0].lerp(in[1], 0.8); },
      same, [](const Args& x) { return lerpd(x[0], x[1], 0.8); }));
  {
    // Weights in [0, 1] keep the result well conditioned.
    OpInfo i = info(
        "lerp_tensor", floats,
        [](ScalarType dt) {
          auto s = elementwise_samples(dt, 3);
          for (auto& smp : s) {
            binary::rewrite(smp.inputs[2], [](double w) { return (w + 5) / 10; });
          }
          return s;
        },
        [](auto& in) { return ember::lerp(in[0], in[1], in[2]); }, same,
        [](const Args& x) { return lerpd(x[0], x[1], x[2]); }, ints_and_bool());
    i.tol_scale = 8;
    v.push_back(i);
  }
  {
    OpInfo i = info(
        "addcmul", without({kBool}), arity(3),
        [](auto& in) { return ember::addcmul(in[0], in[1], in[2], 2); }, same,
        [](const Args& x) { return x[0] + 2 * x[1] * x[2]; }, {kBool});
    i.tol_scale = 8;  // the reference rounds once, Ember twice (product, then sum)
    v.push_back(i);
  }
  {
    OpInfo i = info(
        "addcdiv", floats,
        [](ScalarType dt) {
          auto s = elementwise_samples(dt, 3);
          for (auto& smp : s) {
            binary::rewrite(smp.inputs[2], [](double d) { return d >= 0 ? d + 1 : d - 1; });
          }
          return s;
        },
        [](auto& in) { return in[0].addcdiv(in[1], in[2], 0.5); }, same,
        [](const Args& x) { return x[0] + 0.5 * x[1] / x[2]; });
    i.tol_scale = 8;
    v.push_back(i);
  }
  v.push_back(info(
      "masked_fill", all, [](ScalarType dt) { return masked_samples(dt, 1); },
      [](auto& in) {
        Scalar value = in[1].dtype() == kBool ? Scalar(true) : Scalar(3);
        return ember::masked_fill(in[1], in[0], value);
      },
      same, [](const Args& x) { return x[0] != 0 ? 3 : x[1]; }));
  {
    // masked_fill(x, mask, value) takes (x, mask): reorder the masked samples.
    OpInfo& mf = v.back();
    mf.reference = [](const std::vector<Tensor>& in) {
      ScalarType dt = in[1].dtype();
      return ref_map(in, dt,
                     [dt](const Args& x) { return x[0] != 0 ? (dt == kBool ? 1 : 3) : x[1]; });
    };
  }
  // 16-bit floats round every intermediate step (as PyTorch's composite does), which a double
  // reference cannot follow at the tolerance boundary: they are checked in CompareOps below.
  v.push_back(info(
      "isclose", without({kFloat16, kBFloat16}), arity(2),
      [](auto& in) { return ember::isclose(in[0], in[1], 0.5, 0.5); },
      [](ScalarType) { return kBool; },
      [](const Args& x) { return double(std::abs(x[0] - x[1]) <= 0.5 + 0.5 * std::abs(x[1])); }));
  v.back().shape_only_dtypes = {kFloat16, kBFloat16};
  v.back().values_checked_in = "CompareOps.EqualIscloseAllclose";
  return v;
}

INSTANTIATE_TEST_SUITE_P(Ternary, OpTest, ::testing::ValuesIn(ternary_ops()), op_test_name);

using binary::same_values;

TEST(TernarySemantics, WhereScalarsAndPromotion) {
  Tensor c = from_values({3}, {1, 0, 1}, kBool);
  Tensor w = ember::where(c, 1, 0);
  EXPECT_EQ(w.dtype(), kInt64);
  EXPECT_TRUE(same_values(w, {1, 0, 1}));
  EXPECT_EQ(ember::where(c, 1.0, 0).dtype(), kFloat32);
  EXPECT_EQ(ember::where(c, true, false).dtype(), kBool);
  Tensor i = from_values({3}, {4, 5, 6}, kInt32);
  EXPECT_EQ(ember::where(c, i, 2.5).dtype(), kFloat32);
  EXPECT_TRUE(same_values(ember::where(c, i, 2.5), {4, 2.5, 6}));
  EXPECT_TRUE(same_values(ember::where(c, 7, i), {7, 5, 7}));
  EXPECT_EQ(ember::where(c, i, from_values({3}, {0, 0, 0}, kInt64)).dtype(), kInt64);
  // A uint8 condition is still accepted by PyTorch (deprecated): nonzero means true.
  EXPECT_TRUE(same_values(ember::where(from_values({3}, {0, 2, 1}, kUInt8), i, 0), {0, 5, 6}));
}

TEST(TernarySemantics, Clamp) {
  Tensor x = from_values({5}, {-3, -1, 0.5, 2, kNaN}, kFloat32);
  EXPECT_TRUE(same_values(ember::clamp(x, -1, 1), {-1, -1, 0.5, 1, kNaN}));
  // min > max: every element becomes max.
  EXPECT_TRUE(same_values(ember::clamp(x, 2, 1), {1, 1, 1, 1, kNaN}));
  EXPECT_TRUE(same_values(ember::clamp(x, kNaN, 1), {kNaN, kNaN, kNaN, kNaN, kNaN}));
  EXPECT_TRUE(same_values(x.clamp_min(0), {0, 0, 0.5, 2, kNaN}));
  EXPECT_TRUE(same_values(x.clamp_max(0), {-3, -1, 0, 0, kNaN}));
  Tensor y = x.clone();
  y.clamp_(std::nullopt, 0.0);
  EXPECT_TRUE(same_values(y, {-3, -1, 0, 0, kNaN}));
  // Integer tensors with float bounds promote; in place they cannot.
  Tensor i = from_values({3}, {-5, 0, 5}, kInt64);
  EXPECT_EQ(ember::clamp(i, -2.5, 2.5).dtype(), kFloat32);
  EXPECT_TRUE(same_values(ember::clamp(i, -2.5, 2.5), {-2.5, 0, 2.5}));
  EXPECT_EQ(ember::clamp(i, -2, 2).dtype(), kInt64);
  Tensor j = i.clone();
  j.clamp_(-1, 1);
  EXPECT_TRUE(same_values(j, {-1, 0, 1}));
  // Tensor bounds broadcast with the input.
  Tensor lo = from_values({2, 1}, {-1, 0}, kFloat64), hi = from_values({3}, {0, 0, 4}, kFloat32);
  Tensor r = ember::clamp(i, std::optional<Tensor>(lo), std::optional<Tensor>(hi));
  EXPECT_EQ(r.dtype(), kFloat64);
  EXPECT_EQ(r.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(same_values(r, {-1, 0, 4, 0, 0, 4}));
  EXPECT_TRUE(same_values(ember::clamp(x, std::optional<Tensor>(from_values({}, {kNaN}, kFloat32)),
                                       std::optional<Tensor>(from_values({}, {1}, kFloat32))),
                          {kNaN, kNaN, kNaN, kNaN, kNaN}));
}

TEST(TernarySemantics, LerpAddcMaskedFill) {
  Tensor a = from_values({3}, {1, -2, 1e8}, kFloat32), b = from_values({3}, {3, 7, 3}, kFloat32);
  EXPECT_TRUE(same_values(ember::lerp(a, b, 1.0), {3, 7, 3}));  // exact at weight 1
  EXPECT_TRUE(same_values(ember::lerp(a, b, 0.0), {1, -2, 1e8}));
  EXPECT_TRUE(
      same_values(ember::lerp(a, b, from_values({3}, {0.5, 0.5, 1}, kFloat32)), {2, 2.5, 3}));
  Tensor x = from_values({2}, {1, 2}, kInt32);
  EXPECT_TRUE(same_values(ember::addcmul(x, x, x, 3), {4, 14}));
  Tensor f = from_values({2}, {1, 2}, kFloat32);
  EXPECT_EQ(ember::addcmul(x, f, x).dtype(), kFloat32);
  EXPECT_TRUE(same_values(ember::addcdiv(f, f, from_values({2}, {4, 8}, kFloat32), 2), {1.5, 2.5}));
  EXPECT_TRUE(same_values(ember::addcdiv(x, x, f), {2, 3}));  // int input, float tensors: ok
  Tensor g = f.clone();
  g.addcmul_(f, f, 0.5).addcdiv_(f, f);
  EXPECT_TRUE(same_values(g, {2.5, 5}));
  // masked_fill broadcasts the mask out of place; in place the mask must fit self.
  Tensor m = from_values({2, 1}, {1, 0}, kBool);
  Tensor r = ember::masked_fill(f, m, -1);
  EXPECT_EQ(r.sizes(), (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(same_values(r, {-1, -1, 1, 2}));
  EXPECT_TRUE(same_values(
      f.masked_fill(from_values({2}, {0, 1}, kBool), from_values({}, {9}, kInt64)), {1, 9}));
  Tensor h = from_values({2, 2}, {1, 2, 3, 4}, kFloat16);
  h.masked_fill_(from_values({2}, {1, 0}, kBool), 0.5);
  EXPECT_TRUE(same_values(h, {0.5, 2, 0.5, 4}));
  Tensor iv = from_values({2}, {1, 2}, kInt8);
  iv.masked_fill_(from_values({2}, {1, 1}, kBool), from_values({}, {-7.9}, kFloat64));
  EXPECT_TRUE(same_values(iv, {-7, -7}));  // the value converts as Scalar::to (truncation)
}

TEST(CompareOps, EqualIscloseAllclose) {
  Tensor a = from_values({3}, {1, 2, kNaN}), b = from_values({3}, {1, 2, kNaN});
  EXPECT_FALSE(ember::equal(a, b));  // NaN != NaN
  EXPECT_TRUE(ember::equal(from_values({2}, {1, 2}, kInt32), from_values({2}, {1, 2}, kFloat32)));
  EXPECT_FALSE(ember::equal(from_values({2}, {1, 2}), from_values({1, 2}, {1, 2})));
  EXPECT_TRUE(ember::equal(from_values({0}, {}), from_values({0}, {})));
  EXPECT_TRUE(a.isclose(b, 1e-5, 1e-8, true).equal(from_values({3}, {1, 1, 1}, kBool)));
  EXPECT_TRUE(same_values(ember::isclose(a, b), {1, 1, 0}));
  EXPECT_TRUE(ember::allclose(a, b, 1e-5, 1e-8, true));
  EXPECT_FALSE(a.allclose(b));
  Tensor c = from_values({3}, {1, 1 + 1e-6, 100});
  Tensor d = from_values({3}, {1, 1, 100.001});
  EXPECT_TRUE(same_values(ember::isclose(c, d), {1, 1, 1}));  // 1e-3 <= 1e-8 + 1e-5 * 100.001
  EXPECT_TRUE(same_values(ember::isclose(c, d, 0, 0), {1, 0, 0}));
  // Infinities: equal infinities are close, inf vs finite is not.
  Tensor inf = from_values({2}, {INFINITY, -INFINITY});
  EXPECT_TRUE(same_values(ember::isclose(inf, from_values({2}, {INFINITY, 1e300})), {1, 0}));
  // Integers: exact differences (no rounding through float32).
  Tensor i = from_values({2}, {16777217, 100}, kInt64),
         j = from_values({2}, {16777216, 101}, kInt64);
  EXPECT_TRUE(same_values(ember::isclose(i, j, 0, 0.5), {0, 0}));
  EXPECT_TRUE(same_values(ember::isclose(i, j, 0.01, 0), {1, 1}));
  EXPECT_TRUE(same_values(
      ember::isclose(from_values({2}, {1, 0}, kBool), from_values({2}, {1, 1}, kBool)), {1, 0}));
  // 16-bit floats: tolerances and differences are rounded to the dtype, as in PyTorch.
  Tensor h = from_values({3}, {1, 1.001, 100}, kFloat16),
         h0 = from_values({3}, {1, 1, 100.1}, kFloat16);
  EXPECT_TRUE(same_values(ember::isclose(h, h0), {1, 0, 0}));
  EXPECT_TRUE(same_values(ember::isclose(h, h0, 1e-3), {1, 1, 0}));
  EXPECT_TRUE(same_values(ember::isclose(h, h0, 2e-3), {1, 1, 1}));
  // Broadcasting.
  EXPECT_EQ(ember::isclose(from_values({2, 1}, {1, 2}), from_values({3}, {1, 2, 3})).sizes(),
            (std::vector<int64_t>{2, 3}));
}

std::string assert_close_message(const Tensor& a, const Tensor& e, std::optional<double> rtol = {},
                                 std::optional<double> atol = {}) {
  try {
    testing::assert_close(a, e, rtol, atol);
  } catch (const AssertionError& err) {
    return err.what();
  }
  return "";
}

TEST(CompareOps, AssertClose) {
  EXPECT_EQ(testing::default_tolerances(kFloat32), (std::pair<double, double>{1.3e-6, 1e-5}));
  EXPECT_EQ(testing::default_tolerances(kFloat16), (std::pair<double, double>{1e-3, 1e-5}));
  EXPECT_EQ(testing::default_tolerances(kBFloat16), (std::pair<double, double>{1.6e-2, 1e-5}));
  EXPECT_EQ(testing::default_tolerances(kFloat64), (std::pair<double, double>{1e-7, 1e-7}));
  EXPECT_EQ(testing::default_tolerances(kInt32), (std::pair<double, double>{0, 0}));
  Tensor e = from_values({3}, {1, 2, 3}, kFloat32);
  testing::assert_close(from_values({3}, {1, 2 + 1e-6, 3}, kFloat32), e);
  EXPECT_EQ(assert_close_message(from_values({3}, {1, 2.5, 3}, kFloat32), e),
            "Tensor-likes are not close!\n\n"
            "Mismatched elements: 1 / 3 (33.3%)\n"
            "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
            "Greatest relative difference: 0.25 at index (1,) (up to 1.3e-06 allowed)");
  EXPECT_EQ(assert_close_message(from_values({2, 2}, {1, 5, 3, 4.5}),
                                 from_values({2, 2}, {1, 2, 3, 4}), 0.1, 0.0),
            "Tensor-likes are not close!\n\n"
            "Mismatched elements: 2 / 4 (50.0%)\n"
            "Greatest absolute difference: 3.0 at index (0, 1) (up to 0.0 allowed)\n"
            "Greatest relative difference: 1.5 at index (0, 1) (up to 0.1 allowed)");
  EXPECT_EQ(assert_close_message(from_values({}, {2.5}), from_values({}, {2})),
            "Scalars are not close!\n\n"
            "Expected 2.0 but got 2.5.\n"
            "Absolute difference: 0.5 (up to 1e-07 allowed)\n"
            "Relative difference: 0.25 (up to 1e-07 allowed)");
  EXPECT_EQ(
      assert_close_message(from_values({2}, {1, 3}, kInt64), from_values({2}, {1, 2}, kInt64)),
      "Tensor-likes are not equal!\n\n"
      "Mismatched elements: 1 / 2 (50.0%)\n"
      "Greatest absolute difference: 1 at index (1,)\n"
      "Greatest relative difference: 0.5 at index (1,)");
  EXPECT_EQ(assert_close_message(from_values({2}, {1, 2}), from_values({3}, {1, 2, 3})),
            "The values for attribute 'shape' do not match: torch.Size([2]) != torch.Size([3]).");
  EXPECT_EQ(assert_close_message(from_values({2}, {1, 2}, kFloat32), from_values({2}, {1, 2})),
            "The values for attribute 'dtype' do not match: torch.float32 != torch.float64.");
  testing::assert_close(from_values({2}, {1, 2}, kFloat32), from_values({2}, {1, 2}), {}, {}, false,
                        /*check_dtype=*/false);
  testing::assert_close(from_values({1}, {kNaN}), from_values({1}, {kNaN}), {}, {}, true);
  EXPECT_NE(assert_close_message(from_values({1}, {kNaN}), from_values({1}, {kNaN})), "");
  EXPECT_NE(assert_close_message(from_values({1}, {1e-4}), from_values({1}, {0}))
                .find("Greatest relative difference: inf at index (0,)"),
            std::string::npos);
  EXPECT_THROW(testing::assert_close(e, e, 0.1), ValueError);
}

TEST(TernarySemantics, Errors) {
  Tensor f3 = from_values({3}, {1, 2, 3}, kFloat32), i3 = from_values({3}, {1, 2, 3}, kInt64);
  Tensor mask = from_values({3}, {1, 0, 1}, kBool);
  expect_errors<TypeError>({
      {"where float condition", [&] { ember::where(f3, f3, f3); },
       "[where] where expected condition to be a boolean tensor, but got a tensor with dtype "
       "Float (float32)"},
      {"where int64 condition", [&] { ember::where(i3, 1, 0); }, "dtype Long (int64)"},
      {"masked_fill float mask", [&] { ember::masked_fill(f3, f3, 0); },
       "[masked_fill] masked_fill_ only supports boolean masks, but got mask with dtype float32"},
      {"masked_fill_ uint8 mask", [&] { f3.clone().masked_fill_(mask.to(kUInt8), 0); },
       "[masked_fill_] masked_fill_ only supports boolean masks"},
      {"clamp bool", [&] { ember::clamp(mask, true, true); }, "'Bool' (bool)"},
      {"clamp tensor bool",
       [&] { ember::clamp(mask, std::optional<Tensor>(mask), std::optional<Tensor>(mask)); },
       "(bool)"},
      {"lerp int", [&] { ember::lerp(i3, i3, 0.5); },
       "[lerp] \"lerp_kernel_scalar\" not implemented for 'Long' (int64)"},
      {"lerp bool tensor weight", [&] { ember::lerp(mask, mask, mask); }, "(bool)"},
      {"addcmul bool", [&] { ember::addcmul(mask, mask, mask); }, "[addcmul]"},
  });
  expect_errors<RuntimeError>({
      {"clamp neither", [&] { ember::clamp(f3, std::optional<Scalar>(), std::optional<Scalar>()); },
       "[clamp] At least one of 'min' or 'max' must not be None"},
      {"clamp tensor neither",
       [&] { ember::clamp(f3, std::optional<Tensor>(), std::optional<Tensor>()); },
       "At least one of 'min' or 'max' must not be None"},
      {"clip neither", [&] { f3.clip(std::nullopt); }, "[clip] At least one of 'min' or 'max'"},
      {"clamp_ int with float bound", [&] { i3.clone().clamp_(0.5, 2); },
       "[clamp_] result type Float can't be cast to the desired output type Long"},
      {"clamp bound overflow", [&] { ember::clamp(from_values({1}, {1}, kInt8), 0, 1000); },
       "value cannot be converted to type int8_t without overflow"},
      {"clamp half bound overflow", [&] { ember::clamp(f3.to(kFloat16), -1e6, 0); },
       "value cannot be converted to type at::Half without overflow"},
      {"where shape",
       [&] {
         ember::where(mask, f3, make_tensor({2, 4}, kFloat32));
       },
       "[where] The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
       "dimension 1"},
      {"lerp dtypes", [&] { ember::lerp(f3, f3.to(kFloat64), 0.5); },
       "[lerp] expected dtype float32 for `end` but got dtype float64"},
      {"lerp weight dtype", [&] { ember::lerp(f3, f3, f3.to(kFloat64)); },
       "expected dtype float32 for `weight` but got dtype float64"},
      {"addcdiv integer", [&] { ember::addcdiv(f3, i3, i3); },
       "[addcdiv] Integer division with addcdiv is no longer supported"},
      {"addcdiv_ integer", [&] { f3.clone().addcdiv_(mask, i3); }, "[addcdiv_] Integer division"},
      {"addcmul_ cast", [&] { i3.clone().addcmul_(f3, f3); },
       "[addcmul_] result type Float can't be cast to the desired output type Long"},
      {"addcmul_ grows self",
       [&] {
         f3.clone().addcmul_(f3, make_tensor({2, 3}, kFloat32));
       },
       "output with shape [3] doesn't match the broadcast shape [2, 3]"},
      {"masked_fill value dims", [&] { ember::masked_fill(f3, mask, f3); },
       "[masked_fill] masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
       "with 1 dimension(s)."},
      {"masked_fill value overflow",
       [&] {
         ember::masked_fill(from_values({1}, {1}, kUInt8), from_values({1}, {1}, kBool), 300);
       },
       "value cannot be converted to type uint8_t without overflow"},
      {"masked_fill_ grows self",
       [&] {
         f3.clone().masked_fill_(from_values({2, 3}, V(6, 1), kBool), 0);
       },
       "doesn't match the broadcast shape [2, 3]"},
      {"masked_fill_ expanded",
       [&] {
         make_expanded(f3, {2, 3}).masked_fill_(mask, 0);
       },
       "more than one element of the written-to tensor refers to a single memory location"},
      {"isclose dtypes", [&] { ember::isclose(f3, f3.to(kFloat64)); },
       "[isclose] Float did not match Double"},
      {"isclose rtol", [&] { ember::isclose(f3, f3, -1); },
       "[isclose] rtol must be greater than or equal to zero, but got -1"},
      {"isclose atol", [&] { ember::isclose(f3, f3, 0, -0.5); }, "atol must be greater"},
  });
}

}  // namespace
}  // namespace ember::test
