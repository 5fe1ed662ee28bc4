// Gradients of ember::linalg against central finite differences in float64. Inputs that must be
// symmetric or well-conditioned are built inside the checked function, so the perturbations stay
// in the domain; losses of eigenvectors/singular vectors are sign-invariant.
#include "backend/cpu/linalg_util.h"
#include "linalg/linalg_test_util.h"

namespace ember {
namespace {

using namespace test::la;
namespace la = ember::linalg;
using Fn = autograd::DifferentiableFn;

Tensor leaf(std::vector<int64_t> shape, uint64_t seed) {
  return test::make_tensor(shape, kFloat64, -1, 1, seed).requires_grad_();
}

bool check(const Fn& fn, const std::vector<Tensor>& in) { return autograd::gradcheck(fn, in); }

Tensor well_conditioned(const Tensor& X) {
  return X + eye(X.size(-1), TensorOptions().dtype(kFloat64)) * 3.0;
}

Tensor sym_pd(const Tensor& X) {
  return matmul(X, X.mT()) + eye(X.size(-1), TensorOptions().dtype(kFloat64)) * 2.0;
}

TEST(LinalgGrad, Cholesky) {
  for (int64_t n : {3, 34}) {  // native engine and LAPACK
    if (n > 3) continue;       // the Jacobian of a 34×34 matrix is too slow for a unit test
    EXPECT_TRUE(check(
        [](const std::vector<Tensor>& in) {
          return std::vector<Tensor>{la::cholesky(sym_pd(in[0]))};
        },
        {leaf({2, n, n}, 1)}));
  }
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{la::cholesky(sym_pd(in[0]), /*upper=*/true)};
      },
      {leaf({3, 3}, 2)}));
}

TEST(LinalgGrad, SolveInvDet) {
  Tensor A = leaf({2, 3, 3}, 3), B = leaf({2, 3, 2}, 4), b = leaf({3}, 5);
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{la::solve(well_conditioned(in[0]), in[1])};
      },
      {A, B}));
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{la::solve(well_conditioned(in[0]), in[1], /*left=*/false)};
      },
      {leaf({3, 3}, 6), leaf({2, 3}, 7)}));
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{la::solve(well_conditioned(in[0]), in[1])};
      },
      {leaf({3, 3}, 8), b}));
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{la::inv(well_conditioned(in[0]))};
      },
      {A}));
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{la::det(well_conditioned(in[0]))};
      },
      {A}));
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{la::slogdet(well_conditioned(in[0])).logabsdet};
      },
      {A}));
}

TEST(LinalgGrad, DetSingular) {
  // det's gradient is the cofactor matrix, defined for singular input too: here rank 2 of 3,
  // where the cofactors are not all zero. Reference: cofactors by 2×2 minors (plain loops).
  Tensor A = test::from_values({3, 3}, {1, 2, 3, 2, 4, 6, 1, 0, 1}).requires_grad_();
  linalg::det(A).backward();
  const auto a = test::values(A.detach());
  std::vector<double> cof(9);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      const int r0 = (i + 1) % 3, r1 = (i + 2) % 3, c0 = (j + 1) % 3, c1 = (j + 2) % 3;
      cof[i * 3 + j] = a[r0 * 3 + c0] * a[r1 * 3 + c1] - a[r0 * 3 + c1] * a[r1 * 3 + c0];
    }
  }
  EXPECT_TRUE(test::close(A.grad(), {3, 3}, cof, 1e-10, 1e-10));
}

TEST(LinalgGrad, SolveTriangular) {
  for (bool upper : {false, true}) {
    for (bool left : {false, true}) {
      for (bool unit : {false, true}) {
        EXPECT_TRUE(check(
            [=](const std::vector<Tensor>& in) {
              return std::vector<Tensor>{
                  la::solve_triangular(well_conditioned(in[0]), in[1], upper, left, unit)};
            },
            {leaf({3, 3}, 9), leaf({3, 3}, 10)}))
            << upper << left << unit;
      }
    }
  }
}

TEST(LinalgGrad, Eigh) {
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        auto [w, V] = la::eigh(in[0] + in[0].mT());
        return std::vector<Tensor>{w, V * V};
      },
      {leaf({2, 4, 4}, 11)}));
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{la::eigvalsh(in[0] + in[0].mT(), "U")};
      },
      {leaf({4, 4}, 12)}));
}

