#pragma once
// A number passed to an op: behaves like a Python scalar in type promotion.
#include <cstdint>
#include <ostream>
#include <type_traits>

#include "ember/core/dtype.h"

namespace ember {

class Scalar {
 public:
  Scalar() : Scalar(int64_t{0}) {}
  Scalar(bool v) : kind_(kBool) { v_.i = v; }  // NOLINT: implicit like at::Scalar
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(kInt64) {  // NOLINT
    v_.i = static_cast<int64_t>(v);
  }
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(kFloat64) {  // NOLINT
    v_.d = static_cast<double>(v);
  }
  Scalar(Half v) : Scalar(static_cast<float>(v)) {}      // NOLINT
  Scalar(BFloat16 v) : Scalar(static_cast<float>(v)) {}  // NOLINT

  bool isFloatingPoint() const { return kind_ == kFloat64; }
  bool isIntegral(bool include_bool) const {
    return kind_ == kInt64 || (include_bool && kind_ == kBool);
  }
  bool isBoolean() const { return kind_ == kBool; }
  /// kFloat64, kInt64 or kBool: the category of the number, as in Python.
  ScalarType type() const { return kind_; }

  template <typename T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) {
      return kind_ == kFloat64 ? v_.d != 0 : v_.i != 0;
    } else {
      if (kind_ == kFloat64) return static_cast<T>(static_cast<std::conditional_t<
          std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, double>>(v_.d));
      return static_cast<T>(v_.i);
    }
  }
  double toDouble() const { return to<double>(); }
  float toFloat() const { return to<float>(); }
  int64_t toLong() const { return to<int64_t>(); }
  int toInt() const { return to<int>(); }
  bool toBool() const { return to<bool>(); }
  Scalar operator-() const;

 private:
  ScalarType kind_;
  union {
    double d;
    int64_t i;
  } v_;
};

std::ostream& operator<<(std::ostream& os, const Scalar& s);

}  // namespace ember
