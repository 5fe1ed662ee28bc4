// ember::linalg decompositions: argument checks, output allocation and dispatch of the
// primitives in src/primitives/linalg.h.
#include "ember/autograd.h"
#include "ember/linalg.h"
#include "ember/ops/factory.h"
#include "ember/ops/matmul.h"
#include "ember/ops/shape.h"
#include "linalg/common.h"
#include "ops/util.h"
#include "primitives/linalg.h"

namespace ember::linalg {

using detail::check_float;
using detail::check_matrix;
using detail::check_square;

CholeskyExResult cholesky_ex(const Tensor& A, bool upper, bool check_errors) {
  const char* op = "linalg.cholesky";
  check_float(A, op);
  check_square(A, op);
  const auto outs = dispatch(LinalgCholesky(upper), {A});
  if (check_errors) detail::check_info(outs[1], op);
  return {outs[0], outs[1]};
}

Tensor cholesky(const Tensor& A, bool upper) { return cholesky_ex(A, upper, true).L; }

LUFactorExResult lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) {
  const char* op = "linalg.lu_factor";
  check_float(A, op);
  check_matrix(A, op);
  EMBER_CHECK_NOT_IMPL(pivot, "[", op, "] LU without pivoting is not implemented on the CPU");
  const auto outs = dispatch(LinalgLuFactor(), {A});
  if (check_errors) detail::check_info(outs[2], op);
  return {outs[0], outs[1], outs[2]};
}

LUFactorResult lu_factor(const Tensor& A, bool pivot) {
  auto r = lu_factor_ex(A, pivot, false);
  detail::check_info(r.info, "linalg.lu_factor");
  return {r.LU, r.pivots};
}

LUResult lu(const Tensor& A, bool pivot) {
  const char* op = "linalg.lu";
  check_float(A, op);
  check_matrix(A, op);
  EMBER_CHECK_NOT_IMPL(pivot, "[", op, "] LU without pivoting is not implemented on the CPU");
  auto f = lu_factor_ex(A, pivot, false);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const auto opts = TensorOptions().dtype(A.dtype());
  // L = unit lower m×k, U = upper k×n, read from the packed factor.
  Tensor L = f.LU.narrow(-1, 0, k).tril(-1) + eye(m, k, opts);
  Tensor U = f.LU.narrow(-2, 0, k).triu();
  Tensor P = detail::pivots_to_permutation(f.pivots, m, A.dtype());
  return {P, L, U};
}

QRResult qr(const Tensor& A, const std::string& mode) {
  const char* op = "linalg.qr";
  check_float(A, op);
  check_matrix(A, op);
  QrMode qm;
  if (mode == "reduced") {
    qm = QrMode::Reduced;
  } else if (mode == "complete") {
    qm = QrMode::Complete;
  } else if (mode == "r") {
    qm = QrMode::R;
  } else {
    EMBER_THROW(ValueError, "[", op, "] qr received unrecognized mode '", mode,
                "' but expected one of 'reduced' (default), 'r', or 'complete'");
  }
  const int64_t m = A.size(-2), n = A.size(-1);
  if (m < n && qm != QrMode::R && is_grad_enabled() && A.requires_grad()) {
    // A wide matrix with a gradient: A = [X | Y] with X square gives Q R = Q [U | Q^T Y] from
    // X = Q U (the reflectors come from X's columns alone), so the square case's gradient
    // carries over.
    auto [Q, U] = qr(A.narrow(-1, 0, m), "reduced");
    return {Q, cat({U, matmul(Q.mT(), A.narrow(-1, m, n - m))}, -1)};
  }
  const auto outs = dispatch(LinalgQr(qm), {A});
  return {outs[0], outs[1]};
}

