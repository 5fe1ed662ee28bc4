// Note [Lowering] over the op database: every entry's samples (float32 and float64, or the
// entry's first dtype when it has neither; at most kSamplesPerDtype of them; then the 16-bit
// floats, one sample each, and the integers and bool, two each) are traced with make_fx, all the
// graphs of a test are lowered in ONE lower() call (its units compiled in parallel, Note [Lowering
// units]), and each lowered graph is run and compared with the graph interpreter (which equals
// eager exactly: OpTest.TracedMatchesEager) within the dtype's tolerance, outputs and inputs
// afterwards. Samples that cannot be traced or that the op refuses are counted and printed, never
// skipped silently.
#include <ember/compiler.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>

#include "compiler/lowering.h"
#include "fx_test_util.h"
#include "opdb.h"

namespace ember::test {

// tests/opdb.cpp: the entries op_test_name has named.
std::map<std::string, OpInfo>& registered_op_infos();

namespace {

constexpr size_t kSamplesPerDtype = 3;

// The module's attributes (a random op's generator state) as bytes, to restore between runs.
std::vector<std::vector<char>> attr_bytes(const fx::GraphModule& gm) {
  std::vector<std::vector<char>> r;
  for (const auto& [name, t] : gm.attrs()) {
    const StorageImpl& s = *t.unsafeGetTensorImpl()->storage();
    const char* p = static_cast<const char*>(s.data());
    r.emplace_back(p, p + (p ? s.nbytes() : 0));
  }
  return r;
}
void restore(const fx::GraphModule& gm, const std::vector<std::vector<char>>& bytes) {
  size_t i = 0;
  for (const auto& [name, t] : gm.attrs()) {
    if (!bytes[i].empty()) {
      std::memcpy(t.unsafeGetTensorImpl()->storage()->data(), bytes[i].data(), bytes[i].size());
    }
    ++i;
  }
}

struct Traced {
  std::string what;
  fx::GraphModule gm;
  std::vector<Tensor> inputs;
  double tol_scale;
};

::testing::AssertionResult agree(const Tensor& got, const Tensor& want, double scale) {
  if (got.defined() != want.defined()) return ::testing::AssertionFailure() << "defined differs";
  if (!got.defined()) return ::testing::AssertionSuccess();
  if (got.dtype() != want.dtype() || got.sizes() != want.sizes()) {
    return ::testing::AssertionFailure() << "dtype or sizes differ: " << dtype_name(got.dtype())
                                         << " vs " << dtype_name(want.dtype());
  }
  auto [rtol, atol] = tolerances(want.dtype());
  return close(got, want.sizes(), values(want), rtol * scale, atol * scale);
}

// Lowers the samples of every entry in the dtypes `pick` chooses for it (at most
// samples_per_dtype each) in one lower() call and compares each lowered graph with the
// interpreter. Returns how many graphs have generated kernels.
int sweep(const std::function<std::vector<ScalarType>(const OpInfo&)>& pick,
          size_t samples_per_dtype) {
  std::vector<Traced> traced;
  int refused = 0, untraceable = 0;
  for (const auto& [name, info] : registered_op_infos()) {
    for (ScalarType dt : pick(info)) {
      std::vector<Sample> samples = info.samples(dt);
      if (samples.size() > samples_per_dtype) samples.resize(samples_per_dtype);
      for (const Sample& s : samples) {
        try {
          info.op(exact_copies(s.inputs));
        } catch (const Error&) {
          ++refused;  // a sample the op refuses: MatchesReference's business
          continue;
        }
        auto fn = [&](const std::vector<Tensor>& xs) { return std::vector<Tensor>{info.op(xs)}; };
        try {
          traced.push_back({name + " " + dtype_name(dt) + " " + s.desc,
                            make_fx(fn, exact_copies(s.inputs)), s.inputs, info.tol_scale});
        } catch (const Error&) {
          ++untraceable;  // OpTest.TracedMatchesEager lists these
        }
      }
    }
  }
  std::vector<const fx::GraphModule*> gms;
  for (const Traced& t : traced) gms.push_back(&t.gm);
  const auto t0 = std::chrono::steady_clock::now();
  const auto lowered = compiler::lower(gms);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  size_t kernels = 0;
  int with_kernels = 0;
  for (const auto& l : lowered) {
    kernels += l->kernel_names().size();
    with_kernels += !l->kernel_names().empty();
  }
  std::printf(
      "[ lowering ] %zu graphs (%d with generated kernels, %zu kernel calls) lowered in "
      "%.1f s; %d samples refused by their op, %d not traceable\n",
      traced.size(), with_kernels, kernels, secs, refused, untraceable);
  int failures = 0;
  for (size_t i = 0; i < traced.size(); ++i) {
    const Traced& t = traced[i];
    const auto state = attr_bytes(t.gm);
    std::vector<Tensor> want_in = exact_copies(t.inputs), got_in = exact_copies(t.inputs);
    const std::vector<Tensor> want = t.gm(want_in);
    restore(t.gm, state);
    std::vector<Tensor> got;
    try {
      got = (*lowered[i])(got_in);
    } catch (const std::exception& e) {
      ADD_FAILURE() << t.what << ": " << e.what() << "\n" << t.gm.graph().to_string();
      continue;
    }
    restore(t.gm, state);
    auto r = got.size() == want.size() ? ::testing::AssertionSuccess()
                                       : ::testing::AssertionFailure() << "output count";
    for (size_t k = 0; r && k < want.size(); ++k) r = agree(got[k], want[k], 4 * t.tol_scale);
    for (size_t k = 0; r && k < want_in.size(); ++k) {
      r = agree(got_in[k], want_in[k], 4 * t.tol_scale);
    }
    if (!r && ++failures <= 10) {
      ADD_FAILURE() << t.what << ": " << r.message() << "\n"
                    << t.gm.graph().to_string() << lowered[i]->source();
    }
  }
  EXPECT_EQ(failures, 0);
  return with_kernels;
}

// The entry's dtypes among `wanted`, shape-only ones included (the interpreter is the reference).
std::vector<ScalarType> among(const OpInfo& info, const std::vector<ScalarType>& wanted) {
  std::vector<ScalarType> r;
  for (ScalarType dt : wanted) {
    const bool has = std::find(info.dtypes.begin(), info.dtypes.end(), dt) != info.dtypes.end() ||
                     std::find(info.shape_only_dtypes.begin(), info.shape_only_dtypes.end(), dt) !=
                         info.shape_only_dtypes.end();
    if (has) r.push_back(dt);
  }
  return r;
}

TEST(LoweringOpdb, EveryEntryMatchesInterpreter) {
  const int with_kernels = sweep(
      [](const OpInfo& info) {
        std::vector<ScalarType> dtypes = among(info, {kFloat32, kFloat64});
        if (dtypes.empty() && !info.dtypes.empty()) dtypes.push_back(info.dtypes[0]);
        return dtypes;
      },
      kSamplesPerDtype);
  EXPECT_GT(with_kernels, 100);
}

// Note [16-bit kernels]: bfloat16 and float16 graphs generate kernels that compute in float and
// round each op's result, so they agree with the interpreter (eager's kernels) op by op.
TEST(LoweringOpdb, SixteenBitEntriesMatchInterpreter) {
  const int with_kernels = sweep(
      [](const OpInfo& info) {
        return among(info, {kBFloat16, kFloat16});
      },
      1);
  EXPECT_GT(with_kernels, 100);
}

// Integer and bool graphs: wrapping add/sub/mul, maximum/minimum, comparisons, copies.
TEST(LoweringOpdb, IntegerEntriesMatchInterpreter) {
  const int with_kernels = sweep(
      [](const OpInfo& info) {
        return among(info, {kInt64, kInt32, kBool});
      },
      2);
  EXPECT_GT(with_kernels, 20);
}

}  // namespace
}  // namespace ember::test
