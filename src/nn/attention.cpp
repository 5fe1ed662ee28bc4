// nn::MultiheadAttention and F::multi_head_attention_forward, following
// torch/nn/functional.py (multi_head_attention_forward) step by step.
#include "ember/nn/functional/attention.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/linear.h"
#include "ember/nn/init.h"
#include "ember/nn/modules/attention.h"

namespace ember::nn {

namespace {

std::string tuple_str(const std::vector<int64_t>& s) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << ")";
  return os.str();
}

std::string size_str(const std::vector<int64_t>& s) {
  std::ostringstream os;
  os << "torch.Size([";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << "])";
  return os.str();
}

/// PyTorch's _canonical_mask: a bool mask becomes 0 / -inf in the query's dtype; a float mask is
/// kept (cast to the query's dtype).
Tensor canonical_mask(const Tensor& mask, const char* name, ScalarType dtype, const char* op) {
  if (!mask.defined()) return mask;
  if (mask.dtype() == kBool) {
    return zeros(SymIntList(mask.sizes()), TensorOptions().dtype(dtype))
        .masked_fill(mask, -std::numeric_limits<double>::infinity());
  }
  EMBER_CHECK_TYPE(mask.is_floating_point(), "[", op, "] only bool and floating types of ", name,
                   " are supported (got ", dtype_name(mask.dtype()), ")");
  return mask.dtype() == dtype ? mask : mask.to(dtype);
}

/// Appends one column of zeros along the last dim (F.pad(mask, (0, 1))).
Tensor pad_last(const Tensor& m) {
  if (!m.defined()) return m;
  std::vector<int64_t> s = m.sizes();
  s.back() = 1;
  return cat({m, zeros(SymIntList(s), m.options())}, -1);
}

/// Returns whether the query is batched, after PyTorch's _mha_shape_check.
bool mha_shape_check(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& kpm,
                     const Tensor& mask, int64_t num_heads, const char* op) {
  EMBER_CHECK(q.defined() && k.defined() && v.defined(), "[", op,
              "] query, key and value must be defined tensors");
  if (q.dim() == 3) {
    EMBER_CHECK_VALUE(
        k.dim() == 3 && v.dim() == 3, "[", op,
        "] For batched (3-D) `query`, expected `key` and `value` to be 3-D but found ", k.dim(),
        "-D and ", v.dim(), "-D tensors respectively");
    EMBER_CHECK_VALUE(!kpm.defined() || kpm.dim() == 2, "[", op,
                      "] For batched (3-D) `query`, expected `key_padding_mask` to be `None` or "
                      "2-D but found ",
                      kpm.dim(), "-D tensor instead");
    EMBER_CHECK_VALUE(!mask.defined() || mask.dim() == 2 || mask.dim() == 3, "[", op,
                      "] For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                      "but found ",
                      mask.dim(), "-D tensor instead");
    return true;
  }
  EMBER_CHECK_VALUE(q.dim() == 2, "[", op,
                    "] query should be unbatched 2D or batched 3D tensor but received ", q.dim(),
                    "-D query tensor");
  EMBER_CHECK_VALUE(
      k.dim() == 2 && v.dim() == 2, "[", op,
      "] For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found ", k.dim(),
      "-D and ", v.dim(), "-D tensors respectively");
  EMBER_CHECK_VALUE(
      !kpm.defined() || kpm.dim() == 1, "[", op,
      "] For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
      "but found ",
      kpm.dim(), "-D tensor instead");
  if (mask.defined()) {
    EMBER_CHECK_VALUE(mask.dim() == 2 || mask.dim() == 3, "[", op,
                      "] For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or "
                      "3-D but found ",
                      mask.dim(), "-D tensor instead");
    if (mask.dim() == 3) {
      const std::vector<int64_t> expected{num_heads, q.size(0), k.size(0)};
      EMBER_CHECK_VALUE(mask.sizes() == expected, "[", op, "] Expected `attn_mask` shape to be ",
                        tuple_str(expected), " but got ", size_str(mask.sizes()));
    }
  }
  return false;
}

void check_weight(const Tensor& w, const std::vector<int64_t>& expected, const char* what,
                  const char* op) {
  EMBER_CHECK(w.defined() && w.sizes() == expected, "[", op, "] expecting ", what,
              " weights shape of ", tuple_str(expected), ", but got ",
              w.defined() ? size_str(w.sizes()) : std::string("None"));
}

using functional::MultiheadAttentionForwardFuncOptions;

std::tuple<Tensor, Tensor> mha_forward(const Tensor& query_in, const Tensor& key_in,
                                       const Tensor& value_in,
                                       const MultiheadAttentionForwardFuncOptions& o,
                                       const char* op) {
  const int64_t num_heads = o.num_heads();
  EMBER_CHECK_VALUE(num_heads > 0, "[", op, "] num_heads must be greater than 0, got ", num_heads);
  const bool batched = mha_shape_check(query_in, key_in, value_in, o.key_padding_mask(),
                                       o.attn_mask(), num_heads, op);
  const ScalarType dtype = query_in.dtype();
  Tensor kpm = canonical_mask(o.key_padding_mask(), "key_padding_mask", dtype, op);
  Tensor query = batched ? query_in : query_in.unsqueeze(1);
  Tensor key = batched ? key_in : key_in.unsqueeze(1);
  Tensor value = batched ? value_in : value_in.unsqueeze(1);
  if (kpm.defined() && !batched) kpm = kpm.unsqueeze(0);

  const int64_t tgt_len = query.size(0), bsz = query.size(1), embed_dim = query.size(2);
  EMBER_CHECK(embed_dim == o.embed_dim_to_check(), "[", op,
              "] was expecting embedding dimension of ", o.embed_dim_to_check(), ", but got ",
              embed_dim);
  const int64_t head_dim = embed_dim / num_heads;
  EMBER_CHECK(head_dim * num_heads == embed_dim, "[", op, "] embed_dim ", embed_dim,
              " not divisible by num_heads ", num_heads);
  if (o.use_separate_proj_weight()) {
    EMBER_CHECK(key.size(0) == value.size(0) && key.size(1) == value.size(1), "[", op,
                "] key's sequence and batch dims ", tuple_str({key.size(0), key.size(1)}),
                " do not match value's ", tuple_str({value.size(0), value.size(1)}));
  } else {
    EMBER_CHECK(key.sizes() == value.sizes(), "[", op, "] key shape ", size_str(key.sizes()),
                " does not match value shape ", size_str(value.sizes()));
  }
  EMBER_CHECK(key.size(1) == bsz, "[", op, "] key batch size ", key.size(1),
              " does not match query batch size ", bsz);

  // Input projections.
  Tensor q, k, v;
  const Tensor& b = o.in_proj_bias();
  auto bias_chunk = [&](int64_t i) {
    return b.defined() ? b.narrow(0, i * embed_dim, embed_dim) : Tensor();
  };
  if (!o.use_separate_proj_weight()) {
    const Tensor& w = o.in_proj_weight();
    check_weight(w, {3 * embed_dim, embed_dim}, "in_proj", op);
    EMBER_CHECK(key.size(2) == embed_dim, "[", op, "] expecting key weights shape of ",
                tuple_str({embed_dim, key.size(2)}), ", but got ",
                size_str({embed_dim, embed_dim}));
    if (key.is_same(query) && value.is_same(key)) {
      auto qkv = functional::linear(query, w, b).chunk(3, -1);
      q = qkv[0], k = qkv[1], v = qkv[2];
    } else {
      q = functional::linear(query, w.narrow(0, 0, embed_dim), bias_chunk(0));
      k = functional::linear(key, w.narrow(0, embed_dim, embed_dim), bias_chunk(1));
      v = functional::linear(value, w.narrow(0, 2 * embed_dim, embed_dim), bias_chunk(2));
    }
  } else {
    check_weight(o.q_proj_weight(), {embed_dim, embed_dim}, "query", op);
    check_weight(o.k_proj_weight(), {embed_dim, key.size(2)}, "key", op);
    check_weight(o.v_proj_weight(), {embed_dim, value.size(2)}, "value", op);
    q = functional::linear(query, o.q_proj_weight(), bias_chunk(0));
    k = functional::linear(key, o.k_proj_weight(), bias_chunk(1));
    v = functional::linear(value, o.v_proj_weight(), bias_chunk(2));
  }

  // Masks.
  Tensor attn_mask = o.attn_mask();
  bool is_causal = o.is_causal();
  EMBER_CHECK(!is_causal || attn_mask.defined(), "[", op,
              "] Need attn_mask if specifying the is_causal hint. You may use the Transformer "
              "module method `generate_square_subsequent_mask` to create this mask.");
  if (is_causal && !kpm.defined() && !o.need_weights()) {
    attn_mask = Tensor();  // scaled_dot_product_attention applies the causal mask itself
  } else {
    attn_mask = canonical_mask(attn_mask, "attn_mask", dtype, op);
    if (kpm.defined()) is_causal = false;
  }
  const int64_t src_len0 = key.size(0);
  if (attn_mask.defined()) {
    if (attn_mask.dim() == 2) {
      const std::vector<int64_t> expected{tgt_len, src_len0};
      EMBER_CHECK(attn_mask.sizes() == expected, "[", op, "] The shape of the 2D attn_mask is ",
                  size_str(attn_mask.sizes()), ", but should be ", tuple_str(expected), ".");
      attn_mask = attn_mask.unsqueeze(0);
    } else {
      const std::vector<int64_t> expected{bsz * num_heads, tgt_len, src_len0};
      EMBER_CHECK(attn_mask.sizes() == expected, "[", op, "] The shape of the 3D attn_mask is ",
                  size_str(attn_mask.sizes()), ", but should be ", tuple_str(expected), ".");
    }
  }
  if (o.bias_k().defined() && o.bias_v().defined()) {
    EMBER_CHECK(!o.static_k().defined() && !o.static_v().defined(), "[", op,
                "] bias cannot be added to static key/value.");
    k = cat({k, o.bias_k().reshape({1, 1, embed_dim}).expand({1, bsz, embed_dim})}, 0);
    v = cat({v, o.bias_v().reshape({1, 1, embed_dim}).expand({1, bsz, embed_dim})}, 0);
    attn_mask = pad_last(attn_mask);
    kpm = pad_last(kpm);
  } else {
    EMBER_CHECK(!o.bias_k().defined() && !o.bias_v().defined(), "[", op,
                "] bias_k and bias_v must both be given or both be None");
  }

  // Heads: (bsz * num_heads, len, head_dim).
  q = q.reshape({tgt_len, bsz * num_heads, head_dim}).transpose(0, 1);
  auto heads = [&](const Tensor& t, const Tensor& fixed, const char* name) {
    if (!fixed.defined()) return t.reshape({t.size(0), bsz * num_heads, head_dim}).transpose(0, 1);
    EMBER_CHECK(fixed.dim() == 3 && fixed.size(0) == bsz * num_heads, "[", op, "] expecting ", name,
                ".size(0) of ", bsz * num_heads, ", but got ", fixed.dim() ? fixed.size(0) : 0);
    EMBER_CHECK(fixed.size(2) == head_dim, "[", op, "] expecting ", name, ".size(2) of ", head_dim,
                ", but got ", fixed.size(2));
    return fixed;
  };
  k = heads(k, o.static_k(), "static_k");
  v = heads(v, o.static_v(), "static_v");
  if (o.add_zero_attn()) {
    k = cat({k, zeros({bsz * num_heads, 1, head_dim}, k.options())}, 1);
    v = cat({v, zeros({bsz * num_heads, 1, head_dim}, v.options())}, 1);
    attn_mask = pad_last(attn_mask);
    kpm = pad_last(kpm);
  }
  const int64_t src_len = k.size(1);
  if (kpm.defined()) {
    const std::vector<int64_t> expected{bsz, src_len};
    EMBER_CHECK(kpm.sizes() == expected, "[", op, "] expecting key_padding_mask shape of ",
                tuple_str(expected), ", but got ", size_str(kpm.sizes()));
    kpm = kpm.reshape({bsz, 1, 1, src_len})
              .expand({bsz, num_heads, 1, src_len})
              .reshape({bsz * num_heads, 1, src_len});
    attn_mask = attn_mask.defined() ? attn_mask + kpm : kpm;
  }
  const double dropout_p = o.training() ? o.dropout_p() : 0.0;

  Tensor out, weights;
  if (o.need_weights()) {
    Tensor scores = (q * std::sqrt(1.0 / static_cast<double>(head_dim))).bmm(k.transpose(-2, -1));
    if (attn_mask.defined()) scores = scores + attn_mask;
    weights = ember::softmax(scores, -1);
    Tensor w = dropout_p > 0 ? functional::dropout(weights, dropout_p, true) : weights;
    out = w.bmm(v).transpose(0, 1).reshape({tgt_len * bsz, embed_dim});
    weights = weights.reshape({bsz, num_heads, tgt_len, src_len});
    if (o.average_attn_weights()) weights = weights.mean(IntList{1});
    if (!batched) weights = weights.select(0, 0);
  } else {
    if (attn_mask.defined()) {
      attn_mask = attn_mask.size(0) == 1 ? attn_mask.unsqueeze(0)
                                         : attn_mask.reshape({bsz, num_heads, -1, src_len});
    }
    Tensor q4 = q.reshape({bsz, num_heads, tgt_len, head_dim});
    Tensor k4 = k.reshape({bsz, num_heads, src_len, head_dim});
    Tensor v4 = v.reshape({bsz, num_heads, src_len, head_dim});
    out = scaled_dot_product_attention(q4, k4, v4, attn_mask, dropout_p, is_causal);
    out = out.permute({2, 0, 1, 3}).reshape({bsz * tgt_len, embed_dim});
  }
  out = functional::linear(out, o.out_proj_weight(), o.out_proj_bias());
  out = out.view({tgt_len, bsz, out.size(1)});
  if (!batched) out = out.select(1, 0);
  return {out, weights};
}

}  // namespace

