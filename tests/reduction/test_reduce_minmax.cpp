// OpInfo tests: max/min (whole tensor and over a dim), amax, amin, argmax, argmin, aminmax.
#include <cmath>
#include <limits>

#include "reduction/reduce_testing.h"

namespace ember::test {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();

double ref_extreme(const std::vector<double>& v, bool max) {
  if (any_nan(v)) return kNan;
  double best = v.at(0);
  for (double e : v) best = max ? std::max(best, e) : std::min(best, e);
  return best;
}

ScalarType same(ScalarType t) { return t; }
ScalarType long_t(ScalarType) { return kInt64; }

std::vector<OpInfo> minmax_ops() {
  const auto& all = all_dtypes();
  std::vector<ScalarType> no_bool(all.begin() + 1, all.end());
  ReduceSampleOptions multi;
  multi.empty_reduce = false;
  multi.nan_inf = true;
  ReduceSampleOptions single = multi;
  single.multi_dims = false;
  ReduceSampleOptions single_dim_only = single;
  single_dim_only.no_dim = false;

  std::vector<OpInfo> ops;
  for (bool is_max : {true, false}) {
    const std::string n = is_max ? "max" : "min";
    auto ref = [is_max](const std::vector<double>& v) { return ref_extreme(v, is_max); };
    auto ref_idx = [is_max](const std::vector<double>& v) {
      return static_cast<double>(arg_extreme(v, is_max));
    };
    ops.push_back(reduction_op(
        "a" + n, all, multi,
        [is_max](const Tensor& x, const ReduceArgs& a) {
          if (!a.has_dims) return is_max ? x.max() : x.min();
          return is_max ? x.amax(IntList(a.dims), a.keepdim) : x.amin(IntList(a.dims), a.keepdim);
        },
        ref, same));
    ops.back().nondifferentiable_at_ties = true;
    ops.push_back(reduction_op(
        n + "_dim_values", all, single,
        [is_max](const Tensor& x, const ReduceArgs& a) {
          if (!a.has_dims) return is_max ? ember::max(x) : ember::min(x);
          auto r = is_max ? x.max(a.dims.at(0), a.keepdim) : x.min(a.dims.at(0), a.keepdim);
          return std::get<0>(r);
        },
        ref, same));
    ops.back().nondifferentiable_at_ties = true;
    ops.push_back(reduction_op(
        n + "_dim_indices", all, single_dim_only,
        [is_max](const Tensor& x, const ReduceArgs& a) {
          auto r = is_max ? ember::max(x, a.dims.at(0), a.keepdim)
                          : ember::min(x, a.dims.at(0), a.keepdim);
          return std::get<1>(r);
        },
        ref_idx, long_t));
    ops.push_back(reduction_op("arg" + n, no_bool, single,
                               [is_max](const Tensor& x, const ReduceArgs& a) {
                                 if (!a.has_dims)
                                   return is_max ? ember::argmax(x) : ember::argmin(x);
                                 return is_max ? x.argmax(a.dims.at(0), a.keepdim)
                                               : x.argmin(a.dims.at(0), a.keepdim);
                               },
                               ref_idx, long_t, {kBool}));
    ops.push_back(reduction_op(
        "aminmax_" + n, all, single,
        [is_max](const Tensor& x, const ReduceArgs& a) {
          auto r = a.has_dims ? x.aminmax(a.dims.at(0), a.keepdim) : ember::aminmax(x);
          return is_max ? std::get<1>(r) : std::get<0>(r);
        },
        ref, same));
    ops.back().nondifferentiable_at_ties = true;
  }
  return ops;
}

INSTANTIATE_TEST_SUITE_P(ReductionMinMax, OpTest, ::testing::ValuesIn(minmax_ops()), op_test_name);

}  // namespace
}  // namespace ember::test
