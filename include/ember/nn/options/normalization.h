#pragma once
// Options of the normalization functions (torch/nn/options/normalization.h, batchnorm.h,
// instancenorm.h).
#include <cstdint>
#include <optional>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/arg.h"

namespace ember::nn {

/// nn::BatchNorm2d(nn::BatchNormOptions(16).momentum(std::nullopt)): momentum None keeps a
/// cumulative moving average (factor 1 / num_batches_tracked).
struct BatchNormOptions {
  /* implicit */ BatchNormOptions(int64_t num_features)  // NOLINT
      : num_features_(num_features) {}
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_ARG(bool, affine) = true;
  EMBER_ARG(bool, track_running_stats) = true;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

struct InstanceNormOptions {
  /* implicit */ InstanceNormOptions(int64_t num_features)  // NOLINT
      : num_features_(num_features) {}
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(bool, affine) = false;
  EMBER_ARG(bool, track_running_stats) = false;
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;

struct LayerNormOptions {
  /* implicit */ LayerNormOptions(std::vector<int64_t> normalized_shape)  // NOLINT
      : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(double, eps) = 1e-5;
  /// Learnable weight (ones) and bias (zeros) of normalized_shape.
  EMBER_ARG(bool, elementwise_affine) = true;
  /// Python's LayerNorm(bias=False): a weight without a bias.
  EMBER_ARG(bool, bias) = true;
};

struct RMSNormOptions {
  /* implicit */ RMSNormOptions(std::vector<int64_t> normalized_shape)  // NOLINT
      : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  /// Defaults to the input dtype's epsilon.
  EMBER_ARG(std::optional<double>, eps) = std::nullopt;
  EMBER_ARG(bool, elementwise_affine) = true;
};

struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(int64_t, num_channels);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, affine) = true;
};

}  // namespace ember::nn

namespace ember::nn::functional {

/// F::layer_norm(x, F::LayerNormFuncOptions({4}).weight(w).bias(b).eps(1e-5)).
struct LayerNormFuncOptions {
  LayerNormFuncOptions(std::vector<int64_t> normalized_shape)  // NOLINT
      : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Tensor, bias) = {};
  EMBER_ARG(double, eps) = 1e-5;
};

/// F::rms_norm(x, F::RMSNormFuncOptions({4}).weight(w)); eps defaults to the dtype's epsilon.
struct RMSNormFuncOptions {
  RMSNormFuncOptions(std::vector<int64_t> normalized_shape)  // NOLINT
      : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(std::optional<double>, eps) = std::nullopt;
};

struct GroupNormFuncOptions {
  GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}  // NOLINT
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Tensor, bias) = {};
  EMBER_ARG(double, eps) = 1e-5;
};

/// F::batch_norm(x, running_mean, running_var, F::BatchNormFuncOptions().training(true)).
struct BatchNormFuncOptions {
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Tensor, bias) = {};
  EMBER_ARG(bool, training) = false;
  /// running = (1 - momentum) * running + momentum * batch statistic.
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};

struct InstanceNormFuncOptions {
  EMBER_ARG(Tensor, running_mean) = {};
  EMBER_ARG(Tensor, running_var) = {};
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Tensor, bias) = {};
  EMBER_ARG(bool, use_input_stats) = true;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};

/// F::normalize(x, F::NormalizeFuncOptions().p(2).dim(1)).
struct NormalizeFuncOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-12;
};

}  // namespace ember::nn::functional
