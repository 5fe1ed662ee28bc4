#pragma once
// Padding modules over F::pad: ReflectionPad1d/2d, ReplicationPad1d/2d, ZeroPad1d/2d,
// ConstantPad1d/2d. Sizes are (left, right[, top, bottom]); one integer pads every side.
//   nn::ReflectionPad2d pad(nn::ReflectionPad2dOptions({1, 1, 2, 0}));
#include "ember/nn/module.h"
#include "ember/nn/options/padding.h"

namespace ember::nn {

/// Declares a padding module template XxxPadImpl<D> and XxxPad1d / XxxPad2d.
#define EMBER_PAD_MODULE(Kind)                                   \
  template <size_t D>                                            \
  class Kind##PadImpl : public Module {                          \
   public:                                                       \
    Kind##PadImpl(ExpandingArray<D * 2> padding) /* NOLINT */    \
        : Kind##PadImpl(Kind##PadOptions<D>(padding)) {}         \
    explicit Kind##PadImpl(const Kind##PadOptions<D>& options_); \
    void reset();                                                \
    Tensor forward(const Tensor& input);                         \
    void pretty_print(std::ostream& stream) const override;      \
    Kind##PadOptions<D> options;                                 \
  };                                                             \
  class Kind##Pad1dImpl : public Kind##PadImpl<1> {              \
   public:                                                       \
    using Kind##PadImpl<1>::Kind##PadImpl;                       \
  };                                                             \
  EMBER_MODULE(Kind##Pad1d);                                     \
  class Kind##Pad2dImpl : public Kind##PadImpl<2> {              \
   public:                                                       \
    using Kind##PadImpl<2>::Kind##PadImpl;                       \
  };                                                             \
  EMBER_MODULE(Kind##Pad2d);                                     \
  extern template class Kind##PadImpl<1>;                        \
  extern template class Kind##PadImpl<2>

EMBER_PAD_MODULE(Reflection);
EMBER_PAD_MODULE(Replication);
EMBER_PAD_MODULE(Zero);
#undef EMBER_PAD_MODULE

/// Pads with options.value().
template <size_t D>
class ConstantPadImpl : public Module {
 public:
  ConstantPadImpl(ExpandingArray<D * 2> padding, double value)
      : ConstantPadImpl(ConstantPadOptions<D>(padding, value)) {}
  explicit ConstantPadImpl(const ConstantPadOptions<D>& options_);
  void reset();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  ConstantPadOptions<D> options;
};
class ConstantPad1dImpl : public ConstantPadImpl<1> {
 public:
  using ConstantPadImpl<1>::ConstantPadImpl;
};
EMBER_MODULE(ConstantPad1d);
class ConstantPad2dImpl : public ConstantPadImpl<2> {
 public:
  using ConstantPadImpl<2>::ConstantPadImpl;
};
EMBER_MODULE(ConstantPad2d);
extern template class ConstantPadImpl<1>;
extern template class ConstantPadImpl<2>;

}  // namespace ember::nn
