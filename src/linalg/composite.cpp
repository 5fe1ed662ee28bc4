// ember::linalg functions composed from the decompositions and other Ember ops (their gradients
// come from the pieces): pinv, matrix_rank, lstsq, norms, cond, matrix_power, matrix_exp, cross,
// vecdot, multi_dot.
#include <cmath>
#include <limits>

#include "ember/autograd.h"
#include "ember/linalg.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/matmul.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "linalg/common.h"
#include "ops/factory_internal.h"
#include "ops/util.h"

namespace ember::linalg {

using detail::check_float;
using detail::check_matrix;
using detail::check_square;
using detail::eps_of;

namespace {

// S * (eps * max(m, n)) for A's m x n matrices: PyTorch's default relative tolerance. With a
// dynamic m or n the factor is a tensor, so that a traced graph scales with each run's size.
Tensor times_eps_max(const Tensor& S, const Tensor& A) {
  const SymInt k = sym_max(A.sym_size(-2), A.sym_size(-1));
  const double eps = eps_of(A.dtype());
  if (!k.is_symbolic()) return S * (eps * static_cast<double>(k.guard_int()));
  return S * (ops::sym_size_tensor(k, TensorOptions(S.dtype()).device(S.device())) * eps);
}

// PyTorch's pinv/matrix_rank tolerance: max(atol, rtol * largest singular value), with rtol
// defaulting to eps * max(m, n) when neither is given and to 0 when only atol is.
Tensor tolerance(const Tensor& S_max, const Tensor& A, std::optional<double> atol,
                 std::optional<double> rtol) {
  Tensor tol = rtol.has_value()                ? S_max * *rtol
               : atol.has_value() && *atol > 0 ? S_max * 0.0
                                               : times_eps_max(S_max, A);
  if (atol.has_value()) tol = tol.clamp_min(*atol);
  return tol;
}

// Singular values (or |eigenvalues|) and the largest of them, keepdim.
Tensor spectrum(const Tensor& A, bool hermitian) {
  return hermitian ? eigvalsh(A).abs() : svdvals(A);
}

Tensor max_last(const Tensor& S) {
  if (S.sym_size(-1) == 0) return zeros_like(S.narrow(-1, 0, 0)).sum(-1, true);
  return S.amax(-1, true);
}

}  // namespace

Tensor pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol,
            bool hermitian) {
  const char* op = "linalg.pinv";
  check_float(A, op);
  check_matrix(A, op);
  if (hermitian) {
    check_square(A, op);
    auto [L, Q] = eigh(A);
    Tensor absL = L.abs();
    Tensor keep = absL > tolerance(max_last(absL), A, atol, rtol);
    Tensor Linv = where(keep, reciprocal(where(keep, L, ones_like(L))), zeros_like(L));
    return matmul(Q * Linv.unsqueeze(-2), Q.mT());
  }
  auto [U, S, Vh] = svd(A, false);
  Tensor keep = S > tolerance(max_last(S), A, atol, rtol);
  Tensor Sinv = where(keep, reciprocal(where(keep, S, ones_like(S))), zeros_like(S));
  return matmul(Vh.mT() * Sinv.unsqueeze(-2), U.mT());
}

Tensor matrix_rank(const Tensor& A, std::optional<double> atol, std::optional<double> rtol,
                   bool hermitian) {
  const char* op = "linalg.matrix_rank";
  check_float(A, op);
  check_matrix(A, op);
  if (hermitian) check_square(A, op);
  Tensor S = spectrum(A, hermitian);
  return (S > tolerance(max_last(S), A, atol, rtol)).sum(-1);
}

