#pragma once
// The op database: each entry says how to make sample inputs for a dtype, how to call the op and
// how to compute a float64 (or exact integer) reference with plain loops. Generic tests
// (TEST_P(OpTest, ...) in opdb.cpp) iterate over every entry; a family's test file instantiates
// them with INSTANTIATE_TEST_SUITE_P(Family, OpTest, ::testing::ValuesIn(family_ops())).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember::test {

/// Every dtype Ember implements.
const std::vector<ScalarType>& all_dtypes();
const std::vector<ScalarType>& float_dtypes();    // f16 bf16 f32 f64
const std::vector<ScalarType>& integral_dtypes(bool include_bool);

/// A tensor of `dtype` with values drawn deterministically from [low, high) (integers: rounded),
/// written directly into memory (independent of Ember's kernels). seed picks the sequence.
Tensor make_tensor(const std::vector<int64_t>& shape, ScalarType dtype, double low = -5,
                   double high = 5, uint64_t seed = 0);
/// The same values as a non-contiguous view: a transposed (last two dims) or strided copy.
Tensor make_noncontiguous(const Tensor& t);
/// A stride-0 view of `t` (shape [1, ...] or [...]) expanded to `shape`.
Tensor make_expanded(const Tensor& t, const std::vector<int64_t>& shape);

/// Elements as doubles in row-major order, read through the strides (not Ember's copy kernel).
std::vector<double> values(const Tensor& t);
/// A float64 tensor with the given shape and row-major values.
Tensor from_values(const std::vector<int64_t>& shape, const std::vector<double>& v,
                   ScalarType dtype = kFloat64);

/// Tolerances for comparing a result of `dtype` with a float64 reference.
std::pair<double, double> tolerances(ScalarType dtype);  // {rtol, atol}
/// Checks shape and values (NaN matches NaN, infinities must match exactly).
::testing::AssertionResult close(const Tensor& actual, const std::vector<int64_t>& shape,
                                 const std::vector<double>& expected, double rtol, double atol);

struct Sample {
  std::vector<Tensor> inputs;
  std::string desc;  // "0-d", "empty", "broadcast", "non-contiguous", ...
};

struct Reference {
  std::vector<int64_t> shape;
  std::vector<double> values;
  ScalarType dtype;  // the dtype PyTorch returns
};

struct OpInfo {
  std::string name;
  std::vector<ScalarType> dtypes;                                        // supported dtypes
  std::function<std::vector<Sample>(ScalarType)> samples;                // for one dtype
  std::function<Tensor(const std::vector<Tensor>&)> op;                  // calls Ember
  std::function<Reference(const std::vector<Tensor>&)> reference;        // plain loops in double
  /// Extra tolerance factor for ops with long accumulations or ill-conditioned outputs.
  double tol_scale = 1;
  /// Dtypes that must raise TypeError (the op rejects them).
  std::vector<ScalarType> rejected_dtypes = {};
  /// Why OpTest.Gradcheck skips this op (empty: its float64 samples are gradchecked against
  /// central finite differences, and gradgradchecked when double_backward is set).
  std::string no_gradcheck = {};
  bool double_backward = true;
};

void PrintTo(const OpInfo& info, std::ostream* os);

class OpTest : public ::testing::TestWithParam<OpInfo> {};

/// Name generator for INSTANTIATE_TEST_SUITE_P.
std::string op_test_name(const ::testing::TestParamInfo<OpInfo>& info);

/// Standard sample shapes for an elementwise op of `arity` inputs: 0-d, empty, 1-d, 2-d,
/// broadcast pairs, non-contiguous and expanded views.
std::vector<Sample> elementwise_samples(ScalarType dtype, int arity, double low = -5,
                                        double high = 5);

/// An error-table row: calling `fn` must throw E whose message contains `needle` (the op name).
struct ErrorCase {
  std::string desc;
  std::function<void()> fn;
  std::string needle;
};
template <typename E>
void expect_errors(const std::vector<ErrorCase>& cases) {
  for (const auto& c : cases) {
    try {
      c.fn();
      ADD_FAILURE() << c.desc << ": no exception";
    } catch (const E& e) {
      EXPECT_NE(std::string(e.what()).find(c.needle), std::string::npos)
          << c.desc << ": message '" << e.what() << "' lacks '" << c.needle << "'";
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.desc << ": wrong exception type: " << e.what();
    }
  }
}

}  // namespace ember::test
