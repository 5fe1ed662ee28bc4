#pragma once
// Sample inputs and plain-loop references shared by the reduction tests. A reduction sample's
// inputs are {x, dims (int64 1-d), flags (int64 1-d: keepdim, has_dims)}: the op lambda reads the
// arguments back with reduce_args(); has_dims = 0 calls the overload without dims.
#include <functional>
#include <string>
#include <vector>

#include "opdb.h"

namespace ember::test {

struct ReduceArgs {
  std::vector<int64_t> dims;
  bool keepdim = false;
  bool has_dims = true;
};
ReduceArgs reduce_args(const std::vector<Tensor>& inputs);
Sample reduce_sample(const Tensor& x, std::vector<int64_t> dims, bool keepdim, bool has_dims,
                     std::string desc);

struct ReduceSampleOptions {
  double low = -5, high = 5;
  bool multi_dims = true;    // dim lists with several entries (else 0 or 1 dim)
  bool empty_reduce = true;  // samples reducing over a size-0 dim (ops with an identity)
  bool nan_inf = false;      // NaN / inf samples (floating dtypes only)
  bool large = true;         // long reductions that exercise the parallel split
  bool keepdim = true;       // samples with keepdim=true (count_nonzero has no keepdim)
  bool no_dim = true;        // samples calling the overload without dims
  bool small = false;        // gradcheck sizes: a [2, 3, 4] 3-d sample, none of 40x37 or longer
  // reduce_grad_samples declines (and says why) samples that reduce fewer elements: var and std
  // with a correction >= the count are inf/NaN there.
  int64_t gradcheck_min_group = 1;
};
/// 0-d, 1-d, 3-d, single dims, negative dims, keepdim both ways, multiple dims, empty,
/// non-contiguous, expanded, large, and NaN/inf values where asked.
std::vector<Sample> reduce_samples(ScalarType dtype, const ReduceSampleOptions& opts);
/// The float64 gradcheck set: reduce_samples with `small` set, without NaN/inf and long samples.
std::vector<Sample> reduce_grad_samples(ReduceSampleOptions opts);

/// The elements of x grouped by output element (reduced elements in row-major order), and the
/// output shape. dims as given by the user: may be negative; empty means every dim.
struct Groups {
  std::vector<int64_t> shape;
  std::vector<std::vector<double>> groups;
};
Groups group_by_output(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim);

/// A reduction OpInfo: `call` runs Ember, `ref` reduces one group in double (or exact integers),
/// `out_dtype` gives PyTorch's result dtype for an input dtype.
OpInfo reduction_op(std::string name, std::vector<ScalarType> dtypes, ReduceSampleOptions opts,
                    std::function<Tensor(const Tensor&, const ReduceArgs&)> call,
                    std::function<double(const std::vector<double>&)> ref,
                    std::function<ScalarType(ScalarType)> out_dtype,
                    std::vector<ScalarType> rejected = {}, double tol_scale = 1);

/// Scans: inputs {x, dim (int64 0-d)}.
int64_t scan_dim(const std::vector<Tensor>& inputs);
std::vector<Sample> scan_samples(ScalarType dtype, double low, double high, bool nan_inf,
                                 bool small = false);
/// Applies `line` to every line of x along `dim` (wrapped): line(values) returns the outputs.
std::vector<double> scan_reference(
    const Tensor& x, int64_t dim,
    const std::function<std::vector<double>(const std::vector<double>&)>& line);

// Reference helpers in double.
/// v rounded to a floating output dtype (overflow gives inf, as the real result does).
double round_to(ScalarType t, double v);
bool any_nan(const std::vector<double>& v);
/// x > best, with NaN winning (max) / x < best (min).
int64_t arg_extreme(const std::vector<double>& v, bool max);
/// Product of integer values with int64 two's-complement wrap-around.
double int_product(const std::vector<double>& v);

ScalarType int_to_long(ScalarType t);  // sum/prod/cumsum: integral and bool -> int64

}  // namespace ember::test