TEST(LinalgGrad, Svd) {
  for (auto shape : std::vector<std::vector<int64_t>>{{4, 3}, {3, 4}, {3, 3}}) {
    for (bool full : {false, true}) {
      EXPECT_TRUE(check(
          [=](const std::vector<Tensor>& in) {
            auto [U, S, Vh] = la::svd(in[0], full);
            const int64_t k = S.size(-1);
            // U_i Vh_i products are gauge-invariant.
            Tensor P = matmul(U.narrow(-1, 0, k), Vh.narrow(-2, 0, k));
            return std::vector<Tensor>{S, P};
          },
          {leaf(shape, 13)}))
          << shape[0] << shape[1] << full;
    }
  }
  EXPECT_TRUE(
      check([](const std::vector<Tensor>& in) { return std::vector<Tensor>{la::svdvals(in[0])}; },
            {leaf({2, 3, 5}, 14)}));
}

// Repeated eigen/singular values (Note [Gauge of eigen- and singular vectors]): a loss that does
// not depend on the basis chosen for the repeated block is differentiable and gradchecks; one
// that does raises, as PyTorch's phase check for complex input.
TEST(LinalgGrad, RepeatedValuesGauge) {
  const auto f64 = TensorOptions().dtype(kFloat64);
  Tensor Q1 = la::qr(leaf({4, 4}, 60).detach()).Q, Q2 = la::qr(leaf({3, 3}, 61).detach()).Q;
  // 4×3 with singular values 3, 3, 1 (the first two equal to rounding).
  Tensor D = cat({diag_embed(tensor<double>({3.0, 3.0, 1.0})), zeros({1, 3}, f64)}, 0);
  Tensor A = matmul(matmul(Q1, D), Q2.mT()).detach().requires_grad_();
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        auto [U, S, Vh] = la::svd(in[0], false);
        // U_blk Vh_blk of the repeated block is basis-independent; of the repeated values only
        // symmetric functions are differentiable.
        return std::vector<Tensor>{S.narrow(-1, 0, 2).sum(), S.narrow(-1, 2, 1),
                                   matmul(U.narrow(-1, 0, 2), Vh.narrow(-2, 0, 2))};
      },
      {A}));
  test::expect_errors<RuntimeError>({
      {"svd first vector", [&] { la::svd(A, false).U.select(-1, 0).sum().backward(); },
       "[linalg.svd] svd_backward: The singular vectors of repeated values are only specified up "
       "to a rotation of their subspace"},
  });
  // Symmetric with eigenvalues 1, 1, 2.
  Tensor Q = la::qr(leaf({3, 3}, 62).detach()).Q;
  Tensor B = matmul(Q * tensor<double>({1.0, 1.0, 2.0}).unsqueeze(-2), Q.mT()).detach();
  B.requires_grad_();
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        auto [w, V] = la::eigh(0.5 * (in[0] + in[0].mT()));
        Tensor Vb = V.narrow(-1, 0, 2);
        // The eigenspace's projector, the sum of its eigenvalues and the other eigenvalue.
        return std::vector<Tensor>{w.narrow(-1, 0, 2).sum(), w.narrow(-1, 2, 1),
                                   matmul(Vb, Vb.mT())};
      },
      {B}));
  test::expect_errors<RuntimeError>({
      {"eigh first vector", [&] { la::eigh(B).eigenvectors.select(-1, 0).sum().backward(); },
       "[linalg.eigh] linalg_eigh_backward: The eigenvectors of repeated values"},
  });
}

TEST(LinalgGrad, Qr) {
  for (auto shape : std::vector<std::vector<int64_t>>{{4, 3}, {3, 3}}) {
    EXPECT_TRUE(check(
        [](const std::vector<Tensor>& in) {
          auto [Q, R] = la::qr(in[0]);
          return std::vector<Tensor>{Q, R};
        },
        {leaf(shape, 15)}));
  }
  // Wide input, reduced and complete (the same factorisation when m < n).
  for (const char* mode : {"reduced", "complete"}) {
    EXPECT_TRUE(check(
        [mode](const std::vector<Tensor>& in) {
          auto [Q, R] = la::qr(in[0], mode);
          return std::vector<Tensor>{Q, R};
        },
        {leaf({2, 3, 5}, 17)}))
        << mode;
  }
  Tensor W = test::make_tensor({3, 5}, kFloat64, -1, 1, 18);
  auto plain = la::qr(W);
  auto traced = la::qr(W.clone().requires_grad_());
  EXPECT_LT(rel_diff(traced.R.detach(), plain.R), 1e-13);
  EXPECT_LT(rel_diff(traced.Q.detach(), plain.Q), 1e-13);
  Tensor A = leaf({3, 3}, 16);
  Tensor R = la::qr(A, "r").R;
  EXPECT_THROW(R.sum().backward(), RuntimeError);
  // As PyTorch: complete mode of a tall matrix is not differentiable.
  Tensor T = leaf({4, 3}, 19);
  EXPECT_THROW(la::qr(T, "complete").Q.sum().backward(), RuntimeError);
}

