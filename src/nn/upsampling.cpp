// Upsample, Fold / Unfold, PixelShuffle / PixelUnshuffle and the padding modules over
// nn::functional.
#include "ember/nn/functional/upsampling.h"

#include <ostream>
#include <string>

#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/padding.h"
#include "ember/nn/functional/pixelshuffle.h"
#include "ember/nn/modules/padding.h"
#include "ember/nn/modules/upsampling.h"

namespace ember::nn {

namespace F = functional;

namespace {
template <typename T>
void print_list(std::ostream& s, const std::vector<T>& v) {
  s << "[";
  for (size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
  s << "]";
}
}  // namespace

UpsampleImpl::UpsampleImpl(const UpsampleOptions& o) : Module("ember::nn::Upsample"), options(o) {}

Tensor UpsampleImpl::forward(const Tensor& input) {
  F::InterpolateFuncOptions fo;
  fo.size(options.size())
      .scale_factor(options.scale_factor())
      .align_corners(options.align_corners());
  std::visit([&](auto tag) { fo.mode(tag); }, options.mode());
  return F::interpolate(input, fo);
}

void UpsampleImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::Upsample(";
  if (options.scale_factor().has_value()) {
    s << "scale_factor=";
    print_list(s, *options.scale_factor());
  } else if (options.size().has_value()) {
    s << "size=";
    print_list(s, *options.size());
  }
  if (options.scale_factor().has_value() || options.size().has_value()) s << ", ";
  s << "mode='" << enumtype::name(options.mode()) << "')";
}

FoldImpl::FoldImpl(const FoldOptions& o) : Module("ember::nn::Fold"), options(o) {}
Tensor FoldImpl::forward(const Tensor& input) { return F::fold(input, options); }
void FoldImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::Fold(output_size=" << options.output_size()
    << ", kernel_size=" << options.kernel_size() << ", dilation=" << options.dilation()
    << ", padding=" << options.padding() << ", stride=" << options.stride() << ")";
}

UnfoldImpl::UnfoldImpl(const UnfoldOptions& o) : Module("ember::nn::Unfold"), options(o) {}
Tensor UnfoldImpl::forward(const Tensor& input) { return F::unfold(input, options); }
void UnfoldImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::Unfold(kernel_size=" << options.kernel_size()
    << ", dilation=" << options.dilation() << ", padding=" << options.padding()
    << ", stride=" << options.stride() << ")";
}

PixelShuffleImpl::PixelShuffleImpl(const PixelShuffleOptions& o)
    : Module("ember::nn::PixelShuffle"), options(o) {}
Tensor PixelShuffleImpl::forward(const Tensor& input) { return F::pixel_shuffle(input, options); }
void PixelShuffleImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::PixelShuffle(upscale_factor=" << options.upscale_factor() << ")";
}

PixelUnshuffleImpl::PixelUnshuffleImpl(const PixelUnshuffleOptions& o)
    : Module("ember::nn::PixelUnshuffle"), options(o) {}
Tensor PixelUnshuffleImpl::forward(const Tensor& input) {
  return F::pixel_unshuffle(input, options);
}
void PixelUnshuffleImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::PixelUnshuffle(downscale_factor=" << options.downscale_factor() << ")";
}

#define EMBER_PAD_IMPL(Kind, mode_value, negative_ok)                                     \
  template <size_t D>                                                                     \
  Kind##PadImpl<D>::Kind##PadImpl(const Kind##PadOptions<D>& o)                           \
      : Module("ember::nn::" #Kind "Pad" + std::to_string(D) + "d"), options(o) {         \
    reset();                                                                              \
  }                                                                                       \
  template <size_t D>                                                                     \
  void Kind##PadImpl<D>::reset() {                                                        \
    for (size_t i = 0; i < 2 * D; ++i) {                                                  \
      EMBER_CHECK_VALUE(negative_ok || options.padding()[i] >= 0, "[", name().substr(11), \
                        "] padding must be non-negative, got ", options.padding());       \
    }                                                                                     \
  }                                                                                       \
  template <size_t D>                                                                     \
  Tensor Kind##PadImpl<D>::forward(const Tensor& input) {                                 \
    return F::pad(input, F::PadFuncOptions(options.padding().vec()).mode(mode_value));    \
  }                                                                                       \
  template <size_t D>                                                                     \
  void Kind##PadImpl<D>::pretty_print(std::ostream& s) const {                            \
    s << name() << "(padding=" << options.padding() << ")";                               \
  }                                                                                       \
  template class Kind##PadImpl<1>;                                                        \
  template class Kind##PadImpl<2>;

EMBER_PAD_IMPL(Reflection, ember::kReflect, false)
EMBER_PAD_IMPL(Replication, ember::kReplicate, false)
EMBER_PAD_IMPL(Zero, ember::kConstant, true)
#undef EMBER_PAD_IMPL

template <size_t D>
ConstantPadImpl<D>::ConstantPadImpl(const ConstantPadOptions<D>& o)
    : Module("ember::nn::ConstantPad" + std::to_string(D) + "d"), options(o) {}
template <size_t D>
void ConstantPadImpl<D>::reset() {}
template <size_t D>
Tensor ConstantPadImpl<D>::forward(const Tensor& input) {
  return F::pad(
      input,
      F::PadFuncOptions(options.padding().vec()).mode(ember::kConstant).value(options.value()));
}
template <size_t D>
void ConstantPadImpl<D>::pretty_print(std::ostream& s) const {
  s << name() << "(padding=" << options.padding() << ", value=" << options.value() << ")";
}
template class ConstantPadImpl<1>;
template class ConstantPadImpl<2>;

}  // namespace ember::nn
