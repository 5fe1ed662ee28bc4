#pragma once
// Options of F::pad (torch/nn/options/padding.h):
//   F::pad(x, F::PadFuncOptions({1, 1, 2, 0}).mode(ember::kReflect))
#include <variant>
#include <vector>

#include "ember/nn/arg.h"
#include "ember/nn/enum_conv.h"

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
