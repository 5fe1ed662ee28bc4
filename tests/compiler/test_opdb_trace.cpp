// Note [Tracer] over the whole op database: every sample of every dtype is traced with make_fx,
// the graph verified (every call's metadata against its primitive's inference), written to JSON
// and read back equal, and the read-back graph interpreted on fresh copies of the inputs. Its
// results must equal eager's exactly (values, dtype, sizes: the same kernels run in the same
// order), and so must the inputs afterwards (the same in-place writes). Entries that cannot be
// captured yet are listed in capture_pending() with the reason; the test fails if one of them
// starts working, so the list only shrinks.
#include <ember/compiler.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "opdb.h"

namespace ember::test {
namespace {

// Entries whose op cannot be captured yet, and why.
const std::map<std::string, std::string>& capture_pending() {
  static const std::map<std::string, std::string> pending = {
      {"rremainder_int_scalar",
       "the entry rewrites its input's zeros in memory (binary::rewrite) before calling the op, "
       "outside dispatch: no graph can record that write"},
  };
  return pending;
}

// A copy with the same storage size, offset, sizes and strides (expanded and non-contiguous
// layouts included), so that each run starts from the same inputs.
Tensor exact_copy(const Tensor& t) {
  if (!t.defined()) return t;
  const TensorImpl* impl = t.unsafeGetTensorImpl();
  const size_t nbytes = impl->storage()->nbytes();
  auto storage = std::make_shared<StorageImpl>(nbytes, t.device());
  if (nbytes && impl->storage()->data()) {
    std::memcpy(storage->data(), impl->storage()->data(), nbytes);
  }
  auto copy = std::make_shared<TensorImpl>(storage, t.dtype(), t.sizes(), t.strides(),
                                           impl->storage_offset());
  copy->set_wrapped_number(impl->is_wrapped_number());
  return Tensor(copy);
}

std::vector<Tensor> exact_copies(const std::vector<Tensor>& ts) {
  std::vector<Tensor> r;
  for (const Tensor& t : ts) r.push_back(exact_copy(t));
  return r;
}

std::string shape_of(const Tensor& t) {
  std::string r = "[";
  for (int64_t d = 0; d < t.dim(); ++d) r += (d ? ", " : "") + std::to_string(t.size(d));
  return r + "]";
}

// Exact equality of dtype, sizes and values (NaN equals NaN).
::testing::AssertionResult same(const Tensor& got, const Tensor& want, const std::string& what) {
  if (got.defined() != want.defined()) {
    return ::testing::AssertionFailure()
           << what << ": defined " << got.defined() << " vs " << want.defined();
  }
  if (!got.defined()) return ::testing::AssertionSuccess();
  if (got.dtype() != want.dtype() || got.sizes() != want.sizes()) {
    return ::testing::AssertionFailure()
           << what << ": " << dtype_name(got.dtype()) << " " << shape_of(got) << " vs eager "
           << dtype_name(want.dtype()) << " " << shape_of(want);
  }
  const std::vector<double> a = values(got), b = values(want);
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i] && !(std::isnan(a[i]) && std::isnan(b[i]))) {
      return ::testing::AssertionFailure()
             << what << ": element " << i << " is " << a[i] << ", eager " << b[i];
    }
  }
  return ::testing::AssertionSuccess();
}

// Inputs after the call: exact copies of one layout, so their memory must be byte-identical.
::testing::AssertionResult same_memory(const Tensor& got, const Tensor& want, size_t i) {
  if (!got.defined()) return ::testing::AssertionSuccess();
  const StorageImpl& a = *got.unsafeGetTensorImpl()->storage();
  const StorageImpl& b = *want.unsafeGetTensorImpl()->storage();
  if (a.nbytes() == b.nbytes() && (!a.data() || std::memcmp(a.data(), b.data(), a.nbytes()) == 0)) {
    return ::testing::AssertionSuccess();
  }
  return same(got, want, "input " + std::to_string(i) + " after the call");
}

// One sample: "" when captured and equal, else why not. The function runs eagerly while it is
// traced (make_fx records real kernels), so its result and its inputs afterwards are eager's.
std::string trace_sample(const OpInfo& info, const Sample& s, int& captured) {
  const std::vector<Tensor> eager_in = exact_copies(s.inputs);
  Tensor eager;
  auto fn = [&](const std::vector<Tensor>& xs) { return std::vector<Tensor>{eager = info.op(xs)}; };
  fx::GraphModule gm;
  try {
    gm = make_fx(fn, eager_in);
  } catch (const Error& e) {
    try {
      info.op(exact_copies(s.inputs));
    } catch (const Error&) {
      return "";  // a sample the op refuses untraced too: MatchesReference's business
    }
    return std::string("tracing failed: ") + e.what();
  }
  const std::string json = gm.graph().to_json();
  fx::Graph read;
  try {
    read = fx::Graph::from_json(json);
  } catch (const std::exception& e) {
    return std::string("JSON read-back failed: ") + e.what();
  }
  if (!(read == gm.graph())) return "the JSON read-back differs from the graph:\n" + json;
  const fx::GraphModule replayed(std::move(read), gm.attrs());
  const std::vector<Tensor> graph_in = exact_copies(s.inputs);
  std::vector<Tensor> out;
  try {
    out = replayed(graph_in);
  } catch (const std::exception& e) {
    return std::string("interpreting failed: ") + e.what() + "\n" + gm.graph().to_string();
  }
  if (out.size() != 1) return "the graph returned " + std::to_string(out.size()) + " values";
  auto r = same(out[0], eager, "result");
  for (size_t i = 0; r && i < graph_in.size(); ++i) {
    r = same_memory(graph_in[i], eager_in[i], i);
  }
  if (!r) return std::string(r.message()) + "\n" + gm.graph().to_string();
  ++captured;
  return "";
}

TEST_P(OpTest, TracedMatchesEager) {
  const OpInfo& info = GetParam();
  std::vector<ScalarType> dtypes = info.dtypes;
  dtypes.insert(dtypes.end(), info.shape_only_dtypes.begin(), info.shape_only_dtypes.end());
  std::vector<std::string> failures;
  int captured = 0;
  for (ScalarType dt : dtypes) {
    for (const Sample& s : info.samples(dt)) {
      std::string why = trace_sample(info, s, captured);
      if (!why.empty()) failures.push_back(std::string(dtype_name(dt)) + " " + s.desc + ": " + why);
    }
  }
  RecordProperty("captured_samples", captured);
  auto pending = capture_pending().find(info.name);
  if (pending != capture_pending().end()) {
    std::printf("[ capture  ] %s: not captured yet (%s); %zu samples fail\n", info.name.c_str(),
                pending->second.c_str(), failures.size());
    EXPECT_FALSE(failures.empty())
        << info.name << " is captured now: take it off capture_pending()";
    return;
  }
  // The first few in full (with the graph), then a count.
  for (size_t i = 0; i < failures.size() && i < 3; ++i)
    ADD_FAILURE() << info.name << " " << failures[i];
  if (failures.size() > 3)
    ADD_FAILURE() << info.name << ": " << failures.size() - 3 << " more samples fail";
}

}  // namespace
}  // namespace ember::test
