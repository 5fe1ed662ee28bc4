// scaled_dot_product_attention: validation, batch broadcasting and dtype handling around the
// tiled primitive (src/primitives/attention.h).
#include "ember/nn/functional/attention.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>

#include "ember/core/generator.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "nn/functional/attention_internal.h"
#include "ops/util.h"
#include "primitives/attention.h"

namespace ember {
namespace nn::detail {
namespace {

constexpr const char* kOp = "scaled_dot_product_attention";

// Shapes may be symbolic (Note [Symbolic shapes]: a batch traced as a dynamic dim).
using Shape = std::vector<SymInt>;

Shape head(const std::vector<SymInt>& s, size_t drop) {
  return {s.begin(), s.end() - static_cast<std::ptrdiff_t>(drop)};
}

SymInt prod(const Shape& s) {
  SymInt n = 1;
  for (const SymInt& x : s) n = n * x;
  return n;
}

// Equal entries, compared as expressions (no guard on a dynamic dim).
bool same_dims(const Shape& a, const Shape& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const SymInt& x, const SymInt& y) { return x.same_as(y); });
}

Shape cat_shape(Shape a, const Shape& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// Everything the kernels need, in the compute dtype and kernel layout.
struct Prepared {
  Tensor q, k, v, mask;  // q [B, Hq, L, E] ...; mask: a view [batch..., (Hq), L, S] or undefined
  Shape out_batch;       // batch dims of the output (with Hq under GQA)
  SymInt B;              // their product
  SymInt L, S;           // the sequence lengths (a 2-d query's dim 0 may be dynamic)
  int64_t Hq, Hk, E, Ev;
  ScalarType dtype, compute;
  AttentionParams params;
};

Prepared prepare(const Tensor& query, const Tensor& key, const Tensor& value,
                 const Tensor& attn_mask, double dropout_p, bool is_causal,
                 std::optional<double> scale, bool enable_gqa) {
  EMBER_CHECK(query.defined() && key.defined() && value.defined(), "[", kOp,
              "] expected defined query, key and value tensors");
  const ScalarType dt = query.dtype();
  EMBER_CHECK(key.dtype() == dt && value.dtype() == dt, "[", kOp,
              "] Expected query, key, and value to have the same dtype, but got query.dtype: ",
              dtype_name(dt), " key.dtype: ", dtype_name(key.dtype()),
              " and value.dtype: ", dtype_name(value.dtype()), " instead.");
  EMBER_CHECK_TYPE(is_floating_point(dt) && is_implemented(dt), "[", kOp, "] not implemented for '",
                   dtype_name(dt), "'");
  const int64_t min_dim = enable_gqa ? 3 : 2;
  EMBER_CHECK(query.dim() >= min_dim && key.dim() >= min_dim && value.dim() >= min_dim, "[", kOp,
              "] Expected query, key and value to have at least ", min_dim,
              " dimensions, but got query.dim: ", query.dim(), ", key.dim: ", key.dim(),
              " and value.dim: ", value.dim());
  EMBER_CHECK_VALUE(dropout_p >= 0.0 && dropout_p <= 1.0, "[", kOp,
                    "] dropout probability has to be between 0 and 1, but got ", dropout_p);
  EMBER_CHECK(!(is_causal && attn_mask.defined()), "[", kOp,
              "] Explicit attn_mask should not be set when is_causal=True");
  Prepared pr;
  pr.dtype = dt;
  pr.compute = opmath_type(dt);
  pr.L = query.sym_size(-2);
  pr.E = query.size(-1);
  pr.S = key.sym_size(-2);
  pr.Ev = value.size(-1);
  EMBER_CHECK(key.size(-1) == pr.E, "[", kOp,
              "] Expected query and key to have the same embedding dimension (last dim), but got ",
              pr.E, " and ", key.size(-1));
  EMBER_CHECK(value.sym_size(-2) == pr.S, "[", kOp,
              "] Expected key and value to have the same sequence length (dim -2), but got ", pr.S,
              " and ", value.sym_size(-2));
  const size_t tail = enable_gqa ? 3 : 2;
  Shape batch;
  try {
    batch = ops::broadcast_pair(
        ops::broadcast_pair(head(query.sym_sizes(), tail), head(key.sym_sizes(), tail), kOp),
        head(value.sym_sizes(), tail), kOp);
  } catch (const RuntimeError&) {  // a guard on a dynamic dim (not a RuntimeError) propagates
    EMBER_THROW(RuntimeError, "[", kOp, "] the batch dimensions of query ",
                ops::shape_str(query.sym_sizes()), ", key ", ops::shape_str(key.sym_sizes()),
                " and value ", ops::shape_str(value.sym_sizes()), " are not broadcastable");
  }
  if (enable_gqa) {
    pr.Hq = query.size(-3);
    pr.Hk = key.size(-3);
    EMBER_CHECK(value.size(-3) == pr.Hk, "[", kOp,
                "] Expected key and value to have the same number of heads, but got ", pr.Hk,
                " and ", value.size(-3));
    EMBER_CHECK(pr.Hk > 0 ? pr.Hq % pr.Hk == 0 : pr.Hq == 0, "[", kOp,
                "] number of heads in key/value (", pr.Hk,
                ") must divide number of heads in query (", pr.Hq, ")");
    pr.out_batch = cat_shape(batch, {pr.Hq});
  } else {
    pr.Hq = pr.Hk = 1;
    pr.out_batch = batch;
  }
  pr.B = prod(batch);
  if (pr.Hk == 0) pr.Hk = 1;  // no heads at all: nothing to compute, keep the divisions defined
  // Four-dim q, k and v of the output's batch whose rows are contiguous go to the kernels as
  // they are, their dim 1 the kernels' heads: the heads of x.view(B, L, H, E).transpose(1, 2)
  // are read in place (primitives/attention.h), as PyTorch's CPU flash attention reads them.
  const auto as_is = [&](const Tensor& t) {
    return t.dim() == 4 && same_dims(head(t.sym_sizes(), tail), batch) &&
           attention_rows_contiguous(t);
  };
  if (pr.compute == dt && as_is(query) && as_is(key) && as_is(value)) {
    pr.q = query;
    pr.k = key;
    pr.v = value;
    pr.B = query.sym_size(0);
    pr.Hq = query.size(1);
    pr.Hk = std::max<int64_t>(key.size(1), 1);
  } else {
    auto to_kernel = [&](const Tensor& t, int64_t h, const SymInt& len, int64_t width) {
      const Shape full = cat_shape(batch, enable_gqa ? Shape{h, len, width} : Shape{len, width});
      return t.to(pr.compute).expand(full).reshape({pr.B, h, len, width}).contiguous();
    };
    pr.q = to_kernel(query, enable_gqa ? pr.Hq : 1, pr.L, pr.E);
    pr.k = to_kernel(key, enable_gqa ? key.size(-3) : 1, pr.S, pr.E);
    pr.v = to_kernel(value, enable_gqa ? value.size(-3) : 1, pr.S, pr.Ev);
    if (enable_gqa) pr.Hq = pr.q.size(1);
  }
  if (attn_mask.defined()) {
    const ScalarType mt = attn_mask.dtype();
    EMBER_CHECK(mt == kBool || mt == dt, "[", kOp,
                "] Expected attn_mask dtype to be bool or to match query dtype, but got "
                "attn_mask.dtype: ",
                dtype_name(mt), " and query.dtype: ", dtype_name(dt), " instead.");
    const Shape target = cat_shape(pr.out_batch, {pr.L, pr.S});
    const Shape mask_sizes = attn_mask.sym_sizes();
    bool ok = mask_sizes.size() <= target.size();
    for (size_t i = 1; ok && i <= mask_sizes.size(); ++i) {
      const SymInt &m = mask_sizes[mask_sizes.size() - i], &t = target[target.size() - i];
      ok = m == t || m == 1;
    }
    EMBER_CHECK(ok, "[", kOp, "] attn_mask of shape ", ops::shape_str(mask_sizes),
                " is not broadcastable to the attention weights' shape ", ops::shape_str(target));
    Tensor m = mt == kBool ? attn_mask : attn_mask.to(pr.compute);
    pr.mask = m.expand(target);  // a view: broadcast dims keep stride 0
  }
  pr.params.scale = scale.has_value() ? *scale : 1.0 / std::sqrt(static_cast<double>(pr.E));
  pr.params.is_causal = is_causal;
  pr.params.has_mask = pr.mask.defined();
  pr.params.dropout_p = dropout_p;
  return pr;
}

// The primitives' inputs: `front`, then the mask and the dropout state where there are any.
std::vector<Tensor> kernel_inputs(const Prepared& pr, std::vector<Tensor> front,
                                  const Tensor& rng_state) {
  if (pr.mask.defined()) front.push_back(pr.mask);
  if (pr.params.dropout_p > 0) front.push_back(rng_state);
  return front;
}

/// Sums `g` (shape `full`) down to `shape` (right-aligned broadcasting).
Tensor sum_to(const Tensor& g, const std::vector<int64_t>& shape) {
  const int64_t lead = g.dim() - static_cast<int64_t>(shape.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < g.dim(); ++d) {
    if (d < lead || (shape[d - lead] == 1 && g.size(d) != 1)) dims.push_back(d);
  }
  Tensor r = dims.empty() ? g : g.sum(IntList(dims), /*keepdim=*/true);
  return r.reshape(shape);
}

}  // namespace

AttentionResult sdpa_forward(const Tensor& query, const Tensor& key, const Tensor& value,
                             const Tensor& attn_mask, double dropout_p, bool is_causal,
                             std::optional<double> scale, bool enable_gqa) {
  Prepared pr = prepare(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa);
  AttentionResult res;
  if (dropout_p > 0) {
    res.rng_state =
        ops::philox_state(default_generator(),
                          static_cast<uint64_t>(pr.B.guard_int(kOp) * pr.Hq * pr.L.guard_int(kOp) *
                                                pr.S.guard_int(kOp)),
                          pr.q.device());
  }
  const auto outs = dispatch(ScaledDotProductAttention(pr.params),
                             kernel_inputs(pr, {pr.q, pr.k, pr.v}, res.rng_state));
  res.output = outs[0].reshape(cat_shape(pr.out_batch, {pr.L, pr.Ev}));
  if (pr.compute != pr.dtype) res.output = res.output.to(pr.dtype);
  res.logsumexp = outs[1];
  return res;
}

std::tuple<Tensor, Tensor, Tensor> sdpa_backward(const Tensor& grad_output, const Tensor& query,
                                                 const Tensor& key, const Tensor& value,
                                                 const Tensor& attn_mask,
                                                 const AttentionResult& forward, double dropout_p,
                                                 bool is_causal, std::optional<double> scale,
                                                 bool enable_gqa) {
  Prepared pr = prepare(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa);
  EMBER_CHECK(dropout_p == 0 || forward.rng_state.defined(), "[", kOp,
              "] dropout_p > 0 needs the forward's generator state");
  const std::vector<int64_t> out_shape =
      SymIntList(cat_shape(pr.out_batch, {pr.L, pr.Ev})).concrete(kOp);
  EMBER_CHECK(grad_output.defined() && grad_output.sizes() == out_shape &&
                  forward.output.sizes() == out_shape,
              "[", kOp, "] expected grad_output and output of shape ", ops::shape_str(out_shape));
  const std::vector<int64_t> lse_shape = {pr.B.guard_int(kOp), pr.Hq, pr.L.guard_int(kOp)};
  EMBER_CHECK(forward.logsumexp.defined() && forward.logsumexp.sizes() == lse_shape, "[", kOp,
              "] logsumexp does not match the inputs");
  auto flat = [&](const Tensor& t) {
    return t.to(pr.compute).reshape({pr.B, pr.Hq, pr.L, pr.Ev}).contiguous();
  };
  const auto grads =
      dispatch(ScaledDotProductAttentionBackward(pr.params),
               kernel_inputs(pr,
                             {flat(grad_output), pr.q, pr.k, pr.v, flat(forward.output),
                              forward.logsumexp.to(pr.compute).contiguous()},
                             forward.rng_state));
  const Tensor &dq = grads[0], &dk = grads[1], &dv = grads[2];
  auto back = [&](const Tensor& g, const Tensor& like, const SymInt& len, int64_t width) {
    const Shape batch = head(pr.out_batch, enable_gqa ? 1 : 0);
    const Shape full =
        cat_shape(batch, enable_gqa ? Shape{g.size(1), len, width} : Shape{len, width});
    Tensor r = sum_to(g.reshape(full), like.sizes());
    return r.to(like.dtype());
  };
  return {back(dq, query, pr.L, pr.E), back(dk, key, pr.S, pr.E), back(dv, value, pr.S, pr.Ev)};
}

}  // namespace nn::detail

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale, bool enable_gqa) {
  return nn::detail::sdpa_forward(query, key, value, attn_mask, dropout_p, is_causal, scale,
                                  enable_gqa)
      .output;
}

}  // namespace ember
