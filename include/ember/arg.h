#pragma once
// EMBER_ARG(T, name): libtorch's TORCH_ARG. Declares a private member `name_` with a chainable
// setter `name(value)` and a getter `name()`, as the options structs use it:
//   Conv2dFuncOptions().stride(2).padding(1)
#include <utility>

#ifndef EMBER_ARG
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
  T name##_ /* NOLINT */
#endif
