// Pooling modules over nn::functional.
#include "ember/nn/modules/pooling.h"

#include <ostream>
#include <string>

#include "ember/nn/functional/pooling.h"

namespace ember::nn {

namespace F = functional;

namespace {

template <size_t D>
void check_window(const ExpandingArray<D>& kernel, const ExpandingArray<D>& stride,
                  const ExpandingArray<D>& padding, const std::string& op) {
  for (size_t i = 0; i < D; ++i) {
    EMBER_CHECK_VALUE(kernel[i] > 0, "[", op, "] kernel_size must be greater than zero, got ",
                      kernel);
    EMBER_CHECK_VALUE(stride[i] > 0, "[", op, "] stride must be greater than zero, got ", stride);
    EMBER_CHECK_VALUE(padding[i] >= 0 && padding[i] <= kernel[i] / 2, "[", op,
                      "] pad should be at most half of effective kernel size, but got pad=",
                      padding, ", kernel_size=", kernel);
  }
}

template <size_t D>
void print_optional_sizes(std::ostream& s, const ExpandingArrayWithOptional<D>& a) {
  s << "[";
  for (size_t i = 0; i < D; ++i) {
    s << (i ? ", " : "");
    if (a[i].has_value()) {
      s << *a[i];
    } else {
      s << "None";
    }
  }
  s << "]";
}
template <size_t D>
void print_optional_sizes(std::ostream& s, const ExpandingArray<D>& a) {
  s << a;
}

}  // namespace

template <size_t D>
MaxPoolImpl<D>::MaxPoolImpl(const MaxPoolOptions<D>& o)
    : Module("ember::nn::MaxPool" + std::to_string(D) + "d"), options(o) {
  reset();
}

template <size_t D>
void MaxPoolImpl<D>::reset() {
  const std::string op = name().substr(11);
  check_window<D>(options.kernel_size(), options.stride(), options.padding(), op);
  for (size_t i = 0; i < D; ++i) {
    EMBER_CHECK_VALUE(options.dilation()[i] > 0, "[", op,
                      "] dilation must be greater than zero, got ", options.dilation());
  }
}

template <size_t D>
Tensor MaxPoolImpl<D>::forward(const Tensor& input) {
  if constexpr (D == 1) {
    return F::max_pool1d(input, options);
  } else {
    return F::max_pool2d(input, options);
  }
}

template <size_t D>
std::tuple<Tensor, Tensor> MaxPoolImpl<D>::forward_with_indices(const Tensor& input) {
  if constexpr (D == 1) {
    return F::max_pool1d_with_indices(input, options);
  } else {
    return F::max_pool2d_with_indices(input, options);
  }
}

template <size_t D>
void MaxPoolImpl<D>::pretty_print(std::ostream& s) const {
  s << std::boolalpha << name() << "(kernel_size=" << options.kernel_size()
    << ", stride=" << options.stride() << ", padding=" << options.padding()
    << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode() << ")";
}

template <size_t D>
AvgPoolImpl<D>::AvgPoolImpl(const AvgPoolOptions<D>& o)
    : Module("ember::nn::AvgPool" + std::to_string(D) + "d"), options(o) {
  reset();
}

template <size_t D>
void AvgPoolImpl<D>::reset() {
  const std::string op = name().substr(11);
  check_window<D>(options.kernel_size(), options.stride(), options.padding(), op);
  EMBER_CHECK_VALUE(!options.divisor_override().has_value() || *options.divisor_override() != 0,
                    "[", op, "] divisor must be not zero");
}

template <size_t D>
Tensor AvgPoolImpl<D>::forward(const Tensor& input) {
  if constexpr (D == 1) {
    return F::avg_pool1d(input, options);
  } else {
    return F::avg_pool2d(input, options);
  }
}

template <size_t D>
void AvgPoolImpl<D>::pretty_print(std::ostream& s) const {
  s << name() << "(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
    << ", padding=" << options.padding() << ")";
}

template <size_t D, typename Options>
AdaptiveAvgPoolImpl<D, Options>::AdaptiveAvgPoolImpl(const Options& o)
    : Module("ember::nn::AdaptiveAvgPool" + std::to_string(D) + "d"), options(o) {}

template <size_t D, typename Options>
Tensor AdaptiveAvgPoolImpl<D, Options>::forward(const Tensor& input) {
  if constexpr (D == 1) {
    return F::adaptive_avg_pool1d(input, options);
  } else {
    return F::adaptive_avg_pool2d(input, options);
  }
}

template <size_t D, typename Options>
void AdaptiveAvgPoolImpl<D, Options>::pretty_print(std::ostream& s) const {
  s << name() << "(output_size=";
  print_optional_sizes<D>(s, options.output_size());
  s << ")";
}

template <size_t D, typename Options>
AdaptiveMaxPoolImpl<D, Options>::AdaptiveMaxPoolImpl(const Options& o)
    : Module("ember::nn::AdaptiveMaxPool" + std::to_string(D) + "d"), options(o) {}

template <size_t D, typename Options>
Tensor AdaptiveMaxPoolImpl<D, Options>::forward(const Tensor& input) {
  if constexpr (D == 1) {
    return F::adaptive_max_pool1d(input, options);
  } else {
    return F::adaptive_max_pool2d(input, options);
  }
}

template <size_t D, typename Options>
std::tuple<Tensor, Tensor> AdaptiveMaxPoolImpl<D, Options>::forward_with_indices(
    const Tensor& input) {
  if constexpr (D == 1) {
    return F::adaptive_max_pool1d_with_indices(input, options);
  } else {
    return F::adaptive_max_pool2d_with_indices(input, options);
  }
}

template <size_t D, typename Options>
void AdaptiveMaxPoolImpl<D, Options>::pretty_print(std::ostream& s) const {
  s << name() << "(output_size=";
  print_optional_sizes<D>(s, options.output_size());
  s << ")";
}

template class MaxPoolImpl<1>;
template class MaxPoolImpl<2>;
template class AvgPoolImpl<1>;
template class AvgPoolImpl<2>;
template class AdaptiveAvgPoolImpl<1, AdaptiveAvgPool1dOptions>;
template class AdaptiveAvgPoolImpl<2, AdaptiveAvgPool2dOptions>;
template class AdaptiveMaxPoolImpl<1, AdaptiveMaxPool1dOptions>;
template class AdaptiveMaxPoolImpl<2, AdaptiveMaxPool2dOptions>;

}  // namespace ember::nn
