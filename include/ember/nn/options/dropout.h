#pragma once
// Options of the dropout functions (torch/nn/options/dropout.h).
#include "ember/nn/arg.h"

namespace ember::nn {

/// Options of the dropout modules: nn::Dropout(0.2), nn::Dropout(nn::DropoutOptions().p(0.2)).
struct DropoutOptions {
  /* implicit */ DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT
  EMBER_ARG(double, p);
  EMBER_ARG(bool, inplace) = false;
};
using Dropout1dOptions = DropoutOptions;
using Dropout2dOptions = DropoutOptions;
using Dropout3dOptions = DropoutOptions;
using AlphaDropoutOptions = DropoutOptions;
using FeatureAlphaDropoutOptions = DropoutOptions;

}  // namespace ember::nn

namespace ember::nn::functional {

struct DropoutFuncOptions {
  /// The probability of an element to be zeroed.
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = true;
  EMBER_ARG(bool, inplace) = false;
};
using Dropout1dFuncOptions = DropoutFuncOptions;
using Dropout2dFuncOptions = DropoutFuncOptions;
using Dropout3dFuncOptions = DropoutFuncOptions;

/// Note: alpha_dropout's `training` defaults to false, as in PyTorch.
struct AlphaDropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(bool, inplace) = false;
};

struct FeatureAlphaDropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(bool, inplace) = false;
};

}  // namespace ember::nn::functional
