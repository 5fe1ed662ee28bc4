#pragma once
// Sort keys for the sort/unique/searchsorted kernels (Note [NaN order] in src/primitives/sort.h).
#include <cmath>
#include <type_traits>

#include "ember/core/half.h"

namespace ember::cpu {

// The key a value sorts by: the 16-bit floats compare as float; others as themselves.
template <typename T>
using sort_key_t =
    std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

template <typename K>
inline bool isnan_k(K v) {
  if constexpr (std::is_floating_point_v<K>) {
    return std::isnan(v);
  } else {
    return false;
  }
}
// Ascending and descending orders with NaN as the largest value (all NaNs equivalent).
template <typename K>
inline bool lt(K a, K b) {
  return (!isnan_k(a) && isnan_k(b)) || a < b;
}
template <typename K>
inline bool gt(K a, K b) {
  return (isnan_k(a) && !isnan_k(b)) || a > b;
}
// Equal for grouping (unique, mode): NaN equals nothing.
template <typename K>
inline bool same(K a, K b) {
  return a == b;
}

}  // namespace ember::cpu
