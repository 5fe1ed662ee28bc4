// ember::linalg in the op database: every entry's float32/float64 samples (single matrices,
// batches, broadcast batches, transposed views, empty batches) against independent float64
// references written with plain loops on test::values (Gaussian elimination with partial
// pivoting, substitution, cyclic and one-sided Jacobi, Taylor series with scaling and squaring),
// then the generic gradcheck and gradgradcheck of OpTest. Inputs are well-conditioned
// (diagonally dominant or X X^T + n I) so finite differences are stable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <tuple>

#include "ember/ember.h"
#include "ember/linalg.h"
#include "opdb.h"

namespace ember {
namespace {

namespace la = ember::linalg;
using test::OpInfo;
using test::OpTest;
using test::Reference;
using test::Sample;
using Mat = std::vector<double>;  // row-major
using Shape = std::vector<int64_t>;
using RefFn = std::function<Reference(const std::vector<Tensor>&)>;
using OpFn = std::function<Tensor(const std::vector<Tensor>&)>;
using SampleFn = std::function<std::vector<Sample>(ScalarType)>;

const double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------- sample inputs

int64_t numel_of(const Shape& s) {
  return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>());
}

Mat uniform(int64_t n, uint64_t seed) {
  return test::values(test::make_tensor({n}, kFloat64, -1, 1, seed));
}

// A general matrix batch with entries in [-1, 1).
Tensor gen(const Shape& s, ScalarType dt, uint64_t seed) {
  return test::from_values(s, uniform(numel_of(s), seed), dt);
}

// Strictly diagonally dominant: entries in [-1, 1) plus n on the diagonal.
Tensor dd(const Shape& s, ScalarType dt, uint64_t seed) {
  Mat v = uniform(numel_of(s), seed);
  const int64_t n = s.back(), mats = n == 0 ? 0 : numel_of(s) / (n * n);
  for (int64_t b = 0; b < mats; ++b)
    for (int64_t i = 0; i < n; ++i) v[(b * n + i) * n + i] += static_cast<double>(n);
  return test::from_values(s, v, dt);
}

// Symmetric positive-definite: X X^T + n I.
Tensor spd(const Shape& s, ScalarType dt, uint64_t seed) {
  const Mat x = uniform(numel_of(s), seed);
  const int64_t n = s.back(), mats = n == 0 ? 0 : numel_of(s) / (n * n);
  Mat v(x.size());
  for (int64_t b = 0; b < mats; ++b)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = i == j ? static_cast<double>(n) : 0;
        for (int64_t k = 0; k < n; ++k) acc += x[(b * n + i) * n + k] * x[(b * n + j) * n + k];
        v[(b * n + i) * n + j] = acc;
      }
  return test::from_values(s, v, dt);
}

// The same kind of matrix stored transposed: a non-contiguous .mT() view.
Tensor transposed(Tensor (*make)(const Shape&, ScalarType, uint64_t), Shape s, ScalarType dt,
                  uint64_t seed) {
  std::swap(s[s.size() - 1], s[s.size() - 2]);
  return make(s, dt, seed).mT();
}

// Square-matrix samples of one kind: single, batch, transposed, 1x1 and an empty batch.
std::vector<Sample> square_samples(Tensor (*make)(const Shape&, ScalarType, uint64_t),
                                   ScalarType dt) {
  return {{{make({3, 3}, dt, 1)}, "single"},
          {{make({2, 2, 2}, dt, 2)}, "batch"},
          {{make({2, 1, 3, 3}, dt, 3)}, "batch-4d"},
          {{transposed(make, {3, 3}, dt, 4)}, "transposed"},
          {{make({1, 1}, dt, 5)}, "1x1"},
          {{make({0, 3, 3}, dt, 6)}, "empty-batch"}};
}

// ---------------------------------------------------------------- reference building blocks

// The matrices of a batch: batch shape, rows, columns and the row-major values.
struct Batch {
  Shape shape;
  int64_t r, c;
  Mat v;
  int64_t count() const { return numel_of(shape); }
  Mat at(int64_t i) const { return Mat(v.begin() + i * r * c, v.begin() + (i + 1) * r * c); }
};

Batch batch_of(const Tensor& t) {
  const auto& s = t.sizes();
  return {Shape(s.begin(), s.end() - 2), s[s.size() - 2], s.back(), test::values(t)};
}

Shape broadcast(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    out[out.size() - 1 - i] = x == 1 ? y : x;
  }
  return out;
}

// Flat index into a tensor of shape `s` of the element at flat index i of its broadcast `out`.
int64_t source_index(int64_t i, const Shape& out, const Shape& s) {
  int64_t idx = 0, stride = 1;
  const int64_t lead = static_cast<int64_t>(out.size() - s.size());
  for (int64_t d = static_cast<int64_t>(out.size()) - 1; d >= 0; --d) {
    const int64_t coord = i % out[d];
    i /= out[d];
    const int64_t sd = d - lead;
    if (sd < 0) continue;
    if (s[sd] != 1) idx += coord * stride;
    stride *= s[sd];
  }
  return idx;
}

