#pragma once
// nn::LinearCrossEntropyLoss: a classifier head and its cross-entropy in one module, computed by
// F::linear_cross_entropy.
//   nn::LinearCrossEntropyLoss head(nn::LinearCrossEntropyLossOptions(512, 32000).options(
//       nn::LinearCrossEntropyOptions()));
//   Tensor loss = head(hidden, tokens);  // hidden (N, 512), tokens (N) int64
#include "ember/nn/module.h"
#include "ember/nn/options/linear_cross_entropy.h"

namespace ember::nn {

/// Parameters "weight" (num_classes, in_features) and "bias" (num_classes, with .bias(true)),
/// initialised as nn::Linear's; class weights given in the options are the buffer
/// "class_weight".
class LinearCrossEntropyLossImpl : public Module {
 public:
  LinearCrossEntropyLossImpl(int64_t in_features, int64_t num_classes)
      : LinearCrossEntropyLossImpl(LinearCrossEntropyLossOptions(in_features, num_classes)) {}
  explicit LinearCrossEntropyLossImpl(const LinearCrossEntropyLossOptions& options_);
  Tensor forward(const Tensor& input, const Tensor& target);
  void reset();
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  LinearCrossEntropyLossOptions options;
  Tensor weight, bias, class_weight;
};
EMBER_MODULE(LinearCrossEntropyLoss);

}  // namespace ember::nn
