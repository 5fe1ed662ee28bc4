#pragma once
// EMBER_ARG: libtorch's TORCH_ARG, an option with a chainable setter and a getter:
//   struct LinearOptions { EMBER_ARG(bool, bias) = true; };
//   LinearOptions(4, 8).bias(false).bias()  // false
#include <utility>

#define EMBER_ARG(T, name)                                        \
 public:                                                          \
  inline auto name(const T& new_##name)->decltype(*this) {        \
    this->name##_ = new_##name;                                   \
    return *this;                                                 \
  }                                                               \
  inline auto name(T&& new_##name)->decltype(*this) {             \
    this->name##_ = std::move(new_##name);                        \
    return *this;                                                 \
  }                                                               \
  inline const T& name() const noexcept { return this->name##_; } \
  inline T& name() noexcept { return this->name##_; }             \
                                                                  \
 private:                                                         \
  T name##_
