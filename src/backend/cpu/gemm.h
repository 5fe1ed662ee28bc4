#pragma once
// Note [GEMM providers]: one entry per dtype, row-major like dnnl_sgemm:
//   C[m x n] = alpha * op(A)[m x k] * op(B)[k x n] + beta * C
// op(X) is X (stored row-major with leading dimension ldx) or, when transx is true, X^T (X stored
// k x m / n x k). With beta == 0, C is never read (NaN/garbage in C does not propagate).
// Providers: float32 -> oneDNN's dnnl_sgemm (about twice OpenBLAS here, where OPENBLAS_CORETYPE
// pins OpenBLAS to AVX2), falling back to OpenBLAS; float64 -> OpenBLAS; bfloat16 on a CPU with
// AVX-512 BF16 -> oneDNN's bf16 matmul (C = A B only); float16/bfloat16 otherwise -> converted to
// float32, multiplied, rounded once; integers and bool -> a blocked loop in the type
// itself (wraparound, as PyTorch). Callers guarantee m, n, k >= 1 and valid leading dimensions
// (ld >= max(1, stored row length)); Matmul::eval_cpu handles empty shapes.
#include <cstdint>
#include <type_traits>

#include "ember/core/half.h"

namespace ember::cpu {

/// Integer GEMM arithmetic wraps around as in PyTorch: it runs in an unsigned type of at least 32
/// bits (signed overflow would be undefined behaviour) and is truncated on store.
template <typename T>
using WrapT = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

void gemm(bool transa, bool transb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
void gemm(bool transa, bool transb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
          int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc);
void gemm(bool transa, bool transb, int64_t m, int64_t n, int64_t k, float alpha, const Half* a,
          int64_t lda, const Half* b, int64_t ldb, float beta, Half* c, int64_t ldc);
void gemm(bool transa, bool transb, int64_t m, int64_t n, int64_t k, float alpha, const BFloat16* a,
          int64_t lda, const BFloat16* b, int64_t ldb, float beta, BFloat16* c, int64_t ldc);
#define EMBER_DECLARE_INT_GEMM(T)                                                           \
  void gemm(bool transa, bool transb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, \
            int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc);
EMBER_DECLARE_INT_GEMM(bool)
EMBER_DECLARE_INT_GEMM(uint8_t)
EMBER_DECLARE_INT_GEMM(int8_t)
EMBER_DECLARE_INT_GEMM(int16_t)
EMBER_DECLARE_INT_GEMM(int32_t)
EMBER_DECLARE_INT_GEMM(int64_t)
#undef EMBER_DECLARE_INT_GEMM

/// Which library multiplies float32 matrices (for benchmarks and tests; Auto is oneDNN with the
/// OpenBLAS fallback). Process-wide.
enum class SgemmProvider { Auto, OneDNN, OpenBLAS };
void set_sgemm_provider(SgemmProvider p);
SgemmProvider sgemm_provider();

}  // namespace ember::cpu
