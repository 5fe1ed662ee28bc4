#pragma once
#include <optional>
#include <vector>

#include "dispatch/primitive.h"

namespace ember {

/// outputs[0] = inputs[0], broadcast and converted to the output's dtype. Inference states a
/// contiguous tensor of the input's sizes in `dtype` (the input's when absent); an in-place copy
/// (copy_) passes a source expanded to the target's sizes and the target's dtype.
struct CopyParams {
  std::optional<ScalarType> dtype;
  EMBER_FIELDS(dtype)
};

class Copy : public PrimitiveOf<Copy, CopyParams, PrimitiveKind::Copy> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit Copy(ScalarType dtype) : PrimitiveOf({dtype}) {}
  bool overwrites_target() const override { return true; }
  EMBER_INFER
  EMBER_VJP
  bool saves_input(size_t) const override { return false; }
  const char* default_name() const override { return "copy_"; }
  EMBER_CPU_DISPATCHED_KERNEL;
};

/// outputs[0] filled with `value`. Its parameters state the output (sizes, dtype, device), so
/// it infers like the other factories: out of place it is PyTorch's `full` (contiguous); in
/// place (fill_) the target's own sizes, dtype and device go in (`Fill::into`).
struct FillParams {
  Scalar value = 0;
  std::vector<SymInt> sizes;  // Note [Symbolic shapes]: a traced zeros({s0}) keeps s0
  ScalarType dtype = kFloat32;
  DeviceType device = kCPU;
  EMBER_FIELDS(value, sizes, dtype, device)
};

class Fill : public PrimitiveOf<Fill, FillParams, PrimitiveKind::Fill> {
 public:
  using PrimitiveOf::PrimitiveOf;
  Fill(Scalar value, std::vector<SymInt> sizes, ScalarType dtype, DeviceType device)
      : PrimitiveOf({value, std::move(sizes), dtype, device}) {}
  /// fill_ of `target` with `value` (the in-place form).
  static Fill into(const Tensor& target, const Scalar& value);
  bool overwrites_target() const override { return true; }
  EMBER_INFER
  const char* default_name() const override { return inplace() ? "fill_" : "full"; }
  EMBER_CPU_DISPATCHED_KERNEL;
  const Scalar& value() const { return p_.value; }
};

}  // namespace ember
