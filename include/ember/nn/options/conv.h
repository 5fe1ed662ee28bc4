#pragma once
// Options of the convolution functionals, as libtorch spells them (torch/nn/options/conv.h):
//   F::conv2d(x, w, F::Conv2dFuncOptions().stride(2).padding(1).bias(b))
//   F::conv2d(x, w, F::Conv2dFuncOptions().padding(ember::kSame))
#include <initializer_list>
#include <variant>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/expanding_array.h"
#include "ember/nn/arg.h"
#include "ember/nn/enum_conv.h"

namespace ember::nn {
namespace detail {
/// Explicit paddings, or the strings "valid" / "same".
template <size_t D>
using conv_padding_t = std::variant<ExpandingArray<D>, enumtype::kValid, enumtype::kSame>;
}  // namespace detail

/// Options of the Conv1d / Conv2d modules (libtorch's ConvOptions):
///   nn::Conv2d(nn::Conv2dOptions(3, 16, 3).stride(2).padding(1).padding_mode(ember::kReflect))
template <size_t D>
struct ConvOptions {
  using padding_t = detail::conv_padding_t<D>;
  typedef std::variant<enumtype::kZeros, enumtype::kReflect, enumtype::kReplicate,
                       enumtype::kCircular>
      padding_mode_t;
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = ExpandingArray<D>(0);

 public:
  auto padding(std::initializer_list<int64_t> il) -> decltype(*this) {
    return padding(padding_t(ExpandingArray<D>(il)));
  }
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  /// How the input is padded: zeros (inside the convolution) or F::pad's reflect / replicate /
  /// circular first.
  EMBER_ARG(padding_mode_t, padding_mode) = ember::kZeros;
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;

/// Options of the ConvTranspose1d / ConvTranspose2d modules (only zeros padding, as PyTorch).
template <size_t D>
struct ConvTransposeOptions {
  typedef std::variant<enumtype::kZeros, enumtype::kReflect, enumtype::kReplicate,
                       enumtype::kCircular>
      padding_mode_t;
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(padding_mode_t, padding_mode) = ember::kZeros;
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;

namespace functional {

/// Options for F::conv1d / F::conv2d.
template <size_t D>
struct ConvFuncOptions {
  using padding_t = nn::detail::conv_padding_t<D>;
  /// Optional bias of shape (out_channels).
  EMBER_ARG(Tensor, bias);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = ExpandingArray<D>(0);

 public:
  auto padding(std::initializer_list<int64_t> il) -> decltype(*this) {
    return padding(padding_t(ExpandingArray<D>(il)));
  }
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
};
using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;

/// Options for F::conv_transpose1d / F::conv_transpose2d.
template <size_t D>
struct ConvTransposeFuncOptions {
  EMBER_ARG(Tensor, bias);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
};
using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;

}  // namespace functional
}  // namespace ember::nn
