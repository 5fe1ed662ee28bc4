// CPU kernels of the linear-algebra primitives (src/primitives/linalg.h): each matrix of the
// batch is copied into a column-major work buffer, factorised by LAPACK (OpenBLAS's, through
// LAPACKE) or, for small matrices, by the native engines of linalg_small.cpp, and written back.
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "backend/cpu/linalg_util.h"
#include "backend/cpu/parallel.h"
#include "primitives/linalg.h"

namespace ember {
namespace cpu::linalg {

std::atomic<int>& engine_override() {
  static std::atomic<int> e{0};
  return e;
}

std::atomic<int>& jacobi_max_sweeps() {
  static std::atomic<int> n{60};
  return n;
}

std::string batch_str(int64_t nbatch_dims, int64_t b) {
  return nbatch_dims == 0 ? std::string() : detail::str_cat("(Batch element ", b, "): ");
}

void throw_non_finite(const char* op, const MatIter& it, int64_t b) {
  EMBER_THROW(LinAlgError, "[", op, "] ", batch_str(static_cast<int64_t>(it.bsizes.size()), b),
              "The algorithm failed to converge because the input matrix contained non-finite "
              "values.");
}

}  // namespace cpu::linalg

namespace {

using namespace cpu::linalg;
using LI = lapack_int;

LI ld(int64_t n) { return static_cast<LI>(std::max<int64_t>(1, n)); }
LI li(int64_t n) { return static_cast<LI>(n); }

// ---- float/double overloads of the LAPACK/BLAS routines used here.
LI potrf(char uplo, LI n, float* a) {
  return LAPACKE_spotrf_work(LAPACK_COL_MAJOR, uplo, n, a, std::max<LI>(1, n));
}
LI potrf(char uplo, LI n, double* a) {
  return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, uplo, n, a, std::max<LI>(1, n));
}
LI getrf(LI m, LI n, float* a, LI* p) {
  return LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, m, n, a, std::max<LI>(1, m), p);
}
LI getrf(LI m, LI n, double* a, LI* p) {
  return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, n, a, std::max<LI>(1, m), p);
}
LI getrs(char t, LI n, LI k, const float* a, const LI* p, float* b) {
  return LAPACKE_sgetrs_work(LAPACK_COL_MAJOR, t, n, k, a, std::max<LI>(1, n), p, b,
                             std::max<LI>(1, n));
}
LI getrs(char t, LI n, LI k, const double* a, const LI* p, double* b) {
  return LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, t, n, k, a, std::max<LI>(1, n), p, b,
                             std::max<LI>(1, n));
}
void trsm(bool upper, bool unit, LI n, LI k, const float* a, float* b) {
  cblas_strsm(CblasColMajor, CblasLeft, upper ? CblasUpper : CblasLower, CblasNoTrans,
              unit ? CblasUnit : CblasNonUnit, n, k, 1.0f, a, std::max<LI>(1, n), b,
              std::max<LI>(1, n));
}
void trsm(bool upper, bool unit, LI n, LI k, const double* a, double* b) {
  cblas_dtrsm(CblasColMajor, CblasLeft, upper ? CblasUpper : CblasLower, CblasNoTrans,
              unit ? CblasUnit : CblasNonUnit, n, k, 1.0, a, std::max<LI>(1, n), b,
              std::max<LI>(1, n));
}
LI syevd(char uplo, LI n, float* a, float* w) {
  return LAPACKE_ssyevd(LAPACK_COL_MAJOR, 'V', uplo, n, a, std::max<LI>(1, n), w);
}
LI syevd(char uplo, LI n, double* a, double* w) {
  return LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', uplo, n, a, std::max<LI>(1, n), w);
}
LI gesdd(char job, LI m, LI n, float* a, float* s, float* u, float* vt, LI ldvt) {
  return LAPACKE_sgesdd(LAPACK_COL_MAJOR, job, m, n, a, std::max<LI>(1, m), s, u,
                        std::max<LI>(1, m), vt, ldvt);
}
LI gesdd(char job, LI m, LI n, double* a, double* s, double* u, double* vt, LI ldvt) {
  return LAPACKE_dgesdd(LAPACK_COL_MAJOR, job, m, n, a, std::max<LI>(1, m), s, u,
                        std::max<LI>(1, m), vt, ldvt);
}
LI geqrf(LI m, LI n, float* a, float* tau) {
  return LAPACKE_sgeqrf(LAPACK_COL_MAJOR, m, n, a, std::max<LI>(1, m), tau);
}
LI geqrf(LI m, LI n, double* a, double* tau) {
  return LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, a, std::max<LI>(1, m), tau);
}
LI orgqr(LI m, LI n, LI k, float* a, const float* tau) {
  return LAPACKE_sorgqr(LAPACK_COL_MAJOR, m, n, k, a, std::max<LI>(1, m), tau);
}
LI orgqr(LI m, LI n, LI k, double* a, const double* tau) {
  return LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, n, k, a, std::max<LI>(1, m), tau);
}

