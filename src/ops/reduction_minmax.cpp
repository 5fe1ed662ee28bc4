// max, min (whole tensor and over a dim), amax, amin, aminmax, argmax, argmin.
#include "ember/ops/reduction.h"
#include "ops/reduction_util.h"

namespace ember {

using ops::ReduceShape;

namespace {

// max()/min() and amax/amin over every dim of an empty tensor have no identity.
void check_nonempty_all(const Tensor& x, const char* op, const char* fn) {
  EMBER_CHECK(x.sym_numel() != 0, "[", op, "] ", fn,
              ": Expected reduction dim to be specified for "
              "input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
}

Tensor extreme_all(ReduceOp op, const Tensor& x) {
  const char* name = op == ReduceOp::AMax ? "max" : "min";
  ops::check_implemented(x.dtype(), name);
  check_nonempty_all(x, name, op == ReduceOp::AMax ? "max()" : "min()");
  return ops::run_reduce1(op, x, ops::reduce_shape(x, {}, false, name), x.dtype(), 0, name);
}

std::tuple<Tensor, Tensor> extreme_dim(ReduceOp op, const Tensor& x, int64_t dim, bool keepdim) {
  const char* name = reduce_op_name(op);
  ops::check_implemented(x.dtype(), name);
  ReduceShape rs = ops::reduce_shape(x, dim, keepdim, name);
  ops::zero_numel_check_dims(x, rs.dims, name, op == ReduceOp::MaxDim ? "max()" : "min()");
  auto outs = ops::run_reduce(op, x, rs, {x.dtype(), kInt64});
  return {outs[0], outs[1]};
}

Tensor amax_amin(ReduceOp op, const Tensor& x, const IntList& dim, bool keepdim) {
  const char* name = reduce_op_name(op);
  const char* fn = op == ReduceOp::AMax ? "amax()" : "amin()";
  ops::check_implemented(x.dtype(), name);
  ReduceShape rs = ops::reduce_shape(x, dim, keepdim, name);
  if (dim.empty()) check_nonempty_all(x, name, fn);
  ops::zero_numel_check_dims(x, rs.dims, name, fn);
  return ops::run_reduce1(op, x, rs, x.dtype());
}

Tensor arg_extreme(ReduceOp op, const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  const char* name = reduce_op_name(op);
  EMBER_CHECK_TYPE(x.dtype() != kBool, "[", name, "] \"", name, "_cpu\" not implemented for ",
                   ops::quoted_type(x.dtype()));
  ops::check_implemented(x.dtype(), name);
  if (dim.has_value()) {
    ReduceShape rs = ops::reduce_shape(x, *dim, keepdim, name);
    ops::zero_numel_check_dims(x, rs.dims, name, op == ReduceOp::ArgMax ? "argmax()" : "argmin()");
    return ops::run_reduce1(op, x, rs, kInt64);
  }
  EMBER_CHECK_INDEX(x.sym_numel() != 0, "[", name, "] ", name,
                    "(): Expected reduction dim to be "
                    "specified for input.numel() == 0.");
  // The flattened index over every dim, in row-major order.
  return ops::run_reduce1(op, x, ops::reduce_shape(x, {}, keepdim, name), kInt64);
}

}  // namespace

Tensor max(const Tensor& x) { return extreme_all(ReduceOp::AMax, x); }
Tensor min(const Tensor& x) { return extreme_all(ReduceOp::AMin, x); }
std::tuple<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) {
  return extreme_dim(ReduceOp::MaxDim, x, dim, keepdim);
}
std::tuple<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim) {
  return extreme_dim(ReduceOp::MinDim, x, dim, keepdim);
}
Tensor amax(const Tensor& x, IntList dim, bool keepdim) {
  return amax_amin(ReduceOp::AMax, x, dim, keepdim);
}
Tensor amin(const Tensor& x, IntList dim, bool keepdim) {
  return amax_amin(ReduceOp::AMin, x, dim, keepdim);
}

std::tuple<Tensor, Tensor> aminmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  ops::check_implemented(x.dtype(), "aminmax");
  ReduceShape rs;
  if (dim.has_value()) {
    rs = ops::reduce_shape(x, *dim, keepdim, "aminmax");
    ops::zero_numel_check_dims(x, rs.dims, "aminmax", "aminmax");
  } else {
    EMBER_CHECK(x.sym_numel() > 0,
                "[aminmax] aminmax(): cannot compute aminmax over an empty "
                "dimension as the operation has no identity.");
    rs = ops::reduce_shape(x, {}, keepdim, "aminmax");
  }
  auto outs = ops::run_reduce(ReduceOp::AMinMax, x, rs, {x.dtype(), x.dtype()});
  return {outs[0], outs[1]};
}

Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme(ReduceOp::ArgMax, x, dim, keepdim);
}
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme(ReduceOp::ArgMin, x, dim, keepdim);
}

Tensor Tensor::max() const { return ember::max(*this); }
Tensor Tensor::min() const { return ember::min(*this); }
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return ember::max(*this, dim, keepdim);
}
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  return ember::min(*this, dim, keepdim);
}
Tensor Tensor::amax(IntList dim, bool keepdim) const { return ember::amax(*this, dim, keepdim); }
Tensor Tensor::amin(IntList dim, bool keepdim) const { return ember::amin(*this, dim, keepdim); }
std::tuple<Tensor, Tensor> Tensor::aminmax(std::optional<int64_t> dim, bool keepdim) const {
  return ember::aminmax(*this, dim, keepdim);
}
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  return ember::argmax(*this, dim, keepdim);
}
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  return ember::argmin(*this, dim, keepdim);
}

}  // namespace ember
