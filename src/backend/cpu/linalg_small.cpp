// Native engines for many small matrices: calling LAPACK once per matrix costs more than the
// arithmetic there.
//
// Note [Lane-batched linalg]: each kernel factorises a group of Vec<T>::size matrices at once, one
// per SIMD lane. A group is held as a LaneMat: element (i, j) of every matrix of the group in one
// Vec, column-major (column j is rows consecutive Vecs). Every step of the algorithm is lane-wise;
// where the matrices of a group need different steps (a Jacobi pair that one matrix has already
// converged on, a Householder reflector that is the identity, a failed Cholesky pivot) the step's
// coefficients are selected per lane so that it leaves that matrix unchanged. The last group of a
// batch is padded with identity matrices. The arithmetic is in T (float for float32, as LAPACK's
// s-routines); SVD, eigh and QR scale each matrix by a power of two first (exactly) so that sums
// of squares neither overflow nor underflow.
//
// Note [Jacobi SVD orthogonality]: the one-sided Jacobi sweep rotates a pair of columns while
// |g_p·g_q| > tol·|g_p|·|g_q|, a relative criterion, so the normalised columns are orthogonal to
// working precision whatever their norms; columns that are zero to working precision (their
// squared norm underflows: rank-deficient input) are not rotated and are replaced by an
// orthonormal completion, so U and V stay orthonormal where PyTorch 2.14's Jacobi SVD did not.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <span>
#include <type_traits>
#include <vector>

#include "backend/cpu/linalg_util.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/vec.h"

