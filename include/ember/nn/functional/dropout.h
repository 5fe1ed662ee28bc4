#pragma once
// Dropout with the default generator (src/nn/functional/dropout.cpp). p outside [0, 1] is a
// ValueError. With training(false) or p == 0 the input is returned as is.
#include "ember/core/tensor.h"
#include "ember/nn/options/dropout.h"

namespace ember::nn::functional {

/// Zeroes each element with probability p and scales the rest by 1 / (1 - p).
Tensor dropout(Tensor input, const DropoutFuncOptions& options = {});
Tensor dropout(Tensor input, double p, bool training = true, bool inplace = false);
/// Zeroes whole channels: input (N, C, H, W) or (C, H, W).
Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options = {});
/// Zeroes whole channels: input (N, C, L) or (C, L).
Tensor dropout1d(Tensor input, const Dropout1dFuncOptions& options = {});
/// Zeroes whole channels: input (N, C, D, H, W) or (C, D, H, W).
Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& options = {});
/// Keeps mean and variance of SELU activations: dropped elements become -alpha * scale, then an
/// affine correction.
Tensor alpha_dropout(Tensor input, const AlphaDropoutFuncOptions& options = {});
Tensor feature_alpha_dropout(Tensor input, const FeatureAlphaDropoutFuncOptions& options = {});

}  // namespace ember::nn::functional
