// Gradients of the linear-algebra primitives, written with Ember ops (so they are differentiable
// again). Formulas as PyTorch's FunctionsManual.cpp (cholesky_backward, linalg_eig_backward,
// svd_backward, linalg_qr_backward, linalg_solve / triangular solve backward).
#include "ember/autograd.h"
#include "ember/linalg.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/matmul.h"
#include "ember/ops/shape.h"
#include "linalg/common.h"
#include "primitives/linalg.h"
#include "primitives/vjp_util.h"

namespace ember {

using linalg::detail::diag_embed;

namespace {

Tensor eye_like_last(const Tensor& t) { return eye(t.size(-1), TensorOptions().dtype(t.dtype())); }

// Note [Gauge of eigen- and singular vectors]: the real vectors of distinct eigen/singular values
// are defined up to sign, a discrete choice, but those of a value repeated k times only up to a
// rotation of their k-dimensional subspace: the real analogue of the complex phase that PyTorch's
// backward checks. A loss that changes under that rotation has no gradient. One that does not (a
// projector, U_i Vh_i summed over the block) has zero coupling between the repeated values, and
// the term that couples them (coupling / gap, 0/0) contributes nothing. With the gap written out:
//   eigh: skew(Q^T gQ)_ij / (L_j - L_i);
//   svd:  (sU_ij S_j + S_i sV_ij) / (S_j^2 - S_i^2)
//           = 1/2 (sU + sV)_ij / (S_j - S_i) + 1/2 (sU - sV)_ij / (S_j + S_i),
// with sU = skew(U^T gU), sV = skew(V^T gV): U and V turn together within a repeated singular
// value, and independently within repeated zeros (the second term's gap).

/// coupling_ij / (vals_j - vals_i) (sum: / (vals_j + vals_i)), zero where that gap is zero to
/// working precision (i != j), after checking that the loss does not depend on the gauge there
/// (PyTorch's lax tolerance: |C_ij| <= 1e-2 (1 + |scale_ij|)). coupling's diagonal is zero.
Tensor divide_off_gauge(const Tensor& coupling, const Tensor& vals, bool sum, const Tensor& scale,
                        const char* op, const char* backward, const char* vectors) {
  const Tensor I = eye_like_last(vals);
  const Tensor gap =
      sum ? vals.unsqueeze(-2) + vals.unsqueeze(-1) : vals.unsqueeze(-2) - vals.unsqueeze(-1);
  const double rel =
      8.0 * static_cast<double>(vals.size(-1)) * linalg::detail::eps_of(vals.dtype());
  const Tensor tol = vals.abs().amax(-1, true).unsqueeze(-1) * rel;
  const Tensor gapless = (gap.abs() <= tol).to(vals.dtype()) * (1.0 - I);
  const Tensor bad = gapless * (coupling.abs() - (scale.abs() + 1.0) * 1e-2);
  EMBER_CHECK(!(bad > 0).any().item<bool>(), "[", op, "] ", backward, ": The ", vectors,
              " of repeated values are only specified up to a rotation of their subspace. The "
              "specified loss function depends on this rotation, making it ill-defined.");
  return coupling / (gap + gapless + I) * (1.0 - gapless);
}

}  // namespace

std::vector<Tensor> LinalgCholesky::vjp(const VjpContext& ctx) const {
  // A = L L^T: gA = L^{-T} Φ(L^T gL) L^{-1} made symmetric (Φ: lower triangle, halved diagonal).
  const Tensor L = p_.upper ? ctx.outputs[0].mT() : ctx.outputs[0];
  const Tensor gL = p_.upper ? ctx.grads[0].mT() : ctx.grads[0];
  Tensor gA = matmul(L.mT(), gL).tril();
  gA = 0.5 * (gA + gA.tril(-1).mT());
  gA = linalg::solve_triangular(L.mT(), gA, /*upper=*/true, /*left=*/true);
  gA = linalg::solve_triangular(L, gA, /*upper=*/false, /*left=*/false);
  return {gA};
}

std::vector<Tensor> LinalgLuFactor::vjp(const VjpContext& ctx) const {
  // P^T A = L U, k = min(m, n). With X = L1^{-1} dA'_1 U1^{-1} over the square k×k parts,
  // dL1 = L1 tril(X, -1) and dU1 = triu(X) U1; the rest of the factors follow the square part:
  // tall (m > n): L2 = A'_2 U^{-1}; wide (m < n): U2 = L^{-1} A'_2. The adjoint:
  //   gX = tril(L1^T gL1', -1) + triu(gU1' U1^T), gA'_1 = L1^{-T} gX U1^{-T}, with
  //   tall: gU1' U1^T = triu(gU) U^T - L2^T gL2 and gA'_2 = gL2 U^{-T};
  //   wide: L1^T gL1' = L^T tril(gL, -1) - gU2 U2^T and gA'_2 = L^{-T} gU2.
  const Tensor& LU = ctx.outputs[0];
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  const Tensor& g = ctx.grads[0];
  const Tensor sq = LU.narrow(-2, 0, k).narrow(-1, 0, k);
  const Tensor gsq = g.narrow(-2, 0, k).narrow(-1, 0, k);
  const Tensor L1 = sq.tril(-1) + eye_like_last(sq);
  const Tensor U1 = sq.triu();
  Tensor lower = matmul(L1.mT(), gsq.tril(-1));
  Tensor upper = matmul(gsq.triu(), U1.mT());
  if (m > n) {
    const Tensor L2 = LU.narrow(-2, n, m - n), gL2 = g.narrow(-2, n, m - n);
    upper = upper - matmul(L2.mT(), gL2);
  } else if (m < n) {
    const Tensor U2 = LU.narrow(-1, m, n - m), gU2 = g.narrow(-1, m, n - m);
    lower = lower - matmul(gU2, U2.mT());
  }
  Tensor gX = lower.tril(-1) + upper.triu();
  Tensor gA = linalg::solve_triangular(L1.mT(), gX, /*upper=*/true, /*left=*/true,
                                       /*unitriangular=*/true);
  gA = linalg::solve_triangular(U1.mT(), gA, /*upper=*/false, /*left=*/false);
  if (m > n) {
    Tensor g2 = linalg::solve_triangular(U1.mT(), g.narrow(-2, n, m - n), /*upper=*/false,
                                         /*left=*/false);
    gA = cat({gA, g2}, -2);
  } else if (m < n) {
    Tensor g2 = linalg::solve_triangular(L1.mT(), g.narrow(-1, m, n - m), /*upper=*/true,
                                         /*left=*/true, /*unitriangular=*/true);
    gA = cat({gA, g2}, -1);
  }
  Tensor P = linalg::detail::pivots_to_permutation(ctx.outputs[1], m, LU.dtype());
  return {matmul(P, gA)};
}

std::vector<Tensor> LinalgLuSolve::vjp(const VjpContext& ctx) const {
  // A = P L U packed in LU. X = A^{-1} B: gB = A^{-T} gX, gA = -gB X^T; with trans (A^T X = B):
  // gB = A^{-1} gX, gA = -X gB^T. Then the packed factors: gL = tril(P^T gA U^T, -1) and
  // gU = triu(L^T P^T gA).
  const Tensor &LU = ctx.inputs[0], &pivots = ctx.inputs[1];
  const Tensor& X = ctx.outputs[0];
  Tensor gB = linalg::lu_solve(LU, pivots, ctx.grads[0], /*left=*/true, /*adjoint=*/!p_.trans);
  Tensor gLU = grad_if(ctx.needs_grad[0], [&] {
    Tensor gA = p_.trans ? -matmul(X, gB.mT()) : -matmul(gB, X.mT());
    const Tensor L = LU.tril(-1) + eye_like_last(LU);
    const Tensor U = LU.triu();
    Tensor P = linalg::detail::pivots_to_permutation(pivots, LU.size(-1), LU.dtype());
    Tensor PtgA = matmul(P.mT(), gA);
    return matmul(PtgA, U.mT()).tril(-1) + matmul(L.mT(), PtgA).triu();
  });
  return {gLU, Tensor(), ctx.needs_grad[2] ? gB : Tensor()};
}

std::vector<Tensor> LinalgSolve::vjp(const VjpContext& ctx) const {
  // X = A^{-1} B: gB = A^{-T} gX, gA = -gB X^T.
  const Tensor& A = ctx.inputs[0];
  const Tensor& X = ctx.outputs[0];
  Tensor gB = linalg::solve(A.mT(), ctx.grads[0]);
  Tensor gA = grad_if(ctx.needs_grad[0], [&] { return -matmul(gB, X.mT()); });
  return {gA, ctx.needs_grad[1] ? gB : Tensor()};
}

std::vector<Tensor> LinalgSolveTriangular::vjp(const VjpContext& ctx) const {
  const Tensor& A = ctx.inputs[0];
  const Tensor& X = ctx.outputs[0];
  Tensor gB = linalg::solve_triangular(A.mT(), ctx.grads[0], !p_.upper, true, p_.unitriangular);
  Tensor gA = grad_if(ctx.needs_grad[0], [&] {
    Tensor g = -matmul(gB, X.mT());
    const int64_t off = p_.unitriangular ? 1 : 0;
    return p_.upper ? g.triu(off) : g.tril(-off);
  });
  return {gA, ctx.needs_grad[1] ? gB : Tensor()};
}

std::vector<Tensor> LinalgEigh::vjp(const VjpContext& ctx) const {
  // gA = Q (diag(gL) + skew(Q^T gQ) / E) Q^T with E_ij = L_j - L_i (i != j).
  const Tensor& L = ctx.outputs[0];
  const Tensor& Q = ctx.outputs[1];
  Tensor inner;
  if (ctx.has_grad[1]) {
    Tensor QgQ = matmul(Q.mT(), ctx.grads[1]);
    QgQ = 0.5 * (QgQ - QgQ.mT());
    inner =
        divide_off_gauge(QgQ, L, false, QgQ, "linalg.eigh", "linalg_eigh_backward", "eigenvectors");
  }
  if (ctx.has_grad[0]) {
    Tensor d = diag_embed(ctx.grads[0]);
    inner = inner.defined() ? inner + d : d;
  }
  if (!inner.defined()) return {zeros_like(Q)};
  return {matmul(matmul(Q, inner), Q.mT())};
}

std::vector<Tensor> LinalgSvd::vjp(const VjpContext& ctx) const {
  Tensor U = ctx.outputs[0], S = ctx.outputs[1], Vh = ctx.outputs[2];
  const int64_t m = U.size(-2), n = Vh.size(-1), k = S.size(-1);
  const bool has_gU = ctx.has_grad[0], has_gVh = ctx.has_grad[2];
  Tensor gU = ctx.grads[0], gS = ctx.grads[1], gVh = ctx.grads[2];
  if (p_.full_matrices) {  // only the first k singular vectors are determined
    U = U.narrow(-1, 0, k);
    Vh = Vh.narrow(-2, 0, k);
    gU = gU.narrow(-1, 0, k);
    gVh = gVh.narrow(-2, 0, k);
  }
  if (!has_gU && !has_gVh) return {matmul(U * gS.unsqueeze(-2), Vh)};
  const Tensor V = Vh.mT(), gV = gVh.mT();
  const Tensor UhgU = matmul(U.mT(), gU), VhgV = matmul(V.mT(), gV);
  const auto skew = [](const Tensor& X) { return X - X.mT(); };
  const Tensor sU = has_gU ? skew(UhgU) : zeros_like(UhgU);
  const Tensor sV = has_gVh ? skew(VhgV) : zeros_like(VhgV);
  const Tensor scale = sU.abs() + sV.abs();
  const auto half = [&](const Tensor& coupling, bool sum) {
    return 0.5 * divide_off_gauge(coupling, S, sum, scale, "linalg.svd", "svd_backward",
                                  "singular vectors");
  };
  Tensor ret = half(sU + sV, false) + half(sU - sV, true);
  ret = ret + diag_embed(gS);
  if (m > k && has_gU) {
    Tensor gA = matmul(U, ret) + (gU - matmul(U, UhgU)) / S.unsqueeze(-2);
    return {matmul(gA, Vh)};
  }
  if (n > k && has_gVh) {
    Tensor gA = matmul(ret, Vh) + (gV - matmul(V, VhgV)).mT() / S.unsqueeze(-1);
    return {matmul(U, gA)};
  }
  return {matmul(matmul(U, ret), Vh)};
}

std::vector<Tensor> LinalgQr::vjp(const VjpContext& ctx) const {
  EMBER_CHECK(p_.mode != QrMode::R,
              "[linalg.qr] The derivative of linalg.qr depends on Q, which is "
              "not computed when mode='r'. Please use linalg.qr(A, mode='reduced') if you are "
              "going to differentiate through linalg.qr.");
  const Tensor& Q = ctx.outputs[0];
  const Tensor& R = ctx.outputs[1];
  const int64_t m = Q.size(-2), n = R.size(-1);
  EMBER_CHECK(!(p_.mode == QrMode::Complete && m > n),
              "[linalg.qr] The QR decomposition is not differentiable when mode='complete' and "
              "nrows > ncols.");
  // Wide input (m < n) is differentiated through its square part (linalg::qr), never here.
  EMBER_CHECK_NOT_IMPL(m >= n,
                       "[linalg.qr] the derivative for 'linalg_qr' of a wide matrix is "
                       "taken through linalg::qr");
  // A = QR, m >= n: M = R gR^T - gQ^T Q, gA = (gQ + Q copyltu(M)) R^{-T}.
  Tensor M = matmul(R, ctx.grads[1].mT()) - matmul(ctx.grads[0].mT(), Q);
  Tensor sym = M.tril(-1);
  sym = sym + sym.mT() + diag_embed(M.diagonal(0, -2, -1));
  Tensor b = ctx.grads[0] + matmul(Q, sym);
  // b R^{-T}: solve X R^T = b.
  return {linalg::solve_triangular(R.mT(), b, /*upper=*/false, /*left=*/false)};
}

namespace {

// prod_{j != i} s_j along the last dim, with exclusive cumulative products (no division, so
// zeros are fine).
Tensor prod_except_self(const Tensor& s) {
  const int64_t k = s.size(-1);
  Tensor one = ones_like(s.narrow(-1, 0, 1));
  Tensor left = cat({one, s.cumprod(-1).narrow(-1, 0, k - 1)}, -1);
  Tensor sf = s.flip({-1});
  Tensor right = cat({one, sf.cumprod(-1).narrow(-1, 0, k - 1)}, -1).flip({-1});
  return left * right;
}

}  // namespace

std::vector<Tensor> LinalgDet::vjp(const VjpContext& ctx) const {
  // d det = det tr(A^{-1} dA); d log|det| = tr(A^{-1} dA).
  const Tensor& A = ctx.inputs[0];
  if (p_.log_abs) return {ctx.grads[1].unsqueeze(-1).unsqueeze(-1) * linalg::inv(A).mT()};
  const Tensor& d = ctx.outputs[0];
  const Tensor g = ctx.grads[0];
  bool singular = false;
  {
    NoGradGuard no_grad;
    singular = A.size(-1) > 0 && (d == 0).any().item<bool>();
  }
  if (!singular) return {(g * d).unsqueeze(-1).unsqueeze(-1) * linalg::inv(A).mT()};
  // Singular somewhere in the batch: the cofactor matrix from the SVD, A = U S Vh:
  // C = det(U) det(Vh) U diag(prod_{j != i} s_j) Vh, which needs no inverse.
  auto [U, S, Vh] = linalg::svd(A, false);
  Tensor sign = linalg::det(U) * linalg::det(Vh);
  Tensor C = matmul(U * prod_except_self(S).unsqueeze(-2), Vh);
  return {(g * sign).unsqueeze(-1).unsqueeze(-1) * C};
}

}  // namespace ember
