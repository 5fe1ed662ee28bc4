#pragma once
// Helpers of the linalg tests: residual norms in double from test::values, well-conditioned and
// symmetric positive-definite random inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "ember/linalg.h"
#include "opdb.h"

namespace ember::test::la {

inline double eps(ScalarType t) {
  return t == kFloat32 ? std::numeric_limits<float>::epsilon()
                       : std::numeric_limits<double>::epsilon();
}

/// ||a - b||_F / max(||b||_F, 1), in double through test::values.
inline double rel_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.sizes(), b.sizes());
  const auto va = values(a), vb = values(b);
  double num = 0, den = 0;
  for (size_t i = 0; i < va.size(); ++i) {
    num += (va[i] - vb[i]) * (va[i] - vb[i]);
    den += vb[i] * vb[i];
  }
  return std::sqrt(num) / std::max(std::sqrt(den), 1.0);
}

/// A random matrix batch.
inline Tensor rand(std::vector<int64_t> shape, ScalarType dt = kFloat64, uint64_t seed = 1) {
  return make_tensor(shape, dt, -1, 1, seed);
}

/// Symmetric positive-definite: X X^T + n I.
inline Tensor spd(std::vector<int64_t> shape, ScalarType dt = kFloat64, uint64_t seed = 1) {
  Tensor X = rand(shape, dt, seed);
  const int64_t n = shape.back();
  return matmul(X, X.mT()) + eye(n, TensorOptions().dtype(dt)) * static_cast<double>(n);
}

/// Identity broadcast to the batch of a square batch.
inline Tensor eye_as(const Tensor& A, int64_t n) {
  std::vector<int64_t> s(A.sizes().begin(), A.sizes().end() - 2);
  s.push_back(n);
  s.push_back(n);
  return eye(n, TensorOptions().dtype(A.dtype())).expand(SymIntList(s));
}

/// Whether every matrix of the batch has orthonormal columns, within tol.
inline double ortho_err(const Tensor& Q) {
  return rel_diff(matmul(Q.mT(), Q), eye_as(Q, Q.size(-1)));
}

inline Tensor diag_embed(const Tensor& v) {
  return v.unsqueeze(-1) * eye(v.size(-1), TensorOptions().dtype(v.dtype()));
}

}  // namespace ember::test::la