namespace functional {
std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value,
    const MultiheadAttentionForwardFuncOptions& options) {
  return mha_forward(query, key, value, options, "multi_head_attention_forward");
}
}  // namespace functional

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& o)
    : Module("ember::nn::MultiheadAttention"), options(o) {
  reset();
}

void MultiheadAttentionImpl::reset() {
  const int64_t E = options.embed_dim(), H = options.num_heads();
  EMBER_CHECK_VALUE(E > 0 && H > 0,
                    "[MultiheadAttention] embed_dim and num_heads must be greater "
                    "than 0, got embed_dim=",
                    E, " and num_heads=", H, " instead");
  EMBER_CHECK_VALUE(E % H == 0,
                    "[MultiheadAttention] embed_dim must be divisible by num_heads "
                    "(got embed_dim=",
                    E, " and num_heads=", H, ")");
  EMBER_CHECK_VALUE(options.kdim() > 0 && options.vdim() > 0,
                    "[MultiheadAttention] kdim and vdim must be greater than 0, got kdim=",
                    options.kdim(), " and vdim=", options.vdim());
  EMBER_CHECK_VALUE(options.dropout() >= 0 && options.dropout() <= 1,
                    "[MultiheadAttention] dropout probability has to be between 0 and 1, but got ",
                    options.dropout());
  head_dim = E / H;
  _qkv_same_embed_dim = options.kdim() == E && options.vdim() == E;
  if (!_qkv_same_embed_dim) {
    q_proj_weight = register_parameter("q_proj_weight", empty({E, E}, kFloat32));
    k_proj_weight = register_parameter("k_proj_weight", empty({E, options.kdim()}, kFloat32));
    v_proj_weight = register_parameter("v_proj_weight", empty({E, options.vdim()}, kFloat32));
  } else {
    in_proj_weight = register_parameter("in_proj_weight", empty({3 * E, E}, kFloat32));
  }
  if (options.bias()) in_proj_bias = register_parameter("in_proj_bias", empty({3 * E}, kFloat32));
  out_proj = register_module("out_proj", Linear(LinearOptions(E, E).bias(options.bias())));
  if (options.add_bias_kv()) {
    bias_k = register_parameter("bias_k", empty({1, 1, E}, kFloat32));
    bias_v = register_parameter("bias_v", empty({1, 1, E}, kFloat32));
  }
  _reset_parameters();
}