Shape cat_shape(Shape a, const Shape& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// One result matrix (of shape `tail`) per input matrix.
Reference per_matrix(const Tensor& A, const Shape& tail,
                     const std::function<Mat(const Mat&, int64_t, int64_t)>& f) {
  const Batch b = batch_of(A);
  Reference ref{cat_shape(b.shape, tail), {}, A.dtype()};
  for (int64_t i = 0; i < b.count(); ++i) {
    Mat m = f(b.at(i), b.r, b.c);
    ref.values.insert(ref.values.end(), m.begin(), m.end());
  }
  return ref;
}

// One result per pair of matrices of the broadcast batches of A and B.
Reference per_pair(
    const Tensor& A, const Tensor& B, const Shape& tail,
    const std::function<Mat(const Mat&, const Mat&, const Batch&, const Batch&)>& f) {
  const Batch a = batch_of(A), b = batch_of(B);
  const Shape out = broadcast(a.shape, b.shape);
  Reference ref{cat_shape(out, tail), {}, A.dtype()};
  for (int64_t i = 0; i < numel_of(out); ++i) {
    Mat m = f(a.at(source_index(i, out, a.shape)), b.at(source_index(i, out, b.shape)), a, b);
    ref.values.insert(ref.values.end(), m.begin(), m.end());
  }
  return ref;
}

Mat eye_mat(int64_t n) {
  Mat e(n * n, 0);
  for (int64_t i = 0; i < n; ++i) e[i * n + i] = 1;
  return e;
}

Mat transpose(const Mat& a, int64_t r, int64_t c) {
  Mat t(a.size());
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) t[j * r + i] = a[i * c + j];
  return t;
}

// (m x k) (k x n)
Mat mm(const Mat& a, const Mat& b, int64_t m, int64_t k, int64_t n) {
  Mat c(m * n, 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t l = 0; l < k; ++l)
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += a[i * k + l] * b[l * n + j];
  return c;
}

// Gaussian elimination with partial pivoting: X = A^{-1} B for A n x n, B n x k; *det gets det A.
Mat gauss_solve(Mat a, int64_t n, Mat b, int64_t k, double* det = nullptr) {
  double d = 1;
  for (int64_t col = 0; col < n; ++col) {
    int64_t p = col;
    for (int64_t i = col + 1; i < n; ++i)
      if (std::fabs(a[i * n + col]) > std::fabs(a[p * n + col])) p = i;
    if (p != col) {
      for (int64_t j = 0; j < n; ++j) std::swap(a[p * n + j], a[col * n + j]);
      for (int64_t j = 0; j < k; ++j) std::swap(b[p * k + j], b[col * k + j]);
      d = -d;
    }
    const double piv = a[col * n + col];
    d *= piv;
    if (piv == 0) continue;
    for (int64_t i = col + 1; i < n; ++i) {
      const double f = a[i * n + col] / piv;
      for (int64_t j = col; j < n; ++j) a[i * n + j] -= f * a[col * n + j];
      for (int64_t j = 0; j < k; ++j) b[i * k + j] -= f * b[col * k + j];
    }
  }
  if (det) *det = d;
  Mat x(n * k, 0);
  for (int64_t i = n - 1; i >= 0; --i)
    for (int64_t j = 0; j < k; ++j) {
      double s = b[i * k + j];
      for (int64_t l = i + 1; l < n; ++l) s -= a[i * n + l] * x[l * k + j];
      x[i * k + j] = s / a[i * n + i];
    }
  return x;
}

double det_of(const Mat& a, int64_t n) {
  double d = 1;
  gauss_solve(a, n, Mat{}, 0, &d);
  return d;
}

// Forward (lower) or back (upper) substitution reading only that triangle of A.
Mat tri_solve(const Mat& a, int64_t n, const Mat& b, int64_t k, bool upper) {
  Mat x(n * k, 0);
  for (int64_t s = 0; s < n; ++s) {
    const int64_t i = upper ? n - 1 - s : s;
    for (int64_t j = 0; j < k; ++j) {
      double acc = b[i * k + j];
      if (upper)
        for (int64_t l = i + 1; l < n; ++l) acc -= a[i * n + l] * x[l * k + j];
      else
        for (int64_t l = 0; l < i; ++l) acc -= a[i * n + l] * x[l * k + j];
      x[i * k + j] = acc / a[i * n + i];
    }
  }
  return x;
}

// The symmetric matrix whose lower (or upper) triangle is that of a.
Mat symmetric_from(const Mat& a, int64_t n, bool upper) {
  Mat s(a.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const bool in_lower = i >= j;
      s[i * n + j] = in_lower != upper || i == j ? a[i * n + j] : a[j * n + i];
    }
  return s;
}

Mat cholesky_lower(const Mat& a, int64_t n) {
  Mat L(n * n, 0);
  for (int64_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (int64_t k = 0; k < j; ++k) d -= L[j * n + k] * L[j * n + k];
    L[j * n + j] = std::sqrt(d);
    for (int64_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (int64_t k = 0; k < j; ++k) s -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = s / L[j * n + j];
    }
  }
  return L;
}

// Eigenvalues (ascending) of a symmetric matrix by cyclic Jacobi rotations.
Mat jacobi_eigvals(Mat a, int64_t n) {
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, total = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        total += a[i * n + j] * a[i * n + j];
        if (i != j) off += a[i * n + j] * a[i * n + j];
      }
    if (off <= 1e-32 * total) break;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (apq == 0) continue;
        const double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const double t = (theta >= 0 ? 1 : -1) / (std::fabs(theta) + std::hypot(theta, 1.0));
        const double c = 1 / std::hypot(t, 1.0), s = t * c;
        for (int64_t k = 0; k < n; ++k) {  // A J
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (int64_t k = 0; k < n; ++k) {  // J^T (A J)
          const double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
      }
  }
  Mat ev(n);
  for (int64_t i = 0; i < n; ++i) ev[i] = a[i * n + i];
  std::sort(ev.begin(), ev.end());
  return ev;
}

