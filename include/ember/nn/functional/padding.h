#pragma once
// F::pad: constant (any number of dims; negative pads crop), reflect, replicate, circular.
//   F::pad(x, F::PadFuncOptions({1, 2}).mode(ember::kReplicate))
#include "ember/core/tensor.h"
#include "ember/nn/options/padding.h"

namespace ember::nn::functional {

Tensor pad(const Tensor& input, const PadFuncOptions& options);

}  // namespace ember::nn::functional