namespace ember::cpu::linalg {

namespace {

template <typename T>
using V = Vec<T>;
template <typename T>
constexpr int kLanes = Vec<T>::size;

/// The matrices of one group, lane-interleaved column-major (Note [Lane-batched linalg]).
template <typename T>
struct LaneMat {
  int64_t rows, cols;
  std::unique_ptr<T[]> buf;  // uninitialised: pack or set_identity fills it
  LaneMat(int64_t r, int64_t c)
      : rows(r), cols(c), buf(std::make_unique_for_overwrite<T[]>(r * c * kLanes<T>)) {}
  std::span<T> data() const { return {buf.get(), static_cast<size_t>(rows * cols * kLanes<T>)}; }
  T* ptr(int64_t i, int64_t j) const { return buf.get() + (i + j * rows) * kLanes<T>; }
  V<T> get(int64_t i, int64_t j) const { return V<T>::load(ptr(i, j)); }
  void set(int64_t i, int64_t j, const V<T>& x) { x.store(ptr(i, j)); }
  T& lane(int64_t i, int64_t j, int l) { return ptr(i, j)[l]; }
  void set_identity() {
    std::ranges::fill(data(), T(0));
    for (int64_t i = 0; i < std::min(rows, cols); ++i) set(i, i, V<T>(T(1)));
  }
};

template <typename T>
std::array<T, kLanes<T>> lanes(const V<T>& x) {
  std::array<T, kLanes<T>> t;
  x.store(t.data());
  return t;
}

template <typename T>
bool any_lane(const V<T>& x) {  // any lane nonzero
  const auto t = lanes(x);
  return std::any_of(t.begin(), t.end(), [](T v) { return v != T(0); });
}

/// Lane-wise mask ? x : y, with mask lanes 1 (true) or 0.
template <typename T>
V<T> select(const V<T>& mask, const V<T>& x, const V<T>& y) {
  return vselect_gt(mask, V<T>(T(0)), x, y);
}

/// out[t][l] = in[l][t] for t, l < kLanes: a square block transpose between W rows of W
/// contiguous elements (single shuffles with AVX2; AVX-512's 16 lanes take the plain loop).
template <typename T>
void block_transpose(const std::array<const T*, kLanes<T>>& in,
                     const std::array<T*, kLanes<T>>& out) {
  for (int t = 0; t < kLanes<T>; ++t)
    for (int l = 0; l < kLanes<T>; ++l) out[t][l] = in[l][t];
}
#if defined(EMBER_VEC_AVX2)
template <>
void block_transpose(const std::array<const float*, 8>& in, const std::array<float*, 8>& out) {
  __m256 r[8], u[8];
  for (int l = 0; l < 8; ++l) r[l] = _mm256_loadu_ps(in[l]);
  for (int l = 0; l < 8; l += 2) {
    u[l] = _mm256_unpacklo_ps(r[l], r[l + 1]);
    u[l + 1] = _mm256_unpackhi_ps(r[l], r[l + 1]);
  }
  for (int l = 0; l < 8; l += 4) {
    r[l] = _mm256_shuffle_ps(u[l], u[l + 2], 0x44);
    r[l + 1] = _mm256_shuffle_ps(u[l], u[l + 2], 0xEE);
    r[l + 2] = _mm256_shuffle_ps(u[l + 1], u[l + 3], 0x44);
    r[l + 3] = _mm256_shuffle_ps(u[l + 1], u[l + 3], 0xEE);
  }
  for (int t = 0; t < 4; ++t) {
    _mm256_storeu_ps(out[t], _mm256_permute2f128_ps(r[t], r[t + 4], 0x20));
    _mm256_storeu_ps(out[t + 4], _mm256_permute2f128_ps(r[t], r[t + 4], 0x31));
  }
}
template <>
void block_transpose(const std::array<const double*, 4>& in, const std::array<double*, 4>& out) {
  __m256d r[4], u[4];
  for (int l = 0; l < 4; ++l) r[l] = _mm256_loadu_pd(in[l]);
  u[0] = _mm256_unpacklo_pd(r[0], r[1]);
  u[1] = _mm256_unpackhi_pd(r[0], r[1]);
  u[2] = _mm256_unpacklo_pd(r[2], r[3]);
  u[3] = _mm256_unpackhi_pd(r[2], r[3]);
  _mm256_storeu_pd(out[0], _mm256_permute2f128_pd(u[0], u[2], 0x20));
  _mm256_storeu_pd(out[1], _mm256_permute2f128_pd(u[1], u[3], 0x20));
  _mm256_storeu_pd(out[2], _mm256_permute2f128_pd(u[0], u[2], 0x31));
  _mm256_storeu_pd(out[3], _mm256_permute2f128_pd(u[1], u[3], 0x31));
}
#endif

/// Moves the first cnt lanes of m to (or, for const P, from) outside memory where element (i, j)
/// of lane l is ext[l][i * rs + j * cs]. A full group whose rows (or columns) are contiguous runs
/// of a multiple of W goes by block transposes.
template <typename T, typename P>
void transfer(LaneMat<T>& m, const std::array<P, kLanes<T>>& ext, int cnt, int64_t rs, int64_t cs) {
  constexpr int W = kLanes<T>;
  constexpr bool load = std::is_const_v<std::remove_pointer_t<P>>;
  const bool by_rows = cs == 1 && m.cols % W == 0, by_cols = rs == 1 && m.rows % W == 0;
  if (cnt == W && (by_rows || by_cols)) {
    std::array<const T*, W> in;
    std::array<T*, W> out;
    for (int64_t i = 0; i < m.rows; i += by_rows ? 1 : W) {
      for (int64_t j = 0; j < m.cols; j += by_rows ? W : 1) {
        for (int t = 0; t < W; ++t) {
          T* lane = by_rows ? m.ptr(i, j + t) : m.ptr(i + t, j);
          P outside = ext[t] + i * rs + j * cs;
          in[t] = load ? outside : lane;
          if constexpr (load) {
            out[t] = lane;
          } else {
            out[t] = outside;
          }
        }
        block_transpose(in, out);
      }
    }
    return;
  }
  for (int l = 0; l < cnt; ++l) {
    for (int64_t i = 0; i < m.rows; ++i) {
      for (int64_t j = 0; j < m.cols; ++j) {
        if constexpr (load) {
          m.ptr(i, j)[l] = ext[l][i * rs + j * cs];
        } else {
          ext[l][i * rs + j * cs] = m.ptr(i, j)[l];
        }
      }
    }
  }
}

/// Loads matrices b0 .. b0+cnt-1 of `it` into the lanes of m (the transposes when `transpose`);
/// lanes past cnt hold the identity.
template <typename T>
void pack(const T* a, const MatIter& it, int64_t b0, int cnt, bool transpose, LaneMat<T>& m) {
  if (cnt < kLanes<T>) m.set_identity();
  std::array<const T*, kLanes<T>> src{};
  for (int l = 0; l < cnt; ++l) src[l] = a + it.offset(b0 + l);
  transfer(m, src, cnt, transpose ? it.cs : it.rs, transpose ? it.rs : it.cs);
}

/// Writes the first cnt lanes of m as contiguous row-major matrices (transposed when `transpose`)
/// at out, out + rows*cols, ...
template <typename T>
void unpack(LaneMat<T>& m, int cnt, bool transpose, T* out) {
  std::array<T*, kLanes<T>> dst{};
  for (int l = 0; l < cnt; ++l) dst[l] = out + l * m.rows * m.cols;
  transfer(m, dst, cnt, transpose ? 1 : m.cols, transpose ? m.rows : 1);
}

/// Scales each lane's matrix by a power of two that brings its largest magnitude into [0.5, 1)
/// (exact); returns the factor that undoes it.
template <typename T>
V<T> normalise(LaneMat<T>& m) {
  const std::span<T> d = m.data();
  V<T> mx(T(0));
  for (size_t e = 0; e < d.size(); e += kLanes<T>) mx = vmax(mx, vabs(V<T>::load(&d[e])));
  auto f = lanes(mx), undo = f;
  for (int l = 0; l < kLanes<T>; ++l) {
    int e = 0;
    if (f[l] > 0) std::frexp(f[l], &e);
    f[l] = std::ldexp(T(1), -e);
    undo[l] = std::ldexp(T(1), e);
  }
  const V<T> scale = V<T>::load(f.data());
  for (size_t e = 0; e < d.size(); e += kLanes<T>) (V<T>::load(&d[e]) * scale).store(&d[e]);
  return V<T>::load(undo.data());
}

/// Throws as the LAPACK path does if a lane (< cnt) of m holds a non-finite value.
template <typename T>
void check_finite(const LaneMat<T>& m, int cnt, const char* op, const MatIter& it, int64_t b0) {
  const std::span<T> d = m.data();
  for (int l = 0; l < cnt; ++l) {
    for (size_t e = static_cast<size_t>(l); e < d.size(); e += kLanes<T>) {
      if (!std::isfinite(d[e])) throw_non_finite(op, it, b0 + l);
    }
  }
}

/// Raises LAPACK's non-convergence error for the first lane (< cnt) whose count of rotations in
/// the last allowed sweep is nonzero (the count is the error code).
template <typename T>
void check_converged(const V<T>& last_sweep_rotations, int cnt, const char* op, const char* what,
                     const MatIter& it, int64_t b0) {
  const auto r = lanes(last_sweep_rotations);
  for (int l = 0; l < cnt; ++l) {
    EMBER_CHECK_T(LinAlgError, r[l] == 0, "[", op, "] ",
                  batch_str(static_cast<int64_t>(it.bsizes.size()), b0 + l),
                  "The algorithm failed to converge because the input matrix is ill-conditioned or "
                  "has too many repeated ",
                  what, " (error code: ", static_cast<int64_t>(r[l]), ").");
  }
}

/// The Jacobi rotation (c, s) that annihilates the off-diagonal element of the symmetric 2×2
/// [[a, g], [g, b]], lane-wise; where `mask` is 0 the identity (c = 1, s = 0). Returns t = s/c.
template <typename T>
V<T> jacobi_rotation(const V<T>& a, const V<T>& b, const V<T>& g, const V<T>& mask, V<T>& c,
                     V<T>& s) {
  const V<T> zero(T(0)), one(T(1));
  const V<T> zeta = (b - a) / (V<T>(T(2)) * g);
  const V<T> az = vabs(zeta);
  // t = sign(zeta) / (|zeta| + sqrt(1 + zeta^2)); for huge |zeta|, 1 / (2 zeta) (no overflow).
  V<T> t = one / (az + vsqrt(one + az * az));
  t = vselect_gt(az, V<T>(T(1) / std::sqrt(std::numeric_limits<T>::epsilon())),
                 one / (V<T>(T(2)) * az), t);
  t = select(mask, vselect_lt(zeta, zero, vneg(t), t), zero);
  c = one / vsqrt(one + t * t);
  s = c * t;
  return t;
}

/// (x_p, x_q) <- (c x_p - s x_q, s x_p + c x_q) for n Vecs at stride `step` (in Vecs).
template <typename T>
void rotate(T* xp, T* xq, int64_t n, int64_t step, const V<T>& c, const V<T>& s) {
  for (int64_t i = 0; i < n; ++i) {
    T* pp = xp + i * step * kLanes<T>;
    T* pq = xq + i * step * kLanes<T>;
    const V<T> x = V<T>::load(pp), y = V<T>::load(pq);
    (c * x - s * y).store(pp);
    (s * x + c * y).store(pq);
  }
}

/// Lane-wise dot product of column p of x and column q of y over rows [from, rows).
template <typename T>
V<T> dot_cols2(const LaneMat<T>& x, int64_t p, const LaneMat<T>& y, int64_t q, int64_t from = 0) {
  V<T> acc(T(0));
  for (int64_t i = from; i < x.rows; ++i) acc = acc + x.get(i, p) * y.get(i, q);
  return acc;
}
template <typename T>
V<T> dot_cols(const LaneMat<T>& m, int64_t p, int64_t q, int64_t from = 0) {
  return dot_cols2(m, p, m, q, from);
}

// Fills columns of the m×cols column-major u that are not `valid` with unit vectors orthogonal to
// every valid column, by Gram-Schmidt (twice) on the standard basis vector that keeps most.
template <typename T>
void complete_orthonormal(T* u, int64_t m, int64_t cols, std::vector<bool>& valid) {
  std::vector<double> cand(m), best_vec(m);
  for (int64_t j = 0; j < cols; ++j) {
    if (valid[j]) continue;
    double best = -1;
    for (int64_t e = 0; e < m; ++e) {
      std::fill(cand.begin(), cand.end(), 0.0);
      cand[e] = 1;
      for (int pass = 0; pass < 2; ++pass) {
        for (int64_t c = 0; c < cols; ++c) {
          if (!valid[c]) continue;
          double d = 0;
          for (int64_t i = 0; i < m; ++i) d += u[i + c * m] * cand[i];
          for (int64_t i = 0; i < m; ++i) cand[i] -= d * u[i + c * m];
        }
      }
      double nrm = 0;
      for (int64_t i = 0; i < m; ++i) nrm += cand[i] * cand[i];
      if (nrm > best) {
        best = nrm;
        best_vec = cand;
      }
    }
    for (int64_t i = 0; i < m; ++i) u[i + j * m] = static_cast<T>(best_vec[i] / std::sqrt(best));
    valid[j] = true;
  }
}

/// Runs f(b0, cnt) over the groups of a batch, in parallel.
template <typename T, typename F>
void for_groups(int64_t nbatch, int64_t work_per_matrix, const F& f) {
  const int64_t ngroups = (nbatch + kLanes<T> - 1) / kLanes<T>;
  const int64_t grain = std::max<int64_t>(1, 65536 / (work_per_matrix * kLanes<T> + 1));
  parallel_for(0, ngroups, grain, [&](int64_t g0, int64_t g1) {
    for (int64_t g = g0; g < g1; ++g) {
      const int64_t b0 = g * kLanes<T>;
      f(b0, static_cast<int>(std::min<int64_t>(kLanes<T>, nbatch - b0)));
    }
  });
}

}  // namespace

template <typename Tag, typename T>
void native_cholesky(Tag, const T* a, const MatIter& it, bool upper, T* out, int32_t* info) {
  const int64_t n = it.rows;
  for_groups<T>(it.nbatch, n * n * n, [&](int64_t b0, int cnt) {
    // Upper: U^T is the lower factor of the transpose, so work on the transposes.
    LaneMat<T> m(n, n);
    pack(a, it, b0, cnt, upper, m);
    const V<T> zero(T(0)), one(T(1));
    V<T> failed(T(0));  // per lane, the order of the first non-positive leading minor
    for (int64_t j = 0; j < n; ++j) {
      V<T> d = m.get(j, j);
      for (int64_t k = 0; k < j; ++k) d = d - m.get(j, k) * m.get(j, k);
      // A lane that fails (d <= 0 or NaN) records j + 1 and goes on with pivot 1.
      failed = vselect_gt(failed, zero, failed, vselect_gt(d, zero, zero, V<T>(T(j + 1))));
      d = vsqrt(vselect_gt(d, zero, d, one));
      m.set(j, j, d);
      const V<T> inv = one / d;
      for (int64_t i = j + 1; i < n; ++i) {
        V<T> x = m.get(i, j);
        for (int64_t k = 0; k < j; ++k) x = x - m.get(i, k) * m.get(j, k);
        m.set(i, j, x * inv);
      }
      for (int64_t i = 0; i < j; ++i) m.set(i, j, zero);
    }
    unpack(m, cnt, upper, out + b0 * n * n);
    const auto f = lanes(failed);
    for (int l = 0; l < cnt; ++l) info[b0 + l] = static_cast<int32_t>(f[l]);
  });
}

template <typename Tag, typename T>
void native_eigh(Tag, const T* a, const MatIter& it, bool upper, T* w, T* vout) {
  const int64_t n = it.rows;
  const T eps = std::numeric_limits<T>::epsilon();
  for_groups<T>(it.nbatch, 8 * n * n * n, [&](int64_t b0, int cnt) {
    LaneMat<T> m(n, n), v(n, n);
    pack(a, it, b0, cnt, false, m);
    // Only the named triangle is read: mirror it.
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = j + 1; i < n; ++i) {
        if (upper) {
          m.set(i, j, m.get(j, i));
        } else {
          m.set(j, i, m.get(i, j));
        }
      }
    }
    check_finite(m, cnt, "linalg.eigh", it, b0);
    const V<T> undo = normalise(m);
    v.set_identity();
    V<T> norm2(T(0));
    for (size_t e = 0; e < m.data().size(); e += kLanes<T>) {
      const V<T> x = V<T>::load(&m.data()[e]);
      norm2 = norm2 + x * x;
    }
    const V<T> tol2 = norm2 * V<T>(eps * eps), zero(T(0)), one(T(1));
    const int max_sweeps = jacobi_max_sweeps().load(std::memory_order_relaxed);
    for (int sweep = 0;; ++sweep) {
      V<T> off(T(0));
      for (int64_t q = 0; q < n; ++q)
        for (int64_t p = 0; p < q; ++p) off = off + m.get(p, q) * m.get(p, q);
      const V<T> active = vselect_gt(off, tol2, one, zero);
      if (!any_lane(active)) break;
      if (sweep == max_sweeps) {  // the pairs still to rotate are the error code
        V<T> left(T(0));
        for (int64_t q = 0; q < n; ++q)
          for (int64_t p = 0; p < q; ++p)
            left = left + vselect_gt(vabs(m.get(p, q)) * active, zero, one, zero);
        check_converged(left, cnt, "linalg.eigh", "eigenvalues", it, b0);
        break;  // only padding lanes were left
      }
      for (int64_t p = 0; p + 1 < n; ++p) {
        for (int64_t q = p + 1; q < n; ++q) {
          const V<T> apq = m.get(p, q);
          const V<T> mask = vselect_gt(vabs(apq) * active, zero, one, zero);
          if (!any_lane(mask)) continue;
          V<T> c, s;
          jacobi_rotation(m.get(p, p), m.get(q, q), apq, mask, c, s);
          rotate(m.ptr(0, p), m.ptr(0, q), n, 1, c, s);  // columns p, q
          rotate(m.ptr(p, 0), m.ptr(q, 0), n, n, c, s);  // rows p, q
          m.set(p, q, select(mask, zero, m.get(p, q)));
          m.set(q, p, select(mask, zero, m.get(q, p)));
          rotate(v.ptr(0, p), v.ptr(0, q), n, 1, c, s);
        }
      }
    }
    // Eigenvalues ascending, eigenvector columns in the same order.
    std::vector<int64_t> order(n);
    const auto f = lanes(undo);
    for (int l = 0; l < cnt; ++l) {
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t x, int64_t y) { return m.lane(x, x, l) < m.lane(y, y, l); });
      T* wd = w + (b0 + l) * n;
      T* vd = vout + (b0 + l) * n * n;
      for (int64_t j = 0; j < n; ++j) {
        wd[j] = m.lane(order[j], order[j], l) * f[l];
        for (int64_t i = 0; i < n; ++i) vd[i * n + j] = v.lane(i, order[j], l);
      }
    }
  });
}

