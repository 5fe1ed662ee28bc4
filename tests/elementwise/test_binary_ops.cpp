// OpInfo entries of the binary elementwise ops: every supported dtype over elementwise_samples
// (0-d, empty, broadcasting, non-contiguous, stride-0), against plain-loop references in double
// or exact integers.
#include <cmath>

#include "elementwise/binary_test_util.h"

namespace ember::test {
namespace {

using binary::is_int;
using binary::ref_map;
using Args = std::vector<double>;
using Fn = std::function<double(const Args&)>;

// Result dtype rules, written out independently of Ember: same dtype as the (equal) inputs,
// bool for comparisons, the default float for true division of integers.
enum class Out { Same, Bool, IntToFloat };

ScalarType out_dtype(Out o, ScalarType in) {
  if (o == Out::Bool) return kBool;
  if (o == Out::IntToFloat && is_int(in)) return kFloat32;
  return in;
}

std::vector<ScalarType> except(std::initializer_list<ScalarType> drop) {
  std::vector<ScalarType> r;
  for (ScalarType t : all_dtypes()) {
    if (std::find(drop.begin(), drop.end(), t) == drop.end()) r.push_back(t);
  }
  return r;
}

OpInfo binary_info(std::string name, std::vector<ScalarType> dtypes,
                   std::function<Tensor(const Tensor&, const Tensor&)> fn, Fn ref, Out out,
                   std::vector<ScalarType> rejected = {}, bool nonzero_divisor = false) {
  OpInfo info;
  info.name = std::move(name);
  info.dtypes = std::move(dtypes);
  info.samples = [nonzero_divisor](ScalarType dt) {
    return nonzero_divisor ? binary::nonzero_divisor_samples(dt) : elementwise_samples(dt, 2);
  };
  info.grad_samples = [] { return elementwise_grad_samples(2); };
  info.op = [fn](const std::vector<Tensor>& in) { return fn(in[0], in[1]); };
  info.reference = [ref, out](const std::vector<Tensor>& in) {
    return ref_map(in, out_dtype(out, in[0].dtype()), ref);
  };
  info.rejected_dtypes = std::move(rejected);
  info.not_differentiable = nondifferentiable_reason(info.dtypes, out_dtype(out, kFloat64));
  return info;
}

// ---- independent references

double py_floor_div(double a, double b) { return std::floor(a / b); }
double py_remainder(double a, double b) {
  if (b == 0) return std::nan("");
  double r = std::fmod(a, b);
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

double int_pow_ref(double a, double b, ScalarType dt) {
  if (b < 0) {
    if (a == 1) return 1;
    if (a == -1) return std::fmod(-b, 2) != 0 ? -1 : 1;
    return 0;
  }
  uint64_t r = 1, base = static_cast<uint64_t>(static_cast<int64_t>(a));
  for (int64_t i = 0; i < static_cast<int64_t>(b); ++i) r *= base;  // wraps modulo 2^64
  return binary::store_as(dt, static_cast<double>(static_cast<int64_t>(r)));
}

double shift_left_ref(double a, double b, ScalarType dt) {
  if (b < 0 || b >= binary::bits_of(dt)) return 0;
  uint64_t u = static_cast<uint64_t>(static_cast<int64_t>(a)) << static_cast<int>(b);
  return binary::store_as(dt, static_cast<double>(static_cast<int64_t>(u)));
}

double shift_right_ref(double a, double b, ScalarType dt) {
  const int max_shift = binary::bits_of(dt) - (is_signed(dt) ? 1 : 0);
  int s = (b < 0 || b >= max_shift) ? max_shift : static_cast<int>(b);
  return std::floor(a / std::ldexp(1.0, s));  // arithmetic shift of a value that fits
}

int64_t to_i(double v) { return static_cast<int64_t>(v); }

std::vector<OpInfo> binary_ops() {
  const auto& all = all_dtypes();
  const auto no_bool = except({kBool});
  const auto ints = integral_dtypes(false);
  const auto ints_bool = integral_dtypes(true);
  const auto& floats = float_dtypes();
  std::vector<ScalarType> float_rejects = ints_bool;
  std::vector<ScalarType> int_rejects = floats;

  std::vector<OpInfo> v;
  v.push_back(binary_info(
      "add", all, [](auto& a, auto& b) { return ember::add(a, b); },
      [](const Args& x) { return x[0] + x[1]; }, Out::Same));
  {
    // alpha = 2 (True for bool results).
    auto info = binary_info(
        "add_alpha", all,
        [](const Tensor& a, const Tensor& b) {
          return a.dtype() == kBool ? ember::add(a, b, true) : ember::add(a, b, 2);
        },
        [](const Args& x) { return x[0] + 2 * x[1]; }, Out::Same);
    v.push_back(info);
  }
  v.push_back(binary_info(
      "sub", no_bool, [](auto& a, auto& b) { return ember::sub(a, b); },
      [](const Args& x) { return x[0] - x[1]; }, Out::Same));
  v.push_back(binary_info(
      "sub_alpha", no_bool, [](auto& a, auto& b) { return ember::sub(a, b, 3); },
      [](const Args& x) { return x[0] - 3 * x[1]; }, Out::Same));
  v.push_back(binary_info(
      "mul", all, [](auto& a, auto& b) { return ember::mul(a, b); },
      [](const Args& x) { return x[0] * x[1]; }, Out::Same));
  v.push_back(binary_info(
      "div", all, [](auto& a, auto& b) { return ember::div(a, b); },
      [](const Args& x) { return x[0] / x[1]; }, Out::IntToFloat));
  v.push_back(binary_info(
      "div_trunc", no_bool, [](auto& a, auto& b) { return ember::div(a, b, "trunc"); },
      [](const Args& x) { return std::trunc(x[0] / x[1]); }, Out::Same, {kBool}, true));
  v.push_back(binary_info(
      "div_floor", no_bool, [](auto& a, auto& b) { return ember::div(a, b, "floor"); },
      [](const Args& x) { return py_floor_div(x[0], x[1]); }, Out::Same, {kBool}, true));
  v.push_back(binary_info(
      "floor_divide", no_bool, [](auto& a, auto& b) { return ember::floor_divide(a, b); },
      [](const Args& x) { return py_floor_div(x[0], x[1]); }, Out::Same, {kBool}, true));
  v.push_back(binary_info(
      "remainder", no_bool, [](auto& a, auto& b) { return ember::remainder(a, b); },
      [](const Args& x) { return py_remainder(x[0], x[1]); }, Out::Same, {kBool}, true));
  v.push_back(binary_info(
      "fmod", no_bool, [](auto& a, auto& b) { return ember::fmod(a, b); },
      [](const Args& x) { return std::fmod(x[0], x[1]); }, Out::Same, {kBool}, true));
  {
    OpInfo info = binary_info(
        "pow", no_bool, [](auto& a, auto& b) { return ember::pow(a, b); },
        [](const Args& x) { return std::pow(x[0], x[1]); }, Out::Same, {kBool});
    info.reference = [](const std::vector<Tensor>& in) {
      ScalarType dt = in[0].dtype();
      return ref_map(in, dt, [dt](const Args& x) {
        return is_int(dt) ? int_pow_ref(x[0], x[1], dt) : std::pow(x[0], x[1]);
      });
    };
    info.tol_scale = 4;
    // A negative base to a fractional power is NaN: gradcheck bases in [0.5, 3).
    info.grad_samples = [] { return without_large(elementwise_samples(kFloat64, 2, 0.5, 3)); };
    v.push_back(info);
  }
  v.push_back(binary_info(
      "atan2", all, [](auto& a, auto& b) { return ember::atan2(a, b); },
      [](const Args& x) { return std::atan2(x[0], x[1]); }, Out::IntToFloat));
  v.push_back(binary_info(
      "hypot", floats, [](auto& a, auto& b) { return ember::hypot(a, b); },
      [](const Args& x) { return std::hypot(x[0], x[1]); }, Out::Same, float_rejects));
  v.push_back(binary_info(
      "copysign", all, [](auto& a, auto& b) { return ember::copysign(a, b); },
      [](const Args& x) { return std::copysign(x[0], x[1]); }, Out::IntToFloat));
  v.push_back(binary_info(
      "logaddexp", floats, [](auto& a, auto& b) { return ember::logaddexp(a, b); },
      [](const Args& x) { return std::log(std::exp(x[0]) + std::exp(x[1])); }, Out::Same,
      float_rejects));
  v.push_back(binary_info(
      "maximum", all, [](auto& a, auto& b) { return ember::maximum(a, b); },
      [](const Args& x) { return std::max(x[0], x[1]); }, Out::Same));
  v.push_back(binary_info(
      "minimum", all, [](auto& a, auto& b) { return ember::minimum(a, b); },
      [](const Args& x) { return std::min(x[0], x[1]); }, Out::Same));
  v.push_back(binary_info(
      "fmax", all, [](auto& a, auto& b) { return ember::fmax(a, b); },
      [](const Args& x) { return std::fmax(x[0], x[1]); }, Out::Same));
  v.push_back(binary_info(
      "fmin", all, [](auto& a, auto& b) { return ember::fmin(a, b); },
      [](const Args& x) { return std::fmin(x[0], x[1]); }, Out::Same));
  v.push_back(binary_info(
      "eq", all, [](auto& a, auto& b) { return ember::eq(a, b); },
      [](const Args& x) { return double(x[0] == x[1]); }, Out::Bool));
  v.push_back(binary_info(
      "ne", all, [](auto& a, auto& b) { return ember::ne(a, b); },
      [](const Args& x) { return double(x[0] != x[1]); }, Out::Bool));
  v.push_back(binary_info(
      "lt", all, [](auto& a, auto& b) { return ember::lt(a, b); },
      [](const Args& x) { return double(x[0] < x[1]); }, Out::Bool));
  v.push_back(binary_info(
      "le", all, [](auto& a, auto& b) { return ember::le(a, b); },
      [](const Args& x) { return double(x[0] <= x[1]); }, Out::Bool));
  v.push_back(binary_info(
      "gt", all, [](auto& a, auto& b) { return ember::gt(a, b); },
      [](const Args& x) { return double(x[0] > x[1]); }, Out::Bool));
  v.push_back(binary_info(
      "ge", all, [](auto& a, auto& b) { return ember::ge(a, b); },
      [](const Args& x) { return double(x[0] >= x[1]); }, Out::Bool));
  v.push_back(binary_info(
      "logical_and", all, [](auto& a, auto& b) { return ember::logical_and(a, b); },
      [](const Args& x) { return double(x[0] != 0 && x[1] != 0); }, Out::Bool));
  v.push_back(binary_info(
      "logical_or", all, [](auto& a, auto& b) { return ember::logical_or(a, b); },
      [](const Args& x) { return double(x[0] != 0 || x[1] != 0); }, Out::Bool));
  v.push_back(binary_info(
      "logical_xor", all, [](auto& a, auto& b) { return ember::logical_xor(a, b); },
      [](const Args& x) { return double((x[0] != 0) != (x[1] != 0)); }, Out::Bool));
  v.push_back(binary_info(
      "bitwise_and", ints_bool, [](auto& a, auto& b) { return ember::bitwise_and(a, b); },
      [](const Args& x) { return double(to_i(x[0]) & to_i(x[1])); }, Out::Same, int_rejects));
  v.push_back(binary_info(
      "bitwise_or", ints_bool, [](auto& a, auto& b) { return ember::bitwise_or(a, b); },
      [](const Args& x) { return double(to_i(x[0]) | to_i(x[1])); }, Out::Same, int_rejects));
  v.push_back(binary_info(
      "bitwise_xor", ints_bool, [](auto& a, auto& b) { return ember::bitwise_xor(a, b); },
      [](const Args& x) { return double(to_i(x[0]) ^ to_i(x[1])); }, Out::Same, int_rejects));
  std::vector<ScalarType> shift_rejects = floats;
  shift_rejects.push_back(kBool);
  for (bool left : {true, false}) {
    OpInfo info = binary_info(
        left ? "bitwise_left_shift" : "bitwise_right_shift", ints,
        [left](auto& a, auto& b) {
          return left ? ember::bitwise_left_shift(a, b) : ember::bitwise_right_shift(a, b);
        },
        nullptr, Out::Same, shift_rejects);
    info.reference = [left](const std::vector<Tensor>& in) {
      ScalarType dt = in[0].dtype();
      return ref_map(in, dt, [dt, left](const Args& x) {
        return left ? shift_left_ref(x[0], x[1], dt) : shift_right_ref(x[0], x[1], dt);
      });
    };
    v.push_back(info);
  }
  return v;
}

// Tensor-Scalar forms: the Scalar is a wrapped number (a Python scalar) in promotion.
std::vector<OpInfo> scalar_ops() {
  const auto& all = all_dtypes();
  std::vector<OpInfo> v;
  auto unary_info = [](std::string name, std::vector<ScalarType> dtypes,
                       std::function<Tensor(const Tensor&)> fn, Fn ref,
                       std::function<ScalarType(ScalarType)> dt_rule) {
    OpInfo info;
    info.name = std::move(name);
    info.dtypes = std::move(dtypes);
    info.samples = [](ScalarType dt) { return elementwise_samples(dt, 1); };
    info.grad_samples = [] { return elementwise_grad_samples(1); };
    info.op = [fn](const std::vector<Tensor>& in) { return fn(in[0]); };
    info.reference = [ref, dt_rule](const std::vector<Tensor>& in) {
      return ref_map(in, dt_rule(in[0].dtype()), ref);
    };
    info.not_differentiable = nondifferentiable_reason(info.dtypes, dt_rule(kFloat64));
    return info;
  };
  auto same = [](ScalarType t) { return t; };
  // int tensor + 3 stays int; bool tensor + 3 -> int64 (a higher kind).
  v.push_back(unary_info(
      "add_int_scalar", all, [](const Tensor& a) { return a + 3; },
      [](const Args& x) { return x[0] + 3; },
      [](ScalarType t) { return t == kBool ? kInt64 : t; }));
  // 2.5 is a float: integral and bool tensors go to the default dtype, floats keep theirs.
  v.push_back(unary_info(
      "mul_float_scalar", all, [](const Tensor& a) { return a * 2.5; },
      [](const Args& x) { return x[0] * 2.5; },
      [](ScalarType t) { return is_int(t) ? kFloat32 : t; }));
  v.push_back(unary_info(
      "rsub_int_scalar", except({kBool}), [](const Tensor& a) { return 2 - a; },
      [](const Args& x) { return 2 - x[0]; }, same));
  v.push_back(unary_info(
      "rdiv_int_scalar", all, [](const Tensor& a) { return 7 / a; },
      [](const Args& x) { return 7 / x[0]; },
      [](ScalarType t) { return is_int(t) ? kFloat32 : t; }));
  v.push_back(unary_info(
      "pow_scalar_exponent", except({kBool}), [](const Tensor& a) { return ember::pow(a, 3); },
      [](const Args& x) { return x[0] * x[0] * x[0]; }, same));
  v.push_back(unary_info(
      "pow_scalar_base", all, [](const Tensor& a) { return ember::pow(2.0, a); },
      [](const Args& x) { return std::pow(2.0, x[0]); },
      [](ScalarType t) { return is_int(t) ? kFloat32 : t; }));
  v.push_back(unary_info(
      "lt_float_scalar", all, [](const Tensor& a) { return a < 1.5; },
      [](const Args& x) { return double(x[0] < 1.5); }, [](ScalarType) { return kBool; }));
  v.push_back(unary_info(
      "rremainder_int_scalar", except({kBool}), [](const Tensor& a) { return 7 % a; },
      [](const Args& x) { return py_remainder(7, x[0]); }, same));
  // An integer divisor of zero raises: the samples hold 2 in place of each 0 (rewritten in the
  // samples, not by the op, so that the op is only the call: a graph can record it).
  auto no_zero = [](std::vector<Sample> samples) {
    for (Sample& s : samples) binary::rewrite(s.inputs[0], [](double x) { return x == 0 ? 2 : x; });
    return samples;
  };
  v.back().samples = [no_zero](ScalarType dt) { return no_zero(elementwise_samples(dt, 1)); };
  v.back().grad_samples = [no_zero] { return no_zero(elementwise_grad_samples(1)); };
  return v;
}

INSTANTIATE_TEST_SUITE_P(Binary, OpTest, ::testing::ValuesIn(binary_ops()), op_test_name);
INSTANTIATE_TEST_SUITE_P(BinaryScalar, OpTest, ::testing::ValuesIn(scalar_ops()), op_test_name);

}  // namespace
}  // namespace ember::test
