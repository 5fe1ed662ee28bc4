#pragma once
// libtorch's enum tags (torch/enum.h) for convolution, padding and interpolation; the nn::functional
// losses keep theirs in ember/nn/enum.h. Each value is an empty struct type so that options can
// hold a std::variant of the allowed ones, e.g. padding_t = variant<ExpandingArray<2>, kValid,
// kSame>. Use them as ember::kSame, ember::kReflect, ember::kBilinear, ...
#include <string>
#include <variant>

#ifndef EMBER_ENUM_TAG
#define EMBER_ENUM_TAG(name) \
  namespace enumtype {       \
  struct k##name {           \
    k##name() = default;     \
  };                         \
  }                          \
  inline constexpr enumtype::k##name k##name{};
#endif

namespace ember {

// Convolution padding strings and padding modes.
EMBER_ENUM_TAG(Valid)
EMBER_ENUM_TAG(Same)
EMBER_ENUM_TAG(Zeros)
EMBER_ENUM_TAG(Constant)
EMBER_ENUM_TAG(Reflect)
EMBER_ENUM_TAG(Replicate)
EMBER_ENUM_TAG(Circular)
// Interpolation modes.
EMBER_ENUM_TAG(Nearest)
EMBER_ENUM_TAG(NearestExact)
EMBER_ENUM_TAG(Linear)
EMBER_ENUM_TAG(Bilinear)
EMBER_ENUM_TAG(Bicubic)
EMBER_ENUM_TAG(Trilinear)
EMBER_ENUM_TAG(Area)

namespace enumtype {
/// PyTorch's string for a tag ("same", "reflect", "nearest-exact", ...), for messages.
inline const char* name(kValid) { return "valid"; }
inline const char* name(kSame) { return "same"; }
inline const char* name(kZeros) { return "zeros"; }
inline const char* name(kConstant) { return "constant"; }
inline const char* name(kReflect) { return "reflect"; }
inline const char* name(kReplicate) { return "replicate"; }
inline const char* name(kCircular) { return "circular"; }
inline const char* name(kNearest) { return "nearest"; }
inline const char* name(kNearestExact) { return "nearest-exact"; }
inline const char* name(kLinear) { return "linear"; }
inline const char* name(kBilinear) { return "bilinear"; }
inline const char* name(kBicubic) { return "bicubic"; }
inline const char* name(kTrilinear) { return "trilinear"; }
inline const char* name(kArea) { return "area"; }
/// The name of whichever tag a variant holds.
template <typename... Ts>
const char* name(const std::variant<Ts...>& v) {
  return std::visit([](const auto& tag) { return name(tag); }, v);
}
}  // namespace enumtype

}  // namespace ember