LstsqResult lstsq(const Tensor& A, const Tensor& B, std::optional<double> rcond,
                  const std::optional<std::string>& driver) {
  const char* op = "linalg.lstsq";
  check_float(A, op);
  check_matrix(A, op);
  EMBER_CHECK(B.defined() && B.dim() >= 1, "[", op,
              "] input.dim() must be greater or equal to other.dim() and (input.dim() - "
              "other.dim()) <= 1");
  detail::check_same_dtype(A, B, op);
  const std::string drv = driver.value_or("gelsy");
  EMBER_CHECK(drv == "gels" || drv == "gelsy" || drv == "gelsd" || drv == "gelss", "[", op,
              "] parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  const bool vector_case = B.dim() == A.dim() - 1;
  Tensor B2 = vector_case ? B.unsqueeze(-1) : B;
  // SymInts: a dynamic m or n stays symbolic (Note [Symbolic shapes]).
  const SymInt m = A.sym_size(-2), n = A.sym_size(-1);
  EMBER_CHECK(m == B2.sym_size(-2), "[", op, "] input.size(-2) should match other.size(-2)");
  // Minimum-norm solution through the pseudo-inverse (what gelsd computes); rcond as rtol.
  auto [U, S, Vh] = svd(A, false);
  const Tensor s_max = S.narrow(-1, 0, sym_min(1, S.sym_size(-1))).sum(-1, true);
  Tensor keep = S > (rcond.has_value() ? s_max * *rcond : times_eps_max(s_max, A));
  Tensor Sinv = where(keep, reciprocal(where(keep, S, ones_like(S))), zeros_like(S));
  Tensor X = matmul(Vh.mT() * Sinv.unsqueeze(-2), matmul(U.mT(), B2));
  const Device device = A.device();
  Tensor rank = drv == "gels" ? ops::empty_tensor({0}, kInt64, op, device) : keep.sum(-1);
  Tensor sv = drv == "gelsd" || drv == "gelss" ? S : ops::empty_tensor({0}, A.dtype(), op, device);
  Tensor residuals = ops::empty_tensor({0}, A.dtype(), op, device);
  // Whether A has full rank (read from the data) matters only where residuals can exist.
  const auto full_rank = [&] {
    return rank.numel() == 0 || (rank == n.guard_int(op)).all().item<bool>();
  };
  if (drv != "gelsy" && m > n && full_rank()) {
    Tensor R = matmul(A, X) - B2;
    residuals = (R * R).sum(-2);
    if (vector_case) residuals = residuals.squeeze(-1);
  }
  if (vector_case) X = X.squeeze(-1);
  return {X, residuals, rank, sv};
}

Tensor vector_norm(const Tensor& x, double ord, OptionalIntList dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  return ember::norm(x, ord, dim.has_value() ? IntList(*dim) : IntList(), keepdim, dtype);
}

namespace {

// Matrix norms on the last two dims of Am (already moved there).
Tensor matrix_norm_last(const Tensor& Am, double ord, const char* op) {
  if (ord == 2 || ord == -2) {
    Tensor S = svdvals(Am);
    return ord > 0 ? S.amax(-1) : S.amin(-1);
  }
  if (ord == 1 || ord == -1) {
    Tensor c = Am.abs().sum(-2);
    return ord > 0 ? c.amax(-1) : c.amin(-1);
  }
  if (std::isinf(ord)) {
    Tensor r = Am.abs().sum(-1);
    return ord > 0 ? r.amax(-1) : r.amin(-1);
  }
  EMBER_THROW(RuntimeError, "[", op, "] Order ", ord, " not supported.");
}

Tensor matrix_norm_impl(const Tensor& A, const std::optional<std::string>& sord, double ord,
                        std::vector<int64_t> dim, bool keepdim, std::optional<ScalarType> dtype) {
  const char* op = "linalg.matrix_norm";
  check_float(A, op);
  check_matrix(A, op);
  EMBER_CHECK(dim.size() == 2, "[", op, "] dim must be a 2-tuple. Got ", dim.size(), " dimensions");
  auto wd = ops::wrap_dims(dim, A.dim(), op);
  EMBER_CHECK(wd[0] != wd[1], "[", op, "] dims must be different. Got (", dim[0], ", ", dim[1],
              ")");
  Tensor Ad = dtype.has_value() ? A.to(*dtype) : A;
  if (sord.has_value() && *sord == "fro") return vector_norm(Ad, 2, dim, keepdim);
  Tensor Am = movedim(Ad, IntList(wd), IntList({-2, -1}));
  Tensor r;
  if (sord.has_value()) {
    EMBER_CHECK(*sord == "nuc", "[", op, "] Order ", *sord, " not supported.");
    r = svdvals(Am).sum(-1);
  } else {
    r = matrix_norm_last(Am, ord, op);
  }
  if (keepdim) {
    const int64_t lo = std::min(wd[0], wd[1]), hi = std::max(wd[0], wd[1]);
    r = r.unsqueeze(lo).unsqueeze(hi);
  }
  return r;
}

}  // namespace

Tensor matrix_norm(const Tensor& A, const std::string& ord, std::vector<int64_t> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  return matrix_norm_impl(A, ord, 0, std::move(dim), keepdim, dtype);
}

Tensor matrix_norm(const Tensor& A, double ord, std::vector<int64_t> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  return matrix_norm_impl(A, std::nullopt, ord, std::move(dim), keepdim, dtype);
}

Tensor norm(const Tensor& A, std::optional<double> ord, OptionalIntList dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  const char* op = "linalg.norm";
  if (dim.has_value()) {
    EMBER_CHECK(dim->size() == 1 || dim->size() == 2, "[", op,
                "] If dim is specified, it must be of length 1 or 2. Got ", dim->size());
  } else if (ord.has_value()) {
    EMBER_CHECK(A.dim() == 1 || A.dim() == 2, "[", op,
                "] If dim is not specified but ord is, the input must be 1D or 2D. Got ", A.dim(),
                "D.");
  }
  const bool matrix = dim.has_value() ? dim->size() == 2 : (ord.has_value() && A.dim() == 2);
  if (matrix) {
    std::vector<int64_t> d = dim.value_or(std::vector<int64_t>{-2, -1});
    if (!ord.has_value()) return matrix_norm(A, "fro", d, keepdim, dtype);
    return matrix_norm(A, *ord, d, keepdim, dtype);
  }
  if (!dim.has_value()) {
    Tensor r = vector_norm(A, ord.value_or(2), std::nullopt, false, dtype);
    if (keepdim) r = r.reshape(SymIntList(std::vector<int64_t>(A.dim(), 1)));
    return r;
  }
  return vector_norm(A, ord.value_or(2), dim, keepdim, dtype);
}

Tensor norm(const Tensor& A, const std::string& ord, OptionalIntList dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  const char* op = "linalg.norm";
  if (dim.has_value()) {
    EMBER_CHECK(dim->size() == 2, "[", op, "] Order ", ord, " only supports matrices (2 dims)");
  } else {
    EMBER_CHECK(A.dim() == 2, "[", op,
                "] If dim is not specified but ord is, the input must be 1D or 2D. Got ", A.dim(),
                "D.");
  }
  return matrix_norm(A, ord, dim.value_or(std::vector<int64_t>{-2, -1}), keepdim, dtype);
}

namespace {

// PyTorch's _linalg_cond_helper: norm(A) * norm(A^{-1}), where the inverse of a singular matrix
// (inv_ex's info > 0) is filled with inf, so its condition number is inf instead of an error,
// and the 0 * inf of a zero matrix is inf too.
template <typename Ord>
Tensor cond_via_inverse(const Tensor& A, const Ord& p) {
  const double inf = std::numeric_limits<double>::infinity();
  auto [Ainv, info] = inv_ex(A);
  Ainv = masked_fill(Ainv, (info > 0).unsqueeze(-1).unsqueeze(-1), inf);
  return nan_to_num(matrix_norm(A, p) * matrix_norm(Ainv, p), inf, inf, -inf);
}

// NumPy leaves the condition number of 0x0 matrices undefined; PyTorch returns 0 for any empty
// input.
Tensor cond_empty(const Tensor& A) {
  return zeros(SymIntList(detail::batch_shape(A)), A.options());
}

}  // namespace

Tensor cond(const Tensor& A, std::optional<double> p) {
  const char* op = "linalg.cond";
  check_float(A, op);
  check_matrix(A, op);
  if (p.has_value()) {
    const double a = std::fabs(*p);
    EMBER_CHECK(a == 2 || a == 1 || std::isinf(a), "[", op,
                "] linalg.cond got an invalid norm type: ", *p);
  }
  if (A.sym_numel() == 0) return cond_empty(A);
  if (!p.has_value() || std::fabs(*p) == 2) {
    // Singular values descending: s_max / s_min (inf when s_min is 0). s_min as amin, not a
    // view at the end: a non-square matrix with a dynamic dim has Min(s0, n) of them, and a
    // graph holds no view at a symbolic offset.
    Tensor S = svdvals(A);
    Tensor r = S.narrow(-1, 0, 1) / S.amin(-1, true);
    if (p.has_value() && *p < 0) r = reciprocal(r);
    return r.squeeze(-1);
  }
  check_square(A, op);
  return cond_via_inverse(A, *p);
}

Tensor cond(const Tensor& A, const std::string& p) {
  const char* op = "linalg.cond";
  check_float(A, op);
  check_square(A, op);
  EMBER_CHECK(p == "fro" || p == "nuc", "[", op, "] linalg.cond got an invalid norm type: ", p);
  if (A.sym_numel() == 0) return cond_empty(A);
  if (p == "nuc") {
    // As PyTorch: the nuclear norms from the singular values directly, sum(S) * sum(1 / S).
    Tensor S = svdvals(A);
    return S.sum(-1) * reciprocal(S).sum(-1);
  }
  return cond_via_inverse(A, p);
}

Tensor matrix_power(const Tensor& A, int64_t n) {
  const char* op = "linalg.matrix_power";
  check_square(A, op);
  if (n == 0) {
    return eye(A.size(-1), A.options()).expand(SymIntList(A.sym_sizes())).clone();
  }
  Tensor base = A;
  if (n < 0) {
    check_float(A, op);
    base = inv(A);
    n = -n;
  }
  Tensor result;
  while (n > 0) {
    if (n & 1) result = result.defined() ? matmul(result, base) : base;
    n >>= 1;
    if (n > 0) base = matmul(base, base);
  }
  return result;
}

Tensor matrix_exp(const Tensor& A) {
  const char* op = "linalg.matrix_exp";
  check_float(A, op);
  check_square(A, op);
  const int64_t n = A.size(-1);
  if (A.sym_numel() == 0) return A.clone();
  // Scaling and squaring with a degree-18 Taylor polynomial: ||A / 2^s||_1 <= 1/2 keeps the
  // truncation error below eps(double). A meta input has no norm: its shape is all there is.
  double norm1 = 0;
  if (!A.device().is_meta()) {
    NoGradGuard g;
    norm1 = A.abs().sum(-2).amax().to(kFloat64).item<double>();
  }
  EMBER_CHECK_T(LinAlgError, std::isfinite(norm1), "[", op,
                "] the input contains non-finite values");
  int s = 0;
  if (norm1 > 0.5) s = static_cast<int>(std::ceil(std::log2(norm1 / 0.5)));
  Tensor X = A * std::ldexp(1.0, -s);
  Tensor I = eye(n, A.options());
  Tensor E = I + X / 18.0;
  for (int k = 17; k >= 1; --k) E = I + matmul(X, E) / static_cast<double>(k);
  for (int i = 0; i < s; ++i) E = matmul(E, E);
  return E;
}

Tensor cross(const Tensor& input, const Tensor& other, int64_t dim) {
  const char* op = "linalg.cross";
  EMBER_CHECK(input.dim() == other.dim(), "[", op,
              "] inputs must have the same number of dimensions.");
  const int64_t d = ops::wrap_dim(dim, input.dim(), op);
  // SymInts: only the crossed dim must be 3; a dynamic batch dim stays symbolic.
  EMBER_CHECK(input.sym_size(d) == 3 && other.sym_size(d) == 3, "[", op, "] inputs dimension ", dim,
              " must have length 3. Got ", input.sym_size(d), " and ", other.sym_size(d));
  // Components (1, 2, 0) and (2, 0, 1) as rolls of the length-3 dim: no index tensor made from
  // host values, so a graph (or a meta input) needs no constant.
  const auto next = [d](const Tensor& t) { return t.roll(-1, d); };
  const auto prev = [d](const Tensor& t) { return t.roll(1, d); };
  return next(input) * prev(other) - prev(input) * next(other);
}

Tensor vecdot(const Tensor& x, const Tensor& y, int64_t dim) {
  const char* op = "linalg.vecdot";
  EMBER_CHECK(x.dtype() == y.dtype(), "[", op,
              "] Expected x and y to have the same dtype, but found x of type ",
              scalar_type_name(x.dtype()), " and y of type ", scalar_type_name(y.dtype()),
              " instead.");
  Tensor p = x * y;
  return p.sum(ops::wrap_dim(dim, p.dim(), op) - p.dim());
}

namespace {

// The product of tensors[i..j] in the order `split` chose (PyTorch's matrix_chain_multiplication).
Tensor chain_product(const std::vector<Tensor>& t, const std::vector<std::vector<size_t>>& split,
                     size_t i, size_t j) {
  if (i == j) return t[i];
  return mm(chain_product(t, split, i, split[i][j]), chain_product(t, split, split[i][j] + 1, j));
}

}  // namespace

Tensor multi_dot(const std::vector<Tensor>& tensors) {
  const char* op = "linalg.multi_dot";
  const size_t k = tensors.size();
  EMBER_CHECK(k >= 2, "[", op, "] multi_dot(): expected at least 2 tensors but got ", k);
  for (size_t i = 0; i < k; ++i) {
    const int64_t d = tensors[i].dim();
    if (i == 0 || i + 1 == k) {
      EMBER_CHECK(d == 1 || d == 2, "[", op, "] multi_dot(): the ", i == 0 ? "first" : "last",
                  " tensor must be 1D or 2D but got ", d, "D");
    } else {
      EMBER_CHECK(d == 2, "[", op, "] multi_dot(): tensor ", i, " must be 2D but got ", d, "D");
    }
  }
  // A 1-D first tensor is a row (1, n), a 1-D last one a column (n, 1); the order below is
  // chosen for these 2-D shapes.
  std::vector<Tensor> t = tensors;
  if (t[0].dim() == 1) t[0] = t[0].unsqueeze(0);
  if (t[k - 1].dim() == 1) t[k - 1] = t[k - 1].unsqueeze(1);
  for (size_t i = 1; i < k; ++i) {
    EMBER_CHECK(t[i - 1].sym_size(1) == t[i].sym_size(0), "[", op, "] multi_dot(): tensors ", i - 1,
                " and ", i, " with shapes ", ops::shape_str(tensors[i - 1].sizes()), " and ",
                ops::shape_str(tensors[i].sizes()), " cannot be multiplied");
  }
  // The order of least cost (multiply-adds), as PyTorch: for three matrices (a x b)(b x c)(c x d)
  // the cheaper of (AB)C, cost a c (b + d), and A(BC), cost b d (a + c), ties to (AB)C; for more,
  // the matrix-chain dynamic programme, ties to the first split.
  Tensor r;
  if (k == 2) {
    r = mm(t[0], t[1]);
  } else if (k == 3) {
    // SymInts: with a dynamic size the comparison is a guard that its range may decide.
    const SymInt a = t[0].sym_size(0), b = t[1].sym_size(0), c = t[2].sym_size(0),
                 d = t[2].sym_size(1);
    r = a * c * (b + d) > b * d * (a + c) ? mm(t[0], mm(t[1], t[2])) : mm(mm(t[0], t[1]), t[2]);
  } else {
    // The programme compares concrete costs: a dynamic size specialises here, as in PyTorch
    // (whose multi_dot reads size(), not sym_size()).
    std::vector<int64_t> p(k + 1);  // tensor i is p[i] x p[i + 1]
    for (size_t i = 0; i < k; ++i) p[i] = t[i].size(0);
    p[k] = t[k - 1].size(1);
    std::vector<std::vector<int64_t>> cost(k, std::vector<int64_t>(k, 0));
    std::vector<std::vector<size_t>> split(k, std::vector<size_t>(k, 0));
    for (size_t len = 1; len < k; ++len) {
      for (size_t i = 0; i + len < k; ++i) {
        const size_t j = i + len;
        cost[i][j] = std::numeric_limits<int64_t>::max();
        for (size_t s = i; s < j; ++s) {
          const int64_t q = cost[i][s] + cost[s + 1][j] + p[i] * p[s + 1] * p[j + 1];
          if (q < cost[i][j]) {
            cost[i][j] = q;
            split[i][j] = s;
          }
        }
      }
    }
    r = chain_product(t, split, 0, k - 1);
  }
  if (tensors[0].dim() == 1) r = r.squeeze(0);
  if (tensors[k - 1].dim() == 1) r = r.squeeze(-1);
  return r;
}

}  // namespace ember::linalg
