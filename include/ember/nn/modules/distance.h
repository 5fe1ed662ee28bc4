#pragma once
// CosineSimilarity and PairwiseDistance modules.
#include "ember/nn/module.h"
#include "ember/nn/options/distance.h"

namespace ember::nn {

/// sum(x1 * x2) / max(||x1|| * ||x2||, eps) along options.dim().
class CosineSimilarityImpl : public Module {
 public:
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options_ = {});
  Tensor forward(const Tensor& input1, const Tensor& input2);
  void reset() {}
  void pretty_print(std::ostream& stream) const override;
  CosineSimilarityOptions options;
};
EMBER_MODULE(CosineSimilarity);

/// ||x1 - x2 + eps||_p along the last dim.
class PairwiseDistanceImpl : public Module {
 public:
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options_ = {});
  Tensor forward(const Tensor& input1, const Tensor& input2);
  void reset() {}
  void pretty_print(std::ostream& stream) const override;
  PairwiseDistanceOptions options;
};
EMBER_MODULE(PairwiseDistance);

}  // namespace ember::nn
