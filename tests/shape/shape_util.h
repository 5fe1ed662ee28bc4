#pragma once
// Helpers for the shape tests: row-major iteration and element lookup on test::values, so that
// references are plain index arithmetic.
#include <functional>
#include <vector>

#include "opdb.h"

namespace ember::test {

using Coord = std::vector<int64_t>;

inline int64_t numel_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

/// Calls f for every multi-index of `shape` in row-major order.
inline void for_each_index(const std::vector<int64_t>& shape,
                           const std::function<void(const Coord&)>& f) {
  const int64_t n = numel_of(shape);
  Coord idx(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    f(idx);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

/// A tensor's values with row-major lookup by coordinate.
struct Nd {
  std::vector<int64_t> shape;
  std::vector<double> v;
  explicit Nd(const Tensor& t) : shape(t.sizes()), v(values(t)) {}
  double at(const Coord& c) const {
    int64_t off = 0;
    for (size_t d = 0; d < shape.size(); ++d) off = off * shape[d] + c[d];
    return v[off];
  }
};

/// A reference of `shape` whose element at c is f(c).
inline Reference generate(const std::vector<int64_t>& shape, ScalarType dtype,
                          const std::function<double(const Coord&)>& f) {
  Reference r{shape, {}, dtype};
  for_each_index(shape, [&](const Coord& c) { r.values.push_back(f(c)); });
  return r;
}

}  // namespace ember::test
