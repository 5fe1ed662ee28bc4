// Floating-point unary math kernels: the exp and log families, sqrt/rsqrt/reciprocal and
// erf/erfc/erfinv. Functors: Note [Unary functors].
#include "backend/cpu/unary_kernels.h"
#include "backend/cpu/unary_loops.h"

namespace ember::cpu {
bool unary_math_kernel(UnaryOp op, const UnaryArgs&, const StridedLoop& loop, ScalarType dt) {
  const char* n = unary_op_name(op);
  switch (op) {
    case UnaryOp::Exp:
      float_unary<ExpF>(loop, dt, n);
      break;
    case UnaryOp::Exp2:
      float_unary<Exp2F>(loop, dt, n);
      break;
    case UnaryOp::Expm1:
      float_unary<Expm1F>(loop, dt, n);
      break;
    case UnaryOp::Log:
      float_unary<LogF>(loop, dt, n);
      break;
    case UnaryOp::Log2:
      float_unary<Log2F>(loop, dt, n);
      break;
    case UnaryOp::Log10:
      float_unary<Log10F>(loop, dt, n);
      break;
    case UnaryOp::Log1p:
      float_unary<Log1pF>(loop, dt, n);
      break;
    case UnaryOp::Sqrt:
      float_unary<SqrtF>(loop, dt, n);
      break;
    case UnaryOp::Rsqrt:
      float_unary<RsqrtF>(loop, dt, n);
      break;
    case UnaryOp::Reciprocal:
      float_unary<ReciprocalF>(loop, dt, n);
      break;
    case UnaryOp::Erf:
      float_unary<ErfF>(loop, dt, n);
      break;
    case UnaryOp::Erfc:
      float_unary<ErfcF>(loop, dt, n);
      break;
    case UnaryOp::Erfinv:
      float_unary<ErfinvF>(loop, dt, n);
      break;
    default:
      return false;
  }
  return true;
}

}  // namespace ember::cpu
