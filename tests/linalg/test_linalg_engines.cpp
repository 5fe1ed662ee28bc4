// The two engines (LAPACK and the native small-matrix kernels) agree on the same inputs: a sweep
// of sizes across the switch-over (kSmallMatrixMax), each engine forced in turn.
#include "backend/cpu/linalg_util.h"
#include "linalg/linalg_test_util.h"

namespace ember {
namespace {

using namespace test::la;
namespace la = ember::linalg;
using cpu::linalg::Engine;

struct EngineGuard {  // restores the engine in force before it (guards nest)
  explicit EngineGuard(Engine e) : saved(cpu::linalg::engine_override()) {
    cpu::linalg::engine_override() = static_cast<int>(e);
  }
  ~EngineGuard() { cpu::linalg::engine_override() = saved; }
  int saved;
};

template <typename F>
auto with_engine(Engine e, F&& f) {
  EngineGuard g(e);
  return f();
}

// |Q1^T Q2| is the identity when the columns agree up to sign (distinct eigen/singular values).
double sign_agnostic_diff(const Tensor& Q1, const Tensor& Q2) {
  return rel_diff(matmul(Q1.mT(), Q2).abs(), eye_as(Q1, Q1.size(-1)));
}

TEST(LinalgEngines, SweepAcrossSwitchOver) {
  for (ScalarType dt : {kFloat32, kFloat64}) {
    const double t = dt == kFloat32 ? 2e-3 : 1e-9;
    for (int64_t n : {1, 2, 3, 8, 16, 31, 32, 33, 40}) {
      Tensor X = rand({3, n, n}, dt, 100 + n);
      Tensor A = spd({3, n, n}, dt, 200 + n);
      Tensor Sym = X + X.mT();
      auto lap = [&](Engine e) {
        return with_engine(e, [&] {
          return std::make_tuple(la::cholesky(A), la::eigh(Sym), la::svd(X, false), la::qr(X));
        });
      };
      auto [L1, E1, S1, Q1] = lap(Engine::Lapack);
      auto [L2, E2, S2, Q2] = lap(Engine::Native);
      EXPECT_LT(rel_diff(L2, L1), t) << n;
      EXPECT_LT(rel_diff(E2.eigenvalues, E1.eigenvalues), t) << n;
      EXPECT_LT(sign_agnostic_diff(E1.eigenvectors, E2.eigenvectors), t) << n;
      EXPECT_LT(rel_diff(S2.S, S1.S), t) << n;
      EXPECT_LT(sign_agnostic_diff(S1.U, S2.U), t) << n;
      EXPECT_LT(sign_agnostic_diff(S1.Vh.mT(), S2.Vh.mT()), t) << n;
      // Householder QR: same reflector convention as LAPACK, so the factors agree exactly-ish.
      EXPECT_LT(rel_diff(Q2.Q, Q1.Q), t) << n;
      EXPECT_LT(rel_diff(Q2.R, Q1.R), t) << n;
    }
  }
}

TEST(LinalgEngines, NativeRectangularAndRankDeficient) {
  EngineGuard g(Engine::Native);
  for (ScalarType dt : {kFloat32, kFloat64}) {
    const double t = dt == kFloat32 ? 2e-5 : 1e-13;
    for (auto shape : std::vector<std::vector<int64_t>>{{7, 3}, {3, 7}, {12, 12}}) {
      for (int64_t rank : {0, 1, 2}) {
        Tensor A = matmul(rand({shape[0], rank}, dt, 300), rand({rank, shape[1]}, dt, 301));
        if (rank == 0) A = zeros(SymIntList(shape), TensorOptions().dtype(dt));
        for (bool full : {false, true}) {
          auto [U, S, Vh] = la::svd(A, full);
          EXPECT_LT(ortho_err(U), t) << rank << full;
          EXPECT_LT(ortho_err(Vh.mT()), t) << rank << full;
          const int64_t k = S.size(-1);
          Tensor rec = matmul(U.narrow(-1, 0, k) * S.unsqueeze(-2), Vh.narrow(-2, 0, k));
          EXPECT_LT(rel_diff(rec, A), t);
          // Only `rank` singular values are nonzero.
          const auto sv = test::values(S);
          for (int64_t i = rank; i < k; ++i) EXPECT_LT(sv[i], t);
        }
        auto [Qc, Rc] = la::qr(A, "complete");
        EXPECT_LT(ortho_err(Qc), t);
        EXPECT_LT(rel_diff(matmul(Qc, Rc), A), t);
      }
    }
  }
  // Exactly singular with integer entries: the third column becomes rounding noise that
  // underflows; the sweeps must still stop, with orthonormal factors.
  for (ScalarType dt : {kFloat32, kFloat64}) {
    Tensor A = test::from_values({3, 3}, {1, 2, 3, 2, 4, 6, 1, 0, 1}, dt);
    auto [U, S, Vh] = la::svd(A);
    const double t = dt == kFloat32 ? 2e-6 : 1e-14;
    EXPECT_LT(ortho_err(U), t);
    EXPECT_LT(ortho_err(Vh.mT()), t);
    EXPECT_LT(rel_diff(matmul(U * S.unsqueeze(-2), Vh), A), t);
    EXPECT_LT(test::values(S)[2], t);
  }
  // Repeated eigenvalues (identity plus a rank-one update).
  Tensor v = rand({6, 1}, kFloat64, 302);
  Tensor A = eye(6, TensorOptions().dtype(kFloat64)) + matmul(v, v.mT());
  auto [w, V] = la::eigh(A);
  EXPECT_LT(ortho_err(V), 1e-13);
  EXPECT_LT(rel_diff(matmul(V * w.unsqueeze(-2), V.mT()), A), 1e-13);
}

// The native kernels factorise Vec-width groups of matrices, one per SIMD lane (Note [Lane-batched
// linalg]): batches that fill some groups and leave the last one partial give each matrix the same
// result as LAPACK on that matrix alone, with residuals at working precision.
TEST(LinalgEngines, NativeLaneGroups) {
  for (ScalarType dt : {kFloat32, kFloat64}) {
    const double e = eps(dt);
    for (int64_t n : {5, 16}) {
      const double tol = 8 * static_cast<double>(n) * e;
      Tensor X = rand({11, n, n}, dt, 400 + n);
      Tensor A = spd({11, n, n}, dt, 500 + n);
      Tensor Sym = X + X.mT();
      EngineGuard g(Engine::Native);
      auto [U, S, Vh] = la::svd(X, false);
      EXPECT_LT(rel_diff(matmul(U * S.unsqueeze(-2), Vh), X), tol) << n;
      EXPECT_LT(ortho_err(U), tol) << n;
      EXPECT_LT(ortho_err(Vh.mT()), tol) << n;
      auto [w, Q] = la::eigh(Sym);
      EXPECT_LT(rel_diff(matmul(Q * w.unsqueeze(-2), Q.mT()), Sym), tol) << n;
      EXPECT_LT(ortho_err(Q), tol) << n;
      auto [Qr, R] = la::qr(X);
      EXPECT_LT(rel_diff(matmul(Qr, R), X), tol) << n;
      EXPECT_LT(ortho_err(Qr), tol) << n;
      EXPECT_EQ(rel_diff(R, R.triu()), 0.0);
      Tensor L = la::cholesky(A);
      EXPECT_LT(rel_diff(matmul(L, L.mT()), A), tol) << n;
      EXPECT_EQ(rel_diff(L, L.tril()), 0.0);
      // Within a few ulps of the same input factorised in float64 by LAPACK.
      auto f64 = [](const Tensor& t) { return t.to(kFloat64); };
      const double ulps = 4 * static_cast<double>(n) * e;
      with_engine(Engine::Lapack, [&] {
        EXPECT_LT(rel_diff(f64(S), la::svdvals(f64(X))), ulps) << n;
        EXPECT_LT(rel_diff(f64(w), la::eigvalsh(f64(Sym))), ulps) << n;
        EXPECT_LT(rel_diff(f64(R), la::qr(f64(X)).R), ulps) << n;
        EXPECT_LT(rel_diff(f64(L), la::cholesky(f64(A))), ulps) << n;
      });
      // Each matrix alone, through LAPACK.
      for (int64_t b : {0, 3, 7, 8, 10}) {
        auto one = [&](const Tensor& t) { return t.select(0, b).contiguous(); };
        EngineGuard lapack(Engine::Lapack);
        const double t = dt == kFloat32 ? 1e-4 : 1e-12;
        EXPECT_LT(rel_diff(one(S), la::svdvals(one(X))), t) << n << " " << b;
        EXPECT_LT(rel_diff(one(w), la::eigvalsh(one(Sym))), t) << n << " " << b;
        EXPECT_LT(rel_diff(one(R), la::qr(one(X)).R), t) << n << " " << b;
        EXPECT_LT(rel_diff(one(L), la::cholesky(one(A))), t) << n << " " << b;
      }
      // A transposed view (read column by column) gives the same factors as its contiguous copy.
      Tensor Xt = X.mT();
      EXPECT_EQ(rel_diff(la::svdvals(Xt), la::svdvals(Xt.contiguous())), 0.0);
      EXPECT_EQ(rel_diff(la::qr(Xt).R, la::qr(Xt.contiguous()).R), 0.0);
      // Rectangular, full factors.
      for (Tensor R0 : {X.narrow(-1, 0, 3), X.narrow(-2, 0, 3)}) {
        auto [Uf, Sf, Vhf] = la::svd(R0, true);
        const int64_t k = Sf.size(-1);
        Tensor rec = matmul(Uf.narrow(-1, 0, k) * Sf.unsqueeze(-2), Vhf.narrow(-2, 0, k));
        EXPECT_LT(rel_diff(rec, R0), tol) << n;
        EXPECT_LT(ortho_err(Uf), tol) << n;
        EXPECT_LT(ortho_err(Vhf.mT()), tol) << n;
        auto [Qc, Rc] = la::qr(R0, "complete");
        EXPECT_LT(rel_diff(matmul(Qc, Rc), R0), tol) << n;
        EXPECT_LT(ortho_err(Qc), tol) << n;
      }
      // Upper variants read only their triangle.
      Tensor junk_low = A.triu() + (rand({11, n, n}, dt, 600) * 100.0).tril(-1);
      EXPECT_LT(rel_diff(la::cholesky(junk_low, true), L.mT()), 1e-15);
      Tensor sym_junk = Sym.triu() + (rand({11, n, n}, dt, 601) * 100.0).tril(-1);
      EXPECT_LT(rel_diff(la::eigvalsh(sym_junk, "U"), w), 1e-15);
    }
  }
}

// Each matrix is scaled by a power of two before the Jacobi sweeps and Householder steps, so sums
// of squares neither overflow nor underflow where the entries themselves are representable.
TEST(LinalgEngines, NativeExtremeScales) {
  EngineGuard g(Engine::Native);
  for (ScalarType dt : {kFloat32, kFloat64}) {
    const double big = dt == kFloat32 ? 1e30 : 1e250, small = dt == kFloat32 ? 1e-30 : 1e-250;
    const double t = dt == kFloat32 ? 1e-5 : 1e-13;
    Tensor X = rand({9, 6, 6}, dt, 700);
    Tensor Sym = X + X.mT();
    for (double f : {big, small}) {
      EXPECT_LT(rel_diff(la::svdvals(X * f) / f, la::svdvals(X)), t) << f;
      EXPECT_LT(rel_diff(la::eigvalsh(Sym * f) / f, la::eigvalsh(Sym)), t) << f;
      EXPECT_LT(rel_diff(la::qr(X * f).R / f, la::qr(X).R), t) << f;
    }
  }
}

// Lanes fail independently: one matrix of a group that is not positive-definite, or that holds a
// NaN, is reported by its batch element while the others are factorised.
TEST(LinalgEngines, NativeFailingLane) {
  EngineGuard g(Engine::Native);
  for (ScalarType dt : {kFloat32, kFloat64}) {
    Tensor A = spd({10, 4, 4}, dt, 800);
    Tensor Bad = A.clone();
    Bad.index_put_({6, 2, 2}, -100.0);
    auto [L, info] = la::cholesky_ex(Bad);
    std::vector<int32_t> want(10, 0);
    want[6] = 3;
    EXPECT_EQ(info.tolist<int32_t>(), want);
    for (int64_t b : {0, 5, 7, 9}) {
      EXPECT_LT(rel_diff(L.select(0, b), la::cholesky(A.select(0, b))), 1e-15) << b;
    }
    test::expect_errors<LinAlgError>({
        {"cholesky", [&] { la::cholesky(Bad); },
         "(Batch element 6): The factorization could not be completed because the input is not "
         "positive-definite (the leading minor of order 3 is not positive-definite)."},
    });
    Tensor N = rand({10, 4, 4}, dt, 801);
    N.index_put_({7, 1, 3}, std::nan(""));
    Tensor Ns = N + N.mT();
    test::expect_errors<LinAlgError>({
        {"svd", [&] { la::svd(N); }, "[linalg.svd] (Batch element 7): The algorithm failed"},
        {"eigh", [&] { la::eigh(Ns); }, "[linalg.eigh] (Batch element 7): The algorithm failed"},
    });
  }
}

// The native Jacobi kernels raise LAPACK's non-convergence error, naming the batch element, when
// a matrix still needs rotations after the allowed sweeps (60; lowered here to reach the error).
TEST(LinalgEngines, NativeJacobiNonConvergence) {
  EngineGuard g(Engine::Native);
  struct SweepGuard {
    int saved = cpu::linalg::jacobi_max_sweeps();
    ~SweepGuard() { cpu::linalg::jacobi_max_sweeps() = saved; }
  } sweeps;
  Tensor X = rand({3, 8, 8}, kFloat64, 900);
  // Two diagonal matrices (converged before any sweep), then a random one: batch element 2.
  Tensor Y = cat({diag_embed(rand({2, 8}, kFloat64, 901)), X.narrow(0, 0, 1)}, 0);
  cpu::linalg::jacobi_max_sweeps() = 1;
  test::expect_errors<LinAlgError>({
      {"svd", [&] { la::svd(X); },
       "[linalg.svd] (Batch element 0): The algorithm failed to converge because the input matrix "
       "is ill-conditioned or has too many repeated singular values (error code: "},
      {"eigh", [&] { la::eigh(X + X.mT()); },
       "[linalg.eigh] (Batch element 0): The algorithm failed to converge because the input "
       "matrix is ill-conditioned or has too many repeated eigenvalues (error code: "},
      {"svd, third", [&] { la::svdvals(Y); }, "[linalg.svd] (Batch element 2): "},
      {"eigh, third", [&] { la::eigvalsh(Y + Y.mT()); }, "[linalg.eigh] (Batch element 2): "},
  });
  cpu::linalg::jacobi_max_sweeps() = 60;
  EXPECT_LT(rel_diff(la::svdvals(Y), with_engine(Engine::Lapack, [&] { return la::svdvals(Y); })),
            1e-13);
  EXPECT_LT(rel_diff(la::eigvalsh(Y + Y.mT()),
                     with_engine(Engine::Lapack, [&] { return la::eigvalsh(Y + Y.mT()); })),
            1e-13);
}

}  // namespace
}  // namespace ember
