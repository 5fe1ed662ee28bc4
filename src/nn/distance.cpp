// Distance modules over nn::functional.
#include "ember/nn/modules/distance.h"

#include <ostream>

#include "ember/nn/functional/distance.h"

namespace ember::nn {

namespace F = functional;

CosineSimilarityImpl::CosineSimilarityImpl(const CosineSimilarityOptions& o)
    : Module("ember::nn::CosineSimilarity"), options(o) {}
Tensor CosineSimilarityImpl::forward(const Tensor& input1, const Tensor& input2) {
  return F::cosine_similarity(input1, input2, options);
}
void CosineSimilarityImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::CosineSimilarity(dim=" << options.dim() << ", eps=" << options.eps() << ")";
}

PairwiseDistanceImpl::PairwiseDistanceImpl(const PairwiseDistanceOptions& o)
    : Module("ember::nn::PairwiseDistance"), options(o) {}
Tensor PairwiseDistanceImpl::forward(const Tensor& input1, const Tensor& input2) {
  return F::pairwise_distance(input1, input2, options);
}
void PairwiseDistanceImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::PairwiseDistance(p=" << options.p() << ", eps=" << options.eps()
    << ", keepdim=" << std::boolalpha << options.keepdim() << ")";
}

}  // namespace ember::nn