template <typename F>
void for_batches(int64_t nbatch, int64_t grain, const F& f) {
  cpu::parallel_for(0, nbatch, grain, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) f(b);
  });
}

// Zeroes the strict upper (lower=true) or strict lower triangle of an n×n column-major matrix.
template <typename W>
void zero_triangle(W* a, int64_t n, bool keep_lower) {
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < n; ++i) {
      if (keep_lower ? i < j : i > j) a[i + j * n] = W(0);
    }
  }
}

template <typename T>
void set_identity(T* dst, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) dst[i * cols + j] = i == j ? T(1) : T(0);
  }
}

}  // namespace

void LinalgCholesky::eval_cpu(const std::vector<Tensor>& inputs,
                              std::vector<Tensor>& outputs) const {
  MatIter it(inputs[0]);
  const int64_t n = it.rows;
  int32_t* info = outputs[1].data_ptr<int32_t>();
  visit_float(inputs[0].dtype(), "linalg.cholesky", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* a = static_cast<const T*>(inputs[0].data_ptr());
    T* out = outputs[0].data_ptr<T>();
    if (use_native(n, kNativeCholeskyMax)) {
      cpu::dispatch([&](auto tag) { native_cholesky(tag, a, it, p_.upper, out, info); });
      return;
    }
    for_batches(it.nbatch, batch_grain(n, n), [&](int64_t b) {
      // Factor in place in the row-major output, which LAPACK reads as the transpose: the lower
      // factor of A is the transposed upper factor of A^T (and the other way round), so no
      // transposing copies are needed.
      T* dst = out + b * n * n;
      load_rm(a, it, b, dst);
      LI r = potrf(p_.upper ? 'L' : 'U', li(n), dst);
      // OpenBLAS's potrf lets NaN through: report the first non-finite pivot as LAPACK does.
      for (int64_t j = 0; r == 0 && j < n; ++j) {
        if (!std::isfinite(dst[j + j * n])) r = static_cast<LI>(j + 1);
      }
      info[b] = r;
      zero_triangle(dst, n, p_.upper);
    });
  });
}

void LinalgLuFactor::eval_cpu(const std::vector<Tensor>& inputs,
                              std::vector<Tensor>& outputs) const {
  MatIter it(inputs[0]);
  const int64_t m = it.rows, n = it.cols, k = std::min(m, n);
  int32_t* piv = outputs[1].data_ptr<int32_t>();
  int32_t* info = outputs[2].data_ptr<int32_t>();
  visit_float(inputs[0].dtype(), "linalg.lu_factor", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* a = static_cast<const T*>(inputs[0].data_ptr());
    T* out = outputs[0].data_ptr<T>();
    for_batches(it.nbatch, batch_grain(m, n), [&](int64_t b) {
      std::vector<T> w(m * n);
      std::vector<LI> p(k + 1);
      load_cm(a, it, b, w.data(), m);
      info[b] = (m == 0 || n == 0) ? 0 : getrf(li(m), li(n), w.data(), p.data());
      for (int64_t i = 0; i < k; ++i) piv[b * k + i] = static_cast<int32_t>(p[i]);
      store_cm(w.data(), m, m, n, out + b * m * n);
    });
  });
}

