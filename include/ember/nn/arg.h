#pragma once
// EMBER_ARG: an option field with libtorch's fluent accessors (TORCH_ARG's role).
//   struct DropoutFuncOptions { EMBER_ARG(double, p) = 0.5; };
//   DropoutFuncOptions().p(0.2).p();  // 0.2
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
