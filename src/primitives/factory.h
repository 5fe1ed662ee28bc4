#pragma once
// Primitives of the factory family: evenly spaced sequences (arange, linspace, logspace).
#include <string>

#include "dispatch/primitive.h"

namespace ember {

enum class RangeOp { Arange, Linspace, Logspace };

/// outputs[0] (1-D, allocated by the op) receives the sequence:
///   Arange:   start + i * step
///   Linspace: start + i * (end - start) / (n - 1), computed from both ends as PyTorch does
///   Logspace: base ** linspace(start, end, n)
class Range : public Primitive {
 public:
  Range(RangeOp op, Scalar start, Scalar end_or_step, double base = 10.0)
      : op_(op), start_(start), end_or_step_(end_or_step), base_(base) {}
  const char* name() const override;
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override;
  RangeOp op() const { return op_; }
  const Scalar& start() const { return start_; }
  /// `step` for Arange, `end` for Linspace and Logspace.
  const Scalar& end_or_step() const { return end_or_step_; }
  double base() const { return base_; }

 private:
  RangeOp op_;
  Scalar start_, end_or_step_;
  double base_;
};

}  // namespace ember
