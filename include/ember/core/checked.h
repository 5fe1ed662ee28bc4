#pragma once
// Note [Checked size arithmetic]: sizes, strides, offsets, numels and byte counts derived from
// user arguments (paddings, strides, dilations, repeats, factors can be anything up to INT64_MAX)
// are computed with these helpers, never with plain + and *: signed overflow is undefined
// behaviour in C++, and a wrapped size once let views reach outside their storage. Overflow
// raises PyTorch's RuntimeError "[op] <what> overflows int64" naming the op. checked_numel and
// strided_nbytes (tensor_impl.h) are the whole-shape forms.
#include <cstdint>
#include <optional>

#include "ember/core/error.h"

namespace ember {

/// a + b, or nullopt when it overflows int64 (for callers that report their own message).
inline std::optional<int64_t> try_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
/// a * b, or nullopt when it overflows int64.
inline std::optional<int64_t> try_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

/// a + b; RuntimeError "[op] <what> overflows int64 (a + b)" instead of overflowing.
/// Example: checked_add(size, pad, "pad", "the padded size").
inline int64_t checked_add(int64_t a, int64_t b, const char* op, const char* what) {
  const auto r = try_add(a, b);
  EMBER_CHECK(r, "[", op, "] ", what, " overflows int64 (", a, " + ", b, ")");
  return *r;
}
/// a * b; RuntimeError "[op] <what> overflows int64 (a * b)" instead of overflowing.
inline int64_t checked_mul(int64_t a, int64_t b, const char* op, const char* what) {
  const auto r = try_mul(a, b);
  EMBER_CHECK(r, "[", op, "] ", what, " overflows int64 (", a, " * ", b, ")");
  return *r;
}

}  // namespace ember
