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

#include "fx_test_util.h"
#include "opdb.h"

namespace ember::test {
namespace {

// Entries whose op cannot be captured yet, and why.
const std::map<std::string, std::string>& capture_pending() {
  static const std::map<std::string, std::string> pending = {};
  return pending;
}

// Entries whose op cannot be traced with meta tensors yet, and why (see also meta_pending() in
// opdb_infer.cpp: what cannot run on meta cannot be traced fake; fake tracing gives the CPU
// tensors an op mixes in meta twins, so some entries listed there trace here).
constexpr const char* kReadsValues =
    "reads tensor values while building (argument tensors, data-dependent checks or the op "
    "database entry's own raw reads): data_ptr of a meta tensor";
const std::map<std::string, std::string>& fake_pending() {
  static const std::map<std::string, std::string> pending = {
      {"index_bool_mask",
       "the entry's op makes its index tensor on the input's device (for the meta device test); "
       "traced fake, that is a meta constant whose values the graph cannot hold"},
      {"index_put_",
       "the entry's op moves its value tensor to the input's device (for the meta device test); "
       "traced fake, that is a meta constant whose values the graph cannot hold"},
      {"Tensor_gather", kReadsValues},
      {"all", kReadsValues},
      {"amax", kReadsValues},
      {"amin", kReadsValues},
      {"aminmax_max", kReadsValues},
      {"aminmax_min", kReadsValues},
      {"any", kReadsValues},
      {"argmax", kReadsValues},
      {"argmin", kReadsValues},
      {"argsort_stable_descending", kReadsValues},
      {"bce_weight_and_bce_with_logits_pos_weight", kReadsValues},
      {"binary_cross_entropy", kReadsValues},
      {"binary_cross_entropy_with_logits", kReadsValues},
      {"bincount", kReadsValues},
      {"bincount_f32_weights", kReadsValues},
      {"bincount_int_weights", kReadsValues},
      {"chunk_2_dim0", kReadsValues},
      {"chunk_3_dim1", kReadsValues},
      {"count_nonzero", kReadsValues},
      {"cross_entropy", kReadsValues},
      {"cross_entropy_label_smoothing", kReadsValues},
      {"cross_entropy_probabilities", kReadsValues},
      {"cummax_indices", kReadsValues},
      {"cummax_values", kReadsValues},
      {"cummin_indices", kReadsValues},
      {"cummin_values", kReadsValues},
      {"cumprod", kReadsValues},
      {"cumprod_int", kReadsValues},
      {"cumsum", kReadsValues},
      {"cumsum_dtype_float64", kReadsValues},
      {"distances", kReadsValues},
      {"embedding_bag", kReadsValues},
      {"gather", kReadsValues},
      {"glu", kReadsValues},
      {"histc", kReadsValues},
      {"huber_loss", kReadsValues},
      {"index_add_alpha2", kReadsValues},
      {"index_add_inplace", kReadsValues},
      {"index_copy", kReadsValues},
      {"index_fill", kReadsValues},
      {"index_fill_tensor_value_inplace", kReadsValues},
      {"index_select", kReadsValues},
      {"kl_div", kReadsValues},
      {"kl_div_log_target", kReadsValues},
      {"kthvalue_indices", kReadsValues},
      {"kthvalue_indices_keepdim", kReadsValues},
      {"kthvalue_values", kReadsValues},
      {"kthvalue_values_keepdim", kReadsValues},
      {"l1_loss", kReadsValues},
      {"linear_bilinear", kReadsValues},
      {"log_softmax", kReadsValues},
      {"logcumsumexp", kReadsValues},
      {"logsumexp", kReadsValues},
      {"margin_ranking_and_cosine_embedding", kReadsValues},
      {"matrix_exp", kReadsValues},
      {"max_dim_indices", kReadsValues},
      {"max_dim_values", kReadsValues},
      {"mean", kReadsValues},
      {"mean_dtype_float32", kReadsValues},
      {"median_all", kReadsValues},
      {"median_dim_indices", kReadsValues},
      {"median_dim_indices_keepdim", kReadsValues},
      {"median_dim_values", kReadsValues},
      {"median_dim_values_keepdim", kReadsValues},
      {"min_dim_indices", kReadsValues},
      {"min_dim_values", kReadsValues},
      {"mode_indices", kReadsValues},
      {"mode_indices_keepdim", kReadsValues},
      {"mode_values", kReadsValues},
      {"mode_values_keepdim", kReadsValues},
      {"mse_loss", kReadsValues},
      {"msort", kReadsValues},
      {"nanmean", kReadsValues},
      {"nanmedian_all", kReadsValues},
      {"nanmedian_dim_indices", kReadsValues},
      {"nanmedian_dim_indices_keepdim", kReadsValues},
      {"nanmedian_dim_values", kReadsValues},
      {"nanmedian_dim_values_keepdim", kReadsValues},
      {"nansum", kReadsValues},
      {"nll_loss", kReadsValues},
      {"norm_dtype_float64", kReadsValues},
      {"norm_p0", kReadsValues},
      {"norm_p10", kReadsValues},
      {"norm_p20", kReadsValues},
      {"norm_p30", kReadsValues},
      {"norm_p5", kReadsValues},
      {"norm_pinf", kReadsValues},
      {"norm_pm10", kReadsValues},
      {"norm_pneginf", kReadsValues},
      {"prod", kReadsValues},
      {"prod_dtype_float64", kReadsValues},
      {"prod_int", kReadsValues},
      {"scaled_dot_product_attention", kReadsValues},
      {"scatter_add", kReadsValues},
      {"scatter_add_inplace", kReadsValues},
      {"scatter_reduce_add", kReadsValues},
      {"scatter_reduce_amax", kReadsValues},
      {"scatter_reduce_amax_exclude_self", kReadsValues},
      {"scatter_reduce_amin", kReadsValues},
      {"scatter_reduce_amin_exclude_self", kReadsValues},
      {"scatter_reduce_mean", kReadsValues},
      {"scatter_reduce_mean_exclude_self", kReadsValues},
      {"scatter_reduce_prod", kReadsValues},
      {"scatter_reduce_prod_exclude_self", kReadsValues},
      {"scatter_reduce_sum", kReadsValues},
      {"scatter_reduce_sum_exclude_self", kReadsValues},
      {"scatter_src", kReadsValues},
      {"scatter_value", kReadsValues},
      {"scatter_value_multiply", kReadsValues},
      {"searchsorted_left", kReadsValues},
      {"searchsorted_left_int32", kReadsValues},
      {"searchsorted_right", kReadsValues},
      {"searchsorted_right_int32", kReadsValues},
      {"smooth_l1_loss", kReadsValues},
      {"smooth_l1_loss_beta0", kReadsValues},
      {"softmax", kReadsValues},
      {"softmin", kReadsValues},
      {"sort_indices", kReadsValues},
      {"sort_indices_descending", kReadsValues},
      {"sort_values", kReadsValues},
      {"sort_values_descending", kReadsValues},
      {"split_2_dim-1", kReadsValues},
      {"split_sizes_list", kReadsValues},
      {"split_with_sizes_dim-2", kReadsValues},
      {"std_correction0", kReadsValues},
      {"std_correction10", kReadsValues},
      {"std_correction25", kReadsValues},
      {"std_mean_first", kReadsValues},
      {"std_mean_mean", kReadsValues},
      {"sum", kReadsValues},
      {"sum_dtype_float64", kReadsValues},
      {"sum_dtype_int32", kReadsValues},
      {"take_along_dim", kReadsValues},
      {"topk_indices_largest", kReadsValues},
      {"topk_indices_smallest", kReadsValues},
      {"topk_values_largest", kReadsValues},
      {"topk_values_smallest", kReadsValues},
      {"unbind_dim-1", kReadsValues},
      {"unbind_dim1", kReadsValues},
      {"unique_consecutive_counts", kReadsValues},
      {"unique_consecutive_dim_counts", kReadsValues},
      {"unique_consecutive_dim_inverse", kReadsValues},
      {"unique_consecutive_dim_values", kReadsValues},
      {"unique_consecutive_inverse", kReadsValues},
      {"unique_consecutive_values", kReadsValues},
      {"unique_counts", kReadsValues},
      {"unique_dim_counts", kReadsValues},
      {"unique_dim_inverse", kReadsValues},
      {"unique_dim_values", kReadsValues},
      {"unique_inverse", kReadsValues},
      {"unique_values", kReadsValues},
      {"var_correction0", kReadsValues},
      {"var_correction10", kReadsValues},
      {"var_correction25", kReadsValues},
      {"var_mean_first", kReadsValues},
      {"var_mean_mean", kReadsValues},
  };
  return pending;
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

// One sample: "" when captured and equal, else why not. A real trace runs the function
// eagerly while recording, so its result and its inputs afterwards are eager's; a fake trace
// runs no kernel, so eager runs on its own first.
std::string trace_sample(const OpInfo& info, const Sample& s, TracingMode mode, int& captured) {
  std::vector<Tensor> eager_in = exact_copies(s.inputs);
  Tensor eager;
  if (mode == TracingMode::Fake) {
    try {
      eager = info.op(eager_in);
    } catch (const Error&) {
      return "";  // a sample the op refuses: MatchesReference's business
    }
  }
  auto fn = [&](const std::vector<Tensor>& xs) {
    Tensor out = info.op(xs);
    if (mode == TracingMode::Real) eager = out;
    return std::vector<Tensor>{out};
  };
  fx::GraphModule gm;
  try {
    gm = make_fx(fn, mode == TracingMode::Real ? eager_in : exact_copies(s.inputs), {.mode = mode});
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

void check_entry(const OpInfo& info, TracingMode mode,
                 const std::map<std::string, std::string>& pending) {
  std::vector<ScalarType> dtypes = info.dtypes;
  dtypes.insert(dtypes.end(), info.shape_only_dtypes.begin(), info.shape_only_dtypes.end());
  std::vector<std::string> failures;
  int captured = 0;
  for (ScalarType dt : dtypes) {
    for (const Sample& s : info.samples(dt)) {
      std::string why = trace_sample(info, s, mode, captured);
      if (!why.empty()) failures.push_back(std::string(dtype_name(dt)) + " " + s.desc + ": " + why);
    }
  }
  ::testing::Test::RecordProperty("captured_samples", captured);
  const char* mode_name = mode == TracingMode::Real ? "real" : "fake";
  if (auto it = pending.find(info.name); it != pending.end()) {
    std::printf("[ capture  ] %s (%s): not captured yet (%s); %zu samples fail\n",
                info.name.c_str(), mode_name, it->second.c_str(), failures.size());
    EXPECT_FALSE(failures.empty()) << info.name << " is captured now: take it off the list";
    return;
  }
  // The first few in full (with the graph), then a count.
  for (size_t i = 0; i < failures.size() && i < 3; ++i) {
    ADD_FAILURE() << info.name << " (" << mode_name << ") " << failures[i];
  }
  if (failures.size() > 3) {
    ADD_FAILURE() << info.name << ": " << failures.size() - 3 << " more samples fail";
  }
}

TEST_P(OpTest, TracedMatchesEager) {
  check_entry(GetParam(), TracingMode::Real, capture_pending());
}

TEST_P(OpTest, FakeTracedMatchesEager) {
  check_entry(GetParam(), TracingMode::Fake, fake_pending());
}

}  // namespace
}  // namespace ember::test
