// Convolution modules: PyTorch's _ConvNd checks and init; non-zeros padding modes pad with F::pad
// first (PyTorch's _reversed_padding_repeated_twice) and convolve without padding.
#include "ember/nn/modules/conv.h"

#include <cmath>
#include <ostream>
#include <string>

#include "ember/ember.h"
#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/padding.h"
#include "ember/nn/init.h"
#include "ops/util.h"

namespace ember::nn {

namespace F = functional;

namespace {

template <size_t D>
bool all_equal(const ExpandingArray<D>& a, int64_t v) {
  for (size_t i = 0; i < D; ++i) {
    if (a[i] != v) return false;
  }
  return true;
}

/// PyTorch's _ConvNd.__init__ checks, plus positive sizes (a zero kernel is an error here rather
/// than an empty weight).
template <size_t D, typename Options>
void check_options(const Options& o, const std::string& op) {
  EMBER_CHECK_VALUE(o.in_channels() >= 0 && o.out_channels() >= 0, "[", op,
                    "] in_channels and out_channels must be non-negative, got ", o.in_channels(),
                    " and ", o.out_channels());
  EMBER_CHECK_VALUE(o.groups() > 0, "[", op, "] groups must be a positive integer");
  EMBER_CHECK_VALUE(o.in_channels() % o.groups() == 0, "[", op,
                    "] in_channels must be divisible by groups");
  EMBER_CHECK_VALUE(o.out_channels() % o.groups() == 0, "[", op,
                    "] out_channels must be divisible by groups");
  for (size_t i = 0; i < D; ++i) {
    EMBER_CHECK_VALUE(o.kernel_size()[i] > 0, "[", op, "] kernel_size must be positive, got ",
                      o.kernel_size());
    EMBER_CHECK_VALUE(o.stride()[i] > 0, "[", op, "] stride must be positive, got ", o.stride());
    EMBER_CHECK_VALUE(o.dilation()[i] > 0, "[", op, "] dilation must be positive, got ",
                      o.dilation());
  }
}

/// PyTorch's _ConvNd.reset_parameters.
void init_conv(const Tensor& weight, const Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const int64_t fan_in = std::get<0>(init::_calculate_fan_in_and_fan_out(weight));
    if (fan_in != 0) {
      const double bound = 1 / std::sqrt(static_cast<double>(fan_in));
      init::uniform_(bias, -bound, bound);
    }
  }
}

F::PadFuncOptions::mode_t pad_mode(const ConvOptions<1>::padding_mode_t& m) {
  if (std::holds_alternative<enumtype::kReflect>(m)) return ember::kReflect;
  if (std::holds_alternative<enumtype::kReplicate>(m)) return ember::kReplicate;
  if (std::holds_alternative<enumtype::kCircular>(m)) return ember::kCircular;
  return ember::kConstant;
}

// Registers a conv layer's weight [a, b, *kernel] and its optional bias [out_channels].
template <size_t D>
void register_conv_parameters(Module& m, Tensor& weight, Tensor& bias, int64_t a, int64_t b,
                              const ExpandingArray<D>& kernel, int64_t out_channels,
                              bool with_bias) {
  std::vector<int64_t> shape{a, b};
  for (size_t i = 0; i < D; ++i) shape.push_back(kernel[i]);
  weight = m.register_parameter("weight", empty(shape, kFloat32));
  bias = m.register_parameter("bias", with_bias ? empty({out_channels}, kFloat32) : Tensor(),
                              with_bias);
}

}  // namespace

template <size_t D>
ConvNdImpl<D>::ConvNdImpl(const ConvOptions<D>& o)
    : Module("ember::nn::Conv" + std::to_string(D) + "d"), options(o) {
  reset();
}

