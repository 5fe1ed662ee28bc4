#pragma once
// The op database: each entry says how to make sample inputs for a dtype, how to call the op and
// how to compute a float64 (or exact integer) reference with plain loops. Generic tests
// (TEST_P(OpTest, ...) in opdb.cpp) iterate over every entry; a family's test file instantiates
// them with INSTANTIATE_TEST_SUITE_P(Family, OpTest, ::testing::ValuesIn(family_ops())).
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember::test {

/// Every dtype Ember implements.
const std::vector<ScalarType>& all_dtypes();
const std::vector<ScalarType>& float_dtypes();  // f16 bf16 f32 f64
const std::vector<ScalarType>& integral_dtypes(bool include_bool);
/// Every dtype not in `dtypes`.
std::vector<ScalarType> dtypes_except(const std::vector<ScalarType>& dtypes);

/// A tensor of `dtype` with values drawn deterministically from [low, high) (integers: rounded),
/// written directly into memory (independent of Ember's kernels). seed picks the sequence.
Tensor make_tensor(const std::vector<int64_t>& shape, ScalarType dtype, double low = -5,
                   double high = 5, uint64_t seed = 0);
/// The same values as a non-contiguous view: every other element of a buffer twice as long in
/// the last dim. A meta tensor gives a meta tensor of the same layout (it has no values).
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
  /// Why OpTest.Gradcheck leaves this sample out (e.g. it sits on a kink of the op). Empty: it is
  /// checked. Every exclusion is printed and counted, never silent.
  std::string no_gradcheck = {};
};

/// The most elements a gradcheck sample may hold in all its inputs together, and in its output:
/// finite differences cost two calls per input element and one backward per output element.
inline constexpr int64_t kGradcheckMaxNumel = 160;
/// Samples of at most this many input elements are gradgradchecked too.
inline constexpr int64_t kGradgradcheckMaxNumel = 16;

struct Reference {
  std::vector<int64_t> shape;
  std::vector<double> values;
  ScalarType dtype;  // the dtype PyTorch returns
};

struct OpInfo {
  std::string name;
  std::vector<ScalarType> dtypes;                                  // supported dtypes
  std::function<std::vector<Sample>(ScalarType)> samples;          // for one dtype
  std::function<Tensor(const std::vector<Tensor>&)> op;            // calls Ember
  std::function<Reference(const std::vector<Tensor>&)> reference;  // plain loops in double
  /// Extra tolerance factor for ops with long accumulations or ill-conditioned outputs.
  double tol_scale = 1;
  /// Dtypes the op must refuse (TypeError naming the dtype, or RuntimeError, as PyTorch).
  /// Empty: every dtype not in dtypes or shape_only_dtypes.
  std::vector<ScalarType> rejected_dtypes = {};
  /// Supported dtypes whose values this entry's reference cannot follow (e.g. 16-bit chains that
  /// round every intermediate): MatchesReference checks only their results' shape and dtype, and
  /// `values_checked_in` names the test that checks their values. dtypes, shape_only_dtypes and
  /// rejected_dtypes together list every dtype once (OpTest.DtypesCoverAll).
  std::vector<ScalarType> shape_only_dtypes = {};
  std::string values_checked_in = {};
  /// Gradgradcheck the small gradcheck samples as well.
  bool double_backward = true;
  /// Float64 samples for OpTest.Gradcheck, for entries whose `samples` are too large to check by
  /// finite differences (see kGradcheckMaxNumel), hold ties or leave the op's smooth domain.
  /// Unset: `samples(kFloat64)`, every one of which must then be small enough.
  std::function<std::vector<Sample>()> grad_samples = {};
  /// Positions of the inputs that carry the call's non-tensor arguments (dims, flags, sizes),
  /// which `op` reads back with values() instead of passing them to Ember; negative positions
  /// count from the end. OpTest.MetaMatchesEager leaves them on the CPU when it moves a sample
  /// to the meta device.
  std::vector<int> arg_inputs = {};
  /// A differentiable form of `op` for Gradcheck, where `op` inspects its result with raw reads.
  std::function<Tensor(const std::vector<Tensor>&)> grad_op = {};
  /// Why the op has no derivative, in PyTorch's terms (its output is boolean or integral, or
  /// PyTorch marks it not differentiable). Empty: the op is differentiable, and a missing vjp
  /// fails Gradcheck. When set, Gradcheck checks that the output carries no gradient.
  std::string not_differentiable = {};
  /// Extreme-value and selection ops (max, sort, median, ...): not differentiable where inputs
  /// tie. Gradcheck leaves out (and counts) their samples whose inputs repeat a value, so their
  /// grad samples should be mostly tie-free.
  bool nondifferentiable_at_ties = false;
};

/// PyTorch's two common reasons an op has no derivative, for OpInfo::not_differentiable: it
/// supports no floating dtype (integer-only op), or its result for float64 input is boolean or
/// integral (comparisons, indices, counts). Empty when neither holds.
std::string nondifferentiable_reason(const std::vector<ScalarType>& dtypes,
                                     ScalarType float64_result);

/// Note [Dtypes not yet compared]: by entry name, the dtypes its op accepts whose values it does
/// not compare yet, and why.
const std::map<std::string, std::pair<std::vector<ScalarType>, std::string>>& unchecked_dtypes();
/// info.rejected_dtypes, or when that is empty every dtype the entry does not support.
std::vector<ScalarType> rejected_dtypes(const OpInfo& info);

void PrintTo(const OpInfo& info, std::ostream* os);

class OpTest : public ::testing::TestWithParam<OpInfo> {};

/// Name generator for INSTANTIATE_TEST_SUITE_P.
std::string op_test_name(const ::testing::TestParamInfo<OpInfo>& info);

/// Standard sample shapes for an elementwise op of `arity` inputs: 0-d, empty, 1-d, 2-d,
/// broadcast pairs, non-contiguous and expanded views, and one 40x37 sample ("2-d-large") that
/// crosses vector widths.
std::vector<Sample> elementwise_samples(ScalarType dtype, int arity, double low = -5,
                                        double high = 5);
/// `samples` without elementwise_samples' "2-d-large" one: the gradcheck set of the entries
/// built on elementwise_samples (finite differences over 1480 elements would take seconds).
std::vector<Sample> without_large(std::vector<Sample> samples);
/// without_large(elementwise_samples(kFloat64, ...)).
std::vector<Sample> elementwise_grad_samples(int arity, double low = -5, double high = 5);

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
