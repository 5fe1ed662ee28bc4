#pragma once
// Primitives of the factory family: evenly spaced sequences (arange, linspace, logspace).
#include <string>
#include <vector>

#include "dispatch/primitive.h"

namespace ember {

EMBER_ENUM(RangeOp, uint8_t, Arange, Linspace, Logspace);

/// sizes and dtype: the output's (the op builder computes arange's size from its arguments);
/// sizes holds the one size, a SymInt so that a traced arange(s0) keeps its expression (Note
/// [Symbolic shapes]).
struct RangeParams {
  RangeOp op = RangeOp::Arange;
  Scalar start = 0, end_or_step = 1;
  double base = 10.0;
  std::vector<SymInt> sizes = {0};
  ScalarType dtype = kFloat32;
  DeviceType device = kCPU;
  EMBER_FIELDS(op, start, end_or_step, base, sizes, dtype, device)
};

/// outputs[0] (1-D, [size] of dtype, on device) receives the sequence:
///   Arange:   start + i * step
///   Linspace: start + i * (end - start) / (n - 1), computed from both ends as PyTorch does
///   Logspace: base ** linspace(start, end, n)
class Range : public PrimitiveOf<Range, RangeParams, PrimitiveKind::Range> {
 public:
  using PrimitiveOf::PrimitiveOf;
  Range(RangeOp op, Scalar start, Scalar end_or_step, double base, SymInt size, ScalarType dtype,
        DeviceType device = kCPU)
      : PrimitiveOf({op, start, end_or_step, base, {std::move(size)}, dtype, device}) {}
  EMBER_INFER
  const char* default_name() const override;
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  RangeOp op() const { return p_.op; }
  const Scalar& start() const { return p_.start; }
  /// `step` for Arange, `end` for Linspace and Logspace.
  const Scalar& end_or_step() const { return p_.end_or_step; }
  double base() const { return p_.base; }
};

}  // namespace ember
