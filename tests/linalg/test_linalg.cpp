// ember::linalg decompositions and solvers: reconstruction residuals relative to n·eps,
// orthogonality, ordering, special inputs (diagonal, triangular, ill-conditioned,
// rank-deficient), broadcasting batches, non-contiguous input, 0×0 and empty batches.
#include "backend/cpu/linalg_util.h"
#include "linalg/linalg_test_util.h"

namespace ember {
namespace {

using namespace test::la;
namespace la = ember::linalg;

const ScalarType kDtypes[] = {kFloat32, kFloat64};

// Tolerance for a residual: a multiple of n·eps.
double tol(ScalarType dt, int64_t n) { return 50 * std::max<int64_t>(n, 1) * eps(dt); }

TEST(Linalg, Cholesky) {
  for (ScalarType dt : kDtypes) {
    for (int64_t n : {1, 4, 40}) {
      Tensor A = spd({2, 3, n, n}, dt, n);
      Tensor L = la::cholesky(A);
      EXPECT_LT(rel_diff(matmul(L, L.mT()), A), tol(dt, n)) << n;
      EXPECT_EQ(rel_diff(L, L.tril()), 0.0);
      Tensor U = la::cholesky(A, /*upper=*/true);
      EXPECT_LT(rel_diff(matmul(U.mT(), U), A), tol(dt, n)) << n;
      EXPECT_EQ(rel_diff(U, U.triu()), 0.0);
      auto [L2, info] = la::cholesky_ex(A);
      EXPECT_EQ(info.dtype(), kInt32);
      EXPECT_EQ(info.sizes(), (std::vector<int64_t>{2, 3}));
      EXPECT_EQ(info.abs().sum().item<int64_t>(), 0);
    }
  }
  // Only the lower triangle is read.
  Tensor A = spd({5, 5});
  Tensor B = A.clone();
  B.index_put_({0, 4}, 100.0);
  EXPECT_LT(rel_diff(la::cholesky(B), la::cholesky(A)), 1e-15);
}

TEST(Linalg, CholeskyExInfo) {
  // Leading minor of order 2 is not positive-definite in batch element 1.
  Tensor A = eye(3, TensorOptions().dtype(kFloat64)).repeat({2, 1, 1}).contiguous();
  A.index_put_({1, 1, 1}, -1.0);
  auto [L, info] = la::cholesky_ex(A);
  EXPECT_EQ(info.tolist<int32_t>(), (std::vector<int32_t>{0, 2}));
  for (auto engine : {cpu::linalg::Engine::Lapack, cpu::linalg::Engine::Native}) {
    cpu::linalg::engine_override() = static_cast<int>(engine);
    Tensor A4 = eye(4, TensorOptions().dtype(kFloat64));
    A4.index_put_({3, 3}, 0.0);
    EXPECT_EQ(la::cholesky_ex(A4).info.item<int32_t>(), 4);
    A4.index_put_({3, 3}, std::nan(""));
    EXPECT_EQ(la::cholesky_ex(A4).info.item<int32_t>(), 4);
  }
  cpu::linalg::engine_override() = 0;
}

TEST(Linalg, Solve) {
  for (ScalarType dt : kDtypes) {
    for (int64_t n : {1, 3, 37}) {
      Tensor A = rand({2, n, n}, dt, 3) + eye(n, TensorOptions().dtype(dt)) * 4.0;
      Tensor B = rand({2, n, 2}, dt, 4);
      Tensor X = la::solve(A, B);
      EXPECT_LT(rel_diff(matmul(A, X), B), tol(dt, n));
      // Vector right-hand side and X A = B.
      Tensor b = rand({2, n}, dt, 5);
      Tensor x = la::solve(A, b);
      EXPECT_EQ(x.sizes(), b.sizes());
      EXPECT_LT(rel_diff(matmul(A, x.unsqueeze(-1)).squeeze(-1), b), tol(dt, n));
      Tensor Br = rand({2, 3, n}, dt, 6);
      Tensor Xr = la::solve(A, Br, /*left=*/false);
      EXPECT_LT(rel_diff(matmul(Xr, A), Br), tol(dt, n));
    }
  }
  // Broadcasting batches and a non-contiguous A.
  Tensor A = (rand({2, 1, 4, 4}, kFloat64, 7) + eye(4, TensorOptions().dtype(kFloat64)) * 3).mT();
  Tensor B = rand({3, 4, 2}, kFloat64, 8);
  Tensor X = la::solve(A, B);
  EXPECT_EQ(X.sizes(), (std::vector<int64_t>{2, 3, 4, 2}));
  EXPECT_LT(rel_diff(matmul(A, X), B.expand({2, 3, 4, 2})), 1e-13);
  auto [X2, info] = la::solve_ex(A, B);
  EXPECT_EQ(info.sizes(), (std::vector<int64_t>{2, 3}));
}

TEST(Linalg, SolveTriangular) {
  for (ScalarType dt : kDtypes) {
    const int64_t n = 6;
    Tensor M = rand({2, n, n}, dt, 9) + eye(n, TensorOptions().dtype(dt)) * 3;
    Tensor B = rand({2, n, 3}, dt, 10);
    for (bool upper : {false, true}) {
      for (bool unit : {false, true}) {
        Tensor T = upper ? M.triu() : M.tril();
        Tensor Tu = T;
        if (unit) {
          Tu = T - diag_embed(T.diagonal(0, -2, -1)) + eye(n, TensorOptions().dtype(dt));
        }
        Tensor X = la::solve_triangular(M, B, upper, true, unit);  // reads one triangle of M
        EXPECT_LT(rel_diff(matmul(Tu, X), B), tol(dt, n)) << upper << unit;
        Tensor Bt = B.mT();
        Tensor Xr = la::solve_triangular(M, Bt, upper, false, unit);
        EXPECT_LT(rel_diff(matmul(Xr, Tu), Bt), tol(dt, n)) << upper << unit;
      }
    }
  }
}

TEST(Linalg, InvDetSlogdet) {
  for (ScalarType dt : kDtypes) {
    for (int64_t n : {1, 5, 33}) {
      Tensor A = rand({3, n, n}, dt, 11) + eye(n, TensorOptions().dtype(dt)) * 2;
      Tensor Ai = la::inv(A);
      EXPECT_LT(rel_diff(matmul(A, Ai), eye_as(A, n)), tol(dt, n) * 4);
      EXPECT_LT(rel_diff(la::inv(A.mT()), Ai.mT()), tol(dt, n) * 4);
    }
    // Triangular: det is the product of the diagonal (independent reference).
    Tensor T = (rand({4, 4}, dt, 12) + eye(4, TensorOptions().dtype(dt)) * 2).triu();
    const auto v = test::values(T);
    const double ref = v[0] * v[5] * v[10] * v[15];
    EXPECT_NEAR(la::det(T).item<double>(), ref, std::abs(ref) * 1e-5);
    EXPECT_NEAR(la::det(T.mT()).item<double>(), ref, std::abs(ref) * 1e-5);
    auto [sign, logabs] = la::slogdet(T * -1.0);
    EXPECT_EQ(sign.item<double>(), 1.0);  // (-1)^4
    EXPECT_NEAR(logabs.item<double>(), std::log(std::abs(ref)), 1e-5);
    // A row swap: det -1.
    Tensor P = tensor<double>({{0, 1, 0}, {1, 0, 0}, {0, 0, 1}}).to(dt);
    EXPECT_EQ(la::det(P).item<double>(), -1.0);
    EXPECT_EQ(la::slogdet(P).sign.item<double>(), -1.0);
    // Singular: det 0, sign 0, logabsdet -inf.
    Tensor S = tensor<double>({{1, 2}, {2, 4}}).to(dt);
    EXPECT_EQ(la::det(S).item<double>(), 0.0);
    auto sl = la::slogdet(S);
    EXPECT_EQ(sl.sign.item<double>(), 0.0);
    EXPECT_TRUE(std::isinf(sl.logabsdet.item<double>()));
    EXPECT_EQ(la::inv_ex(S).info.item<int32_t>(), 2);
  }
}

TEST(Linalg, LuFactorLuSolve) {
  for (ScalarType dt : kDtypes) {
    for (auto shape : std::vector<std::vector<int64_t>>{{2, 5, 5}, {4, 3}, {3, 6}, {1, 1}}) {
      Tensor A = rand(shape, dt, 13);
      auto [P, L, U] = la::lu(A);
      EXPECT_LT(rel_diff(matmul(P, matmul(L, U)), A), tol(dt, A.size(-1)));
      EXPECT_EQ(rel_diff(U, U.triu()), 0.0);
      EXPECT_EQ(rel_diff(L, L.tril()), 0.0);
      auto [LU, piv] = la::lu_factor(A);
      EXPECT_EQ(piv.dtype(), kInt32);
    }
    Tensor A = rand({2, 5, 5}, dt, 14) + eye(5, TensorOptions().dtype(dt)) * 2;
    Tensor B = rand({2, 5, 3}, dt, 15);
    auto [LU, piv] = la::lu_factor(A);
    EXPECT_LT(rel_diff(matmul(A, la::lu_solve(LU, piv, B)), B), tol(dt, 5));
    EXPECT_LT(rel_diff(matmul(A.mT(), la::lu_solve(LU, piv, B, true, true)), B), tol(dt, 5));
    Tensor Bt = B.mT();
    EXPECT_LT(rel_diff(matmul(la::lu_solve(LU, piv, Bt, false), A), Bt), tol(dt, 5));
  }
}

TEST(Linalg, Qr) {
  for (ScalarType dt : kDtypes) {
    for (auto shape : std::vector<std::vector<int64_t>>{
             {2, 6, 4}, {4, 6}, {5, 5}, {40, 35}, {3, 1, 50, 20}, {20, 50}}) {
      Tensor A = rand(shape, dt, 16);
      const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
      auto [Q, R] = la::qr(A);
      EXPECT_EQ(Q.size(-1), k);
      EXPECT_EQ(R.size(-2), k);
      EXPECT_LT(rel_diff(matmul(Q, R), A), tol(dt, m));
      EXPECT_LT(ortho_err(Q), tol(dt, m));
      EXPECT_EQ(rel_diff(R, R.triu()), 0.0);
      auto [Qc, Rc] = la::qr(A, "complete");
      EXPECT_EQ(Qc.size(-1), m);
      EXPECT_LT(rel_diff(matmul(Qc, Rc), A), tol(dt, m));
      EXPECT_LT(ortho_err(Qc), tol(dt, m));
      auto [Qr, Rr] = la::qr(A, "r");
      EXPECT_EQ(Qr.numel(), 0);
      EXPECT_LT(rel_diff(Rr, R), tol(dt, m));
    }
  }
}

TEST(Linalg, Eigh) {
  for (ScalarType dt : kDtypes) {
    for (int64_t n : {1, 2, 7, 32, 45}) {
      Tensor X = rand({3, n, n}, dt, 17);
      Tensor A = X + X.mT();
      auto [w, V] = la::eigh(A);
      EXPECT_LT(rel_diff(matmul(V * w.unsqueeze(-2), V.mT()), A), tol(dt, n)) << n;
      EXPECT_LT(ortho_err(V), tol(dt, n)) << n;
      const auto wv = test::values(w);
      for (int64_t b = 0; b < 3; ++b) {
        for (int64_t i = 0; i + 1 < n; ++i) EXPECT_LE(wv[b * n + i], wv[b * n + i + 1]);
      }
      // UPLO "U" reads the upper triangle only: garbage below must not matter.
      Tensor G = A.triu() + (rand({3, n, n}, dt, 18) * 100.0).tril(-1);
      EXPECT_LT(rel_diff(la::eigvalsh(G, "U"), w), tol(dt, n) * 4);
    }
  }
  // Diagonal input: eigenvalues are the sorted diagonal.
  Tensor D = diag_embed(tensor<double>({3.0, -1.0, 2.0}));
  EXPECT_TRUE(test::close(la::eigvalsh(D), {3}, {-1, 2, 3}, 0, 1e-15));
}

TEST(Linalg, Svd) {
  for (ScalarType dt : kDtypes) {
    for (auto shape : std::vector<std::vector<int64_t>>{
             {2, 6, 4}, {4, 6}, {5, 5}, {40, 36}, {2, 1, 20, 50}, {1, 1}}) {
      Tensor A = rand(shape, dt, 19);
      const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
      auto [U, S, Vh] = la::svd(A, false);
      EXPECT_EQ(U.size(-1), k);
      EXPECT_LT(rel_diff(matmul(U * S.unsqueeze(-2), Vh), A), tol(dt, std::max(m, n)));
      EXPECT_LT(ortho_err(U), tol(dt, m));
      EXPECT_LT(ortho_err(Vh.mT()), tol(dt, n));
      const auto sv = test::values(S);
      for (size_t i = 0; i + 1 < sv.size(); ++i) {
        if ((i + 1) % k != 0) {
          EXPECT_GE(sv[i], sv[i + 1]);
        }
      }
      auto [Uf, Sf, Vhf] = la::svd(A);
      EXPECT_EQ(Uf.size(-1), m);
      EXPECT_EQ(Vhf.size(-2), n);
      EXPECT_LT(ortho_err(Uf), tol(dt, m));
      EXPECT_LT(ortho_err(Vhf.mT()), tol(dt, n));
      EXPECT_LT(rel_diff(la::svdvals(A), S), tol(dt, m));
    }
  }
}

TEST(Linalg, SvdSpecialInputs) {
  for (ScalarType dt : kDtypes) {
    // Rank-deficient (rank 2 of 6), zero, diagonal and ill-conditioned (Hilbert) inputs.
    Tensor R = matmul(rand({8, 2}, dt, 20), rand({2, 6}, dt, 21));
    Tensor Z = zeros({5, 3}, TensorOptions().dtype(dt));
    Tensor D = diag_embed(tensor<double>({1.0, -4.0, 0.0, 2.0}).to(dt));
    std::vector<double> h(64);
    for (int i = 0; i < 8; ++i) {
      for (int j = 0; j < 8; ++j) h[i * 8 + j] = 1.0 / (i + j + 1);
    }
    Tensor H = test::from_values({8, 8}, h).to(dt);
    for (const Tensor& A : {R, Z, D, H}) {
      for (bool full : {false, true}) {
        auto [U, S, Vh] = la::svd(A, full);
        const int64_t m = A.size(0), n = A.size(1);
        EXPECT_LT(ortho_err(U), tol(dt, m));
        EXPECT_LT(ortho_err(Vh.mT()), tol(dt, n));
        Tensor Uk = U.narrow(-1, 0, S.size(-1)), Vk = Vh.narrow(-2, 0, S.size(-1));
        EXPECT_LT(rel_diff(matmul(Uk * S.unsqueeze(-2), Vk), A), tol(dt, std::max(m, n)));
      }
    }
    EXPECT_TRUE(test::close(la::svdvals(D), {4}, {4, 2, 1, 0}, 0, 1e-6));
  }
}

TEST(Linalg, EmptyInputs) {
  const auto opts = TensorOptions().dtype(kFloat64);
  for (auto shape : std::vector<std::vector<int64_t>>{{0, 0}, {0, 3, 3}, {2, 0, 0}}) {
    Tensor A = zeros(SymIntList(shape), opts);
    EXPECT_EQ(la::cholesky(A).sizes(), A.sizes());
    EXPECT_EQ(la::inv(A).sizes(), A.sizes());
    EXPECT_EQ(la::eigh(A).eigenvectors.sizes(), A.sizes());
    EXPECT_EQ(la::svd(A).U.sizes(), A.sizes());
    EXPECT_EQ(la::qr(A).R.sizes(), A.sizes());
    EXPECT_EQ(la::solve(A, A).sizes(), A.sizes());
    Tensor d = la::det(A);
    EXPECT_EQ(d.sizes(), std::vector<int64_t>(shape.begin(), shape.end() - 2));
    if (d.numel() > 0) {
      EXPECT_EQ(test::values(d), std::vector<double>(d.numel(), 1.0));
    }
  }
  // 0×n and m×0: full_matrices gives identities.
  auto [U, S, Vh] = la::svd(zeros({3, 0}, opts));
  EXPECT_EQ(S.numel(), 0);
  EXPECT_LT(rel_diff(U, eye(3, opts)), 1e-15);
  EXPECT_EQ(Vh.sizes(), (std::vector<int64_t>{0, 0}));
  auto [Q, R] = la::qr(zeros({3, 0}, opts), "complete");
  EXPECT_LT(rel_diff(Q, eye(3, opts)), 1e-15);
}

TEST(Linalg, NonContiguousAndExpandedInputs) {
  // Stride-0 batch (expand), transposed and sliced views go through the same kernels.
  Tensor base = rand({3, 5}, kFloat64, 40);
  Tensor E = base.expand({4, 3, 5});
  auto [U, S, Vh] = la::svd(E, false);
  EXPECT_LT(rel_diff(matmul(U * S.unsqueeze(-2), Vh), E), 1e-13);
  EXPECT_LT(rel_diff(S.select(0, 3), S.select(0, 0)), 1e-15);
  Tensor W = rand({6, 12}, kFloat64, 41).slice(1, 0, 12, 2);  // [6, 6], column stride 2
  auto [Q, R] = la::qr(W.mT());
  EXPECT_LT(rel_diff(matmul(Q, R), W.mT()), 1e-13);
  // Past the native engines' sizes: LAPACK reads the same views.
  Tensor Big = rand({36, 40}, kFloat64, 44).mT();  // 40×36, column-contiguous
  auto [Qb, Rb] = la::qr(Big);
  EXPECT_LT(rel_diff(matmul(Qb, Rb), Big), 1e-13);
  EXPECT_LT(ortho_err(Qb), 1e-13);
  auto [Ub, Sb, Vhb] = la::svd(Big, false);
  EXPECT_LT(rel_diff(matmul(Ub * Sb.unsqueeze(-2), Vhb), Big), 1e-13);
  Tensor Sym = W + W.mT();
  auto [w, V] = la::eigh(Sym.mT());
  EXPECT_LT(rel_diff(matmul(V * w.unsqueeze(-2), V.mT()), Sym), 1e-13);
  Tensor P = spd({6, 6}, kFloat64, 42).mT();
  EXPECT_LT(rel_diff(matmul(la::cholesky(P), la::cholesky(P).mT()), P), 1e-13);
  Tensor B = rand({6, 1}, kFloat64, 43).expand({6, 3});
  EXPECT_LT(rel_diff(matmul(P, la::solve(P, B)), B), 1e-13);
}

}  // namespace
}  // namespace ember
