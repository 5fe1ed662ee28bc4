// ember::linalg composites: pinv, matrix_rank, lstsq, norms, cond, matrix_power, matrix_exp,
// cross, vecdot, multi_dot, householder_product, diagonal; references from plain loops or
// closed forms.
#include "linalg/linalg_test_util.h"

namespace ember {
namespace {

using namespace test::la;
namespace la = ember::linalg;
const auto kF64 = TensorOptions().dtype(kFloat64);

TEST(LinalgMisc, PinvRankLstsq) {
  for (ScalarType dt : {kFloat32, kFloat64}) {
    const double t = dt == kFloat32 ? 1e-4 : 1e-11;
    Tensor R = matmul(rand({2, 6, 2}, dt, 1), rand({2, 2, 5}, dt, 2));  // rank 2
    Tensor P = la::pinv(R);
    EXPECT_EQ(P.sizes(), (std::vector<int64_t>{2, 5, 6}));
    EXPECT_LT(rel_diff(matmul(matmul(R, P), R), R), t);  // Penrose conditions
    EXPECT_LT(rel_diff(matmul(matmul(P, R), P), P), t);
    EXPECT_EQ(la::matrix_rank(R).tolist<int64_t>(), (std::vector<int64_t>{2, 2}));
    Tensor Sym = matmul(R, R.mT());
    EXPECT_LT(rel_diff(la::pinv(Sym, std::nullopt, std::nullopt, true), la::pinv(Sym)), t * 100);
    EXPECT_EQ(la::matrix_rank(Sym, std::nullopt, std::nullopt, true).tolist<int64_t>(),
              (std::vector<int64_t>{2, 2}));
    // Full-rank tall least squares: the normal equations hold.
    Tensor A = rand({7, 3}, dt, 3), B = rand({7, 2}, dt, 4);
    auto res = la::lstsq(A, B, std::nullopt, "gelsd");
    EXPECT_LT(test::values(matmul(A.mT(), matmul(A, res.solution) - B).abs().amax())[0], t);
    EXPECT_EQ(res.rank.item<int64_t>(), 3);
    EXPECT_EQ(res.singular_values.numel(), 3);
    Tensor r = matmul(A, res.solution) - B;
    EXPECT_LT(rel_diff(res.residuals, (r * r).sum(0)), t);
    auto dflt = la::lstsq(A, B);  // gelsy: no residuals, no singular values
    EXPECT_EQ(dflt.residuals.numel(), 0);
    EXPECT_EQ(dflt.singular_values.numel(), 0);
    EXPECT_EQ(la::lstsq(A, B.select(1, 0)).solution.sizes(), (std::vector<int64_t>{3}));
  }
}

TEST(LinalgMisc, Norms) {
  Tensor A = test::from_values({2, 3}, {1, -2, 3, -4, 5, -6});
  // Plain-loop references.
  EXPECT_NEAR(la::matrix_norm(A).item<double>(), std::sqrt(91.0), 1e-12);
  EXPECT_NEAR(la::matrix_norm(A, 1.0).item<double>(), 9, 1e-12);  // max column sum
  EXPECT_NEAR(la::matrix_norm(A, -1.0).item<double>(), 5, 1e-12);
  EXPECT_NEAR(la::matrix_norm(A, INFINITY).item<double>(), 15, 1e-12);  // max row sum
  EXPECT_NEAR(la::matrix_norm(A, -INFINITY).item<double>(), 6, 1e-12);
  // Singular values of A: sqrt of eigenvalues of A A^T = [[14, 32], [32, 77]].
  const double tr = 91, det = 14 * 77 - 32 * 32;
  const double s1 = std::sqrt((tr + std::sqrt(tr * tr - 4 * det)) / 2);
  const double s2 = std::sqrt((tr - std::sqrt(tr * tr - 4 * det)) / 2);
  EXPECT_NEAR(la::matrix_norm(A, 2.0).item<double>(), s1, 1e-12);
  EXPECT_NEAR(la::matrix_norm(A, -2.0).item<double>(), s2, 1e-12);
  EXPECT_NEAR(la::matrix_norm(A, "nuc").item<double>(), s1 + s2, 1e-12);
  EXPECT_NEAR(la::cond(A).item<double>(), s1 / s2, 1e-10);
  EXPECT_NEAR(la::norm(A).item<double>(), std::sqrt(91.0), 1e-12);
  EXPECT_NEAR(la::norm(A, 1.0).item<double>(), 9, 1e-12);  // 2-D with ord: matrix norm
  EXPECT_NEAR(la::vector_norm(A, 1.0).item<double>(), 21, 1e-12);
  EXPECT_TRUE(
      test::close(la::vector_norm(A, INFINITY, std::vector<int64_t>{1}), {2}, {3, 6}, 0, 1e-12));
  EXPECT_TRUE(test::close(la::norm(A, std::nullopt, std::vector<int64_t>{0}), {3},
                          {std::sqrt(17.0), std::sqrt(29.0), std::sqrt(45.0)}, 0, 1e-12));
  // Batched with dims moved and keepdim.
  Tensor Bt = A.unsqueeze(0).expand({4, 2, 3}).permute({1, 0, 2});  // [2, 4, 3]
  Tensor n = la::matrix_norm(Bt, 1.0, {0, 2}, true);
  EXPECT_EQ(n.sizes(), (std::vector<int64_t>{1, 4, 1}));
  EXPECT_EQ(test::values(n), std::vector<double>(4, 9.0));
  // cond with p = 1 on a diagonal matrix: ||A||_1 ||A^{-1}||_1.
  Tensor D = diag_embed(test::from_values({3}, {2, 4, 0.5}));
  EXPECT_NEAR(la::cond(D, 1.0).item<double>(), 4 * 2, 1e-12);
}

TEST(LinalgMisc, MatrixPowerExp) {
  Tensor A = test::from_values({2, 2}, {1, 1, 0, 1});
  EXPECT_TRUE(test::close(la::matrix_power(A, 5), {2, 2}, {1, 5, 0, 1}, 0, 1e-12));
  EXPECT_TRUE(test::close(la::matrix_power(A, -3), {2, 2}, {1, -3, 0, 1}, 0, 1e-12));
  EXPECT_TRUE(test::close(la::matrix_power(A, 0), {2, 2}, {1, 0, 0, 1}, 0, 0));
  // exp of a nilpotent, a diagonal and a rotation generator; a large norm needs squaring.
  EXPECT_TRUE(test::close(la::matrix_exp(test::from_values({2, 2}, {0, 1, 0, 0})), {2, 2},
                          {1, 1, 0, 1}, 0, 1e-14));
  EXPECT_TRUE(test::close(la::matrix_exp(test::from_values({2, 2}, {3, 0, 0, -1})), {2, 2},
                          {std::exp(3.0), 0, 0, std::exp(-1.0)}, 1e-13, 0));
  const double th = 7.5;
  Tensor Rg = test::from_values({1, 2, 2}, {0, -th, th, 0});
  EXPECT_TRUE(test::close(la::matrix_exp(Rg), {1, 2, 2},
                          {std::cos(th), -std::sin(th), std::sin(th), std::cos(th)}, 0, 1e-12));
  Tensor Rf = Rg.to(kFloat32);
  EXPECT_TRUE(test::close(la::matrix_exp(Rf), {1, 2, 2},
                          {std::cos(th), -std::sin(th), std::sin(th), std::cos(th)}, 0, 1e-4));
}

TEST(LinalgMisc, CrossVecdotMultiDotDiagonal) {
  Tensor a = test::from_values({2, 3}, {1, 0, 0, 1, 2, 3});
  Tensor b = test::from_values({1, 3}, {0, 1, 0});
  EXPECT_TRUE(test::close(la::cross(a, b), {2, 3}, {0, 0, 1, -3, 0, 1}, 0, 0));
  EXPECT_TRUE(test::close(la::cross(a.mT(), b.mT(), 0), {3, 2}, {0, -3, 0, 0, 1, 1}, 0, 0));
  EXPECT_TRUE(test::close(la::vecdot(a, b), {2}, {0, 2}, 0, 0));
  Tensor x = test::from_values({2}, {1, 2}), M = test::from_values({2, 2}, {1, 2, 3, 4});
  // [1 2] M [1 2]^T = [7 10]·[1 2] = 27; [1 2] M M [1 2]^T = [37 54]·[1 2] = 145.
  Tensor r = la::multi_dot({x, M, x});
  EXPECT_EQ(r.dim(), 0);
  EXPECT_NEAR(r.item<double>(), 27, 1e-12);
  EXPECT_NEAR(la::multi_dot({x, M, M, x}).item<double>(), 145, 1e-12);
  EXPECT_TRUE(test::close(la::multi_dot({M, M, M}), {2, 2}, {37, 54, 81, 118}, 0, 1e-12));
  Tensor B = rand({2, 3, 4}, kFloat64, 7);
  EXPECT_EQ(la::diagonal(B).sizes(), (std::vector<int64_t>{2, 3}));
}

TEST(LinalgMisc, HouseholderProduct) {
  // Q from qr equals the product of the reflectors that geqrf would store: check that the
  // product of an explicit reflector set is orthogonal and matches a hand-built H1 H2.
  Tensor V = test::from_values({3, 2}, {1, 0, 0.5, 1, -0.5, 0.25});
  Tensor tau = test::from_values({2}, {1.2, 0.8});
  Tensor Q = la::householder_product(V, tau);
  auto h = [&](std::vector<double> v, double t) {
    Tensor vv = test::from_values({3, 1}, v);
    return eye(3, kF64) - matmul(vv, vv.mT()) * t;
  };
  Tensor ref = matmul(h({1, 0.5, -0.5}, 1.2), h({0, 1, 0.25}, 0.8)).narrow(1, 0, 2);
  EXPECT_LT(rel_diff(Q, ref), 1e-14);
}

}  // namespace
}  // namespace ember
