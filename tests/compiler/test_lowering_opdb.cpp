// Note [Lowering] over the op database: every entry's samples (float32 and float64, or the
// entry's first dtype when it has neither; at most kSamplesPerDtype of them) are traced with
// make_fx, all the graphs are lowered in ONE unit (one compiler run), and each lowered graph is
// run and compared with the graph interpreter (which equals eager exactly: OpTest.
// TracedMatchesEager) within the dtype's tolerance, outputs and inputs afterwards. Samples that
// cannot be traced or that the op refuses are counted and printed, never skipped silently.
#include <ember/compiler.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>

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

TEST(LoweringOpdb, EveryEntryMatchesInterpreter) {
  std::vector<Traced> traced;
  int refused = 0, untraceable = 0;
  for (const auto& [name, info] : registered_op_infos()) {
    std::vector<ScalarType> dtypes;
    for (ScalarType dt : info.dtypes) {
      if (dt == kFloat32 || dt == kFloat64) dtypes.push_back(dt);
    }
    if (dtypes.empty() && !info.dtypes.empty()) dtypes.push_back(info.dtypes[0]);
    for (ScalarType dt : dtypes) {
      std::vector<Sample> samples = info.samples(dt);
      if (samples.size() > kSamplesPerDtype) samples.resize(kSamplesPerDtype);
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
  ASSERT_GT(with_kernels, 100);
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
}

}  // namespace
}  // namespace ember::test
