// Note [Inference] over the whole op database: where a primitive that infers receives outputs
// that did not come from its inference (an in-place target, a temporary its op builder made),
// they must be what it infers (sizes, strides, dtype, device), for every sample and dtype.
// Outputs that dispatch allocated from the inference equal it by construction; whether the
// inference is right for them is MatchesReference's check (the op's result against float64).
#include <gtest/gtest.h>

#include "dispatch/dispatch.h"
#include "opdb.h"

namespace ember::test {
namespace {

struct InferenceChecker : DispatchMode {
  std::vector<std::string> mismatches;
  int checked = 0;
  void handle(OpCall& call, const DispatchNext& next) override {
    if (!call.prim.infers() || call.outputs_inferred) return next(call);
    std::vector<TensorMeta> in;
    for (const Tensor& t : call.inputs) in.push_back(TensorMeta::of(t));
    MetaList expected = call.prim.infer(in);
    next(call);
    ++checked;
    if (expected.size() != call.outputs.size()) {
      mismatches.push_back(std::string(call.prim.name()) + ": inferred " +
                           std::to_string(expected.size()) + " outputs, got " +
                           std::to_string(call.outputs.size()));
      return;
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      TensorMeta got = TensorMeta::of(call.outputs[i]);
      // An in-place target keeps its own strides and dtype (the op casts its result into it,
      // as logical_not_ on uint8 does); everything else must match exactly.
      if (call.inplace) {
        got.strides = expected[i].strides;
        got.dtype = expected[i].dtype;
      }
      if (!(got == expected[i])) {
        mismatches.push_back(std::string(call.prim.name()) + "(" + call.prim.describe() +
                             ") output " + std::to_string(i) + ": inferred " + expected[i].str() +
                             ", kernel got " + got.str());
      }
    }
  }
};

TEST_P(OpTest, InferenceMatchesEager) {
  const OpInfo& info = GetParam();
  InferenceChecker checker;
  for (ScalarType dt : info.dtypes) {
    for (const Sample& s : info.samples(dt)) {
      DispatchModeGuard guard(checker);
      try {
        info.op(s.inputs);
      } catch (const Error&) {
        // Samples that the op rejects are MatchesReference's business.
      }
    }
  }
  for (const auto& m : checker.mismatches) ADD_FAILURE() << info.name << ": " << m;
  RecordProperty("inferred_calls", checker.checked);
}

}  // namespace
}  // namespace ember::test
