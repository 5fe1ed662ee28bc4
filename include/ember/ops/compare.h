#pragma once
// Whole-tensor comparisons (src/ops/compare.cpp).
#include "ember/core/tensor.h"

namespace ember {

/// Same sizes and the same values (dtype may differ, as torch.equal).
bool equal(const Tensor& a, const Tensor& b);
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
               bool equal_nan = false);
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
              bool equal_nan = false);

}  // namespace ember
