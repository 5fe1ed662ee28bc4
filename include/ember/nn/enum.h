#pragma once
// libtorch's enum tags for option values: torch::kMean, torch::kSum, ... Each tag is its own type
// so that an options struct accepts only the values PyTorch accepts (a std::variant of tags).
#include <string>
#include <variant>

namespace ember {
namespace enumtype {
struct kNone {};
struct kMean {};
struct kSum {};
struct kBatchMean {};
struct kMax {};
}  // namespace enumtype

inline constexpr enumtype::kNone kNone{};
inline constexpr enumtype::kMean kMean{};
inline constexpr enumtype::kSum kSum{};
inline constexpr enumtype::kBatchMean kBatchMean{};
inline constexpr enumtype::kMax kMax{};

namespace enumtype {
/// PyTorch's string for a tag ("none", "mean", "sum", "batchmean", "max").
inline const char* name(kNone) { return "none"; }
inline const char* name(kMean) { return "mean"; }
inline const char* name(kSum) { return "sum"; }
inline const char* name(kBatchMean) { return "batchmean"; }
inline const char* name(kMax) { return "max"; }
}  // namespace enumtype

/// The name held by a variant of tags: get_enum_name(options.reduction()) == "mean".
template <typename V>
std::string get_enum_name(const V& v) {
  return std::visit([](const auto& tag) { return std::string(enumtype::name(tag)); }, v);
}

}  // namespace ember
