#pragma once
// Distances and similarities (src/nn/functional/distance.cpp).
#include <optional>
#include <string>

#include "ember/core/tensor.h"
#include "ember/nn/options/distance.h"

namespace ember {

/// torch.cdist: p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M) ->
/// (..., P, R). compute_mode: "use_mm_for_euclid_dist_if_necessary" (default),
/// "use_mm_for_euclid_dist" or "donot_use_mm_for_euclid_dist".
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2.0,
             std::optional<std::string> compute_mode = std::nullopt);

}  // namespace ember

namespace ember::nn::functional {

/// sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) along dim (inputs broadcast).
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2,
                         const CosineSimilarityFuncOptions& options = {});
/// ||x1 - x2 + eps||_p along the last dim.
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2,
                         const PairwiseDistanceFuncOptions& options = {});
using ember::cdist;

}  // namespace ember::nn::functional