template <typename Tag, typename T>
void native_svd(Tag, const T* a, const MatIter& it, bool full, T* uo, T* so, T* vho) {
  // One-sided Jacobi on the tall M×N matrix G (A, or A^T when A is wide): rotations from the
  // right orthogonalise G's columns, G V = U S, accumulated in V.
  const int64_t m = it.rows, n = it.cols, big = std::max(m, n), k = std::min(m, n);
  const bool wide = m < n;
  const int64_t gcols = full ? big : k;  // columns of G's left factor
  const T tol = std::sqrt(static_cast<T>(big)) * std::numeric_limits<T>::epsilon();
  for_groups<T>(it.nbatch, 8 * big * k * k, [&](int64_t b0, int cnt) {
    LaneMat<T> g(big, k), v(k, k);
    pack(a, it, b0, cnt, wide, g);
    check_finite(g, cnt, "linalg.svd", it, b0);
    const auto undo = lanes(normalise(g));
    v.set_identity();
    const V<T> zero(T(0)), one(T(1));
    std::vector<V<T>> sq(k);  // squared column norms, updated by each rotation
    const V<T> tiny(std::numeric_limits<T>::min());
    const int max_sweeps = jacobi_max_sweeps().load(std::memory_order_relaxed);
    for (int sweep = 0;; ++sweep) {
      for (int64_t j = 0; j < k; ++j) sq[j] = dot_cols(g, j, j);
      bool rotated = false;
      V<T> rotations(T(0));
      for (int64_t p = 0; p + 1 < k; ++p) {
        for (int64_t q = p + 1; q < k; ++q) {
          const V<T> alpha = sq[p], beta = sq[q], gamma = dot_cols(g, p, q);
          // A column whose squared norm underflows is zero to working precision: it is not
          // rotated (that would not converge), and U takes a completion vector for it.
          const V<T> mask = vselect_lt(
              vmin(alpha, beta), tiny, zero,
              vselect_gt(vabs(gamma), V<T>(tol) * vsqrt(alpha) * vsqrt(beta), one, zero));
          if (!any_lane(mask)) continue;
          if (sweep == max_sweeps) {  // count what is left, as the error code
            rotations = rotations + mask;
            continue;
          }
          rotated = true;
          V<T> c, s;
          const V<T> t = jacobi_rotation(alpha, beta, gamma, mask, c, s);
          rotate(g.ptr(0, p), g.ptr(0, q), big, 1, c, s);
          rotate(v.ptr(0, p), v.ptr(0, q), k, 1, c, s);
          sq[p] = alpha - t * gamma;  // the rotation diagonalises [[alpha, gamma], [gamma, beta]]
          sq[q] = beta + t * gamma;
        }
      }
      if (sweep == max_sweeps)
        check_converged(rotations, cnt, "linalg.svd", "singular values", it, b0);
      if (!rotated) break;
    }
    std::vector<std::array<T, kLanes<T>>> norms(k);
    for (int64_t j = 0; j < k; ++j) norms[j] = lanes(vsqrt(dot_cols(g, j, j)));
    std::vector<int64_t> order(k);
    std::vector<T> u(big * gcols);  // G's left factor of one lane, column-major
    std::vector<bool> valid(gcols);
    for (int l = 0; l < cnt; ++l) {
      const int64_t b = b0 + l;
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t x, int64_t y) { return norms[x][l] > norms[y][l]; });
      std::fill(u.begin(), u.end(), T(0));
      std::fill(valid.begin(), valid.end(), false);
      for (int64_t j = 0; j < k; ++j) {
        const T nrm = norms[order[j]][l];
        so[b * k + j] = nrm * undo[l];
        if (nrm * nrm >= std::numeric_limits<T>::min()) {  // not negligible (as above)
          for (int64_t i = 0; i < big; ++i) u[i + j * big] = g.lane(i, order[j], l) / nrm;
          valid[j] = true;
        }
      }
      complete_orthonormal(u.data(), big, gcols, valid);
      // A = U S Vh with (U, Vh) = (u, V^T), or for wide A = G^T: (V, u^T).
      T* ud = uo + b * m * (full ? m : k);
      T* vd = vho + b * (full ? n : k) * n;
      T* from_u = wide ? vd : ud;  // receives u (as U, or as Vh = u^T)
      T* from_v = wide ? ud : vd;
      for (int64_t i = 0; i < big; ++i) {
        for (int64_t j = 0; j < gcols; ++j) {
          from_u[wide ? j * big + i : i * gcols + j] = u[i + j * big];
        }
      }
      for (int64_t i = 0; i < k; ++i) {
        for (int64_t j = 0; j < k; ++j) {
          from_v[wide ? i * k + j : j * k + i] = v.lane(i, order[j], l);
        }
      }
    }
  });
}

