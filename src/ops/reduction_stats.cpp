// var, std, var_mean, std_mean, norm, logsumexp.
#include <cmath>
#include <sstream>

#include "ember/ops/reduction.h"
#include "ops/reduction_util.h"

namespace ember {

using ops::ReduceShape;

namespace {

std::vector<Tensor> var_like(ReduceOp op, const Tensor& x, const IntList& dim, double correction,
                             bool keepdim) {
  const char* name = reduce_op_name(op);
  ReduceShape rs = ops::reduce_shape(x, dim, keepdim, name);
  const bool with_mean = op == ReduceOp::VarMean || op == ReduceOp::StdMean;
  EMBER_CHECK_TYPE(x.is_floating_point(), "[", name, "] ", with_mean ? name : "std and var",
                   " only support floating point and complex "
                   "dtypes, got ",
                   ops::type_str(x.dtype()));
  EMBER_CHECK_VALUE(!std::isnan(correction), "[", name, "] correction must be a number, got nan");
  std::vector<ScalarType> dtypes(with_mean ? 2 : 1, x.dtype());
  return ops::run_reduce(op, x, rs, dtypes, correction);
}

// Python's spelling of the order in linalg.vector_norm's messages: 2, -3, 0.5, inf, -inf.
std::string ord_str(double p) {
  if (std::isinf(p)) return p > 0 ? "inf" : "-inf";
  std::ostringstream ss;
  if (p == std::trunc(p) && std::fabs(p) < 1e15) {
    ss << static_cast<int64_t>(p);
  } else {
    ss << p;
  }
  return ss.str();
}

}  // namespace

Tensor var(const Tensor& x, IntList dim, double correction, bool keepdim) {
  return var_like(ReduceOp::Var, x, dim, correction, keepdim)[0];
}
Tensor std(const Tensor& x, IntList dim, double correction, bool keepdim) {
  return var_like(ReduceOp::Std, x, dim, correction, keepdim)[0];
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& x, IntList dim, double correction, bool keepdim) {
  auto outs = var_like(ReduceOp::VarMean, x, dim, correction, keepdim);
  return {outs[0], outs[1]};
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& x, IntList dim, double correction, bool keepdim) {
  auto outs = var_like(ReduceOp::StdMean, x, dim, correction, keepdim);
  return {outs[0], outs[1]};
}

// As torch.norm with a numeric p, which is torch.linalg.vector_norm.
Tensor norm(const Tensor& x, const Scalar& p, IntList dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  ReduceShape rs = ops::reduce_shape(x, dim, keepdim, "norm");
  EMBER_CHECK_TYPE(x.is_floating_point(),
                   "[norm] linalg.vector_norm: Expected a floating point "
                   "or complex tensor as input. Got ",
                   ops::type_str(x.dtype()));
  if (dtype.has_value()) {
    EMBER_CHECK_TYPE(is_floating_point(*dtype),
                     "[norm] linalg.vector_norm: dtype should be "
                     "floating point or complex, but got ",
                     ops::type_str(*dtype));
    ops::check_implemented(*dtype, "norm");
    EMBER_CHECK(promote_types(x.dtype(), *dtype) == *dtype,
                "[norm] linalg.vector_norm: the "
                "dtype of the input (",
                scalar_type_name(x.dtype()),
                ") should be "
                "convertible without narrowing to the specified dtype (",
                scalar_type_name(*dtype), ")");
  }
  const double ord = p.toDouble();
  EMBER_CHECK_VALUE(!std::isnan(ord),
                    "[norm] linalg.vector_norm: the order must be a number, "
                    "got nan");
  if (x.sym_numel() == 0 && (ord < 0 || std::isinf(ord))) {
    EMBER_CHECK(!dim.empty(), "[norm] linalg.vector_norm cannot compute the ", ord_str(ord),
                " norm on an empty tensor because the operation does not have an identity");
    for (int64_t d : rs.dims) {
      EMBER_CHECK(x.sym_size(d) != 0, "[norm] linalg.vector_norm cannot compute the ", ord_str(ord),
                  " norm on the dimension ", d,
                  " because this dimension is empty "
                  "and the operation does not have an identity");
    }
  }
  Tensor in = ops::cast_for_dtype_arg(x, dtype, "norm");
  return ops::run_reduce1(ReduceOp::Norm, in, rs, in.dtype(), ord);
}

Tensor logsumexp(const Tensor& x, IntList dim, bool keepdim) {
  ReduceShape rs = ops::reduce_shape(x, dim, keepdim, "logsumexp");
  ops::check_implemented(x.dtype(), "logsumexp");
  // Integral inputs compute (and return) in the default floating type.
  Tensor in = x.is_floating_point() ? x : x.to(get_default_dtype());
  return ops::run_reduce1(ReduceOp::LogSumExp, in, rs, in.dtype());
}

Tensor var(const Tensor& x, OptionalIntList dim, const std::optional<Scalar>& correction,
           bool keepdim) {
  return var(x, dim.value_or({}), correction ? correction->toDouble() : 1.0, keepdim);
}
Tensor std(const Tensor& x, OptionalIntList dim, const std::optional<Scalar>& correction,
           bool keepdim) {
  return std(x, dim.value_or({}), correction ? correction->toDouble() : 1.0, keepdim);
}
Tensor Tensor::var(OptionalIntList dim, const std::optional<Scalar>& correction,
                   bool keepdim) const {
  return ember::var(*this, std::move(dim), correction, keepdim);
}
Tensor Tensor::std(OptionalIntList dim, const std::optional<Scalar>& correction,
                   bool keepdim) const {
  return ember::std(*this, std::move(dim), correction, keepdim);
}
Tensor Tensor::var(IntList dim, double correction, bool keepdim) const {
  return ember::var(*this, dim, correction, keepdim);
}
Tensor Tensor::std(IntList dim, double correction, bool keepdim) const {
  return ember::std(*this, dim, correction, keepdim);
}
Tensor Tensor::norm(const Scalar& p, IntList dim, bool keepdim,
                    std::optional<ScalarType> dtype) const {
  return ember::norm(*this, p, dim, keepdim, dtype);
}
Tensor Tensor::logsumexp(IntList dim, bool keepdim) const {
  return ember::logsumexp(*this, dim, keepdim);
}

}  // namespace ember