TEST(LinalgGrad, Composites) {
  EXPECT_TRUE(
      check([](const std::vector<Tensor>& in) { return std::vector<Tensor>{la::pinv(in[0])}; },
            {leaf({4, 3}, 17)}));
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{la::lstsq(in[0], in[1]).solution};
      },
      {leaf({5, 3}, 18), leaf({5, 2}, 19)}));
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) { return std::vector<Tensor>{la::matrix_exp(in[0])}; },
      {leaf({3, 3}, 20)}));
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{la::matrix_norm(in[0]), la::matrix_norm(in[0], "nuc"),
                                   la::matrix_norm(in[0], 2.0), la::matrix_norm(in[0], 1.0)};
      },
      {leaf({3, 4}, 21)}));
}

TEST(LinalgGrad, LuFactorAndLu) {
  EXPECT_TRUE(autograd::gradcheck(
      [](const std::vector<Tensor>& in) { return std::vector<Tensor>{la::lu_factor(in[0]).LU}; },
      {leaf({2, 4, 4}, 30)}));
  EXPECT_TRUE(autograd::gradcheck(
      [](const std::vector<Tensor>& in) {
        auto [P, L, U] = la::lu(in[0]);
        return std::vector<Tensor>{L, U};
      },
      {leaf({3, 3}, 31)}));
  // Rectangular: tall and wide, batched, through the packed factors and through lu's P, L, U.
  for (auto shape : std::vector<std::vector<int64_t>>{{2, 5, 3}, {2, 3, 5}}) {
    EXPECT_TRUE(autograd::gradcheck(
        [](const std::vector<Tensor>& in) { return std::vector<Tensor>{la::lu_factor(in[0]).LU}; },
        {leaf(shape, 32)}));
    EXPECT_TRUE(autograd::gradcheck(
        [](const std::vector<Tensor>& in) {
          auto [P, L, U] = la::lu(in[0]);
          return std::vector<Tensor>{L, U};
        },
        {leaf(shape, 33)}));
  }
}

TEST(LinalgGrad, LuSolve) {
  // The packed factors are free inputs (any values are some L and U), with the pivots of a real
  // factorisation; every left/adjoint combination, against finite differences.
  Tensor A = well_conditioned(test::make_tensor({2, 3, 3}, kFloat64, -1, 1, 40));
  auto f = la::lu_factor(A);
  Tensor LU = f.LU.detach().requires_grad_();
  for (bool left : {true, false}) {
    for (bool adjoint : {false, true}) {
      Tensor B = left ? leaf({2, 3, 2}, 41) : leaf({2, 2, 3}, 42);
      EXPECT_TRUE(check(
          [&](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{la::lu_solve(in[0], f.pivots, in[1], left, adjoint)};
          },
          {LU, B}))
          << left << adjoint;
    }
  }
  // Through lu_factor, the composition is solve's gradient.
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        auto fa = la::lu_factor(well_conditioned(in[0]));
        return std::vector<Tensor>{la::lu_solve(fa.LU, fa.pivots, in[1])};
      },
      {leaf({3, 3}, 43), leaf({3, 2}, 44)}));
}

TEST(LinalgGrad, HouseholderProduct) {
  // The differentiable form gives LAPACK's values, and its gradient matches finite differences
  // (second order too).
  Tensor A = test::make_tensor({2, 5, 3}, kFloat64, -1, 1, 50);
  Tensor tau = test::make_tensor({2, 2}, kFloat64, 0.5, 1.5, 51);
  Tensor lapack = la::householder_product(A, tau);
  Tensor composite = la::householder_product(A.clone().requires_grad_(), tau).detach();
  EXPECT_LT(rel_diff(composite, lapack), 1e-13);
  Fn fn = [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{la::householder_product(in[0], in[1])};
  };
  EXPECT_TRUE(check(fn, {A.requires_grad_(), tau.requires_grad_()}));
  EXPECT_TRUE(autograd::gradgradcheck(fn, {leaf({4, 3}, 52), leaf({3}, 53)}));
}

// The vjps do not depend on the engine: the same checks with the native engine forced.
TEST(LinalgGrad, NativeEngine) {
  cpu::linalg::engine_override() = static_cast<int>(cpu::linalg::Engine::Native);
  EXPECT_TRUE(autograd::gradcheck(
      [](const std::vector<Tensor>& in) {
        auto [w, V] = la::eigh(in[0] + in[0].mT());
        auto [U, S, Vh] = la::svd(in[0], false);
        auto [Q, R] = la::qr(in[0]);
        Tensor C =
            la::cholesky(matmul(in[0], in[0].mT()) + eye(3, TensorOptions().dtype(kFloat64)));
        return std::vector<Tensor>{w, V * V, S, matmul(U, Vh), Q, R, C};
      },
      {leaf({3, 3}, 33)}));
  cpu::linalg::engine_override() = 0;
}

}  // namespace
}  // namespace ember
