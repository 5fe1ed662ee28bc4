#pragma once
// F::pixel_shuffle: (*, C * r * r, H, W) -> (*, C, H * r, W * r); pixel_unshuffle inverts it.
#include "ember/core/tensor.h"
#include "ember/nn/options/pixelshuffle.h"

namespace ember::nn::functional {

Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options);
Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options);

}  // namespace ember::nn::functional
