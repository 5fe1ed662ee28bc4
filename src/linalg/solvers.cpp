// ember::linalg solvers, inverses and determinants (src/primitives/linalg.h).
#include "ember/linalg.h"
#include "ember/ops/factory.h"
#include "ember/ops/shape.h"
#include "linalg/common.h"
#include "ops/util.h"
#include "primitives/linalg.h"

namespace ember::linalg {

using detail::batch_shape;
using detail::check_float;
using detail::check_matrix;
using detail::check_square;
using detail::concat;

namespace {

// Broadcasts the batch dims of A [.., n, n] and B [.., n, k]; returns the expanded pair.
std::pair<Tensor, Tensor> broadcast_batches(const Tensor& A, const Tensor& B, const char* op) {
  const auto batch = ops::broadcast_pair(batch_shape(A), batch_shape(B), op);
  Tensor Ae = A.expand(SymIntList(concat(batch, {A.sym_size(-2), A.sym_size(-1)})));
  Tensor Be = B.expand(SymIntList(concat(batch, {B.sym_size(-2), B.sym_size(-1)})));
  return {Ae, Be};
}

void check_solve_shapes(const Tensor& A, const Tensor& B, bool left, const char* op) {
  const SymInt rows = left ? B.sym_size(-2) : B.sym_size(-1);
  EMBER_CHECK(A.sym_size(-1) == rows, "[", op, "] Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", A.size(-2), "x", A.size(-1), " and ", B.size(-2),
              "x", B.size(-1), ")");
}

// A X = B for left; X A = B is A^T X^T = B^T. B is a matrix batch here.
Tensor solve_left(const Tensor& A, const Tensor& B, Tensor* info, const char* op) {
  auto [Ae, Be] = broadcast_batches(A, B, op);
  const auto outs = dispatch(LinalgSolve(), {Ae, Be});
  *info = outs[1];
  return outs[0];
}

}  // namespace

SolveExResult solve_ex(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  const char* op = "linalg.solve";
  check_float(A, op);
  check_square(A, op);
  EMBER_CHECK(B.defined() && B.dim() >= 1, "[", op,
              "] The input tensor B must have at least 1 dimension.");
  detail::check_same_dtype(A, B, op);
  const bool vector_case = detail::is_vector_rhs(A, B);
  Tensor B2 = vector_case ? B.unsqueeze(-1) : B;
  if (vector_case && !left) B2 = B.unsqueeze(-2);
  check_solve_shapes(A, B2, left, op);
  Tensor info;
  Tensor X = left ? solve_left(A, B2, &info, op) : solve_left(A.mT(), B2.mT(), &info, op).mT();
  if (check_errors) detail::check_info(info, op);
  if (vector_case) X = X.squeeze(left ? -1 : -2);
  return {X, info};
}

Tensor solve(const Tensor& A, const Tensor& B, bool left) {
  auto r = solve_ex(A, B, left, false);
  detail::check_info(r.info, "linalg.solve");
  return r.result;
}

Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left,
                        bool unitriangular) {
  const char* op = "linalg.solve_triangular";
  check_float(A, op);
  check_square(A, op);
  check_matrix(B, op, "B");
  detail::check_same_dtype(A, B, op);
  check_solve_shapes(A, B, left, op);
  if (!left) return solve_triangular(A.mT(), B.mT(), !upper, true, unitriangular).mT();
  auto [Ae, Be] = broadcast_batches(A, B, op);
  return dispatch(LinalgSolveTriangular(upper, unitriangular), {Ae, Be})[0];
}

Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  const char* op = "linalg.lu_solve";
  check_float(LU, op);
  check_square(LU, op, "LU");
  check_matrix(B, op, "B");
  detail::check_same_dtype(LU, B, op);
  EMBER_CHECK_TYPE(pivots.defined() && pivots.dtype() == kInt32, "[", op,
                   "] pivots should be a Tensor of scalar type int32");
  EMBER_CHECK(pivots.dim() == LU.dim() - 1 && pivots.size(-1) == LU.size(-1), "[", op,
              "] Expected pivots to have shape LU.shape[:-1] = ",
              ops::shape_str(std::vector<int64_t>(LU.sizes().begin(), LU.sizes().end() - 1)),
              ", got ", ops::shape_str(pivots.sizes()));
  check_solve_shapes(LU, B, left, op);
  if (!left) return lu_solve(LU, pivots, B.mT(), true, !adjoint).mT();
  auto batch = ops::broadcast_pair(batch_shape(LU), batch_shape(B), op);
  const SymInt n = LU.sym_size(-1);
  Tensor LUe = LU.expand(SymIntList(concat(batch, {n, n})));
  Tensor Be = B.expand(SymIntList(concat(batch, {n, B.sym_size(-1)})));
  Tensor pe = pivots.expand(SymIntList(concat(batch, {n}))).contiguous();
  return dispatch(LinalgLuSolve(adjoint), {LUe, pe, Be})[0];
}

InvExResult inv_ex(const Tensor& A, bool check_errors) {
  const char* op = "linalg.inv";
  check_float(A, op);
  check_square(A, op);
  const int64_t n = A.size(-1);
  Tensor I = eye(n, A.options());
  Tensor info;
  Tensor X = solve_left(A, I.expand(SymIntList(A.sym_sizes())), &info, op);
  if (check_errors) detail::check_info(info, op);
  return {X, info};
}

Tensor inv(const Tensor& A) { return inv_ex(A, true).inverse; }

Tensor det(const Tensor& A) {
  const char* op = "linalg.det";
  check_float(A, op);
  check_square(A, op);
  return dispatch(LinalgDet(false), {A})[0];
}

SlogdetResult slogdet(const Tensor& A) {
  const char* op = "linalg.slogdet";
  check_float(A, op);
  check_square(A, op);
  const auto outs = dispatch(LinalgDet(true), {A});
  // As in PyTorch, the sign of a real matrix's determinant is not differentiable.
  return {outs[0].detach(), outs[1]};
}

}  // namespace ember::linalg
