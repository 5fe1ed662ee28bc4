#pragma once
// Resampling and rearranging modules: Upsample, Fold / Unfold, PixelShuffle / PixelUnshuffle.
//   nn::Upsample up(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2})
//                       .mode(ember::kBilinear).align_corners(false));
#include "ember/nn/module.h"
#include "ember/nn/options/fold.h"
#include "ember/nn/options/pixelshuffle.h"
#include "ember/nn/options/upsampling.h"

namespace ember::nn {

/// F::interpolate with the module's size / scale_factor / mode / align_corners.
class UpsampleImpl : public Module {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options_ = {});
  void reset() {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  UpsampleOptions options;
};
EMBER_MODULE(Upsample);

/// col2im: (N, C * kH * kW, L) -> (N, C, H, W), summing overlaps.
class FoldImpl : public Module {
 public:
  FoldImpl(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : FoldImpl(FoldOptions(output_size, kernel_size)) {}
  explicit FoldImpl(const FoldOptions& options_);
  void reset() {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  FoldOptions options;
};
EMBER_MODULE(Fold);

/// im2col: (N, C, H, W) -> (N, C * kH * kW, L).
class UnfoldImpl : public Module {
 public:
  UnfoldImpl(ExpandingArray<2> kernel_size)  // NOLINT
      : UnfoldImpl(UnfoldOptions(kernel_size)) {}
  explicit UnfoldImpl(const UnfoldOptions& options_);
  void reset() {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  UnfoldOptions options;
};
EMBER_MODULE(Unfold);

class PixelShuffleImpl : public Module {
 public:
  explicit PixelShuffleImpl(const PixelShuffleOptions& options_);
  void reset() {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  PixelShuffleOptions options;
};
EMBER_MODULE(PixelShuffle);

class PixelUnshuffleImpl : public Module {
 public:
  explicit PixelUnshuffleImpl(const PixelUnshuffleOptions& options_);
  void reset() {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  PixelUnshuffleOptions options;
};
EMBER_MODULE(PixelUnshuffle);

}  // namespace ember::nn
