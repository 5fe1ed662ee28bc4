// Floating-point unary kernels: trigonometric and hyperbolic functions, rounding (floor, ceil,
// trunc, frac: EMBER_UNARY_TRIG_OPS; round with decimals) and nan_to_num. Functors: Note [Unary
// functors].
#include <cmath>
#include <limits>

#include "backend/cpu/unary_kernels.h"
#include "backend/cpu/unary_loops.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {
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

EMBER_UNARY_TRIG_OPS(EMBER_UNARY_KERNEL_DEF)

void round_kernel(const UnaryArgs& args, const StridedLoop& loop, ScalarType dt) {
  const int64_t d = args.decimals;
  if (d == 0) return float_unary<RoundF>(loop, dt, "round");
  // 10^|d| as a double, then converted to the compute type (inf for huge |d|, as PyTorch).
  const double ten_pow = std::pow(10.0, static_cast<double>(d < 0 ? -d : d));
  if (d > 0) return float_unary<RoundMulF>(loop, dt, "round", ten_pow);
  float_unary<RoundDivF>(loop, dt, "round", ten_pow);
}

void nan_to_num_kernel(const UnaryArgs& args, const StridedLoop& loop, ScalarType dt) {
  auto [hi, lo] = finite_range(dt);
  const double nan = args.a ? args.a->toDouble() : 0.0;
  const double posinf = args.b ? args.b->toDouble() : hi;
  const double neginf = args.c ? args.c->toDouble() : lo;
  float_unary<NanToNumF>(loop, dt, "nan_to_num", nan, posinf, neginf);
}

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY
