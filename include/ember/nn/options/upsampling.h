#pragma once
// Options of F::interpolate (torch/nn/options/upsampling.h):
//   F::interpolate(x, F::InterpolateFuncOptions().size({8, 8}).mode(ember::kBilinear)
//                         .align_corners(false))
#include <optional>
#include <variant>
#include <vector>

#include "ember/nn/arg.h"
#include "ember/nn/enum_conv.h"

namespace ember::nn {

/// nn::Upsample(nn::UpsampleOptions().scale_factor({2, 2}).mode(ember::kBilinear)).
struct UpsampleOptions {
  typedef std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear,
                       enumtype::kBicubic, enumtype::kTrilinear>
      mode_t;
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  EMBER_ARG(mode_t, mode) = ember::kNearest;
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

}  // namespace ember::nn

namespace ember::nn::functional {

struct InterpolateFuncOptions {
  typedef std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear,
                       enumtype::kBicubic, enumtype::kTrilinear, enumtype::kArea,
                       enumtype::kNearestExact>
      mode_t;
  /// Output spatial size.
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  /// Multiplier for each spatial size (one value is used for every dim).
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  EMBER_ARG(mode_t, mode) = ember::kNearest;
  /// Linear modes only: align the corner pixels' centres. Default false.
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
  /// Compute the scale from the output size instead of passing scale_factor to the kernel.
  EMBER_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
  EMBER_ARG(bool, antialias) = false;
};

}  // namespace ember::nn::functional
