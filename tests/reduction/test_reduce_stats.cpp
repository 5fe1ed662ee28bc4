// OpInfo tests: var, std, var_mean, std_mean (several corrections), norm (several p), logsumexp.
#include <cmath>
#include <limits>

#include "reduction/reduce_testing.h"

namespace ember::test {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

double ref_mean(const std::vector<double>& v) {
  double s = 0;
  for (double e : v) s += e;
  return v.empty() ? kNan : s / v.size();
}

double ref_var(const std::vector<double>& v, double correction) {
  if (v.empty()) return kNan;
  const double m = ref_mean(v);
  double m2 = 0;
  for (double e : v) m2 += (e - m) * (e - m);
  return m2 / std::max(0.0, v.size() - correction);
}

double ref_norm(const std::vector<double>& v, double p) {
  if (p == 0) {
    double n = 0;
    for (double e : v) n += e != 0 ? 1 : 0;
    return n;
  }
  if (std::isinf(p)) {
    if (any_nan(v)) return kNan;
    double r = p > 0 ? 0 : kInf;
    for (double e : v) r = p > 0 ? std::max(r, std::fabs(e)) : std::min(r, std::fabs(e));
    return r;
  }
  double s = 0;
  for (double e : v) s += std::pow(std::fabs(e), p);
  return std::pow(s, 1 / p);
}

double ref_logsumexp(const std::vector<double>& v) {
  if (any_nan(v)) return kNan;
  double m = -kInf;
  for (double e : v) m = std::max(m, e);
  if (std::isinf(m)) return m;
  double s = 0;
  for (double e : v) s += std::exp(e - m);
  return m + std::log(s);
}

ScalarType same(ScalarType t) { return t; }

std::vector<OpInfo> stats_ops() {
  const auto& fl = float_dtypes();
  const auto ints = integral_dtypes(true);
  ReduceSampleOptions opts;
  ReduceSampleOptions special = opts;
  special.nan_inf = true;

  std::vector<OpInfo> ops;
  for (double c : {1.0, 0.0, 2.5}) {
    const std::string suffix = "_correction" + std::to_string(static_cast<int>(c * 10));
    special.gradcheck_min_group = static_cast<int64_t>(std::floor(c)) + 1;
    ops.push_back(reduction_op(
        "var" + suffix, fl, special,
        [c](const Tensor& x, const ReduceArgs& a) {
          return a.has_dims ? x.var(IntList(a.dims), c, a.keepdim) : ember::var(x, {}, c);
        },
        [c](const std::vector<double>& v) { return ref_var(v, c); }, same, ints, 4));
    ops.push_back(reduction_op(
        "std" + suffix, fl, special,
        [c](const Tensor& x, const ReduceArgs& a) {
          return a.has_dims ? x.std(IntList(a.dims), c, a.keepdim) : ember::std(x, {}, c);
        },
        [c](const std::vector<double>& v) { return std::sqrt(ref_var(v, c)); }, same, ints, 4));
  }
  special.gradcheck_min_group = 1;
  for (bool take_sqrt : {false, true}) {
    const std::string n = take_sqrt ? "std_mean" : "var_mean";
    auto call = [take_sqrt](const Tensor& x, const ReduceArgs& a) {
      IntList dims = a.has_dims ? IntList(a.dims) : IntList();
      return take_sqrt ? ember::std_mean(x, dims, 1, a.keepdim)
                       : ember::var_mean(x, dims, 1, a.keepdim);
    };
    ReduceSampleOptions corrected = opts;
    corrected.gradcheck_min_group = 2;
    ops.push_back(reduction_op(
        n + "_first", fl, corrected,
        [call](const Tensor& x, const ReduceArgs& a) { return std::get<0>(call(x, a)); },
        [take_sqrt](const std::vector<double>& v) {
          return take_sqrt ? std::sqrt(ref_var(v, 1)) : ref_var(v, 1);
        },
        same, ints, 4));
    ops.push_back(reduction_op(
        n + "_mean", fl, opts,
        [call](const Tensor& x, const ReduceArgs& a) { return std::get<1>(call(x, a)); }, ref_mean,
        same, ints, 4));
  }
  for (double p : {2.0, 1.0, 0.0, 3.0, 0.5, kInf, -kInf, -1.0}) {
    ReduceSampleOptions o = special;
    o.empty_reduce = p >= 0 && !std::isinf(p);  // others have no identity
    std::string name = "norm_p" + (std::isinf(p) ? std::string(p > 0 ? "inf" : "neginf")
                                                 : std::to_string(static_cast<int>(p * 10)));
    for (char& ch : name) ch = ch == '-' ? 'm' : ch;
    ops.push_back(reduction_op(
        name, fl, o,
        [p](const Tensor& x, const ReduceArgs& a) {
          return a.has_dims ? x.norm(p, IntList(a.dims), a.keepdim) : ember::norm(x, p);
        },
        [p](const std::vector<double>& v) { return ref_norm(v, p); }, same, ints, 4));
    ops.back().nondifferentiable_at_ties = std::isinf(p);
  }
  ops.push_back(reduction_op(
      "norm_dtype_float64", fl, opts,
      [](const Tensor& x, const ReduceArgs& a) {
        return ember::norm(x, 2, a.has_dims ? IntList(a.dims) : IntList(), a.keepdim, kFloat64);
      },
      [](const std::vector<double>& v) { return ref_norm(v, 2); },
      [](ScalarType) { return kFloat64; }));
  ops.push_back(reduction_op(
      "logsumexp", all_dtypes(), special,
      [](const Tensor& x, const ReduceArgs& a) {
        return x.logsumexp(a.has_dims ? IntList(a.dims) : IntList(), a.keepdim);
      },
      ref_logsumexp, [](ScalarType t) { return is_floating_point(t) ? t : kFloat32; }, {}, 4));
  return ops;
}

INSTANTIATE_TEST_SUITE_P(ReductionStats, OpTest, ::testing::ValuesIn(stats_ops()), op_test_name);

}  // namespace
}  // namespace ember::test
