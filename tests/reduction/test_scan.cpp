// OpInfo tests: cumsum, cumprod, cummax, cummin, logcumsumexp.
#include <cmath>
#include <limits>

#include "reduction/reduce_testing.h"

namespace ember::test {
namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNan = std::numeric_limits<double>::quiet_NaN();

using Line = std::function<std::vector<double>(const std::vector<double>&)>;

OpInfo scan_op(std::string name, std::vector<ScalarType> dtypes, double low, double high,
               bool nan_inf, std::function<Tensor(const Tensor&, int64_t)> call, Line line,
               std::function<ScalarType(ScalarType)> out_dtype,
               std::vector<ScalarType> rejected = {}, double tol_scale = 1) {
  OpInfo info;
  info.name = std::move(name);
  info.dtypes = std::move(dtypes);
  info.samples = [=](ScalarType dt) { return scan_samples(dt, low, high, nan_inf); };
  info.grad_samples = [=] { return scan_samples(kFloat64, low, high, false, /*small=*/true); };
  info.op = [call](const std::vector<Tensor>& in) { return call(in[0], scan_dim(in)); };
  info.arg_inputs = {1};
  info.reference = [line, out_dtype](const std::vector<Tensor>& in) {
    Reference r{in[0].sizes(), scan_reference(in[0], scan_dim(in), line), out_dtype(in[0].dtype())};
    for (double& v : r.values) v = round_to(r.dtype, v);
    return r;
  };
  info.rejected_dtypes = std::move(rejected);
  info.tol_scale = tol_scale;
  info.not_differentiable = nondifferentiable_reason(info.dtypes, out_dtype(kFloat64));
  return info;
}

std::vector<double> ref_cumsum(const std::vector<double>& v) {
  std::vector<double> r;
  double s = 0;
  for (double e : v) r.push_back(s += e);
  return r;
}
std::vector<double> ref_cumprod(const std::vector<double>& v) {
  std::vector<double> r;
  double p = 1;
  for (double e : v) r.push_back(p *= e);
  return r;
}
std::vector<double> ref_cumprod_int(const std::vector<double>& v) {
  std::vector<double> r;
  uint64_t p = 1;
  for (double e : v) {
    p *= static_cast<uint64_t>(static_cast<int64_t>(e));
    r.push_back(static_cast<double>(static_cast<int64_t>(p)));
  }
  return r;
}
// PyTorch's cummax/cummin: a NaN takes over (and a later NaN takes its index); ties move the
// index forward.
std::vector<double> ref_cum_extreme(const std::vector<double>& v, bool max, bool indices) {
  std::vector<double> r;
  double best = 0;
  int64_t idx = -1;
  for (size_t i = 0; i < v.size(); ++i) {
    const double x = v[i];
    const bool take = max ? x >= best : x <= best;
    if (idx < 0 || std::isnan(x) || (!std::isnan(best) && take)) {
      best = x;
      idx = static_cast<int64_t>(i);
    }
    r.push_back(indices ? static_cast<double>(idx) : best);
  }
  return r;
}
std::vector<double> ref_logcumsumexp(const std::vector<double>& v) {
  std::vector<double> r;
  for (size_t i = 0; i < v.size(); ++i) {
    bool nan = false;
    double m = -kInf;
    for (size_t k = 0; k <= i; ++k) {
      nan = nan || std::isnan(v[k]);
      m = std::max(m, v[k]);
    }
    if (nan || std::isinf(m)) {
      r.push_back(nan ? kNan : m);
      continue;
    }
    double s = 0;
    for (size_t k = 0; k <= i; ++k) s += std::exp(v[k] - m);
    r.push_back(m + std::log(s));
  }
  return r;
}

std::vector<OpInfo> scan_ops() {
  const auto& all = all_dtypes();
  const auto& fl = float_dtypes();
  const auto ints = integral_dtypes(true);
  auto same = [](ScalarType t) { return t; };
  std::vector<OpInfo> ops;
  ops.push_back(scan_op(
      "cumsum", all, -5, 5, true, [](const Tensor& x, int64_t d) { return x.cumsum(d); },
      ref_cumsum, int_to_long, {}, 4));
  ops.push_back(scan_op(
      "cumsum_dtype_float64", all, -5, 5, false,
      [](const Tensor& x, int64_t d) { return ember::cumsum(x, d, kFloat64); }, ref_cumsum,
      [](ScalarType) { return kFloat64; }));
  ops.push_back(scan_op(
      "cumprod", fl, 0.8, 1.25, true, [](const Tensor& x, int64_t d) { return x.cumprod(d); },
      ref_cumprod, same, {}, 4));
  ops.push_back(scan_op(
      "cumprod_int", ints, -2, 3, false,
      [](const Tensor& x, int64_t d) { return ember::cumprod(x, d); }, ref_cumprod_int,
      int_to_long));
  for (bool is_max : {true, false}) {
    const std::string n = is_max ? "cummax" : "cummin";
    ops.push_back(scan_op(
        n + "_values", all, -5, 5, true,
        [is_max](const Tensor& x, int64_t d) {
          return std::get<0>(is_max ? x.cummax(d) : x.cummin(d));
        },
        [is_max](const std::vector<double>& v) { return ref_cum_extreme(v, is_max, false); },
        same));
    ops.back().nondifferentiable_at_ties = true;
    ops.push_back(scan_op(
        n + "_indices", all, -5, 5, true,
        [is_max](const Tensor& x, int64_t d) {
          return std::get<1>(is_max ? ember::cummax(x, d) : ember::cummin(x, d));
        },
        [is_max](const std::vector<double>& v) { return ref_cum_extreme(v, is_max, true); },
        [](ScalarType) { return kInt64; }));
  }
  ops.push_back(scan_op(
      "logcumsumexp", fl, -5, 5, true, [](const Tensor& x, int64_t d) { return x.logcumsumexp(d); },
      ref_logcumsumexp, same, ints, 4));
  return ops;
}

INSTANTIATE_TEST_SUITE_P(ReductionScan, OpTest, ::testing::ValuesIn(scan_ops()), op_test_name);

}  // namespace
}  // namespace ember::test
