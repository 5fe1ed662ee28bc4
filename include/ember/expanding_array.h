#pragma once
// libtorch's ExpandingArray: D integers given as one integer (repeated D times), a braced list
// or a vector of exactly D values. ExpandingArrayWithOptional allows "None" entries (adaptive
// pooling's output_size, where None keeps the input's size).
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <type_traits>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/int_list.h"
#include "ember/core/symint.h"

namespace ember {

template <size_t D, typename T = int64_t>
class ExpandingArray {
 public:
  /// One value for every dimension: ExpandingArray<2>(3) is {3, 3}.
  ExpandingArray(T single) { values_.fill(single); }  // NOLINT: implicit by design
  ExpandingArray(std::initializer_list<T> list)       // NOLINT
      : ExpandingArray(std::vector<T>(list)) {}
  ExpandingArray(const std::vector<T>& values) {  // NOLINT
    EMBER_CHECK(values.size() == D, "Expected ", D, " values, but instead got ", values.size());
    for (size_t i = 0; i < D; ++i) values_[i] = values[i];
  }
  ExpandingArray(const std::array<T, D>& values) : values_(values) {}  // NOLINT

  std::array<T, D>& operator*() { return values_; }
  const std::array<T, D>& operator*() const { return values_; }
  std::array<T, D>* operator->() { return &values_; }
  const std::array<T, D>* operator->() const { return &values_; }
  T& operator[](size_t i) { return values_[i]; }
  const T& operator[](size_t i) const { return values_[i]; }
  std::vector<T> vec() const { return std::vector<T>(values_.begin(), values_.end()); }
  operator std::vector<T>() const { return vec(); }  // NOLINT
  // libtorch's ExpandingArray converts to IntArrayRef: Functional(torch::reshape, shape).
  operator IntList() const  // NOLINT
      requires std::is_same_v<T, int64_t> {
    return IntList(vec());
  }
  operator SymIntList() const  // NOLINT
      requires std::is_same_v<T, int64_t> {
    return SymIntList(vec());
  }
  static constexpr size_t size() { return D; }

 private:
  std::array<T, D> values_;
};

template <size_t D, typename T>
std::ostream& operator<<(std::ostream& os, const ExpandingArray<D, T>& a) {
  os << "[";
  for (size_t i = 0; i < D; ++i) os << (i ? ", " : "") << a[i];
  return os << "]";
}

/// ExpandingArray whose entries may be std::nullopt (Python's None).
template <size_t D>
class ExpandingArrayWithOptional : public ExpandingArray<D, std::optional<int64_t>> {
  using Base = ExpandingArray<D, std::optional<int64_t>>;

 public:
  ExpandingArrayWithOptional(int64_t single) : Base(std::optional<int64_t>(single)) {}  // NOLINT
  ExpandingArrayWithOptional(std::initializer_list<int64_t> list)                       // NOLINT
      : Base(std::vector<std::optional<int64_t>>(list.begin(), list.end())) {}
  ExpandingArrayWithOptional(const std::vector<int64_t>& v)  // NOLINT
      : Base(std::vector<std::optional<int64_t>>(v.begin(), v.end())) {}
  ExpandingArrayWithOptional(std::initializer_list<std::optional<int64_t>> list)  // NOLINT
      : Base(std::vector<std::optional<int64_t>>(list)) {}
  ExpandingArrayWithOptional(const std::vector<std::optional<int64_t>>& v) : Base(v) {}  // NOLINT
  ExpandingArrayWithOptional(const ExpandingArray<D>& a)                                 // NOLINT
      : Base(std::vector<std::optional<int64_t>>(a->begin(), a->end())) {}
};

}  // namespace ember