template <size_t D>
void ConvNdImpl<D>::reset() {
  const std::string op = name().substr(11);
  check_options<D>(options, op);
  if (std::holds_alternative<enumtype::kSame>(options.padding())) {
    EMBER_CHECK_VALUE(all_equal<D>(options.stride(), 1), "[", op,
                      "] padding='same' is not supported for strided convolutions");
  }
  if (const auto* p = std::get_if<ExpandingArray<D>>(&options.padding())) {
    for (size_t i = 0; i < D; ++i) {
      EMBER_CHECK_VALUE((*p)[i] >= 0, "[", op, "] padding must be non-negative, got ", *p);
    }
  }
  register_conv_parameters<D>(*this, weight, bias, options.out_channels(),
                              options.in_channels() / options.groups(), options.kernel_size(),
                              options.out_channels(), options.bias());
  reset_parameters();
}

template <size_t D>
void ConvNdImpl<D>::reset_parameters() {
  init_conv(weight, bias);
}

template <size_t D>
Tensor ConvNdImpl<D>::forward(const Tensor& input) {
  auto conv = [&](const Tensor& x, const typename F::ConvFuncOptions<D>::padding_t& padding) {
    auto fo = typename F::ConvFuncOptions<D>()
                  .bias(bias)
                  .stride(options.stride())
                  .padding(padding)
                  .dilation(options.dilation())
                  .groups(options.groups());
    if constexpr (D == 1) {
      return F::conv1d(x, weight, fo);
    } else {
      return F::conv2d(x, weight, fo);
    }
  };
  if (std::holds_alternative<enumtype::kZeros>(options.padding_mode())) {
    return conv(input, options.padding());
  }
  // F::pad takes (left, right) pairs from the last dim backwards.
  std::vector<int64_t> pad;
  for (size_t r = 0; r < D; ++r) {
    const size_t i = D - 1 - r;
    int64_t left = 0, right = 0;
    if (const auto* p = std::get_if<ExpandingArray<D>>(&options.padding())) {
      left = right = (*p)[i];
    } else if (std::holds_alternative<enumtype::kSame>(options.padding())) {
      const int64_t total = options.dilation()[i] * (options.kernel_size()[i] - 1);
      left = total / 2;
      right = total - left;
    }
    pad.push_back(left);
    pad.push_back(right);
  }
  Tensor padded = F::pad(input, F::PadFuncOptions(pad).mode(pad_mode(options.padding_mode())));
  return conv(padded, ExpandingArray<D>(0));
}

template <size_t D>
void ConvNdImpl<D>::pretty_print(std::ostream& s) const {
  s << name() << "(" << options.in_channels() << ", " << options.out_channels()
    << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  if (const auto* p = std::get_if<ExpandingArray<D>>(&options.padding())) {
    if (!all_equal<D>(*p, 0)) s << ", padding=" << *p;
  } else {
    s << ", padding='"
      << (std::holds_alternative<enumtype::kSame>(options.padding()) ? "same" : "valid") << "'";
  }
  if (!all_equal<D>(options.dilation(), 1)) s << ", dilation=" << options.dilation();
  if (options.groups() != 1) s << ", groups=" << options.groups();
  if (!options.bias()) s << ", bias=false";
  if (!std::holds_alternative<enumtype::kZeros>(options.padding_mode())) {
    s << ", padding_mode=" << enumtype::name(options.padding_mode());
  }
  s << ")";
}

template <size_t D>
ConvTransposeNdImpl<D>::ConvTransposeNdImpl(const ConvTransposeOptions<D>& o)
    : Module("ember::nn::ConvTranspose" + std::to_string(D) + "d"), options(o) {
  reset();
}

