// Note [Inference] over the whole op database: where a primitive that infers receives outputs
// that did not come from its inference (an in-place target, a temporary its op builder made),
// they must be what it infers (sizes, strides, dtype, device), for every sample and dtype.
// Outputs that dispatch allocated from the inference equal it by construction; whether the
// inference is right for them is MatchesReference's check (the op's result against float64).
//
// Note [Meta device] over the whole op database: every sample also runs on meta tensors (the
// same sizes, strides and dtypes, no data) and must give the eager result's sizes, strides and
// dtype. Entries that cannot run on meta yet are listed in meta_pending() with the reason; the
// test fails if one of them starts working, so the list only shrinks.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

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

// Entries whose op does not run on meta tensors yet, and why.
const std::map<std::string, std::string>& meta_pending() {
  static const std::string kNonzero =
      "data-dependent size: the result has one entry per nonzero (true) element";
  static const std::string kUnique =
      "data-dependent size: one primitive computes values, inverse and counts, and the values "
      "and counts have one entry per distinct element (or run)";
  static const std::string kBincount = "data-dependent size: the result has max(input) + 1 bins";
  static const std::map<std::string, std::string> pending = {
      {"nonzero", kNonzero},
      {"argwhere", kNonzero},
      {"masked_select", kNonzero},
      {"index_bool_mask", kNonzero},
      {"unique_values", kUnique},
      {"unique_inverse", kUnique},
      {"unique_counts", kUnique},
      {"unique_consecutive_values", kUnique},
      {"unique_consecutive_inverse", kUnique},
      {"unique_consecutive_counts", kUnique},
      {"unique_dim_values", kUnique},
      {"unique_dim_inverse", kUnique},
      {"unique_dim_counts", kUnique},
      {"unique_consecutive_dim_values", kUnique},
      {"unique_consecutive_dim_inverse", kUnique},
      {"unique_consecutive_dim_counts", kUnique},
      {"bincount", kBincount},
      {"bincount_f32_weights", kBincount},
      {"bincount_int_weights", kBincount},
  };
  return pending;
}

Tensor on_meta(const Tensor& t) {
  if (!t.defined()) return t;
  Tensor m = empty_strided(t.sizes(), t.strides(), TensorOptions(t.dtype()).device(kMeta));
  return t.requires_grad() ? m.requires_grad_() : m;
}

// Whether input i of n carries arguments for the op lambda to read (OpInfo::arg_inputs).
bool is_arg_input(const OpInfo& info, size_t i, size_t n) {
  return std::any_of(info.arg_inputs.begin(), info.arg_inputs.end(), [&](int a) {
    return static_cast<int64_t>(i) == (a < 0 ? static_cast<int64_t>(n) + a : a);
  });
}

TEST_P(OpTest, MetaMatchesEager) {
  const OpInfo& info = GetParam();
  std::vector<std::string> failures;
  int ran = 0;
  for (ScalarType dt : info.dtypes) {
    for (const Sample& s : info.samples(dt)) {
      Tensor eager;
      try {
        eager = info.op(s.inputs);
      } catch (const Error&) {
        continue;  // a sample the op rejects (MatchesReference checks the error)
      }
      std::vector<Tensor> inputs;
      for (size_t i = 0; i < s.inputs.size(); ++i) {
        inputs.push_back(is_arg_input(info, i, s.inputs.size()) ? s.inputs[i]
                                                                : on_meta(s.inputs[i]));
      }
      const std::string where = std::string(dtype_name(dt)) + " sample '" + s.desc + "': ";
      try {
        const Tensor meta = info.op(inputs);
        ++ran;
        if (!meta.device().is_meta() || meta.sizes() != eager.sizes() ||
            meta.strides() != eager.strides() || meta.dtype() != eager.dtype()) {
          failures.push_back(where + "meta gave " + TensorMeta::of(meta).str() + ", eager " +
                             TensorMeta::of(eager).str());
        }
      } catch (const Error& e) {
        failures.push_back(where + e.what());
      }
    }
  }
  const auto pending = meta_pending().find(info.name);
  if (pending != meta_pending().end()) {
    EXPECT_FALSE(failures.empty()) << info.name << " runs on meta now: remove it from "
                                   << "meta_pending() (" << pending->second << ")";
    RecordProperty("meta_pending", pending->second);
    return;
  }
  for (const auto& f : failures) ADD_FAILURE() << info.name << " on meta, " << f;
  RecordProperty("meta_samples", ran);
}

}  // namespace
}  // namespace ember::test
