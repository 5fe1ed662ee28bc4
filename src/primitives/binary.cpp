// Display names of the binary primitives' ops.
#include "primitives/binary.h"

namespace ember {

const char* binary_op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
      return "add";
    case BinaryOp::Sub:
      return "sub";
    case BinaryOp::Mul:
      return "mul";
    case BinaryOp::Div:
    case BinaryOp::DivTrunc:
    case BinaryOp::DivFloor:
      return "div";
    case BinaryOp::Remainder:
      return "remainder";
    case BinaryOp::Fmod:
      return "fmod";
    case BinaryOp::Pow:
      return "pow";
    case BinaryOp::Atan2:
      return "atan2";
    case BinaryOp::Maximum:
      return "maximum";
    case BinaryOp::Minimum:
      return "minimum";
    case BinaryOp::Fmax:
      return "fmax";
    case BinaryOp::Fmin:
      return "fmin";
    case BinaryOp::Hypot:
      return "hypot";
    case BinaryOp::Copysign:
      return "copysign";
    case BinaryOp::Logaddexp:
      return "logaddexp";
    case BinaryOp::Eq:
      return "eq";
    case BinaryOp::Ne:
      return "ne";
    case BinaryOp::Lt:
      return "lt";
    case BinaryOp::Le:
      return "le";
    case BinaryOp::Gt:
      return "gt";
    case BinaryOp::Ge:
      return "ge";
    case BinaryOp::LogicalAnd:
      return "logical_and";
    case BinaryOp::LogicalOr:
      return "logical_or";
    case BinaryOp::LogicalXor:
      return "logical_xor";
    case BinaryOp::BitwiseAnd:
      return "bitwise_and";
    case BinaryOp::BitwiseOr:
      return "bitwise_or";
    case BinaryOp::BitwiseXor:
      return "bitwise_xor";
    case BinaryOp::LeftShift:
      return "bitwise_left_shift";
    case BinaryOp::RightShift:
      return "bitwise_right_shift";
  }
  return "binary";
}

}  // namespace ember