template <size_t D>
void ConvTransposeNdImpl<D>::reset() {
  const std::string op = name().substr(11);
  check_options<D>(options, op);
  EMBER_CHECK_VALUE(std::holds_alternative<enumtype::kZeros>(options.padding_mode()), "[", op,
                    "] Only \"zeros\" padding mode is supported for ", op);
  for (size_t i = 0; i < D; ++i) {
    EMBER_CHECK_VALUE(options.padding()[i] >= 0 && options.output_padding()[i] >= 0, "[", op,
                      "] padding and output_padding must be non-negative, got ", options.padding(),
                      " and ", options.output_padding());
  }
  register_conv_parameters<D>(*this, weight, bias, options.in_channels(),
                              options.out_channels() / options.groups(), options.kernel_size(),
                              options.out_channels(), options.bias());
  reset_parameters();
}

template <size_t D>
void ConvTransposeNdImpl<D>::reset_parameters() {
  init_conv(weight, bias);
}

template <size_t D>
Tensor ConvTransposeNdImpl<D>::forward(const Tensor& input, const OptionalIntList& output_size) {
  const std::string op = name().substr(11);
  ExpandingArray<D> output_padding = options.output_padding();
  if (output_size.has_value()) {
    // PyTorch's _ConvTransposeNd._output_padding.
    EMBER_CHECK(input.defined() && (input.dim() == D + 1 || input.dim() == D + 2), "[", op,
                "] Expected ", D + 1, "D (unbatched) or ", D + 2, "D (batched) input");
    const int64_t non_spatial = input.dim() - static_cast<int64_t>(D);
    std::vector<int64_t> size = *output_size;
    if (static_cast<int64_t>(size.size()) == non_spatial + static_cast<int64_t>(D)) {
      size.erase(size.begin(), size.begin() + non_spatial);
    }
    EMBER_CHECK_VALUE(size.size() == D, "[", op, "] ConvTranspose", D, "D: for ", input.dim(),
                      "D input, output_size must have ", D, " or ", non_spatial + D,
                      " elements (got ", output_size->size(), ")");
    std::vector<int64_t> lo(D), hi(D), spatial(D);
    for (size_t d = 0; d < D; ++d) {
      spatial[d] = input.size(non_spatial + d);
      lo[d] = (spatial[d] - 1) * options.stride()[d] - 2 * options.padding()[d] +
              options.dilation()[d] * (options.kernel_size()[d] - 1) + 1;
      hi[d] = lo[d] + options.stride()[d] - 1;
    }
    for (size_t d = 0; d < D; ++d) {
      EMBER_CHECK_VALUE(size[d] >= lo[d] && size[d] <= hi[d], "[", op,
                        "] requested an output size of ", ops::shape_str(size),
                        ", but valid sizes range from ", ops::shape_str(lo), " to ",
                        ops::shape_str(hi), " (for an input of ", ops::shape_str(spatial), ")");
      output_padding[d] = size[d] - lo[d];
    }
  }
  auto fo = typename F::ConvTransposeFuncOptions<D>()
                .bias(bias)
                .stride(options.stride())
                .padding(options.padding())
                .output_padding(output_padding)
                .groups(options.groups())
                .dilation(options.dilation());
  if constexpr (D == 1) {
    return F::conv_transpose1d(input, weight, fo);
  } else {
    return F::conv_transpose2d(input, weight, fo);
  }
}

template <size_t D>
void ConvTransposeNdImpl<D>::pretty_print(std::ostream& s) const {
  s << name() << "(" << options.in_channels() << ", " << options.out_channels()
    << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  if (!all_equal<D>(options.padding(), 0)) s << ", padding=" << options.padding();
  if (!all_equal<D>(options.dilation(), 1)) s << ", dilation=" << options.dilation();
  if (!all_equal<D>(options.output_padding(), 0)) {
    s << ", output_padding=" << options.output_padding();
  }
  if (options.groups() != 1) s << ", groups=" << options.groups();
  if (!options.bias()) s << ", bias=false";
  s << ")";
}

template class ConvNdImpl<1>;
template class ConvNdImpl<2>;
template class ConvTransposeNdImpl<1>;
template class ConvTransposeNdImpl<2>;

}  // namespace ember::nn
