#include "ember/core/scalar.h"

namespace ember {

Scalar Scalar::operator-() const {
  if (kind_ == kFloat64) return Scalar(-v_.d);
  if (kind_ == kBool) return Scalar(-v_.i);
  return Scalar(-v_.i);
}

std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  if (s.isFloatingPoint()) return os << s.toDouble();
  if (s.isBoolean()) return os << (s.toBool() ? "True" : "False");
  return os << s.toLong();
}

}  // namespace ember
