// Unary elementwise ops: every op and in-place variant against plain double references over all
// dtypes (op database), special values (NaN, +-inf, -0.0), PyTorch's result dtypes and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>

#include "dispatch/dispatch.h"
#include "opdb.h"

namespace ember::test {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

using RefFn = std::function<double(double, ScalarType)>;
using DtypeFn = std::function<ScalarType(ScalarType)>;

ScalarType same_dtype(ScalarType t) { return t; }
/// PyTorch's unary float ops: integral and bool inputs give the default dtype (float32 here).
ScalarType float_dtype(ScalarType t) { return is_floating_point(t) ? t : kFloat32; }
ScalarType bool_dtype(ScalarType) { return kBool; }

/// v (an integer value) wrapped into the range of the integral dtype t, as C++ casts do.
double wrap_int(double v, ScalarType t) {
  const int64_t i = static_cast<int64_t>(v);
  switch (t) {
    case kUInt8:
      return static_cast<uint8_t>(i);
    case kInt8:
      return static_cast<int8_t>(i);
    case kInt16:
      return static_cast<int16_t>(i);
    case kInt32:
      return static_cast<int32_t>(i);
    default:
      return static_cast<double>(i);
  }
}

std::vector<ScalarType> concat(std::vector<ScalarType> a, const std::vector<ScalarType>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
std::vector<ScalarType> all_but_bool() { return concat(integral_dtypes(false), float_dtypes()); }
std::vector<ScalarType> ints_and_bool() { return integral_dtypes(true); }

struct Spec {
  std::string name;
  std::vector<ScalarType> dtypes;
  std::vector<ScalarType> rejected;
  double low, high;
  std::function<Tensor(const Tensor&)> fn;
  std::function<Tensor&(Tensor&)> inplace;  // empty: no in-place variant
  RefFn ref;
  DtypeFn result = same_dtype;
  double tol_scale = 1;
  bool inplace_keeps_dtype = false;  // logical_not_: writes 0/1 in self's dtype
};

RefFn plain(double (*f)(double)) {
  return [f](double v, ScalarType) { return f(v); };
}

/// erfinv reference: bisection on erf (or erfc near +-1), independent of the kernel's method.
double erfinv_ref(double y) {
  if (std::isnan(y) || std::fabs(y) > 1) return kNaN;
  if (std::fabs(y) == 1) return std::copysign(kInf, y);
  const double ay = std::fabs(y);
  double lo = 0, hi = 10;
  for (int i = 0; i < 200; ++i) {
    double mid = 0.5 * (lo + hi);
    bool below = ay <= 0.5 ? std::erf(mid) < ay : std::erfc(mid) > 1 - ay;
    (below ? lo : hi) = mid;
  }
  return std::copysign(0.5 * (lo + hi), y);
}

/// round(x, decimals) as PyTorch computes it: in float for float32 and the 16-bit floats, in
/// double for float64.
double round_decimals_ref(double v, ScalarType t, int64_t d) {
  const double p = std::pow(10.0, static_cast<double>(std::abs(d)));
  if (t == kFloat64) return d > 0 ? std::nearbyint(v * p) / p : std::nearbyint(v / p) * p;
  const float fv = static_cast<float>(v), fp = static_cast<float>(p);
  return d > 0 ? std::nearbyint(fv * fp) / fp : std::nearbyint(fv / fp) * fp;
}

double gelu_ref(double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }
double gelu_tanh_ref(double v) {
  const double k = std::sqrt(2.0 / M_PI);
  return 0.5 * v * (1 + std::tanh(k * (v + 0.044715 * v * v * v)));
}
double softplus_ref(double v, double beta, double threshold) {
  return v * beta > threshold ? v : std::log1p(std::exp(v * beta)) / beta;
}
double elu_ref(double v, double alpha, double scale, double input_scale) {
  return v > 0 ? v * scale : alpha * scale * (std::exp(v * input_scale) - 1);
}
double sigmoid_ref(double v) { return 1 / (1 + std::exp(-v)); }
double logit_ref(double v, double eps) {
  if (eps >= 0) v = std::min(std::max(v, eps), 1 - eps);
  return std::log(v / (1 - v));
}
double hardtanh_ref(double v, double lo, double hi) { return std::min(std::max(v, lo), hi); }

std::vector<Spec> specs() {
  const auto all = all_dtypes();
  const auto floats = float_dtypes();
  const auto ints = ints_and_bool();
  std::vector<Spec> s;
  auto float_op = [&](std::string name, double lo, double hi, Tensor (*fn)(const Tensor&),
                      const Tensor& (Tensor::*m)() const, double (*f)(double), double tol = 1) {
    s.push_back({name,
                 all,
                 {},
                 lo,
                 hi,
                 fn,
                 [m](Tensor& t) -> Tensor& {
                   (void)(t.*m)();
                   return t;
                 },
                 plain(f),
                 float_dtype,
                 tol});
  };
  float_op("exp", -5, 5, ember::exp, &Tensor::exp_, [](double v) { return std::exp(v); });
  float_op("exp2", -5, 5, ember::exp2, &Tensor::exp2_, [](double v) { return std::exp2(v); });
  float_op("expm1", -3, 3, ember::expm1, &Tensor::expm1_, [](double v) { return std::expm1(v); });
  float_op("log", 0.1, 10, ember::log, &Tensor::log_, [](double v) { return std::log(v); });
  float_op("log2", 0.1, 10, ember::log2, &Tensor::log2_, [](double v) { return std::log2(v); });
  float_op("log10", 0.1, 10, ember::log10, &Tensor::log10_, [](double v) { return std::log10(v); });
  float_op("log1p", -0.9, 5, ember::log1p, &Tensor::log1p_, [](double v) { return std::log1p(v); });
  float_op("sqrt", 0, 10, ember::sqrt, &Tensor::sqrt_, [](double v) { return std::sqrt(v); });
  float_op("rsqrt", 0.1, 10, ember::rsqrt, &Tensor::rsqrt_,
           [](double v) { return 1 / std::sqrt(v); });
  float_op("reciprocal", -5, 5, ember::reciprocal, &Tensor::reciprocal_,
           [](double v) { return 1 / v; });
  float_op("sin", -5, 5, ember::sin, &Tensor::sin_, [](double v) { return std::sin(v); });
  float_op("cos", -5, 5, ember::cos, &Tensor::cos_, [](double v) { return std::cos(v); });
  float_op("tan", -1.5, 1.5, ember::tan, &Tensor::tan_, [](double v) { return std::tan(v); });
  float_op("asin", -1, 1, ember::asin, &Tensor::asin_, [](double v) { return std::asin(v); });
  float_op("acos", -1, 1, ember::acos, &Tensor::acos_, [](double v) { return std::acos(v); });
  float_op("atan", -5, 5, ember::atan, &Tensor::atan_, [](double v) { return std::atan(v); });
  float_op("sinh", -5, 5, ember::sinh, &Tensor::sinh_, [](double v) { return std::sinh(v); });
  float_op("cosh", -5, 5, ember::cosh, &Tensor::cosh_, [](double v) { return std::cosh(v); });
  float_op("tanh", -5, 5, ember::tanh, &Tensor::tanh_, [](double v) { return std::tanh(v); });
  float_op("sigmoid", -8, 8, ember::sigmoid, &Tensor::sigmoid_, sigmoid_ref);
  float_op("erf", -3, 3, ember::erf, &Tensor::erf_, [](double v) { return std::erf(v); });
  float_op("erfc", -3, 3, ember::erfc, &Tensor::erfc_, [](double v) { return std::erfc(v); });
  float_op("erfinv", -0.999, 0.999, ember::erfinv, &Tensor::erfinv_, erfinv_ref);
  s.push_back({"logit",
               all,
               {},
               0.01,
               0.99,
               [](const Tensor& t) { return ember::logit(t); },
               {},
               [](double v, ScalarType) { return logit_ref(v, -1); },
               float_dtype});
  s.push_back({"logit_eps",
               all,
               {},
               -0.2,
               1.2,
               [](const Tensor& t) { return ember::logit(t, 0.05); },
               {},
               [](double v, ScalarType) { return logit_ref(v, 0.05); },
               float_dtype});

  // dtype-preserving arithmetic
  s.push_back({"abs",
               all_but_bool(),
               {kBool},
               -5,
               5,
               ember::abs,
               [](Tensor& t) -> Tensor& {
                 (void)t.abs_();
                 return t;
               },
               [](double v, ScalarType) { return std::fabs(v); }});
  s.push_back({"neg",
               all_but_bool(),
               {},
               -5,
               5,
               ember::neg,
               [](Tensor& t) -> Tensor& {
                 (void)t.neg_();
                 return t;
               },
               [](double v, ScalarType t) { return is_floating_point(t) ? -v : wrap_int(-v, t); }});
  s.push_back(
      {"negative", all_but_bool(), {}, -5, 5, ember::negative, {}, [](double v, ScalarType t) {
         return is_floating_point(t) ? -v : wrap_int(-v, t);
       }});
  s.push_back({"unary_minus",
               all_but_bool(),
               {},
               -5,
               5,
               [](const Tensor& t) { return -t; },
               {},
               [](double v, ScalarType t) { return is_floating_point(t) ? -v : wrap_int(-v, t); }});
  s.push_back({"sign",
               all,
               {},
               -5,
               5,
               ember::sign,
               [](Tensor& t) -> Tensor& {
                 (void)t.sign_();
                 return t;
               },
               [](double v, ScalarType) { return double((0 < v) - (v < 0)); }});
  s.push_back({"relu",
               all_but_bool(),
               {},
               -5,
               5,
               ember::relu,
               [](Tensor& t) -> Tensor& {
                 (void)t.relu_();
                 return t;
               },
               [](double v, ScalarType) { return v < 0 ? 0.0 : v; }});

  // rounding: identity on integers
  auto rounding = [&](std::string name, Tensor (*fn)(const Tensor&),
                      const Tensor& (Tensor::*m)() const, double (*f)(double)) {
    s.push_back({name,
                 all_but_bool(),
                 {kBool},
                 -5,
                 5,
                 fn,
                 [m](Tensor& t) -> Tensor& {
                   (void)(t.*m)();
                   return t;
                 },
                 plain(f)});
  };
  rounding("floor", ember::floor, &Tensor::floor_, [](double v) { return std::floor(v); });
  rounding("ceil", ember::ceil, &Tensor::ceil_, [](double v) { return std::ceil(v); });
  rounding("trunc", ember::trunc, &Tensor::trunc_, [](double v) { return std::trunc(v); });
  s.push_back({"round",
               all_but_bool(),
               {kBool},
               -5,
               5,
               [](const Tensor& t) { return ember::round(t); },
               [](Tensor& t) -> Tensor& {
                 (void)t.round_();
                 return t;
               },
               [](double v, ScalarType) { return std::nearbyint(v); }});
  s.push_back({"round_decimals2", floats, ints, -5, 5,
               [](const Tensor& t) { return ember::round(t, 2); },
               [](Tensor& t) -> Tensor& {
                 (void)t.round_(2);
                 return t;
               },
               [](double v, ScalarType t) { return round_decimals_ref(v, t, 2); }});
  s.push_back({"round_decimals_neg1",
               floats,
               ints,
               -500,
               500,
               [](const Tensor& t) { return t.round(-1); },
               {},
               [](double v, ScalarType t) { return round_decimals_ref(v, t, -1); }});
  s.push_back({"frac", floats, ints, -5, 5, ember::frac,
               [](Tensor& t) -> Tensor& {
                 (void)t.frac_();
                 return t;
               },
               [](double v, ScalarType) { return v - std::trunc(v); }});

  // activations: floating dtypes only
  auto act = [&](std::string name, std::function<Tensor(const Tensor&)> fn, RefFn ref,
                 double lo = -5, double hi = 5) {
    s.push_back({name, floats, ints, lo, hi, std::move(fn), {}, std::move(ref)});
  };
  act(
      "gelu", [](const Tensor& t) { return ember::gelu(t); }, plain(gelu_ref));
  act(
      "gelu_tanh", [](const Tensor& t) { return ember::gelu(t, "tanh"); }, plain(gelu_tanh_ref));
  act("silu", ember::silu, [](double v, ScalarType) { return v * sigmoid_ref(v); });
  act("mish", ember::mish,
      [](double v, ScalarType) { return v * std::tanh(std::log1p(std::exp(v))); });
  act(
      "softplus", [](const Tensor& t) { return ember::softplus(t); },
      [](double v, ScalarType) { return softplus_ref(v, 1, 20); }, -30, 30);
  act(
      "softplus_beta2", [](const Tensor& t) { return ember::softplus(t, 2, 1); },
      [](double v, ScalarType) { return softplus_ref(v, 2, 1); });
  act(
      "elu", [](const Tensor& t) { return ember::elu(t); },
      [](double v, ScalarType) { return elu_ref(v, 1, 1, 1); });
  act(
      "elu_params", [](const Tensor& t) { return ember::elu(t, 0.5, 2, 1.5); },
      [](double v, ScalarType) { return elu_ref(v, 0.5, 2, 1.5); });
  act(
      "leaky_relu", [](const Tensor& t) { return ember::leaky_relu(t); },
      [](double v, ScalarType) { return v > 0 ? v : 0.01 * v; });
  act(
      "leaky_relu_02", [](const Tensor& t) { return ember::leaky_relu(t, 0.2); },
      [](double v, ScalarType) { return v > 0 ? v : 0.2 * v; });
  act("hardsigmoid", ember::hardsigmoid,
      [](double v, ScalarType) { return std::min(std::max(v + 3, 0.0), 6.0) / 6; });
  act("hardswish", ember::hardswish,
      [](double v, ScalarType) { return v * std::min(std::max(v + 3, 0.0), 6.0) / 6; });

  // hardtanh clamps; integer inputs use the limits truncated to integers; uint8 needs limits >= 0
  s.push_back({"hardtanh",
               concat(float_dtypes(), {kInt8, kInt16, kInt32, kInt64}),
               {},
               -3,
               3,
               [](const Tensor& t) { return ember::hardtanh(t); },
               {},
               [](double v, ScalarType) { return hardtanh_ref(v, -1, 1); }});
  s.push_back({"hardtanh_0_3",
               all_but_bool(),
               {},
               -5,
               5,
               [](const Tensor& t) { return ember::hardtanh(t, 0, 3); },
               {},
               [](double v, ScalarType) { return hardtanh_ref(v, 0, 3); }});
  s.push_back({"hardtanh_frac_limits",
               all_but_bool(),
               {},
               -5,
               5,
               [](const Tensor& t) { return ember::hardtanh(t, 0.5, 2.5); },
               {},
               [](double v, ScalarType t) {
                 return is_floating_point(t) ? hardtanh_ref(v, 0.5, 2.5) : hardtanh_ref(v, 0, 2);
               }});

  // special values, predicates, logical and bitwise
  s.push_back({"nan_to_num",
               all,
               {},
               -5,
               5,
               [](const Tensor& t) { return ember::nan_to_num(t); },
               {},
               [](double v, ScalarType) { return v; }});
  s.push_back({"isnan",
               all,
               {},
               -5,
               5,
               ember::isnan,
               {},
               [](double v, ScalarType) { return double(std::isnan(v)); },
               bool_dtype});
  s.push_back({"isinf",
               all,
               {},
               -5,
               5,
               ember::isinf,
               {},
               [](double v, ScalarType) { return double(std::isinf(v)); },
               bool_dtype});
  s.push_back({"isfinite",
               all,
               {},
               -5,
               5,
               ember::isfinite,
               {},
               [](double v, ScalarType) { return double(std::isfinite(v)); },
               bool_dtype});
  s.push_back({"logical_not",
               all,
               {},
               -2,
               2,
               ember::logical_not,
               [](Tensor& t) -> Tensor& {
                 (void)t.logical_not_();
                 return t;
               },
               [](double v, ScalarType) { return double(v == 0); },
               bool_dtype,
               1,
               true});
  s.push_back(
      {"bitwise_not", ints, floats, -5, 5, ember::bitwise_not,
       [](Tensor& t) -> Tensor& {
         (void)t.bitwise_not_();
         return t;
       },
       [](double v, ScalarType t) { return t == kBool ? double(v == 0) : wrap_int(-v - 1, t); }});
  s.push_back(
      {"operator_tilde",
       ints,
       floats,
       -5,
       5,
       [](const Tensor& t) { return ~t; },
       {},
       [](double v, ScalarType t) { return t == kBool ? double(v == 0) : wrap_int(-v - 1, t); }});
  return s;
}

OpInfo to_opinfo(const Spec& s) {
  OpInfo info;
  info.name = s.name;
  info.dtypes = s.dtypes;
  info.rejected_dtypes = {};  // every dtype not supported (s.rejected among them) must raise
  info.tol_scale = s.tol_scale;
  const double lo = s.low, hi = s.high;
  info.samples = [lo, hi](ScalarType dt) { return elementwise_samples(dt, 1, lo, hi); };
  info.grad_samples = [lo, hi] { return elementwise_grad_samples(1, lo, hi); };
  info.not_differentiable = nondifferentiable_reason(s.dtypes, s.result(kFloat64));
  info.op = [fn = s.fn](const std::vector<Tensor>& in) { return fn(in[0]); };
  info.reference = [ref = s.ref, result = s.result](const std::vector<Tensor>& in) {
    Reference r{in[0].sizes(), {}, result(in[0].dtype())};
    for (double v : values(in[0])) r.values.push_back(ref(v, in[0].dtype()));
    return r;
  };
  return info;
}

/// The in-place variant: writes into a copy of the sample (contiguous samples stay contiguous so
/// the vectorised path runs in place; the others get a strided target), keeps self's dtype.
OpInfo to_inplace_opinfo(const Spec& s) {
  OpInfo info = to_opinfo(s);
  info.name = s.name + "_";
  if (s.inplace_keeps_dtype) {
    info.not_differentiable = "PyTorch marks " + s.name + " not differentiable";
  }
  info.dtypes.clear();
  for (ScalarType dt : s.dtypes) {
    if (s.inplace_keeps_dtype || s.result(dt) == dt) info.dtypes.push_back(dt);
  }
  // In place, a result that self's dtype cannot hold is refused ("result type Float can't be
  // cast to the desired output type Long"), as are the op's own rejected dtypes.
  info.rejected_dtypes = dtypes_except(info.dtypes);
  const double lo = s.low, hi = s.high;
  info.samples = [lo, hi](ScalarType dt) {
    std::vector<Sample> out;
    for (auto& smp : elementwise_samples(dt, 1, lo, hi)) {
      if (smp.desc != "expanded-stride0") out.push_back(smp);  // rejected in place: error table
    }
    return out;
  };
  info.grad_samples = [lo, hi] {
    std::vector<Sample> out;
    for (auto& smp : elementwise_grad_samples(1, lo, hi)) {
      if (smp.desc != "expanded-stride0") out.push_back(smp);
    }
    return out;
  };
  info.op = [fn = s.inplace](const std::vector<Tensor>& in) {
    // A non-contiguous target receives the input through copy_, which keeps the gradient path.
    Tensor target = in[0].clone();
    if (!in[0].is_contiguous()) target = make_noncontiguous(in[0].detach()).copy_(in[0]);
    const auto version = target._version();
    const Tensor& r = fn(target);
    EXPECT_TRUE(r.is_same(target)) << "in-place op must return self";
    EXPECT_GT(target._version(), version) << "in-place op must bump the version counter";
    return target;
  };
  info.reference = [ref = s.ref](const std::vector<Tensor>& in) {
    Reference r{in[0].sizes(), {}, in[0].dtype()};
    for (double v : values(in[0])) r.values.push_back(ref(v, in[0].dtype()));
    return r;
  };
  return info;
}

std::vector<OpInfo> unary_ops() {
  std::vector<OpInfo> out;
  for (const Spec& s : specs()) out.push_back(to_opinfo(s));
  return out;
}

std::vector<OpInfo> unary_inplace_ops() {
  std::vector<OpInfo> out;
  for (const Spec& s : specs()) {
    if (s.inplace) out.push_back(to_inplace_opinfo(s));
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Unary, OpTest, ::testing::ValuesIn(unary_ops()), op_test_name);
INSTANTIATE_TEST_SUITE_P(UnaryInplace, OpTest, ::testing::ValuesIn(unary_inplace_ops()),
                         op_test_name);

// ---- special values

Tensor vals(const std::vector<double>& v, ScalarType dt = kFloat32) {
  return from_values({static_cast<int64_t>(v.size())}, v, dt);
}

/// The same values tiled to 24 elements (vectorised runs) and as a strided view (scalar path).
std::vector<Tensor> both_paths(const std::vector<double>& v, ScalarType dt) {
  std::vector<double> tiled;
  while (tiled.size() < 24) tiled.insert(tiled.end(), v.begin(), v.end());
  Tensor t = vals(tiled, dt);
  return {t, make_noncontiguous(t)};
}

void expect_values(const Tensor& got, const std::vector<double>& expected, bool check_zero_sign,
                   const std::string& what) {
  auto g = values(got);
  ASSERT_EQ(g.size() % expected.size(), 0u) << what;
  for (size_t i = 0; i < g.size(); ++i) {
    double e = expected[i % expected.size()];
    if (std::isnan(e)) {
      EXPECT_TRUE(std::isnan(g[i])) << what << " [" << i << "] got " << g[i];
    } else {
      EXPECT_EQ(g[i], e) << what << " [" << i << "]";
      if (check_zero_sign && e == 0) {
        EXPECT_EQ(std::signbit(g[i]), std::signbit(e)) << what << " sign of zero [" << i << "]";
      }
    }
  }
}

TEST(UnarySpecial, SignReluAbsNegKeepIeeeSemantics) {
  const std::vector<double> in = {kNaN, -0.0, 0.0, -kInf, kInf, 3, -1.5, 1.5};
  for (ScalarType dt : float_dtypes()) {
    for (const Tensor& x : both_paths(in, dt)) {
      const std::string d = std::string(dtype_name(dt)) + (x.is_contiguous() ? "" : " strided");
      // sign(NaN) is 0 and sign(-0.0) is +0.0 in PyTorch ((0 < x) - (x < 0)).
      expect_values(ember::sign(x), {0, 0, 0, -1, 1, 1, -1, 1}, true, "sign " + d);
      expect_values(ember::relu(x), {kNaN, -0.0, 0, 0, kInf, 3, 0, 1.5}, true, "relu " + d);
      expect_values(ember::abs(x), {kNaN, 0, 0, kInf, kInf, 3, 1.5, 1.5}, true, "abs " + d);
      expect_values(ember::neg(x), {kNaN, 0, -0.0, kInf, -kInf, -3, 1.5, -1.5}, true, "neg " + d);
      expect_values(ember::leaky_relu(x, 0.5), {kNaN, -0.0, 0, -kInf, kInf, 3, -0.75, 1.5}, true,
                    "leaky_relu " + d);
      expect_values(ember::hardtanh(x), {kNaN, -0.0, 0, -1, 1, 1, -1, 1}, true, "hardtanh " + d);
      expect_values(ember::hardsigmoid(x), {kNaN, 0.5, 0.5, 0, 1, 1, 0.25, 0.75}, false,
                    "hardsigmoid " + d);
    }
  }
}

TEST(UnarySpecial, PredicatesAndNanToNum) {
  const std::vector<double> in = {kNaN, kInf, -kInf, -0.0, 1.5, -2};
  for (ScalarType dt : float_dtypes()) {
    for (const Tensor& x : both_paths(in, dt)) {
      const std::string d = dtype_name(dt);
      Tensor n = ember::isnan(x), i = x.isinf(), f = x.isfinite();
      EXPECT_EQ(n.dtype(), kBool);
      expect_values(n, {1, 0, 0, 0, 0, 0}, false, "isnan " + d);
      expect_values(i, {0, 1, 1, 0, 0, 0}, false, "isinf " + d);
      expect_values(f, {0, 0, 0, 1, 1, 1}, false, "isfinite " + d);
      double hi = dt == kFloat16    ? 65504.0
                  : dt == kBFloat16 ? 3.3895313892515355e38
                  : dt == kFloat32  ? double(std::numeric_limits<float>::max())
                                    : std::numeric_limits<double>::max();
      expect_values(ember::nan_to_num(x), {0, hi, -hi, -0.0, 1.5, -2}, true, "nan_to_num " + d);
      expect_values(x.nan_to_num(1, 2, -3), {1, 2, -3, -0.0, 1.5, -2}, true,
                    "nan_to_num args " + d);
      expect_values(ember::nan_to_num(x, std::nullopt, 7), {0, 7, -hi, 0, 1.5, -2}, false,
                    "nan_to_num nullopt nan " + d);
    }
  }
  // Integral and bool tensors: never NaN / inf; nan_to_num is a copy.
  for (ScalarType dt : integral_dtypes(true)) {
    Tensor x = make_tensor({2, 3}, dt);
    expect_values(ember::isnan(x), {0}, false, "isnan int");
    expect_values(ember::isinf(x), {0}, false, "isinf int");
    expect_values(ember::isfinite(x), {1}, false, "isfinite int");
    Tensor c = ember::nan_to_num(x);
    EXPECT_EQ(c.dtype(), dt);
    EXPECT_FALSE(c.is_alias_of(x));
    EXPECT_EQ(values(c), values(x));
  }
}

TEST(UnarySpecial, TranscendentalEdgeCases) {
  struct Row {
    const char* name;
    Tensor (*fn)(const Tensor&);
    std::vector<double> in, out;
  };
  const std::vector<Row> rows = {
      {"exp", ember::exp, {-kInf, kInf, kNaN, 0, -1000}, {0, kInf, kNaN, 1, 0}},
      {"log", ember::log, {0, -0.0, -1, kInf, 1}, {-kInf, -kInf, kNaN, kInf, 0}},
      {"sqrt", ember::sqrt, {-0.0, -1, kInf, 4}, {-0.0, kNaN, kInf, 2}},
      {"rsqrt", ember::rsqrt, {0, -1, kInf, 4}, {kInf, kNaN, 0, 0.5}},
      {"reciprocal", ember::reciprocal, {0, -0.0, kInf, 4}, {kInf, -kInf, 0, 0.25}},
      {"sigmoid", ember::sigmoid, {-kInf, kInf, 0, kNaN}, {0, 1, 0.5, kNaN}},
      {"tanh", ember::tanh, {-kInf, kInf, -0.0, kNaN}, {-1, 1, -0.0, kNaN}},
      {"erfinv", ember::erfinv, {1, -1, 1.5, 0, -0.0}, {kInf, -kInf, kNaN, 0, -0.0}},
      {"floor", ember::floor, {-0.5, 0.5, -kInf, kNaN, -0.0}, {-1, 0, -kInf, kNaN, -0.0}},
      {"ceil", ember::ceil, {-0.5, 0.5, kInf, 2, 2.5}, {-0.0, 1, kInf, 2, 3}},
      {"trunc", ember::trunc, {-1.5, 1.5, -0.5, kInf}, {-1, 1, -0.0, kInf}},
      {"frac", ember::frac, {-1.5, 2.25, kInf, -0.0}, {-0.5, 0.25, kNaN, 0.0}},
  };
  for (const Row& r : rows) {
    for (ScalarType dt : {kFloat32, kFloat64}) {
      for (const Tensor& x : both_paths(r.in, dt)) {
        expect_values(r.fn(x), r.out, true, std::string(r.name) + " " + dtype_name(dt));
      }
    }
  }
  // Round half to even, also through the 16-bit path.
  for (ScalarType dt : float_dtypes()) {
    for (const Tensor& x : both_paths({0.5, 1.5, 2.5, -0.5, -2.5, 3.5}, dt)) {
      expect_values(ember::round(x), {0, 2, 2, -0.0, -2, 4}, true,
                    "round " + std::string(dtype_name(dt)));
    }
  }
  // -2.675 * 100 rounds to -267.5 in double, then half to even: -2.68 (as PyTorch's kernel).
  expect_values(ember::round(vals({1.2345, 0.125, -2.675}, kFloat64), 2), {1.23, 0.12, -2.68},
                false, "round decimals=2");
  expect_values(ember::round(vals({1250, 1350, -1234.5}, kFloat64), -2), {1200, 1400, -1200}, false,
                "round decimals=-2");
  // logit: 1 -> inf, 0 -> -inf; eps clamps.
  expect_values(ember::logit(vals({1, 0, 0.5})), {kInf, -kInf, 0}, false, "logit");
  auto le = values(ember::logit(vals({1, 0, 2, -1, 0.5}, kFloat64), 0.25));
  const std::vector<double> le_expected = {std::log(3.0), -std::log(3.0), std::log(3.0),
                                           -std::log(3.0), 0};
  for (size_t k = 0; k < le.size(); ++k) EXPECT_NEAR(le[k], le_expected[k], 1e-15) << k;
}

TEST(UnarySpecial, ErfinvIsAccurateNearOne) {
  for (double q0 : {1e-15, 1e-10, 1e-6, 1e-3}) {
    const double y = 1 - q0, q = 1 - y;  // q: the exact distance of y from 1
    Tensor x = vals({y, -y}, kFloat64);
    auto got = values(ember::erfinv(x));
    EXPECT_NEAR(std::erfc(got[0]) / q, 1.0, 1e-9) << q;
    EXPECT_EQ(got[1], -got[0]) << q;
  }
}

TEST(UnarySpecial, IntegerWrapAround) {
  // abs / neg of the most negative value wrap, as in PyTorch.
  Tensor i8 = vals({-128, 127, -5}, kInt8);
  expect_values(ember::abs(i8), {-128, 127, 5}, false, "abs int8");
  expect_values(ember::neg(i8), {-128, -127, 5}, false, "neg int8");
  Tensor i64 = vals({-9.223372036854775808e18, 3}, kInt64);
  EXPECT_EQ(ember::abs(i64).tolist<int64_t>()[0], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ember::neg(i64).tolist<int64_t>()[0], std::numeric_limits<int64_t>::min());
  expect_values(ember::neg(vals({0, 1, 255}, kUInt8)), {0, 255, 1}, false, "neg uint8");
  expect_values(ember::bitwise_not(vals({0, 1, 255}, kUInt8)), {255, 254, 0}, false, "~uint8");
  expect_values(~vals({0, 1}, kBool), {1, 0}, false, "~bool");
  expect_values(ember::sign(vals({1, 0}, kBool)), {1, 0}, false, "sign bool");
  EXPECT_EQ(ember::sign(vals({1, 0}, kBool)).dtype(), kBool);
}

// ---- result dtypes and in-place semantics

TEST(UnaryDtype, FloatOpsFollowTheDefaultDtype) {
  Tensor i = vals({1, 2}, kInt64);
  EXPECT_EQ(ember::exp(i).dtype(), kFloat32);
  EXPECT_EQ(ember::sqrt(vals({1, 0}, kBool)).dtype(), kFloat32);
  set_default_dtype(kFloat64);
  Tensor e;
  try {
    e = ember::exp(i);
  } catch (...) {
    set_default_dtype(kFloat32);
    throw;
  }
  set_default_dtype(kFloat32);
  EXPECT_EQ(e.dtype(), kFloat64);
  EXPECT_NEAR(values(e)[1], std::exp(2.0), 1e-15);
  // Dtype-preserving ops keep integers.
  for (ScalarType dt : integral_dtypes(false)) {
    Tensor x = make_tensor({3}, dt);
    for (Tensor r : {ember::abs(x), ember::floor(x), x.round(), ember::relu(x), ember::sign(x)}) {
      EXPECT_EQ(r.dtype(), dt);
    }
    Tensor f = ember::floor(x);
    EXPECT_FALSE(f.is_alias_of(x)) << "floor of an integer tensor is a copy";
  }
  EXPECT_EQ(ember::logical_not(make_tensor({3}, kFloat16)).dtype(), kBool);
}

TEST(UnaryInplaceSemantics, NoOpsAndLogicalNotInPlace) {
  Tensor x = vals({3, -2, 0}, kInt32);
  const auto v = x._version();
  const Tensor& r = x.floor_();
  EXPECT_TRUE(r.is_same(x));
  EXPECT_GT(x._version(), v);
  expect_values(x, {3, -2, 0}, false, "floor_ int");
  x.logical_not_();
  EXPECT_EQ(x.dtype(), kInt32);
  expect_values(x, {0, 0, 1}, false, "logical_not_ int");
  Tensor f = vals({0.5, 0, -1});
  f.logical_not_();
  expect_values(f, {0, 1, 0}, false, "logical_not_ float");
}

TEST(UnaryLarge, ParallelPathMatchesReference) {
  for (ScalarType dt : {kFloat32, kBFloat16, kInt16}) {
    Tensor x = make_tensor({300, 400}, dt, -4, 4, 7);
    auto in = values(x);
    Tensor y = ember::exp(x), z = ember::gelu(x.dtype() == kInt16 ? x.to(kFloat32) : x);
    auto ye = values(y), ze = values(z);
    auto [rtol, atol] = tolerances(y.dtype());
    for (size_t i = 0; i < in.size(); i += 97) {
      EXPECT_NEAR(ye[i], std::exp(in[i]), atol + rtol * std::exp(in[i])) << i;
      EXPECT_NEAR(ze[i], gelu_ref(in[i]), atol + rtol * std::fabs(gelu_ref(in[i]))) << i;
    }
    Tensor t = x.is_floating_point() ? x.clone() : x.to(kFloat32);
    t.tanh_();
    auto te = values(t);
    for (size_t i = 0; i < in.size(); i += 97) {
      EXPECT_NEAR(te[i], std::tanh(in[i]), 1e-5 + rtol * std::fabs(std::tanh(in[i]))) << i;
    }
  }
}

// ---- every op goes through dispatch, with its name and arguments

struct Recorder : DispatchMode {
  std::vector<std::string> calls;
  void handle(OpCall& call, const DispatchNext& next) override {
    std::string d = call.prim.describe();
    calls.push_back(std::string(call.prim.name()) + (call.inplace ? "!" : "") +
                    (d.empty() ? "" : "(" + d + ")"));
    next(call);
  }
};

TEST(UnaryDispatch, OpsAreRecorded) {
  Tensor x = vals({1, -2});
  Recorder rec;
  std::optional<DispatchModeGuard> guard(std::in_place, rec);
  try {
    ember::exp(x);
    x.clone().relu_();
    ember::gelu(x, "tanh");
    ember::round(x, 3);
    ember::softplus(x, 2, 10);
  } catch (...) {
    guard.reset();
    throw;
  }
  guard.reset();
  const std::vector<std::string> expected = {"exp",
                                             "copy_(dtype=Float)",  // clone: Copy states its dtype
                                             "relu!",
                                             "gelu(approximate='tanh')",
                                             "round(decimals=3)",
                                             "softplus(beta=2, threshold=10)"};
  EXPECT_EQ(rec.calls, expected);
}

// ---- errors

TEST(UnaryErrors, TypeErrorsNameTheDtype) {
  Tensor f = make_tensor({2}, kFloat32);
  Tensor i = make_tensor({2}, kInt64);
  Tensor b = make_tensor({2}, kBool);
  expect_errors<TypeError>({
      {"bitwise_not float", [&] { ember::bitwise_not(f); }, "[bitwise_not]"},
      {"bitwise_not float names dtype", [&] { ember::bitwise_not(f); }, "float32"},
      {"~ float", [&] { (void)~f; }, "float32"},
      {"bitwise_not_ float", [&] { f.clone().bitwise_not_(); }, "[bitwise_not]"},
      {"abs bool", [&] { ember::abs(b); }, "bool"},
      {"floor bool", [&] { ember::floor(b); }, "[floor]"},
      {"round decimals int", [&] { ember::round(i, 2); }, "int64"},
      {"frac int", [&] { ember::frac(i); }, "[frac]"},
      {"frac_ int", [&] { i.clone().frac_(); }, "int64"},
      {"gelu int", [&] { ember::gelu(i); }, "[gelu]"},
      {"silu bool", [&] { ember::silu(b); }, "bool"},
      {"mish int", [&] { ember::mish(i); }, "[mish]"},
      {"softplus int", [&] { ember::softplus(i); }, "[softplus]"},
      {"elu int", [&] { ember::elu(i); }, "[elu]"},
      {"leaky_relu int", [&] { ember::leaky_relu(i); }, "[leaky_relu]"},
      {"hardsigmoid int", [&] { ember::hardsigmoid(i); }, "[hardsigmoid]"},
      {"hardswish int", [&] { ember::hardswish(i); }, "[hardswish]"},
  });
}

TEST(UnaryErrors, RuntimeErrors) {
  Tensor f = make_tensor({2}, kFloat32);
  Tensor i = make_tensor({2}, kInt64);
  Tensor b = make_tensor({2}, kBool);
  Tensor u8 = make_tensor({2}, kUInt8);
  Tensor expanded = make_expanded(make_tensor({1, 3}, kFloat32), {4, 3});
  Tensor expanded_int = make_expanded(make_tensor({1, 3}, kInt32), {4, 3});
  expect_errors<RuntimeError>({
      {"neg bool", [&] { ember::neg(b); }, "[neg] Negation, the `-` operator, on a bool tensor"},
      {"unary minus bool", [&] { (void)-b; }, "use the `~` or `logical_not()` operator"},
      {"neg_ bool", [&] { b.clone().neg_(); }, "[neg_]"},
      {"relu bool", [&] { ember::relu(b); }, "[relu] Boolean inputs not supported for relu"},
      {"relu_ bool", [&] { b.clone().relu_(); }, "[relu_]"},
      {"hardtanh bool", [&] { ember::hardtanh(b); }, "[hardtanh] Bool inputs not supported"},
      {"hardtanh uint8 negative limits", [&] { ember::hardtanh(u8); },
       "cannot do hardtanh on an unsigned type with negative limits"},
      {"exp_ int", [&] { i.clone().exp_(); },
       "[exp_] result type float32 can't be cast to the desired output type int64"},
      {"sqrt_ bool", [&] { b.clone().sqrt_(); }, "[sqrt_] result type float32"},
      {"sigmoid_ int", [&] { i.clone().sigmoid_(); }, "[sigmoid_]"},
      {"gelu bad approximate", [&] { ember::gelu(f, "fast"); },
       "[gelu] approximate argument must be either none or tanh."},
      {"exp_ expanded", [&] { expanded.exp_(); }, "[exp_] unsupported operation: more than one"},
      {"abs_ expanded", [&] { expanded.abs_(); }, "[abs_]"},
      {"floor_ expanded int", [&] { expanded_int.floor_(); }, "[floor_]"},
      {"logical_not_ expanded", [&] { expanded.logical_not_(); }, "[logical_not_]"},
      {"round_ expanded", [&] { expanded.round_(1); }, "[round_]"},
      {"undefined", [&] { ember::exp(Tensor()); }, "[exp]"},
  });
}

}  // namespace
}  // namespace ember::test
