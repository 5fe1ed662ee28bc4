#pragma once
// Binary elementwise primitives. The op builders (src/ops/binary.cpp) broadcast, promote and
// convert both inputs to the compute dtype; the kernel (src/backend/cpu/binary*.cpp) then sees
// inputs of one dtype and an output of that dtype (bool for comparisons and logical ops).
#include "dispatch/primitive.h"

namespace ember {

// clang-format off
EMBER_ENUM(BinaryOp, uint8_t,
  Add,  // a + alpha * b
  Sub,  // a - alpha * b
  Mul,
  Div,       // true division (floating compute types only)
  DivTrunc,  // div(rounding_mode="trunc")
  DivFloor,  // div(rounding_mode="floor"), floor_divide
  Remainder,
  Fmod,
  Pow,
  Atan2,
  Maximum,
  Minimum,
  Fmax,
  Fmin,
  Hypot,
  Copysign,
  Logaddexp,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  LogicalAnd,
  LogicalOr,
  LogicalXor,
  BitwiseAnd,
  BitwiseOr,
  BitwiseXor,
  LeftShift,
  RightShift);
// clang-format on

/// PyTorch's name of the op ("add", "div", "bitwise_left_shift", ...).
const char* binary_op_name(BinaryOp op);
/// Ops whose result is bool whatever the compute dtype.
constexpr bool binary_op_returns_bool(BinaryOp op) {
  return op >= BinaryOp::Eq && op <= BinaryOp::LogicalXor;
}

struct BinaryParams {
  BinaryOp op = BinaryOp::Add;
  Scalar alpha = 1;
  EMBER_FIELDS(op, alpha)
};

/// outputs[0] = op(inputs[0], inputs[1]); inputs share one dtype and broadcast to the output.
class Binary : public PrimitiveOf<Binary, BinaryParams, PrimitiveKind::Binary> {
 public:
  using PrimitiveOf::PrimitiveOf;
  /// `name` overrides the op's name where PyTorch has a separate op (floor_divide, clamp_min).
  explicit Binary(BinaryOp op, Scalar alpha = 1, const char* name = nullptr)
      : PrimitiveOf({op, alpha}) {
    set_display_name(name);
  }
  EMBER_VJP
  EMBER_INFER
  bool saves_input(size_t) const override;
  bool saves_output(size_t) const override;
  const char* default_name() const override { return binary_op_name(p_.op); }
  EMBER_CPU_DISPATCHED_KERNEL;
  BinaryOp op() const { return p_.op; }
  const Scalar& alpha() const { return p_.alpha; }
};

}  // namespace ember
