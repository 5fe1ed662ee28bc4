// sort, argsort, msort, topk, kthvalue, median, nanmedian, mode: checks (PyTorch's Sorting.cpp
// wording), output shapes, dispatch of the SortSelect primitive (src/primitives/sort.h).
#include "ember/ops/sort.h"

#include <limits>

#include "ember/ops/factory.h"
#include "ember/ops/shape.h"
#include "ops/promotion.h"
#include "ops/reduction_util.h"
#include "primitives/sort.h"

namespace ember {
namespace {

void check_input(const Tensor& x, const char* op, const char* kernel, bool allow_bool) {
  ops::check_defined(x, op, "self");
  ops::check_implemented(x.dtype(), op);
  if (!allow_bool && x.dtype() == kBool) ops::throw_not_implemented(op, kernel, x.dtype());
}

// A SymInt: a dynamic dim is compared by its range (Note [Symbolic shapes]).
SymInt dim_size(const Tensor& x, int64_t dim) { return x.dim() == 0 ? SymInt(1) : x.sym_size(dim); }

// Runs a SortSelect; returns (values, indices).
std::tuple<Tensor, Tensor> run(const SortSelect& prim, const Tensor& x) {
  const auto outs = dispatch(prim, {x});
  return {outs[0], outs[1]};
}

std::tuple<Tensor, Tensor> median_dim(const Tensor& x, int64_t dim_in, bool keepdim, SortOp op) {
  const char* name = sort_op_name(op);
  check_input(x, name, op == SortOp::Median ? "median_out" : "nanmedian_out", false);
  const int64_t dim = ops::wrap_dim(dim_in, x.dim(), name);
  EMBER_CHECK_INDEX(dim_size(x, dim) > 0, "[", name, "] ", name, "(): Expected reduction dim ", dim,
                    " to have non-zero size.");
  return run(SortSelect(op, dim, false, 0, false, keepdim), x);
}

Tensor median_all(const Tensor& x, SortOp op) {
  const char* name = sort_op_name(op);
  check_input(x, name, op == SortOp::Median ? "median_cpu" : "nanmedian_cpu", false);
  if (x.sym_numel() == 0) {
    // PyTorch returns NaN for an empty input.
    EMBER_CHECK(is_floating_point(x.dtype()), "[", name, "] ", name,
                "() operation does not have an identity for empty input tensor");
    return full({}, std::numeric_limits<double>::quiet_NaN(), TensorOptions().dtype(x.dtype()));
  }
  return std::get<0>(run(SortSelect(op, 0, false, 0, /*whole=*/true), x.reshape({-1})));
}

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& x, std::optional<bool> /*stable*/, int64_t dim_in,
                                bool descending) {
  check_input(x, "sort", "sort", true);
  const int64_t dim = ops::wrap_dim(dim_in, x.dim(), "sort");
  return run(SortSelect(SortOp::Sort, dim, descending), x);
}
std::tuple<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending) {
  return sort(x, false, dim, descending);
}
Tensor argsort(const Tensor& x, int64_t dim, bool descending, bool stable) {
  return std::get<1>(sort(x, stable, dim, descending));
}
Tensor msort(const Tensor& x) { return std::get<0>(sort(x, false, 0, false)); }

std::tuple<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim_in, bool largest,
                                bool /*sorted: results are always sorted*/) {
  check_input(x, "topk", "topk_cpu", false);
  const int64_t dim = ops::wrap_dim(dim_in, x.dim(), "topk");
  EMBER_CHECK(k >= 0 && k <= dim_size(x, dim), "[topk] selected index k out of range");
  // A 0-d input gives itself for k = 0 or 1 (PyTorch copies the element either way).
  return run(SortSelect(SortOp::TopK, dim, largest, x.dim() == 0 ? 1 : k), x);
}

std::tuple<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim_in, bool keepdim) {
  check_input(x, "kthvalue", "kthvalue_cpu", false);
  const int64_t dim = ops::wrap_dim(dim_in, x.dim(), "kthvalue");
  EMBER_CHECK(x.sym_numel() > 0,
              "[kthvalue] cannot perform reduction function kthvalue on tensor with no elements "
              "because the operation does not have an identity");
  EMBER_CHECK(k > 0 && k <= dim_size(x, dim), "[kthvalue] selected index k out of range");
  return run(SortSelect(SortOp::KthValue, dim, false, k, false, keepdim), x);
}

Tensor median(const Tensor& x) { return median_all(x, SortOp::Median); }
std::tuple<Tensor, Tensor> median(const Tensor& x, int64_t dim, bool keepdim) {
  return median_dim(x, dim, keepdim, SortOp::Median);
}
Tensor nanmedian(const Tensor& x) { return median_all(x, SortOp::NanMedian); }
std::tuple<Tensor, Tensor> nanmedian(const Tensor& x, int64_t dim, bool keepdim) {
  return median_dim(x, dim, keepdim, SortOp::NanMedian);
}

std::tuple<Tensor, Tensor> mode(const Tensor& x, int64_t dim_in, bool keepdim) {
  check_input(x, "mode", "mode_cpu", true);
  const int64_t dim = ops::wrap_dim(dim_in, x.dim(), "mode");
  EMBER_CHECK_INDEX(dim_size(x, dim) > 0, "[mode] mode(): Expected reduction dim ", dim,
                    " to have non-zero size.");
  return run(SortSelect(SortOp::Mode, dim, false, 0, false, keepdim), x);
}

// ---- Tensor methods
std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const {
  return ember::sort(*this, dim, descending);
}
std::tuple<Tensor, Tensor> Tensor::sort(std::optional<bool> stable, int64_t dim,
                                        bool descending) const {
  return ember::sort(*this, stable, dim, descending);
}
Tensor argsort(const Tensor& x, bool stable, int64_t dim, bool descending) {
  return argsort(x, dim, descending, stable);
}
Tensor Tensor::argsort(bool stable, int64_t dim, bool descending) const {
  return ember::argsort(*this, dim, descending, stable);
}
Tensor Tensor::argsort(int64_t dim, bool descending, bool stable) const {
  return ember::argsort(*this, dim, descending, stable);
}
Tensor Tensor::msort() const { return ember::msort(*this); }
std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  return ember::topk(*this, k, dim, largest, sorted);
}
std::tuple<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  return ember::kthvalue(*this, k, dim, keepdim);
}
Tensor Tensor::median() const { return ember::median(*this); }
std::tuple<Tensor, Tensor> Tensor::median(int64_t dim, bool keepdim) const {
  return ember::median(*this, dim, keepdim);
}
Tensor Tensor::nanmedian() const { return ember::nanmedian(*this); }
std::tuple<Tensor, Tensor> Tensor::nanmedian(int64_t dim, bool keepdim) const {
  return ember::nanmedian(*this, dim, keepdim);
}
std::tuple<Tensor, Tensor> Tensor::mode(int64_t dim, bool keepdim) const {
  return ember::mode(*this, dim, keepdim);
}

}  // namespace ember
