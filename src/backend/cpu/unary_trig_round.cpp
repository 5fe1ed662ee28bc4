// Floating-point unary kernels: trigonometric and hyperbolic functions, rounding (floor, ceil,
// round with decimals, trunc, frac) and nan_to_num. Functors: Note [Unary functors].
#include <cmath>
#include <limits>

#include "backend/cpu/unary_kernels.h"
#include "backend/cpu/unary_loops.h"

namespace ember::cpu {
namespace {

/// The largest and lowest finite values of a floating dtype, as doubles.
std::pair<double, double> finite_range(ScalarType dt) {
  switch (dt) {
    case kFloat16:
      return {static_cast<float>(std::numeric_limits<Half>::max()),
              static_cast<float>(std::numeric_limits<Half>::lowest())};
    case kBFloat16:
      return {static_cast<float>(std::numeric_limits<BFloat16>::max()),
              static_cast<float>(std::numeric_limits<BFloat16>::lowest())};
    case kFloat32:
      return {std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest()};
    default:
      return {std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest()};
  }
}

}  // namespace

bool unary_trig_round_kernel(UnaryOp op, const UnaryArgs& args, const StridedLoop& loop,
                             ScalarType dt) {
  const char* n = unary_op_name(op);
  switch (op) {
    case UnaryOp::Sin:
      float_unary<SinF>(loop, dt, n);
      break;
    case UnaryOp::Cos:
      float_unary<CosF>(loop, dt, n);
      break;
    case UnaryOp::Tan:
      float_unary<TanF>(loop, dt, n);
      break;
    case UnaryOp::Asin:
      float_unary<AsinF>(loop, dt, n);
      break;
    case UnaryOp::Acos:
      float_unary<AcosF>(loop, dt, n);
      break;
    case UnaryOp::Atan:
      float_unary<AtanF>(loop, dt, n);
      break;
    case UnaryOp::Sinh:
      float_unary<SinhF>(loop, dt, n);
      break;
    case UnaryOp::Cosh:
      float_unary<CoshF>(loop, dt, n);
      break;
    case UnaryOp::Tanh:
      float_unary<TanhF>(loop, dt, n);
      break;
    case UnaryOp::Floor:
      float_unary<FloorF>(loop, dt, n);
      break;
    case UnaryOp::Ceil:
      float_unary<CeilF>(loop, dt, n);
      break;
    case UnaryOp::Trunc:
      float_unary<TruncF>(loop, dt, n);
      break;
    case UnaryOp::Frac:
      float_unary<FracF>(loop, dt, n);
      break;
    case UnaryOp::Round: {
      const int64_t d = args.decimals;
      if (d == 0) {
        float_unary<RoundF>(loop, dt, n);
      } else {
        // 10^|d| as a double, then converted to the compute type (inf for huge |d|, as PyTorch).
        const double ten_pow = std::pow(10.0, static_cast<double>(d < 0 ? -d : d));
        if (d > 0)
          float_unary<RoundMulF>(loop, dt, n, ten_pow);
        else
          float_unary<RoundDivF>(loop, dt, n, ten_pow);
      }
      break;
    }
    case UnaryOp::NanToNum: {
      auto [hi, lo] = finite_range(dt);
      const double nan = args.a ? args.a->toDouble() : 0.0;
      const double posinf = args.b ? args.b->toDouble() : hi;
      const double neginf = args.c ? args.c->toDouble() : lo;
      float_unary<NanToNumF>(loop, dt, n, nan, posinf, neginf);
      break;
    }
    default:
      return false;
  }
  return true;
}

}  // namespace ember::cpu
