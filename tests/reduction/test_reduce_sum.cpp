// OpInfo tests: sum, nansum, mean, nanmean, prod, all, any, count_nonzero.
#include <cmath>
#include <limits>

#include "reduction/reduce_testing.h"

namespace ember::test {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();

double ref_sum(const std::vector<double>& v) {
  double s = 0;
  for (double e : v) s += e;
  return s;
}
double ref_nansum(const std::vector<double>& v) {
  double s = 0;
  for (double e : v) s += std::isnan(e) ? 0 : e;
  return s;
}
double ref_mean(const std::vector<double>& v) { return v.empty() ? kNan : ref_sum(v) / v.size(); }
double ref_nanmean(const std::vector<double>& v) {
  double n = 0;
  for (double e : v) n += std::isnan(e) ? 0 : 1;
  return n == 0 ? kNan : ref_nansum(v) / n;
}
double ref_prod(const std::vector<double>& v) {
  double p = 1;
  for (double e : v) p *= e;
  return p;
}

// Dims of a sample as the user passes them.
IntList dims_of(const ReduceArgs& a) { return IntList(a.dims); }

std::vector<OpInfo> sum_ops() {
  const auto& all = all_dtypes();
  const auto& fl = float_dtypes();
  const std::vector<ScalarType> ints = integral_dtypes(true);
  ReduceSampleOptions base;
  ReduceSampleOptions special = base;
  special.nan_inf = true;
  ReduceSampleOptions prod_opts;
  prod_opts.multi_dims = false;
  prod_opts.low = 0.8;
  prod_opts.high = 1.25;
  prod_opts.large = false;
  ReduceSampleOptions prod_int = prod_opts;
  prod_int.low = -2;
  prod_int.high = 3;
  prod_int.large = false;

  std::vector<OpInfo> ops;
  ops.push_back(reduction_op(
      "sum", all, special,
      [](const Tensor& x, const ReduceArgs& a) {
        return a.has_dims ? x.sum(dims_of(a), a.keepdim) : ember::sum(x);
      },
      ref_sum, int_to_long, {}, 4));
  ops.push_back(reduction_op(
      "sum_dtype_float64", all, base,
      [](const Tensor& x, const ReduceArgs& a) {
        return a.has_dims ? ember::sum(x, dims_of(a), a.keepdim, kFloat64) : x.sum(kFloat64);
      },
      ref_sum, [](ScalarType) { return kFloat64; }));
  ops.push_back(reduction_op(
      "sum_dtype_int32", ints, base,
      [](const Tensor& x, const ReduceArgs& a) {
        return a.has_dims ? ember::sum(x, dims_of(a), a.keepdim, kInt32) : x.sum(kInt32);
      },
      ref_sum, [](ScalarType) { return kInt32; }));
  ops.push_back(reduction_op(
      "nansum", all, special,
      [](const Tensor& x, const ReduceArgs& a) {
        return a.has_dims ? x.nansum(dims_of(a), a.keepdim) : ember::nansum(x);
      },
      ref_nansum, int_to_long, {}, 4));
  ops.push_back(reduction_op(
      "mean", fl, special,
      [](const Tensor& x, const ReduceArgs& a) {
        return a.has_dims ? x.mean(dims_of(a), a.keepdim) : ember::mean(x);
      },
      ref_mean, [](ScalarType t) { return t; }, ints));
  ops.push_back(reduction_op(
      "mean_dtype_float32", all, base,
      [](const Tensor& x, const ReduceArgs& a) {
        return a.has_dims ? ember::mean(x, dims_of(a), a.keepdim, kFloat32) : x.mean(kFloat32);
      },
      ref_mean, [](ScalarType) { return kFloat32; }));
  // Finite differences need a float64 result: the same call with dtype=float64.
  ops.back().grad_op = [](const std::vector<Tensor>& in) {
    const ReduceArgs a = reduce_args(in);
    return a.has_dims ? ember::mean(in[0], dims_of(a), a.keepdim, kFloat64) : in[0].mean(kFloat64);
  };
  ops.push_back(reduction_op(
      "nanmean", fl, special,
      [](const Tensor& x, const ReduceArgs& a) {
        return a.has_dims ? x.nanmean(dims_of(a), a.keepdim) : ember::nanmean(x);
      },
      ref_nanmean, [](ScalarType t) { return t; }, ints));
  ops.push_back(reduction_op(
      "prod", fl, prod_opts,
      [](const Tensor& x, const ReduceArgs& a) {
        return a.has_dims ? x.prod(a.dims.at(0), a.keepdim) : ember::prod(x);
      },
      ref_prod, int_to_long, {}, 4));
  ops.push_back(reduction_op(
      "prod_int", ints, prod_int,
      [](const Tensor& x, const ReduceArgs& a) {
        return a.has_dims ? x.prod(a.dims.at(0), a.keepdim) : ember::prod(x);
      },
      int_product, int_to_long));
  ops.push_back(reduction_op(
      "prod_dtype_float64", all, prod_opts,
      [](const Tensor& x, const ReduceArgs& a) {
        return a.has_dims ? ember::prod(x, a.dims.at(0), a.keepdim, kFloat64)
                          : ember::prod(x, kFloat64);
      },
      ref_prod, [](ScalarType) { return kFloat64; }));
  ReduceSampleOptions logical = special;
  logical.low = -1.5;  // plenty of zeros for the integers
  logical.high = 1.5;
  auto bool_or_byte = [](ScalarType t) { return t == kUInt8 ? kUInt8 : kBool; };
  ops.push_back(reduction_op(
      "all", all, logical,
      [](const Tensor& x, const ReduceArgs& a) {
        return a.has_dims ? x.all(dims_of(a), a.keepdim) : ember::all(x);
      },
      [](const std::vector<double>& v) {
        for (double e : v) {
          if (e == 0) return 0.0;
        }
        return 1.0;
      },
      bool_or_byte));
  ops.push_back(reduction_op(
      "any", all, logical,
      [](const Tensor& x, const ReduceArgs& a) {
        return a.has_dims ? x.any(dims_of(a), a.keepdim) : ember::any(x);
      },
      [](const std::vector<double>& v) {
        for (double e : v) {
          if (e != 0) return 1.0;
        }
        return 0.0;
      },
      bool_or_byte));
  ReduceSampleOptions count = logical;
  count.keepdim = false;
  ops.push_back(reduction_op(
      "count_nonzero", all, count,
      [](const Tensor& x, const ReduceArgs& a) {
        return a.has_dims ? x.count_nonzero(dims_of(a)) : ember::count_nonzero(x);
      },
      [](const std::vector<double>& v) {
        double n = 0;
        for (double e : v) n += e != 0 ? 1 : 0;
        return n;
      },
      [](ScalarType) { return kInt64; }));
  return ops;
}

INSTANTIATE_TEST_SUITE_P(ReductionSum, OpTest, ::testing::ValuesIn(sum_ops()), op_test_name);

}  // namespace
}  // namespace ember::test
