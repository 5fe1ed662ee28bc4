#pragma once
// Options of the embedding functions (torch/nn/options/embedding.h).
#include <cstdint>
#include <optional>
#include <variant>

#include "ember/core/tensor.h"
#include "ember/nn/arg.h"
#include "ember/nn/enum.h"

namespace ember::nn::functional {

struct EmbeddingFuncOptions {
  /// Entries equal to padding_idx get no gradient (negative: counted from num_embeddings).
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  /// Rows whose norm exceeds max_norm are renormalized in place in `weight`.
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(bool, sparse) = false;
};

struct EmbeddingBagFuncOptions {
  typedef std::variant<enumtype::kSum, enumtype::kMean, enumtype::kMax> mode_t;
  EMBER_ARG(Tensor, offsets) = {};
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(mode_t, mode) = kMean;
  EMBER_ARG(bool, sparse) = false;
  EMBER_ARG(Tensor, per_sample_weights) = {};
  EMBER_ARG(bool, include_last_offset) = false;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

}  // namespace ember::nn::functional
