// The op database through the default pass pipeline (Note [Graph passes]): every sample of
// every dtype is traced with make_fx, run through decompose, canonicalize_views,
// fold_constants, CSE and DCE, and the rewritten graph interpreted on fresh copies of the
// inputs must give eager's results (exactly, or within the entry's tolerance where a
// decomposition rounds 16-bit floats per step) and leave the inputs as eager does. No call
// that the core opset decomposes may be left (except those with effects, kept by design).
#include <ember/compiler.h>
#include <gtest/gtest.h>

#include <cmath>

#include "dispatch/primitive.h"
#include "fx_test_util.h"
#include "opdb.h"

namespace ember::test {
namespace {

::testing::AssertionResult close(const Tensor& got, const Tensor& want, const std::string& what) {
  if (got.defined() != want.defined() ||
      (got.defined() && (got.dtype() != want.dtype() || got.sizes() != want.sizes()))) {
    return ::testing::AssertionFailure() << what << ": dtype or shape differs";
  }
  if (!got.defined()) return ::testing::AssertionSuccess();
  const auto [rtol, atol] = tolerances(got.dtype());
  const std::vector<double> a = values(got), b = values(want);
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))) continue;
    if (is_floating_point(got.dtype()) && std::abs(a[i] - b[i]) <= atol + rtol * std::abs(b[i])) {
      continue;
    }
    return ::testing::AssertionFailure()
           << what << ": element " << i << " is " << a[i] << ", eager " << b[i];
  }
  return ::testing::AssertionSuccess();
}

// "" when the passed graph agrees with eager (or the sample cannot be traced: the trace
// sweep's business, counted in `untraced`), else why not.
std::string passes_sample(const OpInfo& info, const Sample& s, int& checked, int& untraced) {
  std::vector<Tensor> eager_in = exact_copies(s.inputs);
  Tensor eager;
  auto fn = [&](const std::vector<Tensor>& xs) {
    eager = info.op(xs);
    return std::vector<Tensor>{eager};
  };
  fx::GraphModule gm;
  try {
    gm = make_fx(fn, eager_in);
  } catch (const Error&) {
    ++untraced;
    return "";
  }
  fx::GraphModule passed;
  try {
    passed = fx::run_passes(gm);
  } catch (const std::exception& e) {
    return std::string("the passes failed: ") + e.what() + "\n" + gm.graph().to_string();
  }
  for (const fx::Node& n : passed.graph().nodes()) {
    if (n.kind == fx::NodeKind::Call && !fx::is_core(n) && n.prim->has_decomposition() &&
        !n.inplace()) {
      return "call " + n.name + " was not decomposed\n" + passed.graph().to_string();
    }
  }
  const std::vector<Tensor> graph_in = exact_copies(s.inputs);
  std::vector<Tensor> out;
  try {
    out = passed(graph_in);
  } catch (const std::exception& e) {
    return std::string("interpreting failed: ") + e.what() + "\n" + passed.graph().to_string();
  }
  auto r = close(out.at(0), eager, "result");
  for (size_t i = 0; r && i < graph_in.size(); ++i) {
    r = close(graph_in[i], eager_in[i], "input " + std::to_string(i) + " after the call");
  }
  if (!r) return std::string(r.message()) + "\n" + passed.graph().to_string();
  ++checked;
  return "";
}

// Entries that cannot be captured (test_opdb_trace.cpp's capture_pending()), and why.
const std::map<std::string, std::string>& pending() {
  static const std::map<std::string, std::string> p = {};
  return p;
}

TEST_P(OpTest, PassesMatchEager) {
  const OpInfo& info = GetParam();
  std::vector<ScalarType> dtypes = info.dtypes;
  dtypes.insert(dtypes.end(), info.shape_only_dtypes.begin(), info.shape_only_dtypes.end());
  std::vector<std::string> failures;
  int checked = 0, untraced = 0;
  for (ScalarType dt : dtypes) {
    for (const Sample& s : info.samples(dt)) {
      std::string why = passes_sample(info, s, checked, untraced);
      if (!why.empty()) failures.push_back(std::string(dtype_name(dt)) + " " + s.desc + ": " + why);
    }
  }
  RecordProperty("checked_samples", checked);
  RecordProperty("untraced_samples", untraced);
  if (auto it = pending().find(info.name); it != pending().end()) {
    std::printf("[ passes   ] %s: not captured yet (%s); %zu samples fail\n", info.name.c_str(),
                it->second.c_str(), failures.size());
    EXPECT_FALSE(failures.empty()) << info.name << " is captured now: take it off the list";
    return;
  }
  for (size_t i = 0; i < failures.size() && i < 3; ++i)
    ADD_FAILURE() << info.name << " " << failures[i];
  if (failures.size() > 3) ADD_FAILURE() << info.name << ": " << failures.size() - 3 << " more";
}

}  // namespace
}  // namespace ember::test
