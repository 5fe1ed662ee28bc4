#pragma once
// F::interpolate: modes nearest (3-D/4-D input) and linear (3-D) / bilinear (4-D) with
// align_corners; area is adaptive average pooling. Output size from `size` or `scale_factor`.
//   F::interpolate(x, F::InterpolateFuncOptions().scale_factor({2, 2}).mode(ember::kBilinear))
#include "ember/core/tensor.h"
#include "ember/nn/options/upsampling.h"

namespace ember::nn::functional {

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {});

}  // namespace ember::nn::functional
