#pragma once
// Shared by the linear-algebra kernels: batch iteration over strided matrices, column-major work
// buffers (LAPACK's layout), the float/double LAPACK overloads and the engine switch.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <vector>

#include "backend/cpu/capability.h"
#include "ember/core/error.h"
#include "ember/core/tensor.h"

namespace ember::cpu::linalg {

/// Which engine runs a decomposition. Auto: native kernels up to a per-op size (below), LAPACK
/// otherwise. Tests force one or the other to compare them.
enum class Engine { Auto = 0, Lapack = 1, Native = 2 };
constexpr int64_t kSmallMatrixMax = 32;
/// Auto switch-over sizes, from bench/bench_linalg.cpp: the lane-batched native kernels still
/// beat LAPACK per matrix at 512 matrices of 32×32 for all four decompositions.
constexpr int64_t kNativeCholeskyMax = kSmallMatrixMax;
constexpr int64_t kNativeQrMax = kSmallMatrixMax;
constexpr int64_t kNativeSvdMax = kSmallMatrixMax;
constexpr int64_t kNativeEighMax = kSmallMatrixMax;
std::atomic<int>& engine_override();
/// Sweeps the native Jacobi SVD/eigh may take before raising LAPACK's non-convergence
/// LinAlgError (60; convergence is quadratic, so only tests lower it to reach that error).
std::atomic<int>& jacobi_max_sweeps();
/// Whether a matrix with largest dim `n` goes to the native engine (auto limit `auto_max`).
inline bool use_native(int64_t n, int64_t auto_max) {
  const auto e = static_cast<Engine>(engine_override().load(std::memory_order_relaxed));
  if (e == Engine::Native) return true;
  if (e == Engine::Lapack) return false;
  return n <= std::min(auto_max, kSmallMatrixMax);
}

/// Element offsets of the matrices of a [*batch, rows, cols] tensor (any strides).
struct MatIter {
  std::vector<int64_t> bsizes, bstrides;
  int64_t rows = 0, cols = 0, rs = 0, cs = 0, nbatch = 1;
  explicit MatIter(const Tensor& t) {
    const int64_t nd = t.dim();
    bsizes.assign(t.sizes().begin(), t.sizes().end() - 2);
    bstrides.assign(t.strides().begin(), t.strides().end() - 2);
    rows = t.sizes()[nd - 2];
    cols = t.sizes()[nd - 1];
    rs = t.strides()[nd - 2];
    cs = t.strides()[nd - 1];
    for (int64_t s : bsizes) nbatch *= s;
  }
  int64_t offset(int64_t b) const {
    int64_t off = 0;
    for (int64_t d = static_cast<int64_t>(bsizes.size()) - 1; d >= 0; --d) {
      off += (b % bsizes[d]) * bstrides[d];
      b /= bsizes[d];
    }
    return off;
  }
};

/// Copies matrix b of `it` (rows×cols, strided) into a column-major buffer with leading dim ld.
template <typename T>
void load_cm(const T* base, const MatIter& it, int64_t b, T* dst, int64_t ld) {
  const T* p = base + it.offset(b);
  for (int64_t j = 0; j < it.cols; ++j) {
    for (int64_t i = 0; i < it.rows; ++i) dst[i + j * ld] = p[i * it.rs + j * it.cs];
  }
}

/// Copies matrix b of `it` (rows×cols, strided) into a contiguous row-major buffer: what LAPACK,
/// reading it column-major, sees as the transpose.
template <typename T>
void load_rm(const T* base, const MatIter& it, int64_t b, T* dst) {
  const T* p = base + it.offset(b);
  for (int64_t i = 0; i < it.rows; ++i)
    for (int64_t j = 0; j < it.cols; ++j) dst[i * it.cols + j] = p[i * it.rs + j * it.cs];
}

/// Writes the rows×cols column-major block `src` (leading dim ld) to the contiguous row-major
/// matrix at dst.
template <typename T>
void store_cm(const T* src, int64_t ld, int64_t rows, int64_t cols, T* dst) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) dst[i * cols + j] = src[i + j * ld];
  }
}

template <typename T>
bool all_finite(const T* a, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(a[i])) return false;
  }
  return true;
}

/// Runs f.template operator()<T>() with T = float or double for the tensor's dtype.
template <typename F>
void visit_float(ScalarType dt, const char* op, F&& f) {
  if (dt == kFloat32) {
    f(static_cast<float*>(nullptr));
  } else if (dt == kFloat64) {
    f(static_cast<double*>(nullptr));
  } else {
    EMBER_THROW(TypeError, "[", op, "] expected float32 or float64, got ", dtype_name(dt));
  }
}

/// Grain for parallel_for over batches: about 64k flops per chunk.
inline int64_t batch_grain(int64_t m, int64_t n) {
  const int64_t k = std::max<int64_t>({m, n, 1});
  return std::max<int64_t>(1, 65536 / (m * n * k + 1));
}

/// "linalg.cholesky: (Batch element 3)" style prefix, as PyTorch's _linalg_check_errors.
std::string batch_str(int64_t nbatch_dims, int64_t b);

[[noreturn]] void throw_non_finite(const char* op, const MatIter& it, int64_t b);

// ---- native engines for many small matrices (linalg_small.cpp, Note [Lane-batched linalg]).
// Each factorises every matrix of `it` (any strides); outputs are contiguous row-major. Compiled
// once per CPU capability (Note [CPU capability]): call with the tag cpu::dispatch passes.
/// Cholesky factor (lower, or upper from the upper triangle) and potrf's info per matrix.
template <typename Tag, typename T>
void native_cholesky(Tag, const T* a, const MatIter& it, bool upper, T* out, int32_t* info);
/// Cyclic Jacobi on the lower (or upper) triangle: eigenvalues w ascending, eigenvectors v.
template <typename Tag, typename T>
void native_eigh(Tag, const T* a, const MatIter& it, bool upper, T* w, T* v);
/// One-sided Jacobi SVD (k = min(m, n) > 0): U m×(m or k), S k descending, Vh (n or k)×n, U and
/// V orthonormal even for rank-deficient input.
template <typename Tag, typename T>
void native_svd(Tag, const T* a, const MatIter& it, bool full, T* u, T* s, T* vh);
/// Householder QR: Q m×qcols (none when q == nullptr) and R rrows×n upper triangular.
template <typename Tag, typename T>
void native_qr(Tag, const T* a, const MatIter& it, T* q, int64_t qcols, T* r, int64_t rrows);

}  // namespace ember::cpu::linalg
