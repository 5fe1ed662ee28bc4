#pragma once
// Type promotion and in-place checks shared by the binary and ternary op builders.
// Note [Result type categories]: as PyTorch's ResultTypeState, operands fall into three
// categories: tensors with dim > 0, 0-d tensors, and wrapped numbers (C++ Scalars). Each category
// is promoted on its own; a lower category only changes the result when it is of a higher kind
// (bool < integer < float), e.g. int8 tensor + 5 -> int8 but int32 tensor + 2.5 -> float32.
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::ops {

struct ResultTypeState {
  ScalarType dim_result = ScalarType::Undefined;
  ScalarType zero_result = ScalarType::Undefined;
  ScalarType wrapped_result = ScalarType::Undefined;
};

ResultTypeState update_result_type_state(const Tensor& t, const ResultTypeState& in);
ResultTypeState update_result_type_state(const Scalar& s, const ResultTypeState& in);
ScalarType result_type(const ResultTypeState& state);
/// result_type over several operands (undefined tensors are skipped).
ScalarType result_type(std::span<const Tensor> operands);
inline ScalarType result_type(std::initializer_list<Tensor> operands) {
  return result_type(std::span<const Tensor>(operands.begin(), operands.size()));
}

/// TypeError: "[op] \"kernel\" not implemented for 'Float' (float32)".
[[noreturn]] void throw_not_implemented(const char* op, const char* kernel, ScalarType t);

/// In-place ops: the computed result type must be castable to self's dtype ("result type Float
/// can't be cast to the desired output type Long").
void check_inplace_cast(ScalarType result, const Tensor& self, const char* op);
/// In-place ops: the broadcast shape must equal self's ("output with shape [3] doesn't match the
/// broadcast shape [2, 3]"); self must not have internally overlapping elements.
void check_inplace_shape(const Tensor& self, const std::vector<SymInt>& broadcast_shape,
                         const char* op);
void check_inplace_shape(const Tensor& self, const std::vector<int64_t>& broadcast_shape,
                         const char* op);
/// An input for an in-place op writing `self`: the input itself, or a copy when it shares memory
/// with self in a way that would be read after being written. Both dense and partially
/// overlapping raises as PyTorch does.
Tensor inplace_input(const Tensor& self, const Tensor& input, const char* op);

/// Scalar -> T with c10's overflow check ("value cannot be converted to type int8_t without
/// overflow"); used where PyTorch converts a Scalar argument with Scalar::to<T>.
template <typename T>
T checked_scalar_to(const Scalar& s, const char* op);

/// Raises as checked_scalar_to when `s` does not fit `dtype`.
void check_scalar_fits(const Scalar& s, ScalarType dtype, const char* op);

/// Throws unless t is defined.
void check_defined(const Tensor& t, const char* op, const char* arg);

}  // namespace ember::ops
