// Loss modules over nn::functional; weights live in buffers so that to(dtype) converts them.
#include "ember/nn/modules/loss.h"

#include <ostream>

#include "ember/nn/functional/loss.h"

namespace ember::nn {

namespace F = functional;

#define EMBER_LOSS_CTOR(Name)                                                                \
  Name##Impl::Name##Impl(const Name##Options& o) : Module("ember::nn::" #Name), options(o) { \
    reset();                                                                                 \
  }                                                                                          \
  void Name##Impl::pretty_print(std::ostream& s) const { s << "ember::nn::" #Name "()"; }

EMBER_LOSS_CTOR(L1Loss)
EMBER_LOSS_CTOR(MSELoss)
EMBER_LOSS_CTOR(SmoothL1Loss)
EMBER_LOSS_CTOR(HuberLoss)
EMBER_LOSS_CTOR(KLDivLoss)
EMBER_LOSS_CTOR(CrossEntropyLoss)
EMBER_LOSS_CTOR(NLLLoss)
EMBER_LOSS_CTOR(BCELoss)
EMBER_LOSS_CTOR(BCEWithLogitsLoss)
#undef EMBER_LOSS_CTOR

void L1LossImpl::reset() {}
Tensor L1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::l1_loss(input, target, options);
}

void MSELossImpl::reset() {}
Tensor MSELossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::mse_loss(input, target, options);
}

void SmoothL1LossImpl::reset() {
  EMBER_CHECK(!options.beta().has_value() || *options.beta() >= 0,
              "[SmoothL1Loss] smooth_l1_loss does not support negative values for beta.");
}
Tensor SmoothL1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::smooth_l1_loss(input, target, options);
}

void HuberLossImpl::reset() {
  EMBER_CHECK(options.delta() > 0,
              "[HuberLoss] huber_loss does not support non-positive values for delta.");
}
Tensor HuberLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::huber_loss(input, target, options);
}

void KLDivLossImpl::reset() {}
Tensor KLDivLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::kl_div(input, target, options);
}

void CrossEntropyLossImpl::reset() { weight = register_buffer("weight", options.weight()); }
Tensor CrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) {
  CrossEntropyLossOptions o = options;
  return F::cross_entropy(input, target, o.weight(weight));
}

void NLLLossImpl::reset() { weight = register_buffer("weight", options.weight()); }
Tensor NLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  NLLLossOptions o = options;
  return F::nll_loss(input, target, o.weight(weight));
}

void BCELossImpl::reset() { weight = register_buffer("weight", options.weight()); }
Tensor BCELossImpl::forward(const Tensor& input, const Tensor& target) {
  BCELossOptions o = options;
  return F::binary_cross_entropy(input, target, o.weight(weight));
}

void BCEWithLogitsLossImpl::reset() {
  weight = register_buffer("weight", options.weight());
  pos_weight = register_buffer("pos_weight", options.pos_weight());
}
Tensor BCEWithLogitsLossImpl::forward(const Tensor& input, const Tensor& target) {
  BCEWithLogitsLossOptions o = options;
  return F::binary_cross_entropy_with_logits(input, target,
                                             o.weight(weight).pos_weight(pos_weight));
}

MarginRankingLossImpl::MarginRankingLossImpl(const MarginRankingLossOptions& o)
    : Module("ember::nn::MarginRankingLoss"), options(o) {}
Tensor MarginRankingLossImpl::forward(const Tensor& input1, const Tensor& input2,
                                      const Tensor& target) {
  return F::margin_ranking_loss(input1, input2, target, options);
}
void MarginRankingLossImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::MarginRankingLoss()";
}

CosineEmbeddingLossImpl::CosineEmbeddingLossImpl(const CosineEmbeddingLossOptions& o)
    : Module("ember::nn::CosineEmbeddingLoss"), options(o) {}
Tensor CosineEmbeddingLossImpl::forward(const Tensor& input1, const Tensor& input2,
                                        const Tensor& target) {
  return F::cosine_embedding_loss(input1, input2, target, options);
}
void CosineEmbeddingLossImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::CosineEmbeddingLoss()";
}

}  // namespace ember::nn