void LinalgLuSolve::eval_cpu(const std::vector<Tensor>& inputs,
                             std::vector<Tensor>& outputs) const {
  MatIter ia(inputs[0]), ib(inputs[2]);
  const int64_t n = ia.rows, k = ib.cols;
  const int32_t* piv = inputs[1].data_ptr<int32_t>();  // contiguous [*batch, n]
  visit_float(inputs[0].dtype(), "linalg.lu_solve", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* a = static_cast<const T*>(inputs[0].data_ptr());
    const T* bb = static_cast<const T*>(inputs[2].data_ptr());
    T* out = outputs[0].data_ptr<T>();
    for_batches(ia.nbatch, batch_grain(n, k), [&](int64_t b) {
      std::vector<T> wa(n * n), wb(n * k);
      std::vector<LI> p(n + 1);
      load_cm(a, ia, b, wa.data(), n);
      load_cm(bb, ib, b, wb.data(), n);
      for (int64_t i = 0; i < n; ++i) p[i] = std::clamp<LI>(piv[b * n + i], 1, li(n));
      if (n > 0 && k > 0) getrs(p_.trans ? 'T' : 'N', li(n), li(k), wa.data(), p.data(), wb.data());
      store_cm(wb.data(), n, n, k, out + b * n * k);
    });
  });
}

void LinalgSolve::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  MatIter ia(inputs[0]), ib(inputs[1]);
  const int64_t n = ia.rows, k = ib.cols;
  int32_t* info = outputs[1].data_ptr<int32_t>();
  visit_float(inputs[0].dtype(), "linalg.solve", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* a = static_cast<const T*>(inputs[0].data_ptr());
    const T* bb = static_cast<const T*>(inputs[1].data_ptr());
    T* out = outputs[0].data_ptr<T>();
    for_batches(ia.nbatch, batch_grain(n, std::max(n, k)), [&](int64_t b) {
      std::vector<T> wa(n * n), wb(n * k);
      std::vector<LI> p(n + 1);
      // A row-major copy of A is A^T to LAPACK: factor that (as PyTorch does for row-major
      // input) and solve with its transpose, saving a transposing copy of A.
      load_rm(a, ia, b, wa.data());
      load_cm(bb, ib, b, wb.data(), n);
      info[b] = n == 0 ? 0 : getrf(li(n), li(n), wa.data(), p.data());
      if (info[b] == 0 && n > 0 && k > 0) getrs('T', li(n), li(k), wa.data(), p.data(), wb.data());
      store_cm(wb.data(), n, n, k, out + b * n * k);
    });
  });
}

void LinalgSolveTriangular::eval_cpu(const std::vector<Tensor>& inputs,
                                     std::vector<Tensor>& outputs) const {
  MatIter ia(inputs[0]), ib(inputs[1]);
  const int64_t n = ia.rows, k = ib.cols;
  visit_float(inputs[0].dtype(), "linalg.solve_triangular", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* a = static_cast<const T*>(inputs[0].data_ptr());
    const T* bb = static_cast<const T*>(inputs[1].data_ptr());
    T* out = outputs[0].data_ptr<T>();
    for_batches(ia.nbatch, batch_grain(n, std::max(n, k)), [&](int64_t b) {
      std::vector<T> wa(n * n), wb(n * k);
      load_cm(a, ia, b, wa.data(), n);
      load_cm(bb, ib, b, wb.data(), n);
      if (n > 0 && k > 0) trsm(p_.upper, p_.unitriangular, li(n), li(k), wa.data(), wb.data());
      store_cm(wb.data(), n, n, k, out + b * n * k);
    });
  });
}

