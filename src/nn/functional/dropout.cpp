// Dropout variants, as ATen's _dropout_impl: a Bernoulli(1 - p) noise tensor drawn from the
// default generator (the whole input's shape, or [N, C, 1, ...] for the feature variants)
// multiplies the input.
#include "ember/nn/functional/dropout.h"

#include <cmath>

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "nn/functional/common.h"

namespace ember::nn::functional {
namespace {

void check_p(double p, const char* op) {
  EMBER_CHECK_VALUE(p >= 0.0 && p <= 1.0, "[", op,
                    "] dropout probability has to be between 0 and 1, but got ", p);
}

/// feature: noise of shape [N, C, 1, ...] (input has at least 2 dims).
Tensor make_noise(const Tensor& input, bool feature) {
  std::vector<int64_t> shape = input.sizes();
  if (feature) {
    for (size_t d = 2; d < shape.size(); ++d) shape[d] = 1;
  }
  return ember::empty(shape, input.dtype());
}

Tensor dropout_impl(Tensor input, double p, bool training, bool inplace, bool feature, bool alpha,
                    const char* op) {
  nn::detail::check_defined(input, op);
  check_p(p, op);
  if (p == 0 || !training || input.numel() == 0) return input;
  nn::detail::check_floating(input, op, "bernoulli_scalar");
  if (p == 1) return nn::detail::maybe_inplace(input, input * 0, inplace);
  Tensor noise = make_noise(input, feature);
  noise.bernoulli_(1 - p);
  Tensor result;
  if (alpha) {
    constexpr double kAlpha = 1.7580993408473766;
    const double a = 1. / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
    Tensor b = (noise - 1) * (kAlpha * a) + kAlpha * a * p;
    result = input * (noise * a) + b;
  } else {
    result = input * (noise / (1 - p));
  }
  return nn::detail::maybe_inplace(input, result, inplace);
}

/// dropout{1,2,3}d: batched input has `batched_dim` dims, unbatched one fewer.
Tensor feature_dropout_nd(Tensor input, const DropoutFuncOptions& o, int64_t batched_dim,
                          const char* op) {
  nn::detail::check_defined(input, op);
  const int64_t d = input.dim();
  EMBER_CHECK(d == batched_dim || d == batched_dim - 1, "[", op, "] Expected ", batched_dim - 1,
              "D or ", batched_dim, "D input, but received a ", d, "D input.");
  check_p(o.p(), op);
  if (d == batched_dim - 1) {
    Tensor r =
        dropout_impl(input.unsqueeze(0), o.p(), o.training(), false, true, false, op).squeeze({0});
    return nn::detail::maybe_inplace(input, r, o.inplace() && o.training() && o.p() > 0);
  }
  return dropout_impl(input, o.p(), o.training(), o.inplace(), true, false, op);
}

}  // namespace

Tensor dropout(Tensor input, const DropoutFuncOptions& o) {
  return dropout_impl(std::move(input), o.p(), o.training(), o.inplace(), false, false, "dropout");
}

Tensor dropout(Tensor input, double p, bool training, bool inplace) {
  return dropout_impl(std::move(input), p, training, inplace, false, false, "dropout");
}

Tensor dropout1d(Tensor input, const Dropout1dFuncOptions& o) {
  return feature_dropout_nd(std::move(input), o, 3, "dropout1d");
}

Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& o) {
  return feature_dropout_nd(std::move(input), o, 4, "dropout2d");
}

Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& o) {
  return feature_dropout_nd(std::move(input), o, 5, "dropout3d");
}

Tensor alpha_dropout(Tensor input, const AlphaDropoutFuncOptions& o) {
  return dropout_impl(std::move(input), o.p(), o.training(), o.inplace(), false, true,
                      "alpha_dropout");
}

Tensor feature_alpha_dropout(Tensor input, const FeatureAlphaDropoutFuncOptions& o) {
  nn::detail::check_defined(input, "feature_alpha_dropout");
  EMBER_CHECK(
      input.dim() >= 2 || !o.training() || o.p() == 0,
      "[feature_alpha_dropout] Feature dropout requires at least 2 dimensions in the input");
  return dropout_impl(std::move(input), o.p(), o.training(), o.inplace(), true, true,
                      "feature_alpha_dropout");
}

}  // namespace ember::nn::functional
