#pragma once
// Element types with PyTorch's names and promotion rules.
#include <cstdint>
#include <ostream>
#include <string>

#include "ember/core/error.h"
#include "ember/core/half.h"

namespace ember {

/// PyTorch's scalar types (torch.dtype). Complex and float8 are reserved for later.
enum class ScalarType : int8_t {
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  ComplexFloat,    // reserved: complex64
  Float8_e4m3fn,   // reserved
  Float8_e5m2,     // reserved
  Undefined,
};
using Dtype = ScalarType;
constexpr int kNumDtypes = 10;  // the implemented ones, Bool..Float64

constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kUInt8 = ScalarType::UInt8;
constexpr ScalarType kByte = ScalarType::UInt8;
constexpr ScalarType kInt8 = ScalarType::Int8;
constexpr ScalarType kChar = ScalarType::Int8;
constexpr ScalarType kInt16 = ScalarType::Int16;
constexpr ScalarType kShort = ScalarType::Int16;
constexpr ScalarType kInt32 = ScalarType::Int32;
constexpr ScalarType kInt = ScalarType::Int32;
constexpr ScalarType kInt64 = ScalarType::Int64;
constexpr ScalarType kLong = ScalarType::Int64;
constexpr ScalarType kFloat16 = ScalarType::Float16;
constexpr ScalarType kHalf = ScalarType::Float16;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kFloat32 = ScalarType::Float32;
constexpr ScalarType kFloat = ScalarType::Float32;
constexpr ScalarType kFloat64 = ScalarType::Float64;
constexpr ScalarType kDouble = ScalarType::Float64;
constexpr ScalarType kComplexFloat = ScalarType::ComplexFloat;
constexpr ScalarType kFloat8_e4m3fn = ScalarType::Float8_e4m3fn;
constexpr ScalarType kFloat8_e5m2 = ScalarType::Float8_e5m2;

/// Bytes per element.
int64_t element_size(ScalarType t);
/// PyTorch's name without the "torch." prefix: "float32", "int64", "bool", ...
const char* dtype_name(ScalarType t);
/// c10's name of the type, as PyTorch's error messages print it: "Float", "Long", "Bool", ...
const char* scalar_type_name(ScalarType t);
std::ostream& operator<<(std::ostream& os, ScalarType t);

constexpr bool is_floating_point(ScalarType t) {
  return t == kFloat16 || t == kBFloat16 || t == kFloat32 || t == kFloat64 ||
         t == kFloat8_e4m3fn || t == kFloat8_e5m2;
}
constexpr bool is_complex(ScalarType t) { return t == kComplexFloat; }
/// Integral types; bool counts only when include_bool is true (as c10::isIntegralType).
constexpr bool is_integral(ScalarType t, bool include_bool) {
  return (t >= kUInt8 && t <= kInt64) || (include_bool && t == kBool);
}
constexpr bool is_signed(ScalarType t) { return t != kBool && t != kUInt8; }
/// True for the ten types Ember implements kernels for.
constexpr bool is_implemented(ScalarType t) { return t >= kBool && t <= kFloat64; }
/// The type an op computes in for `t`: float for the 16-bit floats, else `t`.
constexpr ScalarType opmath_type(ScalarType t) {
  return (t == kFloat16 || t == kBFloat16) ? kFloat32 : t;
}

/// torch.promote_types.
ScalarType promote_types(ScalarType a, ScalarType b);

/// torch.get_default_dtype / set_default_dtype (float32 unless changed; float types only).
ScalarType get_default_dtype();
void set_default_dtype(ScalarType t);

/// Maps a C++ element type to its ScalarType.
template <typename T>
struct CppTypeToScalarType;
#define EMBER_MAP_CPP_TYPE(cpp, st) \
  template <>                       \
  struct CppTypeToScalarType<cpp> { \
    static constexpr ScalarType value = st; \
  };
EMBER_MAP_CPP_TYPE(bool, kBool)
EMBER_MAP_CPP_TYPE(uint8_t, kUInt8)
EMBER_MAP_CPP_TYPE(int8_t, kInt8)
EMBER_MAP_CPP_TYPE(int16_t, kInt16)
EMBER_MAP_CPP_TYPE(int32_t, kInt32)
EMBER_MAP_CPP_TYPE(int64_t, kInt64)
EMBER_MAP_CPP_TYPE(Half, kFloat16)
EMBER_MAP_CPP_TYPE(BFloat16, kBFloat16)
EMBER_MAP_CPP_TYPE(float, kFloat32)
EMBER_MAP_CPP_TYPE(double, kFloat64)
#undef EMBER_MAP_CPP_TYPE
template <typename T>
constexpr ScalarType dtype_of = CppTypeToScalarType<T>::value;

/// Applies macro _ to the C++ type of each implemented dtype (for explicit instantiations).
#define EMBER_FORALL_CPP_TYPES(_) \
  _(bool) _(uint8_t) _(int8_t) _(int16_t) _(int32_t) _(int64_t) _(::ember::Half) \
  _(::ember::BFloat16) _(float) _(double)

/// Calls f with a value of the C++ type for `t` (f receives a null pointer of that type), for the
/// ten implemented types; any other type raises TypeError naming `op`.
///   visit_dtype(t, "add", [&](auto tag) { using T = std::remove_pointer_t<decltype(tag)>; ... });
template <typename F>
decltype(auto) visit_dtype(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case kBool: return f(static_cast<bool*>(nullptr));
    case kUInt8: return f(static_cast<uint8_t*>(nullptr));
    case kInt8: return f(static_cast<int8_t*>(nullptr));
    case kInt16: return f(static_cast<int16_t*>(nullptr));
    case kInt32: return f(static_cast<int32_t*>(nullptr));
    case kInt64: return f(static_cast<int64_t*>(nullptr));
    case kFloat16: return f(static_cast<Half*>(nullptr));
    case kBFloat16: return f(static_cast<BFloat16*>(nullptr));
    case kFloat32: return f(static_cast<float*>(nullptr));
    case kFloat64: return f(static_cast<double*>(nullptr));
    default: break;
  }
  EMBER_THROW(TypeError, "[", op, "] dtype ", dtype_name(t), " is not supported");
}

}  // namespace ember
