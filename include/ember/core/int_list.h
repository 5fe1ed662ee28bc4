#pragma once
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace ember {

/// A list of dims (or other small integers): accepts a single integer, {0, 1} or a vector.
/// Default-constructed (or empty) means "all dims" where an op reduces.
class IntList {
 public:
  IntList() = default;
  IntList(int64_t d) : v_{d} {}  // NOLINT: x.sum(1)
  IntList(int d) : v_{d} {}      // NOLINT
  IntList(std::initializer_list<int64_t> l) : v_(l) {}  // NOLINT
  IntList(const std::vector<int64_t>& v) : v_(v) {}     // NOLINT
  size_t size() const { return v_.size(); }
  bool empty() const { return v_.empty(); }
  int64_t operator[](size_t i) const { return v_[i]; }
  auto begin() const { return v_.begin(); }
  auto end() const { return v_.end(); }
  const std::vector<int64_t>& vec() const { return v_; }

 private:
  std::vector<int64_t> v_;
};

}  // namespace ember
