#pragma once
// Helpers for the nn functional tests: sample tensors and a central finite-difference check of
// backward kernels in float64.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "ember/ember.h"
#include "opdb.h"

namespace ember::test {

inline Tensor mk(const std::vector<int64_t>& shape, ScalarType dt, uint64_t seed) {
  return make_tensor(shape, dt, -2, 2, seed);
}

inline int64_t numel_of(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
}

/// Checks `grad` (the backward kernel's result) against the central finite difference of
/// L(x) = sum(f(x) * grad_y) in float64.
inline void expect_matches_fd(const Tensor& x, const std::function<Tensor(const Tensor&)>& f,
                              const Tensor& grad_y, const Tensor& grad, double h = 1e-6,
                              double tol = 1e-6) {
  ASSERT_EQ(grad.sizes(), x.sizes());
  const std::vector<double> xv = values(x), gy = values(grad_y), g = values(grad);
  auto loss = [&](const std::vector<double>& v) {
    const std::vector<double> y = values(f(from_values(x.sizes(), v)));
    EXPECT_EQ(y.size(), gy.size());
    double s = 0;
    for (size_t i = 0; i < y.size() && i < gy.size(); ++i) s += y[i] * gy[i];
    return s;
  };
  int bad = 0;
  for (size_t i = 0; i < xv.size(); ++i) {
    std::vector<double> p = xv, m = xv;
    p[i] += h;
    m[i] -= h;
    const double fd = (loss(p) - loss(m)) / (2 * h);
    if (std::abs(fd - g[i]) > tol * (1 + std::abs(fd)) && bad++ < 5) {
      ADD_FAILURE() << "element " << i << ": finite difference " << fd << ", backward " << g[i];
    }
  }
}

}  // namespace ember::test
