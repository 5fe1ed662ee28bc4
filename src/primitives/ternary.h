#pragma once
// Elementwise primitives with a condition, bounds, a weight or a fill value: where, clamp, lerp,
// addcmul/addcdiv, masked_fill and isclose. As for Binary, the op builders (src/ops/ternary.cpp,
// src/ops/compare.cpp) convert the data inputs to the compute dtype first; kernels live in
// src/backend/cpu/binary_ternary.cpp.
#include <optional>

#include "dispatch/primitive.h"

namespace ember {

/// outputs[0] = inputs[0] ? inputs[1] : inputs[2]; inputs[0] is bool.
class Where : public PrimitiveOf<Where, NoParams, PrimitiveKind::Where> {
 public:
  EMBER_VJP
  EMBER_INFER
  bool saves_input(size_t i) const override { return i == 0; }
  const char* default_name() const override { return "where"; }
  EMBER_CPU_DISPATCHED_KERNEL;
};

struct ClampParams {
  std::optional<Scalar> min, max;
  /// The bounds are tensors (inputs[1..]) rather than the scalars above.
  bool tensor_bounds = false;
  bool has_min = true, has_max = true;
  EMBER_FIELDS(min, max, tensor_bounds, has_min, has_max)
};

/// clamp with Scalar bounds (inputs = {x}) or Tensor bounds (inputs = {x, min?, max?}, as the
/// flags say). A NaN bound gives NaN, a NaN input stays NaN, min > max gives max.
class Clamp : public PrimitiveOf<Clamp, ClampParams, PrimitiveKind::Clamp> {
 public:
  using PrimitiveOf::PrimitiveOf;
  Clamp(std::optional<Scalar> min, std::optional<Scalar> max)
      : PrimitiveOf({min, max, false, min.has_value(), max.has_value()}) {}
  Clamp(bool tensor_min, bool tensor_max)
      : PrimitiveOf({std::nullopt, std::nullopt, true, tensor_min, tensor_max}) {}
  EMBER_VJP
  EMBER_INFER
  // Tensor bounds only (Note [Decompositions]): scalar bounds are core.
  bool has_decomposition() const override { return p_.tensor_bounds; }
  std::vector<Tensor> decompose(const std::vector<Tensor>& inputs) const override;
  const char* default_name() const override {
    return p_.has_min && p_.has_max ? "clamp" : (p_.has_min ? "clamp_min" : "clamp_max");
  }
  EMBER_CPU_DISPATCHED_KERNEL;
};

struct LerpParams {
  std::optional<Scalar> weight;
  EMBER_FIELDS(weight)
};

/// outputs[0] = start + weight * (end - start) (PyTorch's two-sided formula); the weight is a
/// Scalar or inputs[2].
class Lerp : public PrimitiveOf<Lerp, LerpParams, PrimitiveKind::Lerp> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit Lerp(std::optional<Scalar> weight) : PrimitiveOf({weight}) {}
  EMBER_VJP
  EMBER_INFER
  EMBER_DECOMPOSE
  const char* default_name() const override { return "lerp"; }
  EMBER_CPU_DISPATCHED_KERNEL;
};

struct AddcParams {
  bool is_div = false;
  Scalar value = 1;
  EMBER_FIELDS(is_div, value)
};

/// addcmul: x + value * t1 * t2; addcdiv: x + value * t1 / t2.
class Addc : public PrimitiveOf<Addc, AddcParams, PrimitiveKind::Addc> {
 public:
  using PrimitiveOf::PrimitiveOf;
  Addc(bool is_div, Scalar value) : PrimitiveOf({is_div, value}) {}
  EMBER_VJP
  EMBER_INFER
  EMBER_DECOMPOSE
  bool saves_input(size_t i) const override { return i > 0; }
  const char* default_name() const override { return p_.is_div ? "addcdiv" : "addcmul"; }
  EMBER_CPU_DISPATCHED_KERNEL;
};

struct FillValue {
  Scalar value = 0;
  EMBER_FIELDS(value)
};

/// outputs[0] = mask ? value : x with inputs = {x, mask} (mask bool); masked_fill_ passes self
/// as both x and the output.
class MaskedFill : public PrimitiveOf<MaskedFill, FillValue, PrimitiveKind::MaskedFill> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit MaskedFill(Scalar value) : PrimitiveOf({value}) {}
  EMBER_VJP
  EMBER_INFER
  bool saves_input(size_t i) const override { return i == 1; }
  const char* default_name() const override { return "masked_fill"; }
  EMBER_CPU_DISPATCHED_KERNEL;
};

struct IsCloseParams {
  double rtol = 1e-5, atol = 1e-8;
  bool equal_nan = false;
  EMBER_FIELDS(rtol, atol, equal_nan)
};

/// outputs[0] (bool) = |a - b| <= atol + rtol * |b| (or a == b, or both NaN with equal_nan).
class IsClose : public PrimitiveOf<IsClose, IsCloseParams, PrimitiveKind::IsClose> {
 public:
  using PrimitiveOf::PrimitiveOf;
  IsClose(double rtol, double atol, bool equal_nan) : PrimitiveOf({rtol, atol, equal_nan}) {}
  EMBER_INFER
  EMBER_DECOMPOSE
  const char* default_name() const override { return "isclose"; }
  EMBER_CPU_DISPATCHED_KERNEL;
};

}  // namespace ember
