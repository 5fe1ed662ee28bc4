#pragma once
// Dropout modules: active in training mode, the identity after eval().
//   nn::Dropout drop(0.2);  drop->eval();  drop(x) is x
#include "ember/nn/module.h"
#include "ember/nn/options/dropout.h"

namespace ember::nn {

/// Declares XxxImpl(const DropoutOptions& = {}) (p outside [0, 1] is a ValueError) + holder Xxx.
#define EMBER_DROPOUT_MODULE(Name)                                  \
  class Name##Impl : public Module {                                \
   public:                                                          \
    explicit Name##Impl(const Name##Options& options_ = {});        \
    explicit Name##Impl(double p) : Name##Impl(Name##Options(p)) {} \
    Tensor forward(Tensor input);                                   \
    void reset();                                                   \
    void pretty_print(std::ostream& stream) const override;         \
    Name##Options options;                                          \
  };                                                                \
  EMBER_MODULE(Name)

/// Zeroes elements with probability p and scales the rest by 1 / (1 - p).
EMBER_DROPOUT_MODULE(Dropout);
/// Zeroes whole channels of (N, C, L) / (C, L) inputs.
EMBER_DROPOUT_MODULE(Dropout1d);
/// Zeroes whole channels of (N, C, H, W) / (C, H, W) inputs.
EMBER_DROPOUT_MODULE(Dropout2d);
/// Zeroes whole channels of (N, C, D, H, W) / (C, D, H, W) inputs.
EMBER_DROPOUT_MODULE(Dropout3d);
/// Keeps the mean and variance of SELU activations.
EMBER_DROPOUT_MODULE(AlphaDropout);
EMBER_DROPOUT_MODULE(FeatureAlphaDropout);

#undef EMBER_DROPOUT_MODULE

}  // namespace ember::nn
