#pragma once
// Elementwise primitives with a condition, bounds, a weight or a fill value: where, clamp, lerp,
// addcmul/addcdiv, masked_fill and isclose. As for Binary, the op builders (src/ops/ternary.cpp,
// src/ops/compare.cpp) convert the data inputs to the compute dtype first; kernels live in
// src/backend/cpu/binary_ternary.cpp.
#include <optional>

#include "dispatch/primitive.h"

namespace ember {

/// outputs[0] = inputs[0] ? inputs[1] : inputs[2]; inputs[0] is bool.
class Where : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Where)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t i) const override { return i == 0; }
  const char* name() const override { return "where"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
};

/// clamp with Scalar bounds (inputs = {x}) or Tensor bounds (inputs = {x, min?, max?}, as the
/// flags say). A NaN bound gives NaN, a NaN input stays NaN, min > max gives max.
class Clamp : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Clamp)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  Clamp(std::optional<Scalar> min, std::optional<Scalar> max)
      : min_(min), max_(max), has_min_(min.has_value()), has_max_(max.has_value()) {}
  Clamp(bool tensor_min, bool tensor_max)
      : tensor_bounds_(true), has_min_(tensor_min), has_max_(tensor_max) {}
  const char* name() const override {
    return has_min_ && has_max_ ? "clamp" : (has_min_ ? "clamp_min" : "clamp_max");
  }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override;

 private:
  std::optional<Scalar> min_, max_;
  bool tensor_bounds_ = false;
  bool has_min_, has_max_;
};

/// outputs[0] = start + weight * (end - start) (PyTorch's two-sided formula); the weight is a
/// Scalar or inputs[2].
class Lerp : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Lerp)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  explicit Lerp(std::optional<Scalar> weight) : weight_(weight) {}
  const char* name() const override { return "lerp"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;

 private:
  std::optional<Scalar> weight_;
};

/// addcmul: x + value * t1 * t2; addcdiv: x + value * t1 / t2.
class Addc : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Addc)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t i) const override { return i > 0; }
  Addc(bool is_div, Scalar value) : is_div_(is_div), value_(value) {}
  const char* name() const override { return is_div_ ? "addcdiv" : "addcmul"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;

 private:
  bool is_div_;
  Scalar value_;
};

/// outputs[0] = mask ? value : x with inputs = {x, mask} (mask bool); masked_fill_ passes self
/// as both x and the output.
class MaskedFill : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(MaskedFill)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t i) const override { return i == 1; }
  explicit MaskedFill(Scalar value) : value_(value) {}
  const char* name() const override { return "masked_fill"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;

 private:
  Scalar value_;
};

/// outputs[0] (bool) = |a - b| <= atol + rtol * |b| (or a == b, or both NaN with equal_nan).
class IsClose : public Primitive {
 public:
  IsClose(double rtol, double atol, bool equal_nan)
      : rtol_(rtol), atol_(atol), equal_nan_(equal_nan) {}
  const char* name() const override { return "isclose"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override;

 private:
  double rtol_, atol_;
  bool equal_nan_;
};

}  // namespace ember