EighResult eigh(const Tensor& A, const std::string& UPLO) {
  const char* op = "linalg.eigh";
  check_float(A, op);
  check_square(A, op);
  EMBER_CHECK(UPLO == "L" || UPLO == "U" || UPLO == "l" || UPLO == "u", "[", op,
              "] Expected UPLO argument to be 'L' or 'U', but got ", UPLO);
  const auto outs = dispatch(LinalgEigh(UPLO == "U" || UPLO == "u"), {A});
  return {outs[0], outs[1]};
}

Tensor eigvalsh(const Tensor& A, const std::string& UPLO) { return eigh(A, UPLO).eigenvalues; }

SVDResult svd(const Tensor& A, bool full_matrices, const std::optional<std::string>& driver) {
  const char* op = "linalg.svd";
  check_float(A, op);
  check_matrix(A, op);
  EMBER_CHECK(!driver.has_value(), "[", op,
              "] keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER "
              "backend.");
  const auto outs = dispatch(LinalgSvd(full_matrices), {A});
  return {outs[0], outs[1], outs[2]};
}

Tensor svdvals(const Tensor& A, const std::optional<std::string>& driver) {
  check_float(A, "linalg.svdvals");
  check_matrix(A, "linalg.svdvals");
  return svd(A, false, driver).S;
}

namespace {
// The product of reflectors H_1 ... H_k (first n columns) written with Ember ops, used when a
// gradient is needed: autograd then differentiates it (PyTorch derives the same gradient by hand
// in householder_product_backward). H_i = I - tau_i v_i v_i^T, v_i = e_i + A's column i below i.
Tensor householder_product_differentiable(const Tensor& A, const Tensor& tau) {
  const int64_t m = A.size(-2), n = A.size(-1);
  const TensorOptions opts = TensorOptions().dtype(A.dtype());
  Tensor V = A.tril(-1) + eye(m, n, opts);
  Tensor Q = eye(m, n, opts).expand(SymIntList(A.sizes()));
  for (int64_t i = tau.size(-1) - 1; i >= 0; --i) {
    Tensor v = V.narrow(-1, i, 1);
    Q = Q - tau.narrow(-1, i, 1).unsqueeze(-1) * matmul(v, matmul(v.mT(), Q));
  }
  return Q;
}
}  // namespace

Tensor householder_product(const Tensor& A, const Tensor& tau) {
  const char* op = "linalg.householder_product";
  check_float(A, op);
  check_matrix(A, op, "input");
  EMBER_CHECK(tau.defined() && tau.dim() == A.dim() - 1, "[", op,
              "] Expected tau to have one dimension less than input, but got tau.ndim equal to ",
              tau.defined() ? tau.dim() : 0, " and input.ndim is equal to ", A.dim());
  // SymInts: a dynamic size is compared by its range (Note [Symbolic shapes]).
  EMBER_CHECK(A.sym_size(-2) >= A.sym_size(-1), "[", op,
              "] input.shape[-2] must be greater than or equal to input.shape[-1]");
  EMBER_CHECK(A.sym_size(-1) >= tau.sym_size(-1), "[", op,
              "] input.shape[-1] must be greater than or equal to tau.shape[-1]");
  for (int64_t d = 0; d < A.dim() - 2; ++d) {
    EMBER_CHECK(A.sym_size(d) == tau.sym_size(d), "[", op,
                "] Expected batch dimensions of tau to be equal to input.shape[:-2], but got ",
                ops::shape_str(tau.sizes()));
  }
  EMBER_CHECK(A.dtype() == tau.dtype(), "[", op, "] tau dtype ", scalar_type_name(tau.dtype()),
              " does not match input dtype ", scalar_type_name(A.dtype()));
  if (is_grad_enabled() && (A.requires_grad() || tau.requires_grad())) {
    return householder_product_differentiable(A, tau);
  }
  return dispatch(LinalgHouseholderProduct(), {A, tau.contiguous()})[0];
}

Tensor diagonal(const Tensor& A, int64_t offset, int64_t dim1, int64_t dim2) {
  return A.diagonal(offset, dim1, dim2);
}

}  // namespace ember::linalg
