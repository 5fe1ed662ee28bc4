#pragma once
// Options of the activation functions and modules, with libtorch's names and defaults
// (torch/nn/options/activation.h).
#include <cstdint>
#include <optional>
#include <string>

#include "ember/core/dtype.h"
#include "ember/nn/arg.h"

namespace ember::nn {

struct ELUOptions {
  EMBER_ARG(double, alpha) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};

struct SELUOptions {
  /* implicit */ SELUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  EMBER_ARG(bool, inplace);
};

struct GLUOptions {
  /* implicit */ GLUOptions(int64_t dim = -1) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
};

struct GELUOptions {
  /// "none" or "tanh".
  EMBER_ARG(std::string, approximate) = "none";
};

struct HardshrinkOptions {
  /* implicit */ HardshrinkOptions(double lambda = 0.5) : lambda_(lambda) {}  // NOLINT
  EMBER_ARG(double, lambda);
};

struct HardtanhOptions {
  EMBER_ARG(double, min_val) = -1.0;
  EMBER_ARG(double, max_val) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};

struct LeakyReLUOptions {
  EMBER_ARG(double, negative_slope) = 1e-2;
  EMBER_ARG(bool, inplace) = false;
};

struct SoftmaxOptions {
  SoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
};

struct SoftminOptions {
  SoftminOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
};

struct LogSoftmaxOptions {
  LogSoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
};

struct PReLUOptions {
  EMBER_ARG(int64_t, num_parameters) = 1;
  EMBER_ARG(double, init) = 0.25;
};

struct ReLUOptions {
  /* implicit */ ReLUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  EMBER_ARG(bool, inplace);
};

struct ReLU6Options {
  /* implicit */ ReLU6Options(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  EMBER_ARG(bool, inplace);
};

struct CELUOptions {
  EMBER_ARG(double, alpha) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};

struct SoftplusOptions {
  EMBER_ARG(double, beta) = 1.0;
  EMBER_ARG(double, threshold) = 20.0;
};

struct SoftshrinkOptions {
  /* implicit */ SoftshrinkOptions(double lambda = 0.5) : lambda_(lambda) {}  // NOLINT
  EMBER_ARG(double, lambda);
};

struct ThresholdOptions {
  ThresholdOptions(double threshold, double value) : threshold_(threshold), value_(value) {}
  EMBER_ARG(double, threshold);
  EMBER_ARG(double, value);
  EMBER_ARG(bool, inplace) = false;
};

namespace functional {

/// F::softmax(x, F::SoftmaxFuncOptions(1).dtype(ember::kFloat64)).
struct SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
  /// The input is cast to this dtype before the operation.
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};

struct SoftminFuncOptions {
  SoftminFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};

struct LogSoftmaxFuncOptions {
  LogSoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};

using ELUFuncOptions = ELUOptions;
using SELUFuncOptions = SELUOptions;
using GLUFuncOptions = GLUOptions;
using GELUFuncOptions = GELUOptions;
using HardshrinkFuncOptions = HardshrinkOptions;
using HardtanhFuncOptions = HardtanhOptions;
using LeakyReLUFuncOptions = LeakyReLUOptions;
using ReLUFuncOptions = ReLUOptions;
using ReLU6FuncOptions = ReLU6Options;
using CELUFuncOptions = CELUOptions;
using SoftplusFuncOptions = SoftplusOptions;
using SoftshrinkFuncOptions = SoftshrinkOptions;
using ThresholdFuncOptions = ThresholdOptions;

}  // namespace functional
}  // namespace ember::nn
