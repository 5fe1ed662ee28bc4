#pragma once
// Options of the dropout functions (torch/nn/options/dropout.h).
#include "ember/nn/arg.h"

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
