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
  static const std::map<std::string, std::string> pending = {
      {"Tensor_gather",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"abs_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"acos_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"all", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"amax", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"amin", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"aminmax_max",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"aminmax_min",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"any", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"argmax", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"argmin", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"argsort_stable_descending",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"argwhere", "output size depends on the data"},
      {"asin_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"atan_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"bce_weight_and_bce_with_logits_pos_weight",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"binary_cross_entropy",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"binary_cross_entropy_with_logits",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"bincount",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"bincount_f32_weights",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"bincount_int_weights",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"bitwise_not_",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"cat_dim-1", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"cat_dim0", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"ceil_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"cholesky", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"cholesky_upper", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"chunk_2_dim0",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"chunk_3_dim1",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"concat", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"cond_1", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"cond_fro", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"cond_minf", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"cos_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"cosh_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"count_nonzero",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"cross", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"cross_entropy",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"cross_entropy_label_smoothing",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"cross_entropy_probabilities",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"cummax_indices",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"cummax_values",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"cummin_indices",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"cummin_values",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"cumprod", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"cumprod_int",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"cumsum", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"cumsum_dtype_float64",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"diag_1d_-2", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"diag_1d_0", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"diag_1d_1", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"distances",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"embedding",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"embedding_bag",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"erf_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"erfc_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"erfinv_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"exp2_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"exp_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"expm1_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"floor_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"frac_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"gather", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"glu", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"histc", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"huber_loss",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"index_add_alpha2",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"index_add_inplace",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"index_bool_mask", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"index_copy",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"index_fill",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"index_fill_tensor_value_inplace",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"index_int_and_slice", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"index_put_", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"index_select",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"inv", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"kl_div", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"kl_div_log_target",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"kthvalue_indices",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"kthvalue_indices_keepdim",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"kthvalue_values",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"kthvalue_values_keepdim",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"l1_loss", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"linear_bilinear",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"log10_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"log1p_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"log2_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"log_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"log_softmax",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"logcumsumexp",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"logical_not_",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"logsumexp",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"lstsq_solution", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"margin_ranking_and_cosine_embedding",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"masked_select", "output size depends on the data"},
      {"matrix_exp",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"matrix_power_m1", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"matrix_power_m2", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"max_dim_indices",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"max_dim_values",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"mean", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"mean_dtype_float32",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"median_all",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"median_dim_indices",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"median_dim_indices_keepdim",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"median_dim_values",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"median_dim_values_keepdim",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"min_dim_indices",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"min_dim_values",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"mode_indices",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"mode_indices_keepdim",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"mode_values",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"mode_values_keepdim",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"mse_loss",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"msort", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"nanmean", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"nanmedian_all",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"nanmedian_dim_indices",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"nanmedian_dim_indices_keepdim",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"nanmedian_dim_values",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"nanmedian_dim_values_keepdim",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"nansum", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"neg_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"nll_loss",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"nonzero", "output size depends on the data"},
      {"norm_dtype_float64",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"norm_p0", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"norm_p10",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"norm_p20",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"norm_p30",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"norm_p5", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"norm_pinf",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"norm_pm10",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"norm_pneginf",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"pow_scalar_base", "its builder allocates the output (no inference)"},
      {"prod", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"prod_dtype_float64",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"prod_int",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"rdiv_int_scalar", "its builder allocates the output (no inference)"},
      {"reciprocal_",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"relu_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"round_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"round_decimals2_",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"rremainder_int_scalar",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"rsqrt_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"rsub_int_scalar", "its builder allocates the output (no inference)"},
      {"scaled_dot_product_attention",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"scatter_add",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"scatter_add_inplace",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"scatter_reduce_add",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"scatter_reduce_amax",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"scatter_reduce_amax_exclude_self",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"scatter_reduce_amin",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"scatter_reduce_amin_exclude_self",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"scatter_reduce_mean",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"scatter_reduce_mean_exclude_self",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"scatter_reduce_prod",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"scatter_reduce_prod_exclude_self",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"scatter_reduce_sum",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"scatter_reduce_sum_exclude_self",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"scatter_src",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"scatter_value",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"scatter_value_multiply",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"searchsorted_left",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"searchsorted_left_int32",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"searchsorted_right",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"searchsorted_right_int32",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"sigmoid_",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"sign_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"sin_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"sinh_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"smooth_l1_loss",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"smooth_l1_loss_beta0",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"softmax", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"softmin", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"solve", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"solve_right", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"solve_vector_rhs", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"sort_indices",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"sort_indices_descending",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"sort_values",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"sort_values_descending",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"split_2_dim-1",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"split_sizes_list",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"split_with_sizes_dim-2",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"sqrt_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"std_correction0",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"std_correction10",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"std_correction25",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"std_mean_first",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"std_mean_mean",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"sum", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"sum_dtype_float64",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"sum_dtype_int32",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"take", "mixes in a CPU tensor of its own (a temporary or an argument)"},
      {"take_along_dim",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"tan_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"tanh_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"topk_indices_largest",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"topk_indices_smallest",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"topk_values_largest",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"topk_values_smallest",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"trunc_", "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"unbind_dim-1",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"unbind_dim1",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"unique_consecutive_counts",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"unique_consecutive_dim_counts",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"unique_consecutive_dim_inverse",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"unique_consecutive_dim_values",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"unique_consecutive_inverse",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"unique_consecutive_values",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"unique_counts",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"unique_dim_counts",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"unique_dim_inverse",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"unique_dim_values",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"unique_inverse",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"unique_values",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"var_correction0",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"var_correction10",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"var_correction25",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"var_mean_first",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
      {"var_mean_mean",
       "reads tensor values while building (argument tensors or data-dependent checks)"},
  };
  return pending;
}

Tensor on_meta(const Tensor& t) {
  if (!t.defined()) return t;
  Tensor m = empty_strided(t.sizes(), t.strides(), TensorOptions(t.dtype()).device(kMeta));
  return t.requires_grad() ? m.requires_grad_() : m;
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
      for (const Tensor& t : s.inputs) inputs.push_back(on_meta(t));
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
