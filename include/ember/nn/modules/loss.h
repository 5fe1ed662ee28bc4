#pragma once
// Loss modules (torch::nn::MSELoss, ...) over nn::functional. Weight tensors given in the options
// are registered as buffers ("weight", "pos_weight"), as PyTorch, so they follow to(dtype) and
// appear in state_dict().
//   nn::CrossEntropyLoss loss(nn::CrossEntropyLossOptions().label_smoothing(0.1));
//   Tensor l = loss(logits, target);
#include "ember/nn/module.h"
#include "ember/nn/options/loss.h"

namespace ember::nn {

/// Declares XxxImpl(const XxxOptions& = {}) with forward(input, target) + holder Xxx.
#define EMBER_LOSS_MODULE(Name)                                \
  class Name##Impl : public Module {                           \
   public:                                                     \
    explicit Name##Impl(const Name##Options& options_ = {});   \
    Tensor forward(const Tensor& input, const Tensor& target); \
    void reset();                                              \
    void pretty_print(std::ostream& stream) const override;    \
    Name##Options options;                                     \
  };                                                           \
  EMBER_MODULE(Name)

EMBER_LOSS_MODULE(L1Loss);
EMBER_LOSS_MODULE(MSELoss);
EMBER_LOSS_MODULE(SmoothL1Loss);
EMBER_LOSS_MODULE(HuberLoss);
EMBER_LOSS_MODULE(KLDivLoss);
#undef EMBER_LOSS_MODULE

/// Declares a loss with a "weight" buffer (undefined when not given).
#define EMBER_WEIGHTED_LOSS_MODULE(Name)                       \
  class Name##Impl : public Module {                           \
   public:                                                     \
    explicit Name##Impl(const Name##Options& options_ = {});   \
    Tensor forward(const Tensor& input, const Tensor& target); \
    void reset();                                              \
    void pretty_print(std::ostream& stream) const override;    \
    Name##Options options;                                     \
    Tensor weight;                                             \
  };                                                           \
  EMBER_MODULE(Name)

EMBER_WEIGHTED_LOSS_MODULE(CrossEntropyLoss);
EMBER_WEIGHTED_LOSS_MODULE(NLLLoss);
EMBER_WEIGHTED_LOSS_MODULE(BCELoss);
#undef EMBER_WEIGHTED_LOSS_MODULE

/// Buffers "weight" and "pos_weight" (each only when given).
class BCEWithLogitsLossImpl : public Module {
 public:
  explicit BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options_ = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void reset();
  void pretty_print(std::ostream& stream) const override;
  BCEWithLogitsLossOptions options;
  Tensor weight, pos_weight;
};
EMBER_MODULE(BCEWithLogitsLoss);

class MarginRankingLossImpl : public Module {
 public:
  explicit MarginRankingLossImpl(const MarginRankingLossOptions& options_ = {});
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target);
  void reset() {}
  void pretty_print(std::ostream& stream) const override;
  MarginRankingLossOptions options;
};
EMBER_MODULE(MarginRankingLoss);

class CosineEmbeddingLossImpl : public Module {
 public:
  explicit CosineEmbeddingLossImpl(const CosineEmbeddingLossOptions& options_ = {});
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target);
  void reset() {}
  void pretty_print(std::ostream& stream) const override;
  CosineEmbeddingLossOptions options;
};
EMBER_MODULE(CosineEmbeddingLoss);

}  // namespace ember::nn
