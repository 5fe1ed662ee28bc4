#pragma once
// Options of the embedding functions (torch/nn/options/embedding.h).
#include <cstdint>
#include <optional>
#include <variant>

#include "ember/core/tensor.h"
#include "ember/nn/arg.h"
#include "ember/nn/enum.h"

namespace ember::nn {

/// nn::Embedding(nn::EmbeddingOptions(10, 3).padding_idx(0)).
struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EMBER_ARG(int64_t, num_embeddings);
  EMBER_ARG(int64_t, embedding_dim);
  /// This row is zeroed at initialisation and gets no gradient (negative: counted from the end).
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(bool, sparse) = false;
  /// An initial weight (num_embeddings, embedding_dim) used instead of the normal init.
  EMBER_ARG(Tensor, _weight) = Tensor();
};

/// Options of Embedding::from_pretrained; freeze (default) turns off the weight's gradient.
struct EmbeddingFromPretrainedOptions {
  EMBER_ARG(bool, freeze) = true;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(bool, sparse) = false;
};

struct EmbeddingBagOptions {
  typedef std::variant<enumtype::kSum, enumtype::kMean, enumtype::kMax> mode_t;
  EmbeddingBagOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EMBER_ARG(int64_t, num_embeddings);
  EMBER_ARG(int64_t, embedding_dim);
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(mode_t, mode) = kMean;
  EMBER_ARG(bool, sparse) = false;
  EMBER_ARG(Tensor, _weight) = Tensor();
  EMBER_ARG(bool, include_last_offset) = false;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

struct EmbeddingBagFromPretrainedOptions {
  typedef std::variant<enumtype::kSum, enumtype::kMean, enumtype::kMax> mode_t;
  EMBER_ARG(bool, freeze) = true;
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(mode_t, mode) = kMean;
  EMBER_ARG(bool, sparse) = false;
  EMBER_ARG(bool, include_last_offset) = false;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

}  // namespace ember::nn

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
