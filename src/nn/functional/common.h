#pragma once
// Helpers shared by the nn::functional implementations.
#include <string>
#include <variant>

#include "ember/core/tensor.h"
#include "ember/nn/enum.h"
#include "ember/ops/reduction.h"
#include "ops/util.h"

namespace ember::nn::detail {

/// The dtype composites compute in: float32 for the 16-bit floats (rounded once at the end).
inline Tensor to_opmath(const Tensor& x) {
  return opmath_type(x.dtype()) == x.dtype() ? x : x.to(opmath_type(x.dtype()));
}
/// Casts a result computed by to_opmath back to `dtype`.
inline Tensor from_opmath(const Tensor& y, ScalarType dtype) {
  return y.dtype() == dtype ? y : y.to(dtype);
}

inline void check_defined(const Tensor& x, const char* op, const char* what = "input") {
  EMBER_CHECK(x.defined(), "[", op, "] expected a defined ", what, " tensor");
}

/// TypeError unless x is a floating tensor, worded as PyTorch's dispatch failures.
inline void check_floating(const Tensor& x, const char* op, const char* kernel = nullptr) {
  check_defined(x, op);
  EMBER_CHECK_TYPE(is_floating_point(x.dtype()) && is_implemented(x.dtype()), "[", op, "] \"",
                   kernel != nullptr ? kernel : op, "_cpu\" not implemented for '",
                   dtype_name(x.dtype()), "'");
}

enum class Reduction { None, Mean, Sum };

template <typename V>
Reduction reduction_of(const V& v) {
  const std::string n = get_enum_name(v);
  return n == "none" ? Reduction::None : n == "sum" ? Reduction::Sum : Reduction::Mean;
}

inline Tensor apply_reduction(const Tensor& loss, Reduction r) {
  switch (r) {
    case Reduction::None:
      return loss;
    case Reduction::Sum:
      return loss.sum();
    case Reduction::Mean:
      return loss.mean();
  }
  return loss;
}

/// Writes `result` into `input` (libtorch's inplace option) and returns input.
inline Tensor maybe_inplace(Tensor input, const Tensor& result, bool inplace) {
  if (!inplace) return result;
  input.copy_(result);
  return input;
}

}  // namespace ember::nn::detail
