#pragma once
// Helpers shared by the shape inference files (Note [Inference] in dispatch/primitive.h).
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

/// The number of elements of a tensor of `sizes`.
inline SymInt numel(const SymShape& sizes, const char* op = "numel") {
  SymInt n = 1;
  for (const SymInt& s : sizes) n = sym_mul(n, s, op, "numel of the requested size");
  return n;
}

}  // namespace ember
