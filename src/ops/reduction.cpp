// sum, nansum, mean, nanmean, prod, all, any, count_nonzero, and the shared reduction helpers.
#include "ember/ops/reduction.h"

#include "ops/reduction_util.h"

namespace ember::ops {

ReduceShape reduce_shape(const Tensor& x, const IntList& dim, bool keepdim, const char* op) {
  ReduceShape rs;
  rs.keepdim = keepdim;
  const int64_t nd = x.dim();
  rs.dims = wrap_dims(dim, nd, op);
  if (rs.dims.empty()) {
    for (int64_t d = 0; d < nd; ++d) rs.dims.push_back(d);
  }
  std::vector<bool> reduced(nd, false);
  for (int64_t d : rs.dims) {
    if (d < nd) reduced[d] = true;
  }
  for (int64_t d = 0; d < nd; ++d) {
    if (!reduced[d]) {
      rs.shape.push_back(x.sym_size(d));
    } else if (keepdim) {
      rs.shape.push_back(1);
    }
  }
  return rs;
}

std::vector<Tensor> run_reduce(ReduceOp op, const Tensor& x, const ReduceShape& rs,
                               const std::vector<ScalarType>& dtypes, double param,
                               const char* name) {
  auto outs = dispatch(Reduce(op, rs.dims, rs.keepdim, dtypes[0], param, name), {x});
  EMBER_INTERNAL_ASSERT(
      outs.size() == dtypes.size() && outs.back().dtype() == dtypes.back() &&
          same_as(SymShape(rs.shape.begin(), rs.shape.end()), TensorMeta::of(outs[0]).sizes),
      "run_reduce: inference disagrees with the op builder for ", reduce_op_name(op));
  return outs;
}

std::string type_str(ScalarType t) {
  return std::string(scalar_type_name(t)) + " (torch." + dtype_name(t) + ")";
}

std::string quoted_type(ScalarType t) {
  return std::string("'") + scalar_type_name(t) + "' (torch." + dtype_name(t) + ")";
}

Tensor cast_for_dtype_arg(const Tensor& x, const std::optional<ScalarType>& dtype, const char* op) {
  if (!dtype.has_value() || *dtype == x.dtype()) return x;
  check_implemented(*dtype, op);
  return x.to(*dtype);
}

void zero_numel_check_dims(const Tensor& x, const std::vector<int64_t>& dims, const char* op,
                           const char* fn) {
  if (x.sym_numel() != 0) return;
  for (int64_t d : dims) {
    EMBER_CHECK_INDEX(x.sym_size(d) != 0, "[", op, "] ", fn, ": Expected reduction dim ", d,
                      " to have non-zero size.");
  }
}

}  // namespace ember::ops

