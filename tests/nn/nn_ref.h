#pragma once
// Plain-loop float64 helpers for the nn::functional references: an N-d array of doubles read
// through test::values (independent of Ember's kernels), with row-major index arithmetic.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "opdb.h"

namespace ember::test::nn {

struct Arr {
  std::vector<int64_t> shape;
  std::vector<double> v;
  Arr() = default;
  explicit Arr(const Tensor& t) : shape(t.sizes()), v(values(t)) {}
  Arr(std::vector<int64_t> s, double fill) : shape(std::move(s)) {
    int64_t n = 1;
    for (auto x : shape) n *= x;
    v.assign(n, fill);
  }
  int64_t numel() const { return static_cast<int64_t>(v.size()); }
  int64_t dim() const { return static_cast<int64_t>(shape.size()); }
  int64_t size(int64_t d) const { return shape[d < 0 ? d + dim() : d]; }
  std::vector<int64_t> strides() const {
    std::vector<int64_t> s(shape.size(), 1);
    for (int64_t d = dim() - 2; d >= 0; --d) s[d] = s[d + 1] * shape[d + 1];
    return s;
  }
  double& at(const std::vector<int64_t>& idx) {
    auto s = strides();
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * s[d];
    return v[off];
  }
  double at(const std::vector<int64_t>& idx) const { return const_cast<Arr*>(this)->at(idx); }
};

inline int64_t wrap(int64_t d, int64_t n) { return d < 0 ? d + (n == 0 ? 1 : n) : d; }

/// Calls f(outer, inner) for each line along `dim` of `shape`, the line's elements at
/// base + k * stride for k < len.
inline void for_each_line(const std::vector<int64_t>& shape, int64_t dim,
                          const std::function<void(int64_t base, int64_t stride, int64_t len)>& f) {
  if (shape.empty()) {
    f(0, 1, 1);
    return;
  }
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= shape[d];
  for (size_t d = dim + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t len = shape[dim];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) f(o * len * inner + i, inner, len);
  }
}

/// softmax (or log_softmax) of a along dim, in double.
inline std::vector<double> softmax_ref(const Arr& a, int64_t dim, bool log) {
  std::vector<double> out(a.v.size());
  const int64_t d = a.dim() == 0 ? 0 : wrap(dim, a.dim());
  for_each_line(a.shape, d, [&](int64_t base, int64_t st, int64_t len) {
    double mx = -INFINITY;
    for (int64_t k = 0; k < len; ++k) mx = std::max(mx, a.v[base + k * st]);
    double sum = 0;
    for (int64_t k = 0; k < len; ++k) sum += std::exp(a.v[base + k * st] - mx);
    for (int64_t k = 0; k < len; ++k) {
      const double x = a.v[base + k * st];
      out[base + k * st] = log ? x - mx - std::log(sum) : std::exp(x - mx) / sum;
    }
  });
  return out;
}

/// A 0-d int64 tensor carrying an integer argument through an OpInfo's inputs.
inline Tensor arg(int64_t v) { return from_values({}, {static_cast<double>(v)}, kInt64); }
/// The fuzzer may put any value there: NaN reads as 0 and out-of-range values saturate at
/// +-2^62 (a float-to-integer conversion out of range is undefined), leaving room for the small
/// offsets the ops add.
inline int64_t arg_of(const Tensor& t) {
  const double v = values(t)[0], lim = 0x1p62;
  return std::isnan(v) ? 0 : static_cast<int64_t>(std::clamp(v, -lim, lim));
}

}  // namespace ember::test::nn
