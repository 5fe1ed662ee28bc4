#pragma once
// Helpers shared by the shape inference files (Note [Inference] in dispatch/primitive.h).
#include <span>

#include "dispatch/primitive.h"

namespace ember {

/// NumPy broadcasting of the inputs' sizes (undefined inputs have none and do not count).
SymShape broadcast_sizes(std::span<const TensorMeta> in);

/// The number of elements of a tensor of `sizes`.
inline SymInt numel(const SymShape& sizes) {
  SymInt n = 1;
  for (const SymInt& s : sizes) n = n * s;
  return n;
}

}  // namespace ember