void LinalgEigh::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  MatIter it(inputs[0]);
  const int64_t n = it.rows;
  visit_float(inputs[0].dtype(), "linalg.eigh", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* a = static_cast<const T*>(inputs[0].data_ptr());
    T* wout = outputs[0].data_ptr<T>();
    T* vout = outputs[1].data_ptr<T>();
    if (use_native(n, kNativeEighMax)) {
      cpu::dispatch([&](auto tag) { native_eigh(tag, a, it, p_.upper, wout, vout); });
      return;
    }
    for_batches(it.nbatch, batch_grain(n, 4 * n), [&](int64_t b) {
      // The row-major copy is A^T to LAPACK: its lower (upper) triangle is A's upper (lower).
      std::vector<T> w(n * n), ev(n);
      load_rm(a, it, b, w.data());
      for (int64_t i = 0; i < n; ++i) {  // only the named triangle is read
        const T* row = w.data() + i * n;
        if (!(p_.upper ? all_finite(row + i, n - i) : all_finite(row, i + 1))) {
          throw_non_finite("linalg.eigh", it, b);
        }
      }
      if (n > 0) {
        const LI info = syevd(p_.upper ? 'L' : 'U', li(n), w.data(), ev.data());
        EMBER_CHECK_T(LinAlgError, info == 0, "[linalg.eigh] ",
                      batch_str(static_cast<int64_t>(it.bsizes.size()), b),
                      "The algorithm failed to converge because the input matrix is "
                      "ill-conditioned or has too many repeated eigenvalues (error code: ",
                      info, ").");
      }
      std::copy(ev.begin(), ev.end(), wout + b * n);
      store_cm(w.data(), n, n, n, vout + b * n * n);
    });
  });
}

void LinalgSvd::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  MatIter it(inputs[0]);
  const int64_t m = it.rows, n = it.cols, k = std::min(m, n);
  const int64_t ucols = p_.full_matrices ? m : k, vrows = p_.full_matrices ? n : k;
  visit_float(inputs[0].dtype(), "linalg.svd", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* a = static_cast<const T*>(inputs[0].data_ptr());
    T* uo = outputs[0].data_ptr<T>();
    T* so = outputs[1].data_ptr<T>();
    T* vo = outputs[2].data_ptr<T>();
    if (k > 0 && use_native(std::max(m, n), kNativeSvdMax)) {
      cpu::dispatch([&](auto tag) { native_svd(tag, a, it, p_.full_matrices, uo, so, vo); });
      return;
    }
    for_batches(it.nbatch, batch_grain(m, 4 * n), [&](int64_t b) {
      T* ud = uo + b * m * ucols;
      T* sd = so + b * k;
      T* vd = vo + b * vrows * n;
      if (k == 0) {
        set_identity(ud, m, ucols);
        set_identity(vd, vrows, n);
        return;
      }
      // The row-major copy is A^T = U' S V'^T to LAPACK, so A = V' S U'^T: LAPACK's column-major
      // V'^T is U row-major and its U' is Vh row-major, written in place.
      std::vector<T> w(m * n);
      load_rm(a, it, b, w.data());
      if (!all_finite(w.data(), m * n)) throw_non_finite("linalg.svd", it, b);
      const LI info =
          gesdd(p_.full_matrices ? 'A' : 'S', li(n), li(m), w.data(), sd, vd, ud, ld(ucols));
      EMBER_CHECK_T(LinAlgError, info == 0, "[linalg.svd] ",
                    batch_str(static_cast<int64_t>(it.bsizes.size()), b),
                    "The algorithm failed to converge because the input matrix is "
                    "ill-conditioned or has too many repeated singular values (error code: ",
                    info, ").");
    });
  });
}

