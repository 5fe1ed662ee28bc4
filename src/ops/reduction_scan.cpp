// cumsum, cumprod, cummax, cummin, logcumsumexp.
#include "ember/ops/reduction.h"
#include "ops/reduction_util.h"

namespace ember {

namespace {

std::vector<Tensor> run_scan(ScanOp op, const Tensor& x, int64_t dim,
                             const std::vector<ScalarType>& dtypes) {
  auto outs = dispatch(Scan(op, dim, dtypes[0]), {x});
  EMBER_INTERNAL_ASSERT(outs.size() == dtypes.size() && outs.back().dtype() == dtypes.back(),
                        "run_scan: inference disagrees with the op builder for ", scan_op_name(op));
  return outs;
}

// cumsum/cumprod: integers and bool accumulate into int64 unless a dtype is given.
Tensor cum_sum_prod(ScanOp op, const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  const char* name = scan_op_name(op);
  const int64_t d = ops::wrap_dim(dim, x.dim(), name);
  ops::check_implemented(x.dtype(), name);
  const ScalarType out =
      dtype.value_or(is_integral(x.dtype(), /*include_bool=*/true) ? kInt64 : x.dtype());
  return run_scan(op, ops::cast_for_dtype_arg(x, dtype, name), d, {out})[0];
}

std::tuple<Tensor, Tensor> cum_extreme(ScanOp op, const Tensor& x, int64_t dim) {
  const char* name = scan_op_name(op);
  const int64_t d = ops::wrap_dim(dim, x.dim(), name);
  ops::check_implemented(x.dtype(), name);
  auto outs = run_scan(op, x, d, {x.dtype(), kInt64});
  return {outs[0], outs[1]};
}

}  // namespace

Tensor cumsum(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return cum_sum_prod(ScanOp::CumSum, x, dim, dtype);
}
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return cum_sum_prod(ScanOp::CumProd, x, dim, dtype);
}
std::tuple<Tensor, Tensor> cummax(const Tensor& x, int64_t dim) {
  return cum_extreme(ScanOp::CumMax, x, dim);
}
std::tuple<Tensor, Tensor> cummin(const Tensor& x, int64_t dim) {
  return cum_extreme(ScanOp::CumMin, x, dim);
}
Tensor logcumsumexp(const Tensor& x, int64_t dim) {
  const int64_t d = ops::wrap_dim(dim, x.dim(), "logcumsumexp");
  ops::check_implemented(x.dtype(), "logcumsumexp");
  EMBER_CHECK_TYPE(x.is_floating_point(),
                   "[logcumsumexp] \"logcumsumexp_out_cpu\" not "
                   "implemented for ",
                   ops::quoted_type(x.dtype()));
  return run_scan(ScanOp::LogCumSumExp, x, d, {x.dtype()})[0];
}

Tensor Tensor::cumsum(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::cumsum(*this, dim, dtype);
}
Tensor Tensor::cumprod(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::cumprod(*this, dim, dtype);
}
std::tuple<Tensor, Tensor> Tensor::cummax(int64_t dim) const { return ember::cummax(*this, dim); }
std::tuple<Tensor, Tensor> Tensor::cummin(int64_t dim) const { return ember::cummin(*this, dim); }
Tensor Tensor::logcumsumexp(int64_t dim) const { return ember::logcumsumexp(*this, dim); }

}  // namespace ember
