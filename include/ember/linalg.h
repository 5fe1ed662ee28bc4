#pragma once
// ember::linalg: PyTorch's torch.linalg (release 2.14). Every function takes float32 or float64
// input, batched over any leading dims (batch dims of several operands broadcast). Decompositions
// run through primitives (src/primitives/linalg.h) with LAPACK for general sizes and native
// batched kernels for small matrices; the rest is composed from other Ember ops.
//
//   auto [U, S, Vh] = ember::linalg::svd(A, /*full_matrices=*/false);
//   auto [L, Q] = ember::linalg::eigh(A);
#include <optional>
#include <string>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::linalg {

// ---- return types (field names as PyTorch's named tuples)
struct CholeskyExResult {
  Tensor L, info;
};
struct SolveExResult {
  Tensor result, info;
};
struct InvExResult {
  Tensor inverse, info;
};
struct SlogdetResult {
  Tensor sign, logabsdet;
};
struct LUFactorResult {
  Tensor LU, pivots;
};
struct LUFactorExResult {
  Tensor LU, pivots, info;
};
struct LUResult {
  Tensor P, L, U;
};
struct QRResult {
  Tensor Q, R;
};
struct EighResult {
  Tensor eigenvalues, eigenvectors;
};
struct SVDResult {
  Tensor U, S, Vh;
};
struct LstsqResult {
  Tensor solution, residuals, rank, singular_values;
};

// ---- decompositions
/// Cholesky factor L (A = L L^T) or, with upper, U (A = U^T U). Raises LinAlgError naming the
/// leading minor (and batch element) when A is not positive-definite.
Tensor cholesky(const Tensor& A, bool upper = false);
/// cholesky that returns `info` (0, or the order of the failing leading minor) instead of raising
/// (unless check_errors).
CholeskyExResult cholesky_ex(const Tensor& A, bool upper = false, bool check_errors = false);
/// LU factorisation with partial pivoting, packed as LAPACK's getrf (pivots are 1-based int32).
LUFactorResult lu_factor(const Tensor& A, bool pivot = true);
LUFactorExResult lu_factor_ex(const Tensor& A, bool pivot = true, bool check_errors = false);
/// A = P L U with P a permutation matrix, L unit lower triangular, U upper triangular.
LUResult lu(const Tensor& A, bool pivot = true);
/// QR: mode "reduced" (Q m×k, R k×n), "complete" (Q m×m, R m×n) or "r" (R only, Q empty).
QRResult qr(const Tensor& A, const std::string& mode = "reduced");
/// Eigenvalues (ascending) and orthonormal eigenvectors of a symmetric matrix; reads the lower
/// (UPLO "L") or upper ("U") triangle only.
EighResult eigh(const Tensor& A, const std::string& UPLO = "L");
Tensor eigvalsh(const Tensor& A, const std::string& UPLO = "L");
/// A = U diag(S) Vh with S descending. `driver` is accepted for PyTorch compatibility (CUDA only
/// there): it must be empty on the CPU.
SVDResult svd(const Tensor& A, bool full_matrices = true,
              const std::optional<std::string>& driver = std::nullopt);
Tensor svdvals(const Tensor& A, const std::optional<std::string>& driver = std::nullopt);
/// The product of Householder reflectors H_1 ... H_k stored below the diagonal of A (LAPACK's
/// orgqr), the first n columns.
Tensor householder_product(const Tensor& A, const Tensor& tau);

// ---- solvers and inverses
Tensor solve(const Tensor& A, const Tensor& B, bool left = true);
SolveExResult solve_ex(const Tensor& A, const Tensor& B, bool left = true,
                       bool check_errors = false);
/// Solves A X = B (left) or X A = B with A triangular; reads only the named triangle.
Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true,
                        bool unitriangular = false);
Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true,
                bool adjoint = false);
Tensor inv(const Tensor& A);
InvExResult inv_ex(const Tensor& A, bool check_errors = false);
Tensor det(const Tensor& A);
SlogdetResult slogdet(const Tensor& A);
/// Least squares min ||A X - B|| (minimum-norm solution for rank-deficient A, as driver "gelsd").
LstsqResult lstsq(const Tensor& A, const Tensor& B, std::optional<double> rcond = std::nullopt,
                  const std::optional<std::string>& driver = std::nullopt);
Tensor pinv(const Tensor& A, std::optional<double> atol = std::nullopt,
            std::optional<double> rtol = std::nullopt, bool hermitian = false);
Tensor matrix_rank(const Tensor& A, std::optional<double> atol = std::nullopt,
                   std::optional<double> rtol = std::nullopt, bool hermitian = false);

// ---- norms
Tensor vector_norm(const Tensor& x, double ord = 2, OptionalIntList dim = {}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt);
/// ord: "fro" or "nuc".
Tensor matrix_norm(const Tensor& A, const std::string& ord = "fro",
                   std::vector<int64_t> dim = {-2, -1}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt);
/// ord: ±1, ±2, ±inf.
Tensor matrix_norm(const Tensor& A, double ord, std::vector<int64_t> dim = {-2, -1},
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
/// Without ord: the 2-norm of a vector or the Frobenius norm of a matrix (by dim's length).
Tensor norm(const Tensor& A, std::optional<double> ord = std::nullopt, OptionalIntList dim = {},
            bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor norm(const Tensor& A, const std::string& ord, OptionalIntList dim = {}, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
/// Condition number in the p-norm (default 2, from the singular values). For p = ±1, ±inf,
/// "fro" and "nuc" a singular matrix gives inf, as in PyTorch.
Tensor cond(const Tensor& A, std::optional<double> p = std::nullopt);
Tensor cond(const Tensor& A, const std::string& p);

// ---- products and helpers
Tensor matrix_power(const Tensor& A, int64_t n);
Tensor matrix_exp(const Tensor& A);
Tensor cross(const Tensor& input, const Tensor& other, int64_t dim = -1);
Tensor vecdot(const Tensor& x, const Tensor& y, int64_t dim = -1);
/// The chained product in PyTorch's order: the cheaper of (AB)C and A(BC) for three tensors, the
/// matrix-chain optimum for more; a 1-D first (last) tensor is a row (column) vector.
Tensor multi_dot(const std::vector<Tensor>& tensors);
Tensor diagonal(const Tensor& A, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);

}  // namespace ember::linalg
