#pragma once
// Options of the convolution functionals, as libtorch spells them (torch/nn/options/conv.h):
//   F::conv2d(x, w, F::Conv2dFuncOptions().stride(2).padding(1).bias(b))
//   F::conv2d(x, w, F::Conv2dFuncOptions().padding(ember::kSame))
#include <initializer_list>
#include <variant>
#include <vector>

#include "ember/nn/arg.h"
#include "ember/core/tensor.h"
#include "ember/nn/enum_conv.h"
#include "ember/expanding_array.h"

namespace ember::nn {
namespace detail {
/// Explicit paddings, or the strings "valid" / "same".
template <size_t D>
using conv_padding_t = std::variant<ExpandingArray<D>, enumtype::kValid, enumtype::kSame>;
}  // namespace detail

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
