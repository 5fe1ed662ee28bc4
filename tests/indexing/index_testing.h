#pragma once
// Helpers for the indexing and sorting tests: small integer parameter tensors carried in a
// sample's inputs, index tensors, coordinates, and rows along a dim, so that references are plain
// loops over test::values.
#include <cstdint>
#include <vector>

#include "opdb.h"
#include "reduction/reduce_testing.h"
#include "shape/shape_util.h"

namespace ember::test {

/// Integer parameters (dim, flags, k, ...) travel as a 1-d int64 tensor in a sample.
inline Tensor params(const std::vector<int64_t>& p) {
  std::vector<double> v(p.begin(), p.end());
  return from_values({static_cast<int64_t>(v.size())}, v, kInt64);
}
inline std::vector<int64_t> read_params(const Tensor& t) {
  std::vector<int64_t> p;
  for (double d : values(t)) p.push_back(static_cast<int64_t>(d));
  return p;
}
inline int64_t wrap(int64_t dim, int64_t ndim) {
  const int64_t n = ndim == 0 ? 1 : ndim;
  return dim < 0 ? dim + n : dim;
}

/// Integers drawn from [lo, hi] (inclusive), deterministic per seed.
inline Tensor rand_ints(const std::vector<int64_t>& shape, int64_t lo, int64_t hi, uint64_t seed,
                        ScalarType dtype = kInt64) {
  return make_tensor(shape, dtype, static_cast<double>(lo), static_cast<double>(hi) + 1, seed);
}
inline Tensor ints(const std::vector<int64_t>& shape, const std::vector<double>& v,
                   ScalarType dtype = kInt64) {
  return from_values(shape, v, dtype);
}

inline int64_t ravel(const Coord& c, const std::vector<int64_t>& shape) {
  int64_t off = 0;
  for (size_t d = 0; d < shape.size(); ++d) off = off * shape[d] + c[d];
  return off;
}

/// The flat (row-major) indices of each row along `dim` of `shape`, rows in row-major order of
/// the other dims. A 0-d shape has one row of one element.
inline std::vector<std::vector<int64_t>> rows_along(const std::vector<int64_t>& shape,
                                                    int64_t dim) {
  std::vector<std::vector<int64_t>> rows;
  if (shape.empty()) return {{0}};
  std::vector<int64_t> outer = shape;
  outer[dim] = 1;
  for_each_index(outer, [&](const Coord& c) {
    std::vector<int64_t> row;
    Coord e = c;
    for (int64_t j = 0; j < shape[dim]; ++j) {
      e[dim] = j;
      row.push_back(ravel(e, shape));
    }
    rows.push_back(row);
  });
  return rows;
}

/// `v` as the dtype holds it: floats rounded, integers wrapped, bool as 0/1.
inline double as_dtype(ScalarType t, double v) {
  switch (t) {
    case kBool:
      return v != 0 ? 1 : 0;
    case kUInt8:
      return static_cast<double>(static_cast<uint8_t>(static_cast<int64_t>(v)));
    case kInt8:
      return static_cast<double>(static_cast<int8_t>(static_cast<int64_t>(v)));
    case kInt16:
      return static_cast<double>(static_cast<int16_t>(static_cast<int64_t>(v)));
    case kInt32:
      return static_cast<double>(static_cast<int32_t>(static_cast<int64_t>(v)));
    case kInt64:
      return v;
    default:
      return round_to(t, v);
  }
}

/// Large samples (the parallel paths) run for a few dtypes only, to keep the suite quick.
inline std::vector<Sample> trim_large(std::vector<Sample> s, ScalarType dt) {
  if (dt == kFloat32 || dt == kInt64 || dt == kBFloat16) return s;
  std::vector<Sample> r;
  for (auto& x : s) {
    if (x.desc.rfind("large", 0) != 0) r.push_back(std::move(x));
  }
  return r;
}

}  // namespace ember::test
