#pragma once
// Convolution modules (torch::nn::Conv1d/2d, ConvTranspose1d/2d):
//   nn::Conv2d conv(nn::Conv2dOptions(3, 16, 3).stride(2).padding(1));
//   nn::Conv1d same(nn::Conv1dOptions(4, 4,
//   5).padding(ember::kSame).padding_mode(ember::kCircular));
// weight (out_channels, in_channels / groups, *kernel_size) for Conv, (in_channels,
// out_channels / groups, *kernel_size) for ConvTranspose; initialised as PyTorch's
// reset_parameters: kaiming_uniform_(a = sqrt(5)), i.e. uniform in ±1/sqrt(fan_in), and bias
// uniform in ±1/sqrt(fan_in).
#include <cstdint>
#include <optional>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/options/conv.h"

namespace ember::nn {

template <size_t D>
class ConvNdImpl : public Module {
 public:
  explicit ConvNdImpl(const ConvOptions<D>& options_);
  void reset();
  void reset_parameters();
  /// input (N, C_in, *spatial) or unbatched (C_in, *spatial).
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  ConvOptions<D> options;
  Tensor weight, bias;
};

class Conv1dImpl : public ConvNdImpl<1> {
 public:
  Conv1dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<1> kernel_size)
      : Conv1dImpl(Conv1dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv1dImpl(const Conv1dOptions& options_) : ConvNdImpl(options_) {}
};
EMBER_MODULE(Conv1d);

class Conv2dImpl : public ConvNdImpl<2> {
 public:
  Conv2dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : Conv2dImpl(Conv2dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv2dImpl(const Conv2dOptions& options_) : ConvNdImpl(options_) {}
};
EMBER_MODULE(Conv2d);

template <size_t D>
class ConvTransposeNdImpl : public Module {
 public:
  explicit ConvTransposeNdImpl(const ConvTransposeOptions<D>& options_);
  void reset();
  void reset_parameters();
  /// output_size (the spatial sizes, optionally with the leading batch/channel sizes) picks the
  /// output_padding that reaches it, as PyTorch.
  Tensor forward(const Tensor& input, const OptionalIntList& output_size = std::nullopt);
  void pretty_print(std::ostream& stream) const override;
  ConvTransposeOptions<D> options;
  Tensor weight, bias;
};

class ConvTranspose1dImpl : public ConvTransposeNdImpl<1> {
 public:
  ConvTranspose1dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<1> kernel_size)
      : ConvTranspose1dImpl(ConvTranspose1dOptions(in_channels, out_channels, kernel_size)) {}
  explicit ConvTranspose1dImpl(const ConvTranspose1dOptions& options_)
      : ConvTransposeNdImpl(options_) {}
};
EMBER_MODULE(ConvTranspose1d);

class ConvTranspose2dImpl : public ConvTransposeNdImpl<2> {
 public:
  ConvTranspose2dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : ConvTranspose2dImpl(ConvTranspose2dOptions(in_channels, out_channels, kernel_size)) {}
  explicit ConvTranspose2dImpl(const ConvTranspose2dOptions& options_)
      : ConvTransposeNdImpl(options_) {}
};
EMBER_MODULE(ConvTranspose2d);

extern template class ConvNdImpl<1>;
extern template class ConvNdImpl<2>;
extern template class ConvTransposeNdImpl<1>;
extern template class ConvTransposeNdImpl<2>;

}  // namespace ember::nn
