#include "ops/promotion.h"

#include <cmath>
#include <limits>

#include "ember/ops/elementwise.h"
#include "ops/util.h"

namespace ember::ops {

namespace {

ScalarType promote_skip_undefined(ScalarType a, ScalarType b) {
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  return promote_types(a, b);
}

// See Note [Result type categories]. `higher` wins unless `lower` is of a higher kind.
ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (is_floating_point(higher)) return higher;
  if (higher == kBool || is_floating_point(lower)) return promote_skip_undefined(higher, lower);
  if (higher != ScalarType::Undefined) return higher;
  return lower;
}

}  // namespace

ResultTypeState update_result_type_state(const Tensor& t, const ResultTypeState& in) {
  if (!t.defined()) return in;
  ResultTypeState s = in;
  ScalarType current = t.dtype();
  const bool wrapped = t.unsafeGetTensorImpl()->is_wrapped_number();
  // A Python float counts as the default dtype, whatever precision it was stored in.
  if (wrapped && is_floating_point(current)) current = get_default_dtype();
  if (t.dim() > 0) {
    s.dim_result = promote_skip_undefined(s.dim_result, current);
  } else if (wrapped) {
    s.wrapped_result = promote_skip_undefined(s.wrapped_result, current);
  } else {
    s.zero_result = promote_skip_undefined(s.zero_result, current);
  }
  return s;
}

ResultTypeState update_result_type_state(const Scalar& v, const ResultTypeState& in) {
  ResultTypeState s = in;
  ScalarType current = v.isFloatingPoint() ? get_default_dtype() : v.type();
  s.wrapped_result = promote_skip_undefined(s.wrapped_result, current);
  return s;
}

ScalarType result_type(const ResultTypeState& s) {
  return combine_categories(s.dim_result, combine_categories(s.zero_result, s.wrapped_result));
}

ScalarType result_type(std::span<const Tensor> operands) {
  ResultTypeState s;
  for (const Tensor& t : operands) s = update_result_type_state(t, s);
  return result_type(s);
}

void throw_not_implemented(const char* op, const char* kernel, ScalarType t) {
  EMBER_THROW(TypeError, "[", op, "] \"", kernel, "\" not implemented for '", scalar_type_name(t),
              "' (", dtype_name(t), ")");
}

void check_inplace_cast(ScalarType result, const Tensor& self, const char* op) {
  EMBER_CHECK(can_cast(result, self.dtype()), "[", op, "] result type ", scalar_type_name(result),
              " can't be cast to the desired output type ", scalar_type_name(self.dtype()));
}

void check_inplace_shape(const Tensor& self, const std::vector<int64_t>& shape, const char* op) {
  EMBER_CHECK(shape == self.sizes(), "[", op, "] output with shape ", shape_str(self.sizes()),
              " doesn't match the broadcast shape ", shape_str(shape));
  check_no_internal_overlap(self, op);
}

void check_inplace_shape(const Tensor& self, const std::vector<SymInt>& shape, const char* op) {
  const std::vector<SymInt> sizes = self.sym_sizes();
  EMBER_CHECK(shape == sizes, "[", op, "] output with shape ", shape_str(sizes),
              " doesn't match the broadcast shape ", shape_str(shape));
  check_no_internal_overlap(self, op);
}

Tensor inplace_input(const Tensor& self, const Tensor& input, const char* op) {
  if (!may_overlap(self, input)) return input;
  // The same elements in the same order: each output element only reads its own input element.
  // (may_overlap found one storage, so equal offsets mean equal addresses, on meta too.)
  if (self.storage_offset() == input.storage_offset() && self.sizes() == input.sizes() &&
      self.strides() == input.strides() && self.dtype() == input.dtype()) {
    return input;
  }
  EMBER_CHECK(!(self.is_contiguous() && input.is_contiguous()), "[", op,
              "] unsupported operation: some elements of the input tensor and the written-to "
              "tensor refer to a single memory location. Please clone() the tensor before "
              "performing the operation.");
  return input.clone();  // strided views that may interleave: read from a private copy
}

