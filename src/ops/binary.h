#pragma once
// Shared drivers of the binary op builders (src/ops/binary*.cpp).
#include "ember/core/tensor.h"
#include "primitives/binary.h"

namespace ember::ops {

/// out = op(a, b) with broadcasting and type promotion; `name` overrides the op's name in
/// messages and in the primitive (e.g. "floor_divide").
Tensor binary_op(BinaryOp op, const Tensor& a, const Tensor& b, const Scalar& alpha = 1,
                 const char* name = nullptr);
/// self = op(self, other) in place; the result dtype must be castable to self's dtype and the
/// broadcast shape must be self's shape.
Tensor& binary_op_(BinaryOp op, Tensor& self, const Tensor& other, const Scalar& alpha = 1,
                   const char* name = nullptr);
/// The BinaryOp for div's rounding_mode (none, "trunc", "floor"); RuntimeError otherwise.
BinaryOp div_mode(const std::optional<std::string>& rounding_mode);

}  // namespace ember::ops
