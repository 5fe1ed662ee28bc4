#pragma once
// Embedding and EmbeddingBag modules (torch::nn::Embedding, torch::nn::EmbeddingBag).
//   nn::Embedding emb(nn::EmbeddingOptions(10, 3).padding_idx(0));
//   auto frozen = nn::Embedding::from_pretrained(table);  // no gradient (freeze defaults to true)
#include <cstdint>

#include "ember/nn/module.h"
#include "ember/nn/options/embedding.h"

namespace ember::nn {

/// A lookup table `weight` [num_embeddings, embedding_dim], initialised N(0, 1) with the
/// padding_idx row zeroed (as PyTorch). A negative padding_idx is stored wrapped.
class EmbeddingImpl : public Module {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(EmbeddingOptions options_);
  void reset();
  void reset_parameters();
  /// indices: int64/int32 of any shape -> indices.sizes() + [embedding_dim].
  Tensor forward(const Tensor& indices);
  void pretty_print(std::ostream& stream) const override;
  EmbeddingOptions options;
  Tensor weight;
};

class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  using Impl = EmbeddingImpl;
  /// An Embedding whose weight is `embeddings` (2-D, sharing its storage).
  static Embedding from_pretrained(const Tensor& embeddings,
                                   const EmbeddingFromPretrainedOptions& options = {});
};

/// Sums, means or maxima over bags of embeddings without materialising the lookups per bag.
class EmbeddingBagImpl : public Module {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(EmbeddingBagOptions options_);
  void reset();
  void reset_parameters();
  /// input 2-D (B, N) (each row a bag), or 1-D with `offsets` (bag starts); per_sample_weights
  /// (input's shape) only with mode kSum.
  Tensor forward(const Tensor& input, const Tensor& offsets = {},
                 const Tensor& per_sample_weights = {});
  void pretty_print(std::ostream& stream) const override;
  EmbeddingBagOptions options;
  Tensor weight;
};

class EmbeddingBag : public ModuleHolder<EmbeddingBagImpl> {
 public:
  using ModuleHolder<EmbeddingBagImpl>::ModuleHolder;
  using Impl = EmbeddingBagImpl;
  static EmbeddingBag from_pretrained(const Tensor& embeddings,
                                      const EmbeddingBagFromPretrainedOptions& options = {});
};

}  // namespace ember::nn