// Singular values (descending) by one-sided Jacobi (Hestenes): rotate column pairs until they
// are orthogonal; the column norms are then the singular values, small ones included.
Mat jacobi_svdvals(Mat a, int64_t m, int64_t n) {
  if (m < n) {
    a = transpose(a, m, n);
    std::swap(m, n);
  }
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        double alpha = 0, beta = 0, gamma = 0;
        for (int64_t k = 0; k < m; ++k) {
          alpha += a[k * n + p] * a[k * n + p];
          beta += a[k * n + q] * a[k * n + q];
          gamma += a[k * n + p] * a[k * n + q];
        }
        if (std::fabs(gamma) <= 1e-17 * std::sqrt(alpha * beta)) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = (zeta >= 0 ? 1 : -1) / (std::fabs(zeta) + std::hypot(zeta, 1.0));
        const double c = 1 / std::hypot(t, 1.0), s = c * t;
        for (int64_t k = 0; k < m; ++k) {
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
      }
    if (!rotated) break;
  }
  Mat sv(n, 0);
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t k = 0; k < m; ++k) sv[j] += a[k * n + j] * a[k * n + j];
    sv[j] = std::sqrt(sv[j]);
  }
  std::sort(sv.begin(), sv.end(), std::greater<>());
  return sv;
}

// exp(A) by a Taylor series on A / 2^s (||A / 2^s||_1 <= 1/8, 30 terms), squared s times.
Mat expm(const Mat& a, int64_t n) {
  double norm1 = 0;
  for (int64_t j = 0; j < n; ++j) {
    double c = 0;
    for (int64_t i = 0; i < n; ++i) c += std::fabs(a[i * n + j]);
    norm1 = std::max(norm1, c);
  }
  int s = 0;
  while (std::ldexp(norm1, -s) > 0.125) ++s;
  Mat x = a;
  for (double& v : x) v = std::ldexp(v, -s);
  Mat e = eye_mat(n), term = eye_mat(n);
  for (int k = 1; k <= 30; ++k) {
    term = mm(term, x, n, n, n);
    for (double& v : term) v /= k;
    for (int64_t i = 0; i < n * n; ++i) e[i] += term[i];
  }
  for (int i = 0; i < s; ++i) e = mm(e, e, n, n, n);
  return e;
}

// Numeric stand-ins for the string orders "fro" and "nuc" in the norm and cond entries.
constexpr double kFro = 0, kNuc = 9;

// f(x, "fro"), f(x, "nuc") or f(x, ord) for a matrix-norm-like op with both overloads.
template <typename F>
Tensor call_ord(const F& f, const Tensor& x, double ord) {
  if (ord == kFro) return f(x, std::string("fro"));
  if (ord == kNuc) return f(x, std::string("nuc"));
  return f(x, ord);
}

// Matrix norms of an r x c matrix, by ord (kFro, kNuc or a number).
double matrix_norm_ref(const Mat& a, int64_t r, int64_t c, double ord) {
  if (ord == kFro) {
    double s = 0;
    for (double v : a) s += v * v;
    return std::sqrt(s);
  }
  if (ord == kNuc || std::fabs(ord) == 2) {
    const Mat sv = jacobi_svdvals(a, r, c);
    if (ord == kNuc) return std::accumulate(sv.begin(), sv.end(), 0.0);
    return ord > 0 ? sv.front() : sv.back();
  }
  const bool cols = std::fabs(ord) == 1;  // 1: column sums; inf: row sums
  Mat sums(cols ? c : r, 0);
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) sums[cols ? j : i] += std::fabs(a[i * c + j]);
  return ord > 0 ? *std::max_element(sums.begin(), sums.end())
                 : *std::min_element(sums.begin(), sums.end());
}

double vector_norm_ref(const Mat& x, double ord) {
  if (std::isinf(ord)) {
    double r = ord > 0 ? 0 : kInf;
    for (double v : x) r = ord > 0 ? std::max(r, std::fabs(v)) : std::min(r, std::fabs(v));
    return r;
  }
  double s = 0;
  for (double v : x) s += std::pow(std::fabs(v), ord);
  return std::pow(s, 1 / ord);
}

// The product H_1 ... H_k (first n columns) with H_i = I - tau_i v_i v_i^T.
Mat householder_ref(const Mat& a, int64_t m, int64_t n, const Mat& tau) {
  Mat q = eye_mat(m);
  for (size_t i = 0; i < tau.size(); ++i) {
    Mat v(m, 0);
    v[i] = 1;
    for (int64_t r = static_cast<int64_t>(i) + 1; r < m; ++r) v[r] = a[r * n + i];
    for (int64_t r = 0; r < m; ++r) {  // Q <- Q - tau (Q v) v^T
      double qv = 0;
      for (int64_t l = 0; l < m; ++l) qv += q[r * m + l] * v[l];
      for (int64_t l = 0; l < m; ++l) q[r * m + l] -= tau[i] * qv * v[l];
    }
  }
  Mat out(m * n);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < n; ++c) out[r * n + c] = q[r * m + c];
  return out;
}

// Full-rank pseudo-inverse: (A^T A)^{-1} A^T (tall) or A^T (A A^T)^{-1} (wide).
Mat pinv_ref(const Mat& a, int64_t m, int64_t n) {
  const Mat at = transpose(a, m, n);
  if (m >= n) return gauss_solve(mm(at, a, n, m, n), n, at, m);
  return transpose(gauss_solve(mm(a, at, m, n, m), m, a, n), m, n);
}

// ---------------------------------------------------------------- the op entries

OpInfo entry(std::string name, SampleFn samples, OpFn op, RefFn ref, double tol = 10,
             bool rejects_int = true) {
  OpInfo o{
      std::move(name), {kFloat32, kFloat64}, std::move(samples), std::move(op), std::move(ref)};
  o.tol_scale = tol;
  // PyTorch's linalg takes float32 and float64 (and complex) only: the 16-bit floats raise "Low
  // precision dtypes not supported", the others "Expected a floating point or complex tensor".
  if (rejects_int) {
    o.rejected_dtypes = {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16};
  }
  return o;
}

std::vector<ScalarType> integral_dtypes_with_bool() { return test::integral_dtypes(true); }

SampleFn square(Tensor (*make)(const Shape&, ScalarType, uint64_t)) {
  return [make](ScalarType dt) { return square_samples(make, dt); };
}

