// Native engines for small matrices (n <= kSmallMatrixMax): calling LAPACK once per matrix costs
// more than the arithmetic there. They work in double on column-major buffers (linalg_util.h).
// Note [Jacobi SVD orthogonality]: the one-sided Jacobi sweep stops on a relative criterion
// (|g_p·g_q| <= eps·|g_p|·|g_q|), so the normalised columns are orthogonal to working precision
// whatever their norms; columns that are exactly zero (rank-deficient input) are replaced by an
// orthonormal completion, so U and V stay orthonormal where PyTorch 2.14's Jacobi SVD did not.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "backend/cpu/linalg_util.h"

namespace ember::cpu::linalg {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr int kMaxSweeps = 60;

double dot(const double* x, const double* y, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}

// Rotates columns p and q of the rows×? column-major matrix a (leading dim rows):
// (a_p, a_q) <- (c a_p - s a_q, s a_p + c a_q).
void rotate_cols(double* a, int64_t rows, int64_t p, int64_t q, double c, double s) {
  double* ap = a + p * rows;
  double* aq = a + q * rows;
  for (int64_t i = 0; i < rows; ++i) {
    const double x = ap[i], y = aq[i];
    ap[i] = c * x - s * y;
    aq[i] = s * x + c * y;
  }
}

// Fills columns [first, cols) of the m×cols column-major u with unit vectors orthogonal to every
// other valid column (valid[j]), by Gram-Schmidt on the standard basis vector that keeps most.
void complete_orthonormal(double* u, int64_t m, int64_t cols, std::vector<bool>& valid) {
  std::vector<double> cand(m);
  for (int64_t j = 0; j < cols; ++j) {
    if (valid[j]) continue;
    double best = -1;
    std::vector<double> best_vec(m);
    for (int64_t e = 0; e < m; ++e) {
      std::fill(cand.begin(), cand.end(), 0.0);
      cand[e] = 1;
      for (int pass = 0; pass < 2; ++pass) {
        for (int64_t c = 0; c < cols; ++c) {
          if (!valid[c]) continue;
          const double d = dot(u + c * m, cand.data(), m);
          for (int64_t i = 0; i < m; ++i) cand[i] -= d * u[i + c * m];
        }
      }
      const double nrm = std::sqrt(dot(cand.data(), cand.data(), m));
      if (nrm > best) {
        best = nrm;
        best_vec = cand;
      }
    }
    for (int64_t i = 0; i < m; ++i) u[i + j * m] = best_vec[i] / best;
    valid[j] = true;
  }
}

// One-sided Jacobi SVD for m >= n: u is m×ucols (ucols = n or m), s n, v n×n.
void svd_tall(const double* a, int64_t m, int64_t n, int64_t ucols, double* u, double* s,
              double* v) {
  std::vector<double> g(a, a + m * n);
  std::fill(v, v + n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) v[i + i * n] = 1;
  std::vector<double> sq(n);  // squared column norms, updated by each rotation
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    bool rotated = false;
    for (int64_t j = 0; j < n; ++j) sq[j] = dot(&g[j * m], &g[j * m], m);
    for (int64_t p = 0; p + 1 < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        const double alpha = sq[p], beta = sq[q];
        const double gamma = dot(&g[p * m], &g[q * m], m);
        if (gamma == 0 || std::abs(gamma) <= kEps * std::sqrt(alpha) * std::sqrt(beta)) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = (zeta >= 0 ? 1.0 : -1.0) / (std::abs(zeta) + std::hypot(1.0, zeta));
        const double c = 1 / std::hypot(1.0, t), sn = c * t;
        rotate_cols(g.data(), m, p, q, c, sn);
        rotate_cols(v, n, p, q, c, sn);
        sq[p] = alpha - t * gamma;  // the rotation diagonalises [[alpha, gamma], [gamma, beta]]
        sq[q] = beta + t * gamma;
      }
    }
    if (!rotated) break;
  }
  // Sort by descending norm.
  std::vector<double> norms(n);
  for (int64_t j = 0; j < n; ++j) norms[j] = std::sqrt(dot(&g[j * m], &g[j * m], m));
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t x, int64_t y) { return norms[x] > norms[y]; });
  std::vector<double> vs(v, v + n * n);
  std::fill(u, u + m * ucols, 0.0);
  std::vector<bool> valid(ucols, false);
  for (int64_t j = 0; j < n; ++j) {
    const int64_t o = order[j];
    s[j] = norms[o];
    std::copy(&vs[o * n], &vs[o * n] + n, v + j * n);
    if (norms[o] > std::numeric_limits<double>::min()) {
      for (int64_t i = 0; i < m; ++i) u[i + j * m] = g[i + o * m] / norms[o];
      valid[j] = true;
    }
  }
  complete_orthonormal(u, m, ucols, valid);
}

}  // namespace

