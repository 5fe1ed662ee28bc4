#include "ember/core/dtype.h"

#include <atomic>

namespace ember {

int64_t element_size(ScalarType t) {
  switch (t) {
    case kBool: case kUInt8: case kInt8: case kFloat8_e4m3fn: case kFloat8_e5m2: return 1;
    case kInt16: case kFloat16: case kBFloat16: return 2;
    case kInt32: case kFloat32: return 4;
    case kInt64: case kFloat64: case kComplexFloat: return 8;
    default: break;
  }
  EMBER_THROW(TypeError, "[element_size] undefined dtype");
}

const char* dtype_name(ScalarType t) {
  switch (t) {
    case kBool: return "bool";
    case kUInt8: return "uint8";
    case kInt8: return "int8";
    case kInt16: return "int16";
    case kInt32: return "int32";
    case kInt64: return "int64";
    case kFloat16: return "float16";
    case kBFloat16: return "bfloat16";
    case kFloat32: return "float32";
    case kFloat64: return "float64";
    case kComplexFloat: return "complex64";
    case kFloat8_e4m3fn: return "float8_e4m3fn";
    case kFloat8_e5m2: return "float8_e5m2";
    default: return "undefined";
  }
}

const char* scalar_type_name(ScalarType t) {
  switch (t) {
    case kBool: return "Bool";
    case kUInt8: return "Byte";
    case kInt8: return "Char";
    case kInt16: return "Short";
    case kInt32: return "Int";
    case kInt64: return "Long";
    case kFloat16: return "Half";
    case kBFloat16: return "BFloat16";
    case kFloat32: return "Float";
    case kFloat64: return "Double";
    case kComplexFloat: return "ComplexFloat";
    case kFloat8_e4m3fn: return "Float8_e4m3fn";
    case kFloat8_e5m2: return "Float8_e5m2";
    default: return "Undefined";
  }
}

std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << "torch." << dtype_name(t); }

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  EMBER_CHECK_TYPE(is_implemented(a) && is_implemented(b), "[promote_types] promotion between ",
                   dtype_name(a), " and ", dtype_name(b), " is not supported");
  if (a == kBool) return b;
  if (b == kBool) return a;
  bool fa = is_floating_point(a), fb = is_floating_point(b);
  if (fa && fb) {
    if ((a == kFloat16 && b == kBFloat16) || (a == kBFloat16 && b == kFloat16)) return kFloat32;
    return element_size(a) >= element_size(b) ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  // Both integral. uint8 with a signed type needs a signed type that holds 0..255.
  if (a == kUInt8 || b == kUInt8) {
    ScalarType s = a == kUInt8 ? b : a;
    return s == kInt8 ? kInt16 : s;
  }
  return element_size(a) >= element_size(b) ? a : b;
}

namespace {
std::atomic<ScalarType> g_default_dtype{kFloat32};
}
ScalarType get_default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }
void set_default_dtype(ScalarType t) {
  EMBER_CHECK_TYPE(t == kFloat32 || t == kFloat64 || t == kFloat16 || t == kBFloat16,
                   "[set_default_dtype] only floating-point types are supported as the default "
                   "type, got ", dtype_name(t));
  g_default_dtype.store(t);
}

}  // namespace ember
