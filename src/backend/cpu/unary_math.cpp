// Floating-point unary math kernels: the exp and log families, sqrt/rsqrt/reciprocal and
// erf/erfc/erfinv (EMBER_UNARY_MATH_OPS). Functors: Note [Unary functors].
#include "backend/cpu/unary_kernels.h"
#include "backend/cpu/unary_loops.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

EMBER_UNARY_MATH_OPS(EMBER_UNARY_KERNEL_DEF)

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY
