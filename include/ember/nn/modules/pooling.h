#pragma once
// Pooling modules (torch::nn::MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, ...):
//   nn::MaxPool2d pool(nn::MaxPool2dOptions(3).stride(2).padding(1));
//   auto [y, indices] = pool->forward_with_indices(x);
#include <tuple>

#include "ember/nn/module.h"
#include "ember/nn/options/pooling.h"

namespace ember::nn {

template <size_t D>
class MaxPoolImpl : public Module {
 public:
  MaxPoolImpl(ExpandingArray<D> kernel_size)
      : MaxPoolImpl(MaxPoolOptions<D>(kernel_size)) {}  // NOLINT
  explicit MaxPoolImpl(const MaxPoolOptions<D>& options_);
  void reset();
  Tensor forward(const Tensor& input);
  /// The output and the int64 positions of the maxima within each plane.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  MaxPoolOptions<D> options;
};
class MaxPool1dImpl : public MaxPoolImpl<1> {
 public:
  using MaxPoolImpl<1>::MaxPoolImpl;
};
EMBER_MODULE(MaxPool1d);
class MaxPool2dImpl : public MaxPoolImpl<2> {
 public:
  using MaxPoolImpl<2>::MaxPoolImpl;
};
EMBER_MODULE(MaxPool2d);

template <size_t D>
class AvgPoolImpl : public Module {
 public:
  AvgPoolImpl(ExpandingArray<D> kernel_size)
      : AvgPoolImpl(AvgPoolOptions<D>(kernel_size)) {}  // NOLINT
  explicit AvgPoolImpl(const AvgPoolOptions<D>& options_);
  void reset();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AvgPoolOptions<D> options;
};
class AvgPool1dImpl : public AvgPoolImpl<1> {
 public:
  using AvgPoolImpl<1>::AvgPoolImpl;
};
EMBER_MODULE(AvgPool1d);
class AvgPool2dImpl : public AvgPoolImpl<2> {
 public:
  using AvgPoolImpl<2>::AvgPoolImpl;
};
EMBER_MODULE(AvgPool2d);

/// Adaptive pooling to options.output_size() (2-d: std::nullopt entries keep the input's size).
template <size_t D, typename Options>
class AdaptiveAvgPoolImpl : public Module {
 public:
  explicit AdaptiveAvgPoolImpl(const Options& options_);
  Tensor forward(const Tensor& input);
  void reset() {}
  void pretty_print(std::ostream& stream) const override;
  Options options;
};
class AdaptiveAvgPool1dImpl : public AdaptiveAvgPoolImpl<1, AdaptiveAvgPool1dOptions> {
 public:
  using AdaptiveAvgPoolImpl::AdaptiveAvgPoolImpl;
  AdaptiveAvgPool1dImpl(ExpandingArray<1> output_size)  // NOLINT
      : AdaptiveAvgPoolImpl(AdaptiveAvgPool1dOptions(output_size)) {}
};
EMBER_MODULE(AdaptiveAvgPool1d);
class AdaptiveAvgPool2dImpl : public AdaptiveAvgPoolImpl<2, AdaptiveAvgPool2dOptions> {
 public:
  using AdaptiveAvgPoolImpl::AdaptiveAvgPoolImpl;
  AdaptiveAvgPool2dImpl(ExpandingArrayWithOptional<2> output_size)  // NOLINT
      : AdaptiveAvgPoolImpl(AdaptiveAvgPool2dOptions(output_size)) {}
};
EMBER_MODULE(AdaptiveAvgPool2d);

template <size_t D, typename Options>
class AdaptiveMaxPoolImpl : public Module {
 public:
  explicit AdaptiveMaxPoolImpl(const Options& options_);
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  void reset() {}
  void pretty_print(std::ostream& stream) const override;
  Options options;
};
class AdaptiveMaxPool1dImpl : public AdaptiveMaxPoolImpl<1, AdaptiveMaxPool1dOptions> {
 public:
  using AdaptiveMaxPoolImpl::AdaptiveMaxPoolImpl;
  AdaptiveMaxPool1dImpl(ExpandingArray<1> output_size)  // NOLINT
      : AdaptiveMaxPoolImpl(AdaptiveMaxPool1dOptions(output_size)) {}
};
EMBER_MODULE(AdaptiveMaxPool1d);
class AdaptiveMaxPool2dImpl : public AdaptiveMaxPoolImpl<2, AdaptiveMaxPool2dOptions> {
 public:
  using AdaptiveMaxPoolImpl::AdaptiveMaxPoolImpl;
  AdaptiveMaxPool2dImpl(ExpandingArrayWithOptional<2> output_size)  // NOLINT
      : AdaptiveMaxPoolImpl(AdaptiveMaxPool2dOptions(output_size)) {}
};
EMBER_MODULE(AdaptiveMaxPool2d);

extern template class MaxPoolImpl<1>;
extern template class MaxPoolImpl<2>;
extern template class AvgPoolImpl<1>;
extern template class AvgPoolImpl<2>;
extern template class AdaptiveAvgPoolImpl<1, AdaptiveAvgPool1dOptions>;
extern template class AdaptiveAvgPoolImpl<2, AdaptiveAvgPool2dOptions>;
extern template class AdaptiveMaxPoolImpl<1, AdaptiveMaxPool1dOptions>;
extern template class AdaptiveMaxPoolImpl<2, AdaptiveMaxPool2dOptions>;

}  // namespace ember::nn