namespace ember {

using ops::ReduceShape;

namespace {

// sum/nansum/prod: integers and bool accumulate into int64 unless a dtype is given.
Tensor sum_like(ReduceOp op, const Tensor& x, const IntList& dim, bool keepdim,
                const std::optional<ScalarType>& dtype) {
  const char* name = reduce_op_name(op);
  ReduceShape rs = ops::reduce_shape(x, dim, keepdim, name);
  ops::check_implemented(x.dtype(), name);
  const ScalarType out =
      dtype.value_or(is_integral(x.dtype(), /*include_bool=*/true) ? kInt64 : x.dtype());
  Tensor in = ops::cast_for_dtype_arg(x, dtype, name);
  // nansum of integers is sum (they have no NaN).
  const ReduceOp run =
      op == ReduceOp::NanSum && !is_floating_point(in.dtype()) ? ReduceOp::Sum : op;
  return ops::run_reduce1(run, in, rs, out, 0, name);
}

Tensor mean_like(ReduceOp op, const Tensor& x, const IntList& dim, bool keepdim,
                 const std::optional<ScalarType>& dtype) {
  const char* name = reduce_op_name(op);
  ReduceShape rs = ops::reduce_shape(x, dim, keepdim, name);
  if (op == ReduceOp::NanMean) {
    EMBER_CHECK_TYPE(x.is_floating_point(),
                     "[nanmean] nanmean(): expected input to have floating "
                     "point or complex dtype but got ",
                     ops::type_str(x.dtype()));
  }
  const ScalarType out = dtype.value_or(x.dtype());
  EMBER_CHECK_TYPE(is_floating_point(out), "[", name, "] ", name,
                   "(): could not infer output "
                   "dtype. ",
                   dtype ? "Optional" : "Input",
                   " dtype must be either a floating "
                   "point or complex dtype. Got: ",
                   ops::type_str(out));
  return ops::run_reduce1(op, ops::cast_for_dtype_arg(x, dtype, name), rs, out);
}

Tensor all_any(ReduceOp op, const Tensor& x, const IntList& dim, bool keepdim) {
  const char* name = reduce_op_name(op);
  ReduceShape rs = ops::reduce_shape(x, dim, keepdim, name);
  ops::check_implemented(x.dtype(), name);
  // Note [all, any : uint8 compatibility] in PyTorch: uint8 input gives a uint8 result.
  return ops::run_reduce1(op, x, rs, x.dtype() == kUInt8 ? kUInt8 : kBool);
}

}  // namespace

Tensor sum(const Tensor& x, std::optional<ScalarType> dtype) {
  return sum_like(ReduceOp::Sum, x, {}, false, dtype);
}
Tensor sum(const Tensor& x, IntList dim, bool keepdim, std::optional<ScalarType> dtype) {
  return sum_like(ReduceOp::Sum, x, dim, keepdim, dtype);
}
Tensor nansum(const Tensor& x, IntList dim, bool keepdim, std::optional<ScalarType> dtype) {
  return sum_like(ReduceOp::NanSum, x, dim, keepdim, dtype);
}
Tensor prod(const Tensor& x, std::optional<ScalarType> dtype) {
  return sum_like(ReduceOp::Prod, x, {}, false, dtype);
}
Tensor prod(const Tensor& x, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  return sum_like(ReduceOp::Prod, x, dim, keepdim, dtype);
}
Tensor mean(const Tensor& x, std::optional<ScalarType> dtype) {
  return mean_like(ReduceOp::Mean, x, {}, false, dtype);
}
Tensor mean(const Tensor& x, IntList dim, bool keepdim, std::optional<ScalarType> dtype) {
  return mean_like(ReduceOp::Mean, x, dim, keepdim, dtype);
}
Tensor nanmean(const Tensor& x, IntList dim, bool keepdim, std::optional<ScalarType> dtype) {
  return mean_like(ReduceOp::NanMean, x, dim, keepdim, dtype);
}
Tensor all(const Tensor& x) { return all_any(ReduceOp::All, x, {}, false); }
Tensor all(const Tensor& x, IntList dim, bool keepdim) {
  return all_any(ReduceOp::All, x, dim, keepdim);
}
Tensor any(const Tensor& x) { return all_any(ReduceOp::Any, x, {}, false); }
Tensor any(const Tensor& x, IntList dim, bool keepdim) {
  return all_any(ReduceOp::Any, x, dim, keepdim);
}
Tensor count_nonzero(const Tensor& x, IntList dim) {
  ReduceShape rs = ops::reduce_shape(x, dim, false, "count_nonzero");
  ops::check_implemented(x.dtype(), "count_nonzero");
  return ops::run_reduce1(ReduceOp::CountNonzero, x, rs, kInt64);
}

Tensor Tensor::sum(std::optional<ScalarType> dtype) const { return ember::sum(*this, dtype); }
Tensor Tensor::sum(IntList dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::sum(*this, dim, keepdim, dtype);
}
Tensor Tensor::nansum(IntList dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::nansum(*this, dim, keepdim, dtype);
}
Tensor Tensor::mean(std::optional<ScalarType> dtype) const { return ember::mean(*this, dtype); }
Tensor Tensor::mean(IntList dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::mean(*this, dim, keepdim, dtype);
}
Tensor Tensor::nanmean(IntList dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::nanmean(*this, dim, keepdim, dtype);
}
Tensor Tensor::prod(std::optional<ScalarType> dtype) const { return ember::prod(*this, dtype); }
Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::prod(*this, dim, keepdim, dtype);
}
Tensor Tensor::all() const { return ember::all(*this); }
Tensor Tensor::all(IntList dim, bool keepdim) const { return ember::all(*this, dim, keepdim); }
Tensor Tensor::any() const { return ember::any(*this); }
Tensor Tensor::any(IntList dim, bool keepdim) const { return ember::any(*this, dim, keepdim); }
Tensor Tensor::count_nonzero(IntList dim) const { return ember::count_nonzero(*this, dim); }

}  // namespace ember
