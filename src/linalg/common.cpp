// Shared checks of ember::linalg (src/linalg/common.h), in PyTorch's wording.
#include "linalg/common.h"

#include <algorithm>
#include <limits>

#include "ember/ops/factory.h"

namespace ember::linalg::detail {

void check_float(const Tensor& A, const char* op) {
  EMBER_CHECK(A.defined(), "[", op, "] expected a defined tensor");
  const ScalarType t = A.dtype();
  EMBER_CHECK_TYPE(t != kFloat16 && t != kBFloat16, "[", op,
                   "] Low precision dtypes not supported. Got ", scalar_type_name(t), " (",
                   dtype_name(t), ")");
  EMBER_CHECK_TYPE(t == kFloat32 || t == kFloat64, "[", op,
                   "] Expected a floating point or complex tensor as input. Got ",
                   scalar_type_name(t), " (", dtype_name(t), ")");
}

void check_matrix(const Tensor& A, const char* op, const char* arg) {
  EMBER_CHECK(A.dim() >= 2, "[", op, "] The input tensor ", arg,
              " must have at least 2 dimensions.");
}

void check_square(const Tensor& A, const char* op, const char* arg) {
  check_matrix(A, op, arg);
  EMBER_CHECK(A.sym_size(-1) == A.sym_size(-2), "[", op, "] ", arg,
              " must be batches of square matrices, but they are ", A.size(-2), " by ", A.size(-1),
              " matrices");
}

void check_same_dtype(const Tensor& A, const Tensor& B, const char* op) {
  EMBER_CHECK(A.dtype() == B.dtype(), "[", op,
              "] Expected A and B to have the same dtype, but found A of type ",
              scalar_type_name(A.dtype()), " and B of type ", scalar_type_name(B.dtype()),
              " instead");
}

std::vector<SymInt> batch_shape(const Tensor& A) {
  std::vector<SymInt> s = A.sym_sizes();
  s.resize(s.size() - 2);
  return s;
}

std::vector<SymInt> concat(std::vector<SymInt> a, const std::vector<SymInt>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void check_info(const Tensor& info, const char* op) {
  if (info.device().is_meta()) return;  // no values to check (as PyTorch's _linalg_check_errors)
  const int32_t* p = info.data_ptr<int32_t>();
  const std::string o(op);
  for (int64_t b = 0; b < info.numel(); ++b) {
    const int32_t v = p[b];
    if (v == 0) continue;
    const std::string batch =
        info.dim() == 0 ? std::string() : ember::detail::str_cat("(Batch element ", b, "): ");
    EMBER_CHECK(v > 0, "[", op, "] ", batch, "Argument ", -v,
                " has illegal value. Most certainly there is a bug in the implementation calling "
                "the backend library.");
    if (o.find("solve") != std::string::npos) {
      EMBER_THROW(LinAlgError, "[", op, "] ", batch,
                  "The solver failed because the input matrix is singular.");
    } else if (o.find("inv") != std::string::npos) {
      EMBER_THROW(LinAlgError, "[", op, "] ", batch, "The diagonal element ", v,
                  " is zero, the inversion could not be completed because the input matrix is "
                  "singular.");
    } else if (o.find("cholesky") != std::string::npos) {
      EMBER_THROW(LinAlgError, "[", op, "] ", batch,
                  "The factorization could not be completed because the input is not "
                  "positive-definite (the leading minor of order ",
                  v, " is not positive-definite).");
    } else if (o.find("lu_factor") != std::string::npos) {
      EMBER_THROW(LinAlgError, "[", op, "] ", batch, "U[", v, ",", v,
                  "] is zero and using it on lu_solve would result in a division by zero. If you "
                  "still want to perform the factorization, consider calling linalg.lu(A, pivot) "
                  "or linalg.lu_factor_ex(A, pivot)");
    }
    EMBER_THROW(LinAlgError, "[", op, "] ", batch, "failed with error code ", v);
  }
}

double eps_of(ScalarType t) {
  return t == kFloat32 ? std::numeric_limits<float>::epsilon()
                       : std::numeric_limits<double>::epsilon();
}

Tensor diag_embed(const Tensor& v) {
  const int64_t n = v.size(-1);
  return v.unsqueeze(-1) * eye(n, v.options());
}

bool is_vector_rhs(const Tensor& A, const Tensor& B) {
  if (B.dim() == 1) return true;
  if (B.dim() != A.dim() - 1) return false;
  const std::vector<SymInt> a = A.sym_sizes(), b = B.sym_sizes();  // a dynamic batch: no guard
  return std::equal(b.begin(), b.end(), a.begin());
}

Tensor pivots_to_permutation(const Tensor& pivots, int64_t m, ScalarType dtype) {
  Tensor piv = pivots.contiguous();
  const int64_t k = piv.size(-1);
  std::vector<int64_t> shape(piv.sizes().begin(), piv.sizes().end() - 1);
  int64_t nb = 1;
  for (int64_t s : shape) nb *= s;
  shape.push_back(m);
  shape.push_back(m);
  Tensor P = zeros(SymIntList(shape), TensorOptions().dtype(kFloat64));
  double* pp = P.data_ptr<double>();
  const int32_t* pv = piv.data_ptr<int32_t>();
  std::vector<int64_t> perm(m);
  for (int64_t b = 0; b < nb; ++b) {
    for (int64_t i = 0; i < m; ++i) perm[i] = i;
    for (int64_t i = 0; i < k; ++i) {
      const int64_t j = std::clamp<int64_t>(pv[b * k + i] - 1, 0, m - 1);
      std::swap(perm[i], perm[j]);
    }
    // Row i of P^T A is row perm[i] of A, so P[perm[i], i] = 1.
    for (int64_t i = 0; i < m; ++i) pp[b * m * m + perm[i] * m + i] = 1;
  }
  return P.to(dtype);
}

}  // namespace ember::linalg::detail