template <typename Tag, typename T>
void native_qr(Tag, const T* a, const MatIter& it, T* qo, int64_t qcols, T* ro, int64_t rrows) {
  // Householder reflectors H_j = I - tau_j v_j v_j^T with LAPACK's conventions (dlarfg: the
  // diagonal of R is -sign(x_0)|x|; H = I where the column below the diagonal is already zero).
  const int64_t m = it.rows, n = it.cols, k = std::min(m, n);
  for_groups<T>(it.nbatch, 4 * m * n * std::max(n, qcols), [&](int64_t b0, int cnt) {
    LaneMat<T> w(m, n), hv(m, k);
    pack(a, it, b0, cnt, false, w);
    const auto undo = lanes(normalise(w));
    const V<T> zero(T(0)), one(T(1));
    std::vector<V<T>> tau(k);
    for (int64_t j = 0; j < k; ++j) {
      const V<T> x0 = w.get(j, j), tail = dot_cols(w, j, j, j + 1);
      const V<T> nrm = vsqrt(x0 * x0 + tail);
      const V<T> alpha = vselect_lt(x0, zero, nrm, vneg(nrm));
      const V<T> reflect = vselect_gt(tail, zero, one, zero);
      const V<T> v0 = x0 - alpha;
      tau[j] = select(reflect, V<T>(T(2)) / (v0 * v0 + tail), zero);
      hv.set(j, j, v0);
      for (int64_t i = j + 1; i < m; ++i) hv.set(i, j, w.get(i, j));
      for (int64_t c = j + 1; c < n; ++c) {
        const V<T> d = tau[j] * dot_cols2(hv, j, w, c, j);
        for (int64_t i = j; i < m; ++i) w.set(i, c, w.get(i, c) - d * hv.get(i, j));
      }
      w.set(j, j, select(reflect, alpha, x0));
    }
    for (int l = 0; l < cnt; ++l) {
      T* rd = ro + (b0 + l) * rrows * n;
      for (int64_t i = 0; i < rrows; ++i) {
        for (int64_t j = 0; j < n; ++j)
          rd[i * n + j] = i <= j && i < m ? w.lane(i, j, l) * undo[l] : T(0);
      }
    }
    if (qo == nullptr) return;
    // Q = H_0 ... H_{k-1} I, applied from the last reflector; column c < j is still e_c then.
    LaneMat<T> q(m, qcols);
    q.set_identity();
    for (int64_t j = k - 1; j >= 0; --j) {
      for (int64_t c = j; c < qcols; ++c) {
        const V<T> d = tau[j] * dot_cols2(hv, j, q, c, j);
        for (int64_t i = j; i < m; ++i) q.set(i, c, q.get(i, c) - d * hv.get(i, j));
      }
    }
    unpack(q, cnt, false, qo + b0 * m * qcols);
  });
}

#define EMBER_NATIVE_LINALG(T)                                                           \
  template void native_cholesky(cpu::Tag, const T*, const MatIter&, bool, T*, int32_t*); \
  template void native_eigh(cpu::Tag, const T*, const MatIter&, bool, T*, T*);           \
  template void native_svd(cpu::Tag, const T*, const MatIter&, bool, T*, T*, T*);        \
  template void native_qr(cpu::Tag, const T*, const MatIter&, T*, int64_t, T*, int64_t);
EMBER_NATIVE_LINALG(float)
EMBER_NATIVE_LINALG(double)
#undef EMBER_NATIVE_LINALG

}  // namespace ember::cpu::linalg
