#pragma once
// Shape helpers the core itself needs (Tensor::size(d), messages); the op builders reach them
// through ops/util.h.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ember/core/symint.h"

namespace ember {

/// Wraps a possibly negative dim into [0, ndim); IndexError naming `op` when out of range.
/// A 0-d tensor accepts dims -1 and 0, as PyTorch.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);
/// "[2, 3]" for messages.
std::string shape_str(std::span<const SymInt> sizes);
inline std::string shape_str(const std::vector<SymInt>& sizes) {
  return shape_str(std::span<const SymInt>(sizes));
}
inline std::string shape_str(const SymShape& sizes) {
  return shape_str(std::span<const SymInt>(sizes.data(), sizes.size()));
}
std::string shape_str(const std::vector<int64_t>& sizes);

}  // namespace ember
