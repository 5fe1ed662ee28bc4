#pragma once
// Layout predicates shared by the op builders and the primitives' inference.
#include <cstdint>
#include <span>

namespace ember {

/// PyTorch's is_non_overlapping_and_dense: some permutation of the dims is contiguous (dims of
/// size 0 or 1 place no constraint).
bool non_overlapping_and_dense(std::span<const int64_t> sizes, std::span<const int64_t> strides);

}  // namespace ember
