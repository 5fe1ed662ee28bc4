#pragma once
// ember::testing::assert_close, as torch.testing.assert_close (src/ops/compare.cpp).
#include <optional>

#include "ember/core/tensor.h"

namespace ember::testing {

/// Default tolerances per dtype, as PyTorch's: float16 (1e-3, 1e-5), bfloat16 (1.6e-2, 1e-5),
/// float32 (1.3e-6, 1e-5), float64 (1e-7, 1e-7), integers and bool exact.
std::pair<double, double> default_tolerances(ScalarType t);  // {rtol, atol}

/// Throws ember::AssertionError when sizes, dtype (if check_dtype) or values differ; the message
/// reports the number of mismatched elements and the greatest absolute and relative differences.
void assert_close(const Tensor& actual, const Tensor& expected,
                  std::optional<double> rtol = std::nullopt, std::optional<double> atol = std::nullopt,
                  bool equal_nan = false, bool check_dtype = true);

}  // namespace ember::testing
