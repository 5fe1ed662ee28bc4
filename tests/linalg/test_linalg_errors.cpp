// ember::linalg error table: typed exceptions naming the op, in PyTorch's words.
#include "linalg/linalg_test_util.h"

namespace ember {
namespace {

using namespace test::la;
namespace la = ember::linalg;
using test::expect_errors;

const auto kF64 = TensorOptions().dtype(kFloat64);

TEST(LinalgErrors, Types) {
  Tensor I = ones({3, 3}, TensorOptions().dtype(kInt64));
  Tensor H = ones({3, 3}, TensorOptions().dtype(kFloat16));
  expect_errors<TypeError>({
      {"cholesky int64", [&] { la::cholesky(I); }, "[linalg.cholesky]"},
      {"svd int64", [&] { la::svd(I); }, "Long"},
      {"eigh half", [&] { la::eigh(H); }, "[linalg.eigh]"},
      {"qr int", [&] { la::qr(I); }, "int64"},
      {"inv int", [&] { la::inv(I); }, "[linalg.inv]"},
      {"det int", [&] { la::det(I); }, "[linalg.det]"},
      {"solve int", [&] { la::solve(I, I); }, "[linalg.solve]"},
      {"pinv int", [&] { la::pinv(I); }, "[linalg.pinv]"},
      {"matrix_exp int", [&] { la::matrix_exp(I); }, "[linalg.matrix_exp]"},
      {"lu_solve pivots dtype",
       [&] { la::lu_solve(eye(3, kF64), ones({3}, TensorOptions().dtype(kInt64)), eye(3, kF64)); },
       "[linalg.lu_solve]"},
  });
}

TEST(LinalgErrors, Shapes) {
  Tensor R = ones({2, 3}, kF64), V = ones({3}, kF64), S = eye(3, kF64);
  expect_errors<RuntimeError>({
      {"cholesky non-square", [&] { la::cholesky(R); },
       "[linalg.cholesky] A must be batches of square matrices, but they are 2 by 3 matrices"},
      {"inv non-square", [&] { la::inv(R); }, "[linalg.inv]"},
      {"det non-square", [&] { la::det(R); }, "[linalg.det]"},
      {"eigh non-square", [&] { la::eigh(R); }, "[linalg.eigh]"},
      {"svd 1-d", [&] { la::svd(V); },
       "[linalg.svd] The input tensor A must have at least 2 dimensions."},
      {"solve incompatible",
       [&] {
         la::solve(S, ones({4, 2}, kF64));
       },
       "[linalg.solve] Incompatible shapes"},
      {"solve batch",
       [&] {
         la::solve(ones({2, 3, 3}, kF64), ones({4, 3, 1}, kF64));
       },
       "[linalg.solve]"},
      {"solve dtype",
       [&] {
         la::solve(S, ones({3, 1}, TensorOptions().dtype(kFloat32)));
       },
       "same dtype"},
      {"solve_triangular vector", [&] { la::solve_triangular(S, V, true); },
       "[linalg.solve_triangular]"},
      {"eigh UPLO", [&] { la::eigh(S, "X"); }, "[linalg.eigh] Expected UPLO argument"},
      {"svd driver", [&] { la::svd(S, true, "gesvd"); }, "[linalg.svd]"},
      {"householder tau", [&] { la::householder_product(S, ones({4}, kF64)); },
       "[linalg.householder_product]"},
      {"cross length", [&] { la::cross(ones({4}, kF64), ones({4}, kF64)); }, "[linalg.cross]"},
      {"multi_dot one", [&] { la::multi_dot({S}); }, "[linalg.multi_dot]"},
      {"multi_dot shapes",
       [&] {
         la::multi_dot({S, R});
       },
       "[linalg.multi_dot]"},
      {"lstsq driver", [&] { la::lstsq(S, S, std::nullopt, "foo"); }, "[linalg.lstsq]"},
      {"matrix_norm order", [&] { la::matrix_norm(S, 3.0); }, "[linalg.matrix_norm]"},
      {"norm dims",
       [&] {
         la::norm(S, 2.0, std::vector<int64_t>{0, 1, 2});
       },
       "[linalg.norm]"},
  });
  expect_errors<ValueError>({
      {"qr mode", [&] { la::qr(S, "bogus"); }, "[linalg.qr] qr received unrecognized mode 'bogus'"},
  });
}

TEST(LinalgErrors, LinAlgErrors) {
  Tensor B = eye(3, kF64).repeat({3, 1, 1}).contiguous();
  B.index_put_({2, 1, 1}, -1.0);  // batch element 2, leading minor of order 2
  Tensor Z = eye(3, kF64).repeat({2, 1, 1}).contiguous();
  Z.index_put_({1, 2, 2}, 0.0);  // batch element 1 singular at pivot 3
  Tensor nan = full({3, 3}, std::nan(""), kF64);
  Tensor inf = eye(40, kF64);
  inf.index_put_({5, 5}, INFINITY);
  expect_errors<LinAlgError>({
      {"cholesky not PD", [&] { la::cholesky(B); },
       "[linalg.cholesky] (Batch element 2): The factorization could not be completed because "
       "the input is not positive-definite (the leading minor of order 2 is not "
       "positive-definite)."},
      {"cholesky unbatched", [&] { la::cholesky(-eye(2, kF64)); },
       "[linalg.cholesky] The factorization could not be completed"},
      {"cholesky_ex check_errors", [&] { la::cholesky_ex(B, false, true); }, "(Batch element 2)"},
      {"inv singular", [&] { la::inv(Z); },
       "[linalg.inv] (Batch element 1): The diagonal element 3 is zero, the inversion could not "
       "be completed because the input matrix is singular."},
      {"solve singular",
       [&] {
         la::solve(Z, ones({2, 3, 1}, kF64));
       },
       "[linalg.solve] (Batch element 1): The solver failed because the input matrix is "
       "singular."},
      {"lu_factor singular", [&] { la::lu_factor(Z); },
       "[linalg.lu_factor] (Batch element 1): U[3,3] is zero"},
      {"svd nan small", [&] { la::svd(nan); }, "[linalg.svd]"},
      {"svd inf large", [&] { la::svdvals(inf); }, "non-finite"},
      {"eigh nan", [&] { la::eigh(nan); }, "[linalg.eigh]"},
      {"eigh inf large", [&] { la::eigvalsh(inf); }, "non-finite"},
      {"matrix_exp nan", [&] { la::matrix_exp(nan); }, "[linalg.matrix_exp]"},
  });
  // LinAlgError is an ember::Error; the _ex variants report instead of raising.
  EXPECT_EQ(la::solve_ex(Z, ones({2, 3, 1}, kF64)).info.tolist<int32_t>(),
            (std::vector<int32_t>{0, 3}));
  EXPECT_EQ(la::inv_ex(Z).info.tolist<int32_t>(), (std::vector<int32_t>{0, 3}));
  EXPECT_EQ(la::lu_factor_ex(Z).info.tolist<int32_t>(), (std::vector<int32_t>{0, 3}));
}

}  // namespace
}  // namespace ember