int64_t small_cholesky(double* a, int64_t n, int64_t lda, bool upper) {
  // Upper works on the transpose: U^T U = A, i.e. the lower factor of the mirrored storage.
  auto at = [&](int64_t i, int64_t j) -> double& {
    return upper ? a[j + i * lda] : a[i + j * lda];
  };
  for (int64_t j = 0; j < n; ++j) {
    double d = at(j, j);
    for (int64_t k = 0; k < j; ++k) d -= at(j, k) * at(j, k);
    if (!(d > 0)) return j + 1;  // also catches NaN
    d = std::sqrt(d);
    at(j, j) = d;
    for (int64_t i = j + 1; i < n; ++i) {
      double x = at(i, j);
      for (int64_t k = 0; k < j; ++k) x -= at(i, k) * at(j, k);
      at(i, j) = x / d;
    }
  }
  return 0;
}

void small_eigh(double* a, int64_t n, double* w, double* v) {
  std::fill(v, v + n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) v[i + i * n] = 1;
  const double norm = std::sqrt(dot(a, a, n * n));
  for (int sweep = 0; sweep < kMaxSweeps && norm > 0; ++sweep) {
    double off = 0;
    for (int64_t q = 0; q < n; ++q) {
      for (int64_t p = 0; p < q; ++p) off += a[p + q * n] * a[p + q * n];
    }
    if (std::sqrt(off) <= kEps * norm) break;
    for (int64_t p = 0; p + 1 < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        const double apq = a[p + q * n];
        if (apq == 0) continue;
        const double theta = (a[q + q * n] - a[p + p * n]) / (2 * apq);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::hypot(1.0, theta));
        const double c = 1 / std::hypot(1.0, t), s = c * t;
        rotate_cols(a, n, p, q, c, s);
        for (int64_t k = 0; k < n; ++k) {  // rows p and q
          const double x = a[p + k * n], y = a[q + k * n];
          a[p + k * n] = c * x - s * y;
          a[q + k * n] = s * x + c * y;
        }
        a[p + q * n] = a[q + p * n] = 0;
        rotate_cols(v, n, p, q, c, s);
      }
    }
  }
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t x, int64_t y) { return a[x + x * n] < a[y + y * n]; });
  std::vector<double> vs(v, v + n * n);
  for (int64_t j = 0; j < n; ++j) {
    w[j] = a[order[j] + order[j] * n];
    std::copy(&vs[order[j] * n], &vs[order[j] * n] + n, v + j * n);
  }
}

void small_svd(const double* a, int64_t m, int64_t n, bool full, double* u, double* s, double* v) {
  const int64_t k = std::min(m, n);
  if (m >= n) {
    svd_tall(a, m, n, full ? m : k, u, s, v);
    return;
  }
  // A^T = U' S V'^T, so A = V' S U'^T: U = V' (m×m) and V = U' (n×vcols).
  std::vector<double> at(n * m);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) at[j + i * n] = a[i + j * m];
  }
  svd_tall(at.data(), n, m, full ? n : k, v, s, u);
}

void small_qr(const double* a, int64_t m, int64_t n, double* q, int64_t qcols, double* r,
              int64_t rrows) {
  const int64_t k = std::min(m, n);
  std::vector<double> w(a, a + m * n), vs(m * k, 0.0), tau(k, 0.0);
  for (int64_t j = 0; j < k; ++j) {
    double* x = &w[j + j * m];
    const int64_t len = m - j;
    double tail = 0;
    for (int64_t i = 1; i < len; ++i) tail += x[i] * x[i];
    if (tail == 0) continue;  // H = I, as LAPACK's dlarfg (keeps the diagonal's sign)
    const double nrm = std::sqrt(x[0] * x[0] + tail);
    const double alpha = x[0] >= 0 ? -nrm : nrm;
    double* vj = &vs[j * m];
    vj[j] = x[0] - alpha;
    for (int64_t i = 1; i < len; ++i) vj[j + i] = x[i];
    const double vnorm2 = vj[j] * vj[j] + tail;
    tau[j] = 2 / vnorm2;
    for (int64_t c = j; c < n; ++c) {  // apply H to the trailing columns
      double* col = &w[c * m];
      double d = 0;
      for (int64_t i = j; i < m; ++i) d += vj[i] * col[i];
      d *= tau[j];
      for (int64_t i = j; i < m; ++i) col[i] -= d * vj[i];
    }
    for (int64_t i = j + 1; i < m; ++i) w[i + j * m] = 0;
    w[j + j * m] = alpha;
  }
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < rrows; ++i) r[i + j * rrows] = i <= j && i < m ? w[i + j * m] : 0.0;
  }
  if (q == nullptr) return;
  std::fill(q, q + m * qcols, 0.0);
  for (int64_t i = 0; i < std::min(m, qcols); ++i) q[i + i * m] = 1;
  for (int64_t j = k - 1; j >= 0; --j) {
    if (tau[j] == 0) continue;
    const double* vj = &vs[j * m];
    for (int64_t c = 0; c < qcols; ++c) {
      double* col = q + c * m;
      double d = 0;
      for (int64_t i = j; i < m; ++i) d += vj[i] * col[i];
      d *= tau[j];
      for (int64_t i = j; i < m; ++i) col[i] -= d * vj[i];
    }
  }
}

}  // namespace ember::cpu::linalg