void LinalgQr::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  MatIter it(inputs[0]);
  const int64_t m = it.rows, n = it.cols, k = std::min(m, n);
  const bool want_q = p_.mode != QrMode::R;
  const int64_t qcols = p_.mode == QrMode::Complete ? m : k;
  const int64_t rrows = p_.mode == QrMode::Complete ? m : k;
  visit_float(inputs[0].dtype(), "linalg.qr", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* a = static_cast<const T*>(inputs[0].data_ptr());
    T* qo = want_q ? outputs[0].data_ptr<T>() : nullptr;
    T* ro = outputs[1].data_ptr<T>();
    if (use_native(std::max(m, n), kNativeQrMax)) {
      cpu::dispatch([&](auto tag) { native_qr(tag, a, it, qo, qcols, ro, rrows); });
      return;
    }
    for_batches(it.nbatch, batch_grain(m, 2 * n), [&](int64_t b) {
      T* rd = ro + b * rrows * n;
      T* qd = want_q ? qo + b * m * qcols : nullptr;
      std::vector<T> w(m * n);
      load_cm(a, it, b, w.data(), m);
      std::vector<T> tau(k + 1);
      if (k > 0) geqrf(li(m), li(n), w.data(), tau.data());
      for (int64_t i = 0; i < rrows; ++i) {
        for (int64_t j = 0; j < n; ++j) rd[i * n + j] = i <= j && i < m ? w[i + j * m] : T(0);
      }
      if (!want_q) return;
      std::vector<T> q(m * qcols, T(0));
      for (int64_t j = 0; j < std::min(n, qcols); ++j) {
        std::copy(w.begin() + j * m, w.begin() + (j + 1) * m, q.begin() + j * m);
      }
      if (m > 0 && qcols > 0) orgqr(li(m), li(qcols), li(k), q.data(), tau.data());
      store_cm(q.data(), m, m, qcols, qd);
    });
  });
}

void LinalgHouseholderProduct::eval_cpu(const std::vector<Tensor>& inputs,
                                        std::vector<Tensor>& outputs) const {
  MatIter it(inputs[0]);
  const int64_t m = it.rows, n = it.cols, k = inputs[1].sizes().back();
  visit_float(inputs[0].dtype(), "linalg.householder_product", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* a = static_cast<const T*>(inputs[0].data_ptr());
    const T* tau = inputs[1].data_ptr<T>();  // contiguous [*batch, k]
    T* out = outputs[0].data_ptr<T>();
    for_batches(it.nbatch, batch_grain(m, 2 * n), [&](int64_t b) {
      std::vector<T> w(m * n);
      load_cm(a, it, b, w.data(), m);
      if (m > 0 && n > 0) orgqr(li(m), li(n), li(k), w.data(), tau + b * k);
      store_cm(w.data(), m, m, n, out + b * m * n);
    });
  });
}

void LinalgDet::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  MatIter it(inputs[0]);
  const int64_t n = it.rows;
  visit_float(inputs[0].dtype(), p_.log_abs ? "linalg.slogdet" : "linalg.det", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* a = static_cast<const T*>(inputs[0].data_ptr());
    T* o0 = outputs[0].data_ptr<T>();
    T* o1 = p_.log_abs ? outputs[1].data_ptr<T>() : nullptr;
    for_batches(it.nbatch, batch_grain(n, n), [&](int64_t b) {
      std::vector<T> w(n * n);
      std::vector<LI> p(n + 1);
      load_cm(a, it, b, w.data(), n);
      if (n > 0) getrf(li(n), li(n), w.data(), p.data());
      T sign = 1, logabs = 0, det = 1;
      for (int64_t i = 0; i < n; ++i) {
        const T d = w[i + i * n];
        if (p[i] != i + 1) sign = -sign;
        if (d < 0) sign = -sign;
        logabs += std::log(std::abs(d));
        det *= d;
        if (std::isnan(d)) sign = d;
      }
      if (p_.log_abs) {
        if (logabs == -std::numeric_limits<T>::infinity()) sign = 0;
        o0[b] = sign;
        o1[b] = logabs;
      } else {
        int swaps = 0;
        for (int64_t i = 0; i < n; ++i) swaps += p[i] != i + 1;
        o0[b] = swaps % 2 ? -det : det;
      }
    });
  });
}

}  // namespace ember
