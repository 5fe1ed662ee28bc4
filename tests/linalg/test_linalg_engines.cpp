// The two engines (LAPACK and the native small-matrix kernels) agree on the same inputs: a sweep
// of sizes across the switch-over (kSmallMatrixMax), each engine forced in turn.
#include "backend/cpu/linalg_util.h"
#include "linalg/linalg_test_util.h"

namespace ember {
namespace {

using namespace test::la;
namespace la = ember::linalg;
using cpu::linalg::Engine;

struct EngineGuard {
  explicit EngineGuard(Engine e) { cpu::linalg::engine_override() = static_cast<int>(e); }
  ~EngineGuard() { cpu::linalg::engine_override() = 0; }
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
  for (auto shape : std::vector<std::vector<int64_t>>{{7, 3}, {3, 7}, {12, 12}}) {
    for (int64_t rank : {0, 1, 2}) {
      Tensor A =
          matmul(rand({shape[0], rank}, kFloat64, 300), rand({rank, shape[1]}, kFloat64, 301));
      if (rank == 0) A = zeros(SymIntList(shape), TensorOptions().dtype(kFloat64));
      for (bool full : {false, true}) {
        auto [U, S, Vh] = la::svd(A, full);
        EXPECT_LT(ortho_err(U), 1e-13) << rank << full;
        EXPECT_LT(ortho_err(Vh.mT()), 1e-13) << rank << full;
        const int64_t k = S.size(-1);
        Tensor rec = matmul(U.narrow(-1, 0, k) * S.unsqueeze(-2), Vh.narrow(-2, 0, k));
        EXPECT_LT(rel_diff(rec, A), 1e-13);
        // Only `rank` singular values are nonzero.
        const auto sv = test::values(S);
        for (int64_t i = rank; i < k; ++i) EXPECT_LT(sv[i], 1e-12);
      }
      auto [Qc, Rc] = la::qr(A, "complete");
      EXPECT_LT(ortho_err(Qc), 1e-13);
      EXPECT_LT(rel_diff(matmul(Qc, Rc), A), 1e-13);
    }
  }
  // Repeated eigenvalues (identity plus a rank-one update).
  Tensor v = rand({6, 1}, kFloat64, 302);
  Tensor A = eye(6, TensorOptions().dtype(kFloat64)) + matmul(v, v.mT());
  auto [w, V] = la::eigh(A);
  EXPECT_LT(ortho_err(V), 1e-13);
  EXPECT_LT(rel_diff(matmul(V * w.unsqueeze(-2), V.mT()), A), 1e-13);
}

}  // namespace
}  // namespace ember
