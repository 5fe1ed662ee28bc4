#pragma once
// Helpers shared by the shape inference files (Note [Inference] in dispatch/primitive.h).
#include <algorithm>
#include <span>

#include "dispatch/primitive.h"
#include "ember/core/checked.h"

namespace ember {

/// NumPy broadcasting of the inputs' sizes (undefined inputs have none and do not count).
SymShape broadcast_sizes(std::span<const TensorMeta> in);

/// a * b and a + b, checked when both are concrete (Note [Checked size arithmetic]): a
/// hand-built graph or an empty view may carry any size or stride.
inline SymInt sym_mul(const SymInt& a, const SymInt& b, const char* op, const char* what) {
  if (a.is_symbolic() || b.is_symbolic()) return a * b;
  return checked_mul(a.guard_int(op), b.guard_int(op), op, what);
}
inline SymInt sym_add(const SymInt& a, const SymInt& b, const char* op, const char* what) {
  if (a.is_symbolic() || b.is_symbolic()) return a + b;
  return checked_add(a.guard_int(op), b.guard_int(op), op, what);
}

/// A primitive's dim parameter must address its input: op builders wrap and check it, but a
/// hand-built or deserialised graph may carry any value (a 0-d input takes dim 0).
inline void check_dim_param(int64_t dim, size_t ndim, const char* op) {
  const auto n = static_cast<int64_t>(std::max<size_t>(ndim, 1));
  EMBER_CHECK_INDEX(dim >= 0 && dim < n, "[", op, "] dim ", dim, " is out of range for a ", ndim,
                    "-d input");
}

/// The number of elements of a tensor of `sizes`.
inline SymInt numel(const SymShape& sizes, const char* op = "numel") {
  SymInt n = 1;
  for (const SymInt& s : sizes) n = sym_mul(n, s, op, "numel of the requested size");
  return n;
}

}  // namespace ember
