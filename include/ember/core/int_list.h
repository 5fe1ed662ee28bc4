#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

namespace ember {

/// A list of dims (or other small integers): accepts a single integer, {0, 1} or a vector.
/// Default-constructed (or empty) means "all dims" where an op reduces.
class IntList {
 public:
  IntList() = default;
  IntList(int64_t d) : v_{d} {}                         // NOLINT: x.sum(1)
  IntList(int d) : v_{d} {}                             // NOLINT
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

/// An optional list of ints (libtorch's OptionalIntArrayRef): nullopt or {} for "none", a braced
/// list, a vector or a single int. Reads like std::optional<std::vector<int64_t>>.
class OptionalIntList {
 public:
  OptionalIntList() = default;
  OptionalIntList(std::nullopt_t) {}                                                  // NOLINT
  OptionalIntList(std::initializer_list<int64_t> l) : v_(std::vector<int64_t>(l)) {}  // NOLINT
  OptionalIntList(const std::vector<int64_t>& v) : v_(v) {}                           // NOLINT
  OptionalIntList(const std::optional<std::vector<int64_t>>& v) : v_(v) {}            // NOLINT
  OptionalIntList(const IntList& l) : v_(l.vec()) {}                                  // NOLINT
  OptionalIntList(int64_t d) : v_(std::vector<int64_t>{d}) {}                         // NOLINT
  OptionalIntList(int d) : v_(std::vector<int64_t>{d}) {}                             // NOLINT

  bool has_value() const { return v_.has_value(); }
  explicit operator bool() const { return v_.has_value(); }
  const std::vector<int64_t>& value() const { return v_.value(); }
  const std::vector<int64_t>& operator*() const { return *v_; }
  const std::vector<int64_t>* operator->() const { return &*v_; }
  std::vector<int64_t> value_or(std::vector<int64_t> other) const { return v_ ? *v_ : other; }
  operator const std::optional<std::vector<int64_t>>&() const { return v_; }  // NOLINT
  bool operator==(std::nullopt_t) const { return !v_.has_value(); }

 private:
  std::optional<std::vector<int64_t>> v_;
};

}  // namespace ember