// A (n x n, well-conditioned) and B samples for solvers, with broadcast batches.
std::vector<Sample> solve_samples(ScalarType dt,
                                  Tensor (*make)(const Shape&, ScalarType, uint64_t)) {
  return {{{make({3, 3}, dt, 1), gen({3, 2}, dt, 2)}, "single"},
          {{make({2, 2, 2}, dt, 3), gen({2, 2, 2}, dt, 4)}, "batch"},
          {{make({2, 1, 2, 2}, dt, 5), gen({3, 2, 1}, dt, 6)}, "broadcast-batch"},
          {{make({3, 3}, dt, 7), gen({2, 3, 2}, dt, 8)}, "broadcast-A"},
          {{transposed(make, {3, 3}, dt, 9), gen({2, 3}, dt, 10).mT()}, "transposed"},
          {{make({0, 3, 3}, dt, 11), gen({0, 3, 2}, dt, 12)}, "empty-batch"},
          {{make({3, 3}, dt, 13), gen({3, 0}, dt, 14)}, "no-rhs"}};
}

std::vector<OpInfo> linalg_ops() {
  std::vector<OpInfo> ops;
  const SampleFn dd_square = square(dd), spd_square = square(spd), gen_square = square(gen);

  // ---- determinants and inverses
  ops.push_back(entry(
      "det", dd_square, [](const auto& in) { return la::det(in[0]); },
      [](const auto& in) {
        return per_matrix(in[0], {},
                          [](const Mat& a, int64_t n, int64_t) { return Mat{det_of(a, n)}; });
      }));
  ops.back().samples = [](ScalarType dt) {
    auto s = square_samples(dd, dt);
    s.push_back({{gen({2, 3, 3}, dt, 20)}, "general"});
    s.push_back({{gen({0, 0}, dt, 21)}, "0x0"});
    return s;
  };
  ops.push_back(entry(
      "slogdet_logabsdet", dd_square, [](const auto& in) { return la::slogdet(in[0]).logabsdet; },
      [](const auto& in) {
        return per_matrix(in[0], {}, [](const Mat& a, int64_t n, int64_t) {
          return Mat{std::log(std::fabs(det_of(a, n)))};
        });
      }));
  ops.push_back(entry(
      "slogdet_sign",
      [](ScalarType dt) {
        auto s = square_samples(dd, dt);
        s.push_back({{gen({3, 3, 3}, dt, 20)}, "general"});
        return s;
      },
      [](const auto& in) { return la::slogdet(in[0]).sign; },
      [](const auto& in) {
        return per_matrix(in[0], {}, [](const Mat& a, int64_t n, int64_t) {
          const double d = det_of(a, n);
          return Mat{d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0};
        });
      }));
  ops.back().not_differentiable =
      "PyTorch marks slogdet's sign not differentiable for real input (output_differentiability: "
      "[False, True])";
  ops.push_back(entry(
      "inv", dd_square, [](const auto& in) { return la::inv(in[0]); },
      [](const auto& in) {
        const int64_t n = in[0].size(-1);
        return per_matrix(in[0], {n, n}, [](const Mat& a, int64_t n, int64_t) {
          return gauss_solve(a, n, eye_mat(n), n);
        });
      }));

  // ---- solvers
  const auto solve_ref = [](const std::vector<Tensor>& in) {
    const int64_t n = in[0].size(-1), k = in[1].size(-1);
    return per_pair(in[0], in[1], {n, k}, [n, k](const Mat& a, const Mat& b, auto&, auto&) {
      return gauss_solve(a, n, b, k);
    });
  };
  ops.push_back(entry(
      "solve", [](ScalarType dt) { return solve_samples(dt, dd); },
      [](const auto& in) { return la::solve(in[0], in[1]); }, solve_ref));
  ops.push_back(entry(
      "solve_vector_rhs",
      [](ScalarType dt) {
        return std::vector<Sample>{{{dd({3, 3}, dt, 1), gen({3}, dt, 2)}, "single"},
                                   {{dd({2, 3, 3}, dt, 3), gen({2, 3}, dt, 4)}, "batch"}};
      },
      [](const auto& in) { return la::solve(in[0], in[1]); },
      [](const std::vector<Tensor>& in) {
        const int64_t n = in[0].size(-1);
        Reference r = per_pair(
            in[0], in[1].unsqueeze(-1), {n},
            [n](const Mat& a, const Mat& b, auto&, auto&) { return gauss_solve(a, n, b, 1); });
        return r;
      }));
  ops.push_back(entry(
      "solve_right", [](ScalarType dt) { return solve_samples(dt, dd); },
      // X A = B with B k x n: the samples' B transposed.
      [](const auto& in) { return la::solve(in[0], in[1].mT(), /*left=*/false); },
      [](const std::vector<Tensor>& in) {
        const int64_t n = in[0].size(-1), k = in[1].size(-1);
        // X = B A^{-1}, X^T = A^{-T} B^T.
        return per_pair(in[0], in[1], {k, n}, [n, k](const Mat& a, const Mat& b, auto&, auto&) {
          return transpose(gauss_solve(transpose(a, n, n), n, b, k), n, k);
        });
      }));
  for (bool upper : {true, false}) {
    ops.push_back(entry(
        upper ? "solve_triangular_upper" : "solve_triangular_lower",
        // General (not triangular) A: only the named triangle may be read.
        [](ScalarType dt) { return solve_samples(dt, dd); },
        [upper](const auto& in) { return la::solve_triangular(in[0], in[1], upper); },
        [upper](const std::vector<Tensor>& in) {
          const int64_t n = in[0].size(-1), k = in[1].size(-1);
          return per_pair(in[0], in[1], {n, k},
                          [n, k, upper](const Mat& a, const Mat& b, auto&, auto&) {
                            return tri_solve(a, n, b, k, upper);
                          });
        }));
  }
  ops.push_back(entry(
      "solve_triangular_right_unit", [](ScalarType dt) { return solve_samples(dt, dd); },
      [](const auto& in) {
        return la::solve_triangular(in[0], in[1].mT(), /*upper=*/true, /*left=*/false,
                                    /*unitriangular=*/true);
      },
      [](const std::vector<Tensor>& in) {
        // X A = B, A unit upper: A^T X^T = B^T with A^T unit lower.
        const int64_t n = in[0].size(-1), k = in[1].size(-1);
        return per_pair(in[0], in[1], {k, n}, [n, k](const Mat& a, const Mat& b, auto&, auto&) {
          Mat at = transpose(a, n, n);
          for (int64_t i = 0; i < n; ++i) at[i * n + i] = 1;
          return transpose(tri_solve(at, n, b, k, /*upper=*/false), n, k);
        });
      }));

  // ---- decompositions (the input is made symmetric from one triangle inside the op, as
  // PyTorch's gradcheck_wrapper_hermitian_input, so perturbations stay symmetric)
  for (bool upper : {false, true}) {
    ops.push_back(entry(
        upper ? "cholesky_upper" : "cholesky", spd_square,
        [upper](const auto& in) { return la::cholesky(in[0].tril() + in[0].tril(-1).mT(), upper); },
        [upper](const std::vector<Tensor>& in) {
          const int64_t n = in[0].size(-1);
          return per_matrix(in[0], {n, n}, [upper](const Mat& a, int64_t n, int64_t) {
            Mat L = cholesky_lower(symmetric_from(a, n, false), n);
            return upper ? transpose(L, n, n) : L;
          });
        }));
  }
  for (bool upper : {false, true}) {
    ops.push_back(entry(
        upper ? "eigvalsh_U" : "eigvalsh", gen_square,
        [upper](const auto& in) {
          const Tensor& A = in[0];
          return upper ? la::eigvalsh(A.triu() + A.triu(1).mT(), "U")
                       : la::eigvalsh(A.tril() + A.tril(-1).mT(), "L");
        },
        [upper](const std::vector<Tensor>& in) {
          const int64_t n = in[0].size(-1);
          return per_matrix(in[0], {n}, [upper](const Mat& a, int64_t n, int64_t) {
            return jacobi_eigvals(symmetric_from(a, n, upper), n);
          });
        }));
  }
  const auto rect_samples = [](ScalarType dt) {
    return std::vector<Sample>{{{gen({3, 3}, dt, 1)}, "square"},
                               {{gen({4, 2}, dt, 2)}, "tall"},
                               {{gen({2, 4}, dt, 3)}, "wide"},
                               {{gen({2, 3, 2}, dt, 4)}, "batch"},
                               {{transposed(gen, {3, 4}, dt, 5)}, "transposed"},
                               {{gen({0, 3, 2}, dt, 6)}, "empty-batch"},
                               {{gen({4, 3, 3}, dt, 7)}, "batch-3x3"}};
  };
  const auto svdvals_ref = [](const std::vector<Tensor>& in) {
    const int64_t k = std::min(in[0].size(-2), in[0].size(-1));
    return per_matrix(in[0], {k}, jacobi_svdvals);
  };
  ops.push_back(entry(
      "svdvals", rect_samples, [](const auto& in) { return la::svdvals(in[0]); }, svdvals_ref));
  ops.push_back(entry(
      "svdvals_tiny",
      [](ScalarType dt) {
        // Singular values of order 1e-6 next to ones of order 1: a rank-1 matrix plus 1e-6
        // times another (sqrt(eigvalsh(A^T A)) would lose them).
        std::vector<Sample> s;
        for (uint64_t seed : {30, 40}) {
          Mat u = uniform(4, seed), w = uniform(3, seed + 1), e = uniform(12, seed + 2), v(12);
          for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 3; ++j) v[i * 3 + j] = u[i] * w[j] + 1e-6 * e[i * 3 + j];
          s.push_back({{test::from_values({4, 3}, v, dt)}, "nearly-rank-1"});
        }
        return s;
      },
      [](const auto& in) { return la::svdvals(in[0]); }, svdvals_ref));
  // float64 only, with atol 1e-10: the small singular values must be right to about 1e-4.
  ops.back().dtypes = {kFloat64};
  ops.back().shape_only_dtypes = {kFloat32};
  ops.back().values_checked_in = "the svdvals entry (float32 cannot resolve these values)";
  ops.back().tol_scale = 1e-3;
  // Singular values of order 1e-6 are not smooth on the scale of the finite-difference step:
  // gradcheck the same construction with a gap of 1e-2.
  ops.back().grad_samples = [] {
    std::vector<Sample> s;
    Mat u = uniform(4, 30), w = uniform(3, 31), e = uniform(12, 32), v(12);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 3; ++j) v[i * 3 + j] = u[i] * w[j] + 1e-2 * e[i * 3 + j];
    s.push_back({{test::from_values({4, 3}, v, kFloat64)}, "nearly-rank-1 (1e-2)"});
    return s;
  };

  // ---- norms
  const std::vector<std::pair<std::string, double>> mords = {
      {"fro", kFro}, {"nuc", kNuc}, {"2", 2},      {"m2", -2},
      {"1", 1},      {"m1", -1},    {"inf", kInf}, {"minf", -kInf}};
  for (const auto& [nm, ord] : mords) {
    ops.push_back(entry(
        "matrix_norm_" + nm, rect_samples,
        [ord](const auto& in) {
          return call_ord([](const Tensor& x, const auto& o) { return la::matrix_norm(x, o); },
                          in[0], ord);
        },
        [ord](const std::vector<Tensor>& in) {
          return per_matrix(in[0], {}, [ord](const Mat& a, int64_t r, int64_t c) {
            return Mat{matrix_norm_ref(a, r, c, ord)};
          });
        }));
    // The min/max norms of an empty matrix have no identity; empty batches are fine.
  }
  ops.push_back(entry(
      "matrix_norm_1_dims02_keepdim",
      [](ScalarType dt) {
        return std::vector<Sample>{{{gen({3, 2, 4}, dt, 1)}, "3d"},
                                   {{transposed(gen, {3, 2, 4}, dt, 2)}, "transposed"}};
      },
      [](const auto& in) {
        return la::matrix_norm(in[0], 1.0, {0, 2}, /*keepdim=*/true);
      },
      [](const std::vector<Tensor>& in) {
        // Max over k of sum over i of |x[i, j, k]|, for each j.
        const auto s = in[0].sizes();
        const Mat x = test::values(in[0]);
        Reference r{{1, s[1], 1}, {}, in[0].dtype()};
        for (int64_t j = 0; j < s[1]; ++j) {
          double best = 0;
          for (int64_t k = 0; k < s[2]; ++k) {
            double c = 0;
            for (int64_t i = 0; i < s[0]; ++i) c += std::fabs(x[(i * s[1] + j) * s[2] + k]);
            best = std::max(best, c);
          }
          r.values.push_back(best);
        }
        return r;
      }));
  for (double ord : {2.0, 1.0, 3.0, 0.5, kInf, -kInf}) {
    const std::string nm = std::isinf(ord) ? (ord > 0 ? "inf" : "minf")
                           : ord == 0.5    ? "half"
                                           : std::to_string(static_cast<int>(ord));
    ops.push_back(entry(
        "vector_norm_" + nm,
        [ord](ScalarType dt) {
          std::vector<Sample> s = {{{gen({7}, dt, 1)}, "1-d"},
                                   {{gen({2, 3, 2}, dt, 2)}, "3-d"},
                                   {{transposed(gen, {4, 3}, dt, 3)}, "transposed"},
                                   {{gen({}, dt, 4)}, "0-d"}};
          if (!std::isinf(ord)) s.push_back({{gen({0, 3}, dt, 5)}, "empty"});
          return s;
        },
        [ord](const auto& in) { return la::vector_norm(in[0], ord); },
        [ord](const std::vector<Tensor>& in) {
          return Reference{{}, {vector_norm_ref(test::values(in[0]), ord)}, in[0].dtype()};
        }));
    ops.back().rejected_dtypes = integral_dtypes_with_bool();
  }
  for (const auto& [nm, ord] : std::vector<std::pair<std::string, double>>{
           {"fro", kFro}, {"nuc", kNuc}, {"2", 2}, {"m2", -2}, {"1", 1}, {"minf", -kInf}}) {
    ops.push_back(entry(
        "cond_" + nm, dd_square,
        [ord](const auto& in) {
          return call_ord([](const Tensor& x, const auto& o) { return la::cond(x, o); }, in[0],
                          ord);
        },
        [ord](const std::vector<Tensor>& in) {
          // norm(A) norm(A^{-1}); for +-2 the ratio of extreme singular values is the same.
          return per_matrix(in[0], {}, [ord](const Mat& a, int64_t n, int64_t) {
            const Mat inv = gauss_solve(a, n, eye_mat(n), n);
            if (ord == -2)
              return Mat{1 / (matrix_norm_ref(a, n, n, 2) * matrix_norm_ref(inv, n, n, 2))};
            return Mat{matrix_norm_ref(a, n, n, ord) * matrix_norm_ref(inv, n, n, ord)};
          });
        }));
  }
  ops.push_back(entry(
      "vector_norm_dim",
      [](ScalarType dt) {
        return std::vector<Sample>{{{gen({2, 3, 4}, dt, 1)}, "3-d"},
                                   {{gen({2, 0, 4}, dt, 2)}, "empty"}};
      },
      [](const auto& in) { return la::vector_norm(in[0], 2, std::vector<int64_t>{1}); },
      [](const std::vector<Tensor>& in) {
        const auto s = in[0].sizes();
        const Mat x = test::values(in[0]);
        Reference r{{s[0], s[2]}, {}, in[0].dtype()};
        for (int64_t i = 0; i < s[0]; ++i)
          for (int64_t k = 0; k < s[2]; ++k) {
            double acc = 0;
            for (int64_t j = 0; j < s[1]; ++j) acc += std::pow(x[(i * s[1] + j) * s[2] + k], 2);
            r.values.push_back(std::sqrt(acc));
          }
        return r;
      }));
  ops.back().rejected_dtypes = integral_dtypes_with_bool();

  // ---- products
  ops.push_back(entry(
      "cross",
      [](ScalarType dt) {
        return std::vector<Sample>{
            {{gen({3}, dt, 1), gen({3}, dt, 2)}, "1-d"},
            {{gen({2, 3}, dt, 3), gen({2, 3}, dt, 4)}, "batch"},
            {{gen({2, 1, 3}, dt, 5), gen({1, 4, 3}, dt, 6)}, "broadcast"},
            {{transposed(gen, {2, 3}, dt, 7), gen({2, 3}, dt, 8)}, "transposed"},
            {{gen({0, 3}, dt, 9), gen({0, 3}, dt, 10)}, "empty"}};
      },
      [](const auto& in) { return la::cross(in[0], in[1]); },
      [](const std::vector<Tensor>& in) {
        const Shape as = in[0].sizes(), bs = in[1].sizes(), out = broadcast(as, bs);
        const Mat a = test::values(in[0]), b = test::values(in[1]);
        Reference r{out, Mat(numel_of(out)), in[0].dtype()};
        for (int64_t v = 0; v < numel_of(out) / 3; ++v) {
          double x[3], y[3];
          for (int c = 0; c < 3; ++c) {
            x[c] = a[source_index(v * 3 + c, out, as)];
            y[c] = b[source_index(v * 3 + c, out, bs)];
          }
          for (int c = 0; c < 3; ++c) {
            const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
            r.values[v * 3 + c] = x[c1] * y[c2] - x[c2] * y[c1];
          }
        }
        return r;
      },
      10, /*rejects_int=*/false));
  ops.push_back(entry(
      "vecdot",
      [](ScalarType dt) {
        return std::vector<Sample>{
            {{gen({5}, dt, 1), gen({5}, dt, 2)}, "1-d"},
            {{gen({2, 4}, dt, 3), gen({2, 4}, dt, 4)}, "batch"},
            {{gen({3, 1, 4}, dt, 5), gen({2, 4}, dt, 6)}, "broadcast"},
            {{transposed(gen, {3, 4}, dt, 7), gen({4}, dt, 8)}, "transposed"},
            {{gen({0, 4}, dt, 9), gen({4}, dt, 10)}, "empty"}};
      },
      [](const auto& in) { return la::vecdot(in[0], in[1]); },
      [](const std::vector<Tensor>& in) {
        const Shape as = in[0].sizes(), bs = in[1].sizes(), out = broadcast(as, bs);
        const Mat a = test::values(in[0]), b = test::values(in[1]);
        const int64_t L = out.back(), count = numel_of(out) / L;
        Reference r{Shape(out.begin(), out.end() - 1), {}, in[0].dtype()};
        for (int64_t v = 0; v < count; ++v) {
          double acc = 0;
          for (int64_t l = 0; l < L; ++l)
            acc += a[source_index(v * L + l, out, as)] * b[source_index(v * L + l, out, bs)];
          r.values.push_back(acc);
        }
        return r;
      },
      10, /*rejects_int=*/false));
  for (int64_t p : {1, 3, -1, -2}) {
    // Positive powers of a general matrix; negative ones of a well-conditioned one.
    ops.push_back(entry(
        "matrix_power_" + (p < 0 ? "m" + std::to_string(-p) : std::to_string(p)),
        p > 0 ? gen_square : dd_square, [p](const auto& in) { return la::matrix_power(in[0], p); },
        [p](const std::vector<Tensor>& in) {
          const int64_t n = in[0].size(-1);
          return per_matrix(in[0], {n, n}, [p](const Mat& a, int64_t n, int64_t) {
            const Mat base = p > 0 ? a : gauss_solve(a, n, eye_mat(n), n);
            Mat r = eye_mat(n);
            for (int64_t i = 0; i < std::abs(p); ++i) r = mm(r, base, n, n, n);
            return r;
          });
        },
        10, /*rejects_int=*/p < 0));
  }
  ops.push_back(entry(
      "matrix_exp",
      [](ScalarType dt) {
        auto s = square_samples(gen, dt);
        // Larger norm: several squarings.
        Mat v = uniform(9, 40);
        for (double& x : v) x *= 4;
        s.push_back({{test::from_values({3, 3}, v, dt)}, "norm-12"});
        return s;
      },
      [](const auto& in) { return la::matrix_exp(in[0]); },
      [](const std::vector<Tensor>& in) {
        const int64_t n = in[0].size(-1);
        return per_matrix(in[0], {n, n},
                          [](const Mat& a, int64_t n, int64_t) { return expm(a, n); });
      },
      30));
  ops.push_back(entry(
      "pinv",
      [](ScalarType dt) {
        return std::vector<Sample>{{{dd({3, 3}, dt, 1)}, "square"},
                                   {{gen({4, 2}, dt, 2)}, "tall"},
                                   {{gen({2, 4}, dt, 3)}, "wide"},
                                   {{gen({2, 3, 2}, dt, 4)}, "batch"},
                                   {{transposed(gen, {2, 3}, dt, 5)}, "transposed"},
                                   {{gen({0, 3, 2}, dt, 6)}, "empty-batch"}};
      },
      [](const auto& in) { return la::pinv(in[0]); },
      [](const std::vector<Tensor>& in) {
        const int64_t m = in[0].size(-2), n = in[0].size(-1);
        return per_matrix(in[0], {n, m}, pinv_ref);
      },
      30));
  ops.push_back(entry(
      "pinv_hermitian", spd_square,
      [](const auto& in) {
        return la::pinv(in[0].tril() + in[0].tril(-1).mT(), std::nullopt, std::nullopt, true);
      },
      [](const std::vector<Tensor>& in) {
        const int64_t n = in[0].size(-1);
        return per_matrix(in[0], {n, n}, [](const Mat& a, int64_t n, int64_t) {
          return gauss_solve(symmetric_from(a, n, false), n, eye_mat(n), n);
        });
      },
      30));
  ops.push_back(entry(
      "multi_dot",
      [](ScalarType dt) {
        return std::vector<Sample>{
            {{gen({2, 3}, dt, 1), gen({3, 4}, dt, 2), gen({4, 2}, dt, 3)}, "3-matrices"},
            {{gen({4, 1}, dt, 4), gen({1, 4}, dt, 5), gen({4, 2}, dt, 6)}, "3-right-first"},
            {{gen({3}, dt, 7), gen({3, 2}, dt, 8), gen({2, 3}, dt, 9), gen({3}, dt, 10)},
             "1-d-ends"},
            {{gen({2, 1}, dt, 11), gen({1, 3}, dt, 12), gen({3, 1}, dt, 13), gen({1, 2}, dt, 14),
              gen({2, 2}, dt, 15)},
             "5-matrices"},
            {{transposed(gen, {2, 3}, dt, 16), gen({3, 3}, dt, 17)}, "transposed"},
            {{gen({0, 3}, dt, 18), gen({3, 2}, dt, 19), gen({2, 0}, dt, 20)}, "empty"},
            {{gen({2, 0}, dt, 21), gen({0, 3}, dt, 22)}, "k=0"}};
      },
      [](const auto& in) { return la::multi_dot(in); },
      [](const std::vector<Tensor>& in) {
        // Left to right in double.
        Mat r = test::values(in[0]);
        int64_t rows = in[0].dim() == 1 ? 1 : in[0].size(0), cols = in[0].size(-1);
        for (size_t i = 1; i < in.size(); ++i) {
          const int64_t n = in[i].dim() == 1 ? 1 : in[i].size(1);
          r = mm(r, test::values(in[i]), rows, cols, n);
          cols = n;
        }
        Shape s;
        if (in.front().dim() == 2) s.push_back(rows);
        if (in.back().dim() == 2) s.push_back(cols);
        return Reference{s, r, in[0].dtype()};
      },
      10, /*rejects_int=*/false));
  ops.push_back(entry(
      "lstsq_solution",
      [](ScalarType dt) {
        return std::vector<Sample>{
            {{gen({4, 3}, dt, 1), gen({4, 2}, dt, 2)}, "tall"},
            {{dd({3, 3}, dt, 3), gen({3, 2}, dt, 4)}, "square"},
            {{gen({2, 4, 2}, dt, 5), gen({2, 4, 1}, dt, 6)}, "batch"},
            {{transposed(gen, {5, 3}, dt, 7), gen({5, 2}, dt, 8)}, "transposed"},
            {{gen({0, 4, 3}, dt, 9), gen({0, 4, 2}, dt, 10)}, "empty-batch"}};
      },
      [](const auto& in) { return la::lstsq(in[0], in[1]).solution; },
      [](const std::vector<Tensor>& in) {
        // Full column rank: the normal equations (A^T A) X = A^T B.
        const int64_t m = in[0].size(-2), n = in[0].size(-1), k = in[1].size(-1);
        return per_pair(in[0], in[1], {n, k}, [m, n, k](const Mat& a, const Mat& b, auto&, auto&) {
          const Mat at = transpose(a, m, n);
          return gauss_solve(mm(at, a, n, m, n), n, mm(at, b, n, m, k), k);
        });
      },
      30));
  for (auto [off, d1, d2] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
           {0, -2, -1}, {1, -2, -1}, {-1, -2, -1}, {0, 0, 2}, {1, 2, 0}}) {
    const std::string nm =
        "diagonal_offset" + (off < 0 ? "m" + std::to_string(-off) : std::to_string(off)) + "_dims" +
        std::to_string(d1 < 0 ? d1 + 3 : d1) + std::to_string(d2 < 0 ? d2 + 3 : d2);
    ops.push_back(entry(
        nm,
        [](ScalarType dt) {
          return std::vector<Sample>{{{gen({3, 4}, dt, 1).unsqueeze(0)}, "1x3x4"},
                                     {{gen({2, 3, 3}, dt, 2)}, "batch"},
                                     {{transposed(gen, {2, 4, 3}, dt, 3)}, "transposed"},
                                     {{gen({0, 3, 3}, dt, 4)}, "empty-batch"}};
        },
        [off, d1, d2](const auto& in) { return la::diagonal(in[0], off, d1, d2); },
        [off, d1, d2](const std::vector<Tensor>& in) {
          const Shape s = in[0].sizes();
          const int64_t a = d1 < 0 ? d1 + 3 : d1, b = d2 < 0 ? d2 + 3 : d2, rest = 3 - a - b;
          const int64_t len = std::max<int64_t>(
              0, std::min(s[a] - std::max<int64_t>(-off, 0), s[b] - std::max<int64_t>(off, 0)));
          const Mat x = test::values(in[0]);
          Reference r{{s[rest], len}, {}, in[0].dtype()};
          for (int64_t o = 0; o < s[rest]; ++o)
            for (int64_t k = 0; k < len; ++k) {
              int64_t idx[3];
              idx[rest] = o;
              idx[a] = k + std::max<int64_t>(-off, 0);
              idx[b] = k + std::max<int64_t>(off, 0);
              r.values.push_back(x[(idx[0] * s[1] + idx[1]) * s[2] + idx[2]]);
            }
          return r;
        },
        1, /*rejects_int=*/false));
  }
  ops.push_back(entry(
      "householder_product",
      [](ScalarType dt) {
        return std::vector<Sample>{
            {{gen({3, 2}, dt, 1), gen({2}, dt, 2)}, "3x2"},
            {{gen({4, 3}, dt, 3), gen({2}, dt, 4)}, "k<n"},
            {{gen({2, 3, 3}, dt, 5), gen({2, 3}, dt, 6)}, "batch"},
            {{transposed(gen, {4, 2}, dt, 7), gen({2}, dt, 8)}, "transposed"},
            {{gen({0, 3, 2}, dt, 9), gen({0, 2}, dt, 10)}, "empty-batch"}};
      },
      [](const auto& in) { return la::householder_product(in[0], in[1]); },
      [](const std::vector<Tensor>& in) {
        const Batch a = batch_of(in[0]);
        const int64_t k = in[1].size(-1);
        const Mat tau = test::values(in[1]);
        Reference r{in[0].sizes(), {}, in[0].dtype()};
        for (int64_t i = 0; i < a.count(); ++i) {
          Mat q = householder_ref(a.at(i), a.r, a.c,
                                  Mat(tau.begin() + i * k, tau.begin() + (i + 1) * k));
          r.values.insert(r.values.end(), q.begin(), q.end());
        }
        return r;
      }));
  return ops;
}

INSTANTIATE_TEST_SUITE_P(LinalgOps, OpTest, ::testing::ValuesIn(linalg_ops()), test::op_test_name);

}  // namespace
}  // namespace ember
