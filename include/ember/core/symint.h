#pragma once
// Sizes and shape arguments. Note [SymInt]: a SymInt is concrete in eager mode; the compiler's
// tracer will give it a symbolic expression (node_) for dynamic dimensions. Every shape-taking
// argument of the public API is a SymInt so that tracing needs no API change.
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <vector>

#include "ember/core/error.h"

namespace ember {

/// A symbolic expression (defined by the compiler); opaque here.
class SymNode;

class SymInt {
 public:
  constexpr SymInt() = default;
  constexpr SymInt(int64_t v) : value_(v) {}  // NOLINT: converts implicitly, as c10::SymInt
  SymInt(int v) : value_(v) {}                // NOLINT
  SymInt(long long v) : value_(static_cast<int64_t>(v)) {}  // NOLINT
  SymInt(unsigned long v) : value_(static_cast<int64_t>(v)) {}  // NOLINT
  SymInt(unsigned v) : value_(v) {}  // NOLINT

  bool is_symbolic() const { return node_ != nullptr; }
  /// The concrete value; for a symbolic one this is a guard (an error until the tracer exists).
  int64_t guard_int(const char* op = "SymInt") const {
    EMBER_CHECK(!node_, "[", op, "] cannot specialize a symbolic size");
    return value_;
  }
  int64_t expect_int() const { return guard_int(); }
  operator int64_t() const { return guard_int(); }  // NOLINT
  const std::shared_ptr<SymNode>& node() const { return node_; }

 private:
  int64_t value_ = 0;
  std::shared_ptr<SymNode> node_;
};

inline std::ostream& operator<<(std::ostream& os, const SymInt& s) { return os << s.guard_int(); }

/// A list of sizes accepted by shape-taking ops: {2, 3}, std::vector<int64_t>, t.sizes(), ...
class SymIntList {
 public:
  SymIntList() = default;
  SymIntList(std::initializer_list<SymInt> l) : v_(l) {}  // NOLINT
  SymIntList(const std::vector<SymInt>& v) : v_(v) {}     // NOLINT
  SymIntList(const std::vector<int64_t>& v) : v_(v.begin(), v.end()) {}  // NOLINT
  SymIntList(const int64_t* p, size_t n) : v_(p, p + n) {}

  size_t size() const { return v_.size(); }
  bool empty() const { return v_.empty(); }
  const SymInt& operator[](size_t i) const { return v_[i]; }
  auto begin() const { return v_.begin(); }
  auto end() const { return v_.end(); }
  /// Concrete values (a guard on symbolic entries).
  std::vector<int64_t> concrete(const char* op = "SymIntList") const {
    std::vector<int64_t> r;
    r.reserve(v_.size());
    for (const auto& s : v_) r.push_back(s.guard_int(op));
    return r;
  }

 private:
  std::vector<SymInt> v_;
};

/// The sizes or strides of a tensor, as returned by Tensor::sizes(): a plain vector.
using IntArrayRef = std::vector<int64_t>;

}  // namespace ember