void MultiheadAttentionImpl::_reset_parameters() {
  if (_qkv_same_embed_dim) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::constant_(in_proj_bias, 0.);
    init::constant_(out_proj->bias, 0.);
  }
  if (bias_k.defined()) init::xavier_normal_(bias_k);
  if (bias_v.defined()) init::xavier_normal_(bias_v);
}

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(
    const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& key_padding_mask,
    bool need_weights, const Tensor& attn_mask, bool average_attn_weights, bool is_causal) {
  EMBER_CHECK(query.defined() && key.defined() && value.defined(),
              "[MultiheadAttention] query, key and value must be defined tensors");
  const bool batched = query.dim() == 3;
  const bool swap = options.batch_first() && batched;
  functional::MultiheadAttentionForwardFuncOptions o(
      options.embed_dim(), options.num_heads(), in_proj_weight, in_proj_bias, bias_k, bias_v,
      options.add_zero_attn(), options.dropout(), out_proj->weight, out_proj->bias);
  o.training(is_training())
      .key_padding_mask(key_padding_mask)
      .need_weights(need_weights)
      .attn_mask(attn_mask)
      .average_attn_weights(average_attn_weights)
      .is_causal(is_causal);
  if (!_qkv_same_embed_dim) {
    o.use_separate_proj_weight(true)
        .q_proj_weight(q_proj_weight)
        .k_proj_weight(k_proj_weight)
        .v_proj_weight(v_proj_weight);
  }
  // Keep self-attention recognisable (query is key is value) through the batch_first transpose.
  Tensor q = swap ? query.transpose(1, 0) : query;
  Tensor k = !swap ? key : key.is_same(query) ? q : key.transpose(1, 0);
  Tensor v = !swap ? value : value.is_same(key) ? k : value.transpose(1, 0);
  auto [out, weights] = mha_forward(q, k, v, o, "MultiheadAttention");
  if (swap) out = out.transpose(1, 0);
  return {out, weights};
}

void MultiheadAttentionImpl::pretty_print(std::ostream& os) const {
  os << std::boolalpha << "ember::nn::MultiheadAttention(embed_dim=" << options.embed_dim()
     << ", num_heads=" << options.num_heads() << ", dropout=" << options.dropout()
     << ", bias=" << options.bias() << ", add_bias_kv=" << options.add_bias_kv()
     << ", add_zero_attn=" << options.add_zero_attn() << ", kdim=" << options.kdim()
     << ", vdim=" << options.vdim() << ", batch_first=" << options.batch_first() << ")";
}

}  // namespace ember::nn
