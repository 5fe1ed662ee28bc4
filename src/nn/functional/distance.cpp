// Distances as composites of Ember ops.
#include "ember/nn/functional/distance.h"

#include <cmath>
#include <limits>

#include "ember/ops/elementwise.h"
#include "ember/ops/matmul.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "nn/functional/common.h"

namespace ember {

Tensor cdist(const Tensor& x1, const Tensor& x2, double p,
             std::optional<std::string> compute_mode) {
  nn::detail::check_defined(x1, "cdist", "x1");
  nn::detail::check_defined(x2, "cdist", "x2");
  EMBER_CHECK(x1.dim() >= 2, "[cdist] cdist only supports at least 2D tensors, X1 got: ", x1.dim(),
              "D");
  EMBER_CHECK(x2.dim() >= 2, "[cdist] cdist only supports at least 2D tensors, X2 got: ", x2.dim(),
              "D");
  EMBER_CHECK_TYPE(
      is_floating_point(x1.dtype()) && is_implemented(x1.dtype()),
      "[cdist] cdist only supports floating-point dtypes, X1 got: ", dtype_name(x1.dtype()));
  EMBER_CHECK_TYPE(
      is_floating_point(x2.dtype()) && is_implemented(x2.dtype()),
      "[cdist] cdist only supports floating-point dtypes, X2 got: ", dtype_name(x2.dtype()));
  EMBER_CHECK(x1.sym_size(-1) == x2.sym_size(-1),
              "[cdist] X1 and X2 must have the same number of columns. X1: ", x1.sym_size(-1),
              " X2: ", x2.sym_size(-1));
  EMBER_CHECK(p >= 0, "[cdist] cdist only supports non-negative p values");
  const std::string mode = compute_mode.value_or("use_mm_for_euclid_dist_if_necessary");
  EMBER_CHECK(mode == "use_mm_for_euclid_dist_if_necessary" || mode == "use_mm_for_euclid_dist" ||
                  mode == "donot_use_mm_for_euclid_dist",
              "[cdist] ", mode, " is not a valid value for compute_mode");
  const ScalarType out_dtype = promote_types(x1.dtype(), x2.dtype());
  Tensor a = nn::detail::to_opmath(x1.to(out_dtype));
  Tensor b = nn::detail::to_opmath(x2.to(out_dtype));
  // SymInts: the row counts are compared only for p == 2 (a guard on a dynamic dim, as in
  // PyTorch), so the other norms trace with any number of rows.
  const SymInt r1 = a.sym_size(-2), r2 = b.sym_size(-2);
  const bool use_mm =
      p == 2 && (mode == "use_mm_for_euclid_dist" ||
                 (mode == "use_mm_for_euclid_dist_if_necessary" && (r1 > 25 || r2 > 25)));
  Tensor d;
  if (use_mm) {
    // ||a||^2 + ||b||^2 - 2 a b^T, clamped at 0 (PyTorch's _euclidean_dist).
    Tensor an = (a * a).sum({-1}, true);
    Tensor bn = (b * b).sum({-1}, true);
    d = (an + bn.transpose(-2, -1) - 2 * ember::matmul(a, b.transpose(-2, -1))).clamp_min(0).sqrt();
  } else {
    Tensor diff = (a.unsqueeze(-2) - b.unsqueeze(-3)).abs();  // [..., P, R, M]
    if (p == 0) {
      d = (diff != 0).to(a.dtype()).sum({-1});
    } else if (std::isinf(p)) {
      d = diff.sym_size(-1) == 0 ? diff.sum({-1}) : diff.amax({-1});
    } else if (p == 1) {
      d = diff.sum({-1});
    } else if (p == 2) {
      d = (diff * diff).sum({-1}).sqrt();
    } else {
      d = diff.pow(p).sum({-1}).pow(1.0 / p);
    }
  }
  return nn::detail::from_opmath(d, out_dtype);
}

namespace nn::functional {

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& o) {
  nn::detail::check_defined(x1, "cosine_similarity", "x1");
  nn::detail::check_defined(x2, "cosine_similarity", "x2");
  const ScalarType dt = promote_types(x1.dtype(), x2.dtype());
  EMBER_CHECK_TYPE(is_floating_point(dt) && is_implemented(dt),
                   "[cosine_similarity] expected floating inputs, but got ", dtype_name(dt));
  auto bt = ember::broadcast_tensors(
      {nn::detail::to_opmath(x1.to(dt)), nn::detail::to_opmath(x2.to(dt))});
  const int64_t dim = ops::wrap_dim(o.dim(), bt[0].dim(), "cosine_similarity");
  Tensor n1 = ember::norm(bt[0], 2, {dim}, true).clamp_min(o.eps());
  Tensor n2 = ember::norm(bt[1], 2, {dim}, true).clamp_min(o.eps());
  return nn::detail::from_opmath(((bt[0] / n1) * (bt[1] / n2)).sum({dim}), dt);
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& o) {
  nn::detail::check_defined(x1, "pairwise_distance", "x1");
  nn::detail::check_defined(x2, "pairwise_distance", "x2");
  const int64_t out_dim = std::max(x1.dim(), x2.dim());
  const ScalarType dt = promote_types(x1.dtype(), x2.dtype());
  EMBER_CHECK_TYPE(is_floating_point(dt) && is_implemented(dt),
                   "[pairwise_distance] expected floating inputs, but got ", dtype_name(dt));
  Tensor diff = nn::detail::to_opmath(x1.to(dt)) - nn::detail::to_opmath(x2.to(dt)) + o.eps();
  if (out_dim == 0) diff = diff.reshape({1});
  Tensor d = ember::norm(diff, o.p(), {-1}, o.keepdim() && out_dim > 0);
  return nn::detail::from_opmath(d, dt);
}

}  // namespace nn::functional
}  // namespace ember
