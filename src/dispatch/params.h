#pragma once
// Note [Primitive params]: every primitive keeps its non-tensor arguments in one plain struct
// that lists its fields once with EMBER_FIELDS(a, b, ...). One visitor walks those fields, so
// equality, hashing, the readable description ("dim=1, keepdim=True") and the JSON form of every
// primitive come from that single list (src/dispatch/params.cpp); a new field cannot be
// forgotten by any of them. Field types: bool, integers, double, Scalar, ScalarType, DeviceType,
// enums with an enum_info() overload (EMBER_ENUM), std::string, std::vector<int64_t>,
// std::vector<SymInt> (sizes that may be symbolic, Note [Symbolic shapes]), std::optional of
// those, and nested structs with their own EMBER_FIELDS (flattened).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ember/core/device.h"
#include "ember/core/dtype.h"
#include "ember/core/scalar.h"
#include "ember/core/symint.h"

namespace ember {

/// The names of an enum's values, indexed by the value (for printing and JSON).
struct EnumInfo {
  int count;
  const char* (*name)(int);
};

inline EnumInfo enum_info(ScalarType) {
  return {static_cast<int>(ScalarType::Undefined),
          [](int i) { return scalar_type_name(static_cast<ScalarType>(i)); }};
}

inline EnumInfo enum_info(DeviceType) {
  return {3, [](int i) {
            static const char* const names[] = {"cpu", "cuda", "meta"};
            return names[i];
          }};
}

/// Sees each field of a params struct by reference. Writers (hash, description, JSON out) read
/// the value; readers (JSON in) assign it.
class ParamVisitor {
 public:
  virtual ~ParamVisitor() = default;
  virtual void i64(const char* name, int64_t& v) = 0;
  virtual void u64(const char* name, uint64_t& v) = 0;
  virtual void f64(const char* name, double& v) = 0;
  virtual void boolean(const char* name, bool& v) = 0;
  virtual void scalar(const char* name, Scalar& v) = 0;
  virtual void enumeration(const char* name, int& v, const EnumInfo& info) = 0;
  virtual void text(const char* name, std::string& v) = 0;
  virtual void i64_list(const char* name, std::vector<int64_t>& v) = 0;
  /// Sizes that may be symbolic. By default a concrete list is visited as i64_list; a visitor
  /// that meets symbolic entries overrides this (the writers print an entry's expression).
  virtual void sym_list(const char* name, std::vector<SymInt>& v);
  /// An optional field: `present` says whether it holds a value; the result is whether the
  /// value that follows (visited under the same name) is present.
  virtual bool optional(const char* name, bool present) = 0;
};

namespace detail {
template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};

template <typename T>
void visit_field(ParamVisitor& v, const char* name, T& x) {
  if constexpr (is_optional<T>::value) {
    if (v.optional(name, x.has_value())) {
      if (!x) x.emplace();
      visit_field(v, name, *x);
    } else {
      x.reset();
    }
  } else if constexpr (std::is_enum_v<T>) {
    int i = static_cast<int>(x);
    v.enumeration(name, i, enum_info(x));
    x = static_cast<T>(i);
  } else if constexpr (std::is_same_v<T, bool>) {
    v.boolean(name, x);
  } else if constexpr (std::is_same_v<T, double>) {
    v.f64(name, x);
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    v.u64(name, x);
  } else if constexpr (std::is_integral_v<T>) {
    int64_t i = x;
    v.i64(name, i);
    x = static_cast<T>(i);
  } else if constexpr (std::is_same_v<T, Scalar>) {
    v.scalar(name, x);
  } else if constexpr (std::is_same_v<T, std::string>) {
    v.text(name, x);
  } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
    v.i64_list(name, x);
  } else if constexpr (std::is_same_v<T, std::vector<SymInt>>) {
    v.sym_list(name, x);
  } else if constexpr (requires(T & t, ParamVisitor & pv) { t.visit(pv); }) {
    x.visit(v);  // a nested params struct: its fields, flattened
  } else {
    static_assert(sizeof(T) == 0, "EMBER_FIELDS: unsupported parameter type");
  }
}

/// Splits "a, b, c" (the stringified field list) into names.
std::vector<std::string> split_field_names(std::string_view list);

template <typename... Fields>
void visit_fields(ParamVisitor& v, const std::vector<std::string>& names, Fields&... fields) {
  size_t i = 0;
  (visit_field(v, names[i++].c_str(), fields), ...);
}
}  // namespace detail

/// Declares a params struct's fields: EMBER_FIELDS(dim, keepdim). Defines visit(ParamVisitor&).
#define EMBER_FIELDS(...)                                                       \
  void visit(::ember::ParamVisitor& visitor_) {                                 \
    static const std::vector<std::string> names_ =                              \
        ::ember::detail::split_field_names(#__VA_ARGS__);                       \
    ::ember::detail::visit_fields(visitor_, names_ __VA_OPT__(, ) __VA_ARGS__); \
  }

/// Defines `enum class Name : Under {values...}` with its enum_info() (names as spelled):
/// EMBER_ENUM(QrMode, uint8_t, Reduced, Complete, R). Values are 0, 1, 2, ... in order.
#define EMBER_ENUM(Name, Under, ...)                                                      \
  enum class Name : Under { __VA_ARGS__ };                                                \
  inline const std::vector<std::string>& enum_names_of(Name) {                            \
    static const std::vector<std::string> names_ =                                        \
        ::ember::detail::split_field_names(#__VA_ARGS__);                                 \
    return names_;                                                                        \
  }                                                                                       \
  inline ::ember::EnumInfo enum_info(Name) {                                              \
    return {static_cast<int>(enum_names_of(Name{}).size()),                               \
            [](int i) { return enum_names_of(Name{})[static_cast<size_t>(i)].c_str(); }}; \
  }

/// A primitive without parameters.
struct NoParams {
  EMBER_FIELDS()
};

}  // namespace ember
