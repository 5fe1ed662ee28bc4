#pragma once
#include <optional>

#include "dispatch/primitive.h"
#include "primitives/ternary.h"  // FillValue

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

/// outputs[0] filled with a value.
class Fill : public PrimitiveOf<Fill, FillValue, PrimitiveKind::Fill> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit Fill(Scalar value) : PrimitiveOf({value}) {}
  bool overwrites_target() const override { return true; }
  const char* default_name() const override { return "fill_"; }
  EMBER_CPU_DISPATCHED_KERNEL;
  const Scalar& value() const { return p_.value; }
};

}  // namespace ember