namespace {
template <typename T>
const char* c10_type_name() {
  if constexpr (std::is_same_v<T, bool>)
    return "bool";
  else if constexpr (std::is_same_v<T, uint8_t>)
    return "uint8_t";
  else if constexpr (std::is_same_v<T, int8_t>)
    return "int8_t";
  else if constexpr (std::is_same_v<T, int16_t>)
    return "int16_t";
  else if constexpr (std::is_same_v<T, int32_t>)
    return "int";
  else if constexpr (std::is_same_v<T, int64_t>)
    return "int64_t";
  else if constexpr (std::is_same_v<T, Half>)
    return "at::Half";
  else if constexpr (std::is_same_v<T, BFloat16>)
    return "at::BFloat16";
  else if constexpr (std::is_same_v<T, float>)
    return "float";
  else
    return "double";
}

// c10::overflows: negative integers may wrap into unsigned types (uint8 -1 -> 255); floating
// targets accept inf and NaN.
template <typename T>
bool overflows(const Scalar& s) {
  using L = std::numeric_limits<T>;
  constexpr bool is_float_target = !std::is_integral_v<T>;
  const double lo = static_cast<double>(static_cast<float>(L::lowest()));
  const double hi = is_float_target ? static_cast<double>(static_cast<float>(L::max()))
                                    : static_cast<double>(L::max());
  // As c10::overflows: any number converts to bool (non-zero is true), and a bool to anything.
  if (std::is_same_v<T, bool> || s.isBoolean()) return false;
  if (s.isIntegral(false)) {
    int64_t v = s.toLong();
    if constexpr (is_float_target) {
      return static_cast<double>(v) < lo || static_cast<double>(v) > hi;
    } else if constexpr (!std::is_signed_v<T>) {
      if (v < 0)
        return static_cast<uint64_t>(0) - static_cast<uint64_t>(v) >
               static_cast<uint64_t>(L::max());
      return static_cast<uint64_t>(v) > static_cast<uint64_t>(L::max());
    } else {
      return v < static_cast<int64_t>(L::lowest()) || v > static_cast<int64_t>(L::max());
    }
  }
  double d = s.toDouble();
  if constexpr (is_float_target) {
    if (std::isinf(d) || std::isnan(d)) return false;
  } else {
    if (std::isnan(d) || std::isinf(d)) return true;
    if constexpr (std::is_same_v<T, int64_t>)
      return d < -9223372036854775808.0 || d >= 9223372036854775808.0;
  }
  return d < lo || d > hi;
}
}  // namespace

template <typename T>
T checked_scalar_to(const Scalar& s, const char* op) {
  EMBER_CHECK(!overflows<T>(s), "[", op, "] value cannot be converted to type ", c10_type_name<T>(),
              " without overflow");
  return s.to<T>();
}
#define EMBER_INSTANTIATE(T) template T checked_scalar_to<T>(const Scalar&, const char*);
EMBER_FORALL_CPP_TYPES(EMBER_INSTANTIATE)
#undef EMBER_INSTANTIATE

void check_scalar_fits(const Scalar& s, ScalarType dtype, const char* op) {
  visit_dtype(dtype, op, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    (void)checked_scalar_to<T>(s, op);
  });
}

void check_defined(const Tensor& t, const char* op, const char* arg) {
  EMBER_CHECK(t.defined(), "[", op, "] argument '", arg, "' is an undefined tensor");
}

}  // namespace ember::ops

namespace ember {

ScalarType result_type(const Tensor& a, const Tensor& b) {
  ops::check_defined(a, "result_type", "tensor");
  ops::check_defined(b, "result_type", "other");
  return ops::result_type({a, b});
}

ScalarType result_type(const Tensor& a, const Scalar& b) {
  ops::check_defined(a, "result_type", "tensor");
  return ops::result_type(ops::update_result_type_state(b, ops::update_result_type_state(a, {})));
}

// c10::canCast: no float -> integral, no non-bool -> bool (bool is its own category).
bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating_point(from) && is_integral(to, false)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

}  // namespace ember
