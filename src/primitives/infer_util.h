#pragma once
// Helpers shared by the shape inference files (Note [Inference] in dispatch/primitive.h).
#include <span>

#include "dispatch/primitive.h"

namespace ember {

/// NumPy broadcasting of the inputs' sizes (undefined inputs have none and do not count).
SymShape broadcast_sizes(std::span<const TensorMeta> in);

}  // namespace ember
