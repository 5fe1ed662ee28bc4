#pragma once
// Options of F::pad (torch/nn/options/padding.h):
//   F::pad(x, F::PadFuncOptions({1, 1, 2, 0}).mode(ember::kReflect))
#include <variant>
#include <vector>

#include "ember/expanding_array.h"
#include "ember/nn/arg.h"
#include "ember/nn/enum_conv.h"

namespace ember::nn {

/// Padding modules' sizes: (left, right) for 1-d, (left, right, top, bottom) for 2-d; one
/// integer pads every side.
template <size_t D>
struct ReflectionPadOptions {
  /* implicit */ ReflectionPadOptions(ExpandingArray<D * 2> padding)  // NOLINT
      : padding_(padding) {}
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
using ReflectionPad1dOptions = ReflectionPadOptions<1>;
using ReflectionPad2dOptions = ReflectionPadOptions<2>;

template <size_t D>
struct ReplicationPadOptions {
  /* implicit */ ReplicationPadOptions(ExpandingArray<D * 2> padding)  // NOLINT
      : padding_(padding) {}
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
using ReplicationPad1dOptions = ReplicationPadOptions<1>;
using ReplicationPad2dOptions = ReplicationPadOptions<2>;

template <size_t D>
struct ZeroPadOptions {
  /* implicit */ ZeroPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}  // NOLINT
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
using ZeroPad1dOptions = ZeroPadOptions<1>;
using ZeroPad2dOptions = ZeroPadOptions<2>;

template <size_t D>
struct ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<D * 2> padding, double value)
      : padding_(padding), value_(value) {}
  EMBER_ARG(ExpandingArray<D * 2>, padding);
  EMBER_ARG(double, value);
};
using ConstantPad1dOptions = ConstantPadOptions<1>;
using ConstantPad2dOptions = ConstantPadOptions<2>;

}  // namespace ember::nn

namespace ember::nn::functional {

struct PadFuncOptions {
  typedef std::variant<enumtype::kConstant, enumtype::kReflect, enumtype::kReplicate,
                       enumtype::kCircular>
      mode_t;
  PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}  // NOLINT
  /// (left, right) pairs starting from the last dimension.
  EMBER_ARG(std::vector<int64_t>, pad);
  EMBER_ARG(mode_t, mode) = ember::kConstant;
  /// Fill value for constant padding.
  EMBER_ARG(double, value) = 0;
};

}  // namespace ember::nn::functional
