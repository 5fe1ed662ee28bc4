#pragma once
// Helpers shared by the row kernels of softmax.cpp and norm.cpp: the compute type, a Vec's
// lane sum, rows per parallel chunk, and the floating dtype switch.
#include <algorithm>
#include <string>
#include <type_traits>

#include "backend/cpu/parallel.h"
#include "backend/cpu/vec.h"
#include "ember/core/error.h"
#include "ember/core/tensor.h"

namespace ember::cpu {

/// The compute type of T: double for double, float for float and the 16-bit floats.
template <typename T>
using RowAcc = std::conditional_t<std::is_same_v<T, double>, double, float>;

/// The sum of a Vec's lanes, in lane order.
template <typename A>
A hsum(const Vec<A>& v) {
  A lanes[Vec<A>::size];
  v.store(lanes);
  A s = 0;
  for (int k = 0; k < Vec<A>::size; ++k) s += lanes[k];
  return s;
}

/// Rows per parallel chunk: about kGrainSize elements, at least one row.
inline int64_t row_grain(int64_t row_elems) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, row_elems));
}

/// Calls f(T{}) for the floating dtype dt; other dtypes raise TypeError naming `kernel`.
template <typename F>
void by_float_dtype(ScalarType dt, const char* op, const std::string& kernel, const F& f) {
  switch (dt) {
    case kFloat32:
      return f(float{});
    case kFloat64:
      return f(double{});
    case kFloat16:
      return f(Half{});
    case kBFloat16:
      return f(BFloat16{});
    default:
      EMBER_THROW(TypeError, "[", op, "] \"", kernel, "\" not implemented for '", dtype_name(dt),
                  "'");
  }
}

}  // namespace ember::cpu
