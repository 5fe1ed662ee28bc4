// Transformer layers and stacks (torch/nn/modules/transformer.py): post-norm by default,
// pre-norm with norm_first; attention through nn::MultiheadAttention with need_weights=false.
#include "ember/nn/modules/transformer.h"

#include <limits>

#include "ember/ember.h"
#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/init.h"

namespace ember::nn {

Tensor generate_square_subsequent_mask(int64_t sz, ScalarType dtype) {
  EMBER_CHECK_VALUE(sz >= 0, "[generate_square_subsequent_mask] sz must be non-negative, got ", sz);
  return full({sz, sz}, -std::numeric_limits<double>::infinity(), TensorOptions().dtype(dtype))
      .triu(1);
}

// ---- activation ----

TransformerActivation::TransformerActivation(Nonlinearity nl) {
  EMBER_CHECK(nl == Nonlinearity::ReLU,
              "[TransformerLayer] activation should be relu/gelu (ember::kReLU, \"relu\", "
              "\"gelu\" or a function)");
  name_ = "relu";
}

TransformerActivation::TransformerActivation(const std::string& name) : name_(name) {
  EMBER_CHECK(name == "relu" || name == "gelu",
              "[TransformerLayer] activation should be "
              "relu/gelu, not ",
              name);
}

TransformerActivation::TransformerActivation(std::function<Tensor(const Tensor&)> fn)
    : name_("function"), fn_(std::move(fn)) {
  EMBER_CHECK(fn_ != nullptr, "[TransformerLayer] activation function must not be empty");
}

Tensor TransformerActivation::operator()(const Tensor& x) const {
  if (fn_) return fn_(x);
  return name_ == "gelu" ? functional::gelu(x) : x.relu();
}

namespace {

void check_layer(int64_t d_model, int64_t nhead, int64_t ff, const char* op) {
  EMBER_CHECK_VALUE(d_model > 0 && nhead > 0, "[", op,
                    "] d_model and nhead must be greater than 0, got d_model=", d_model,
                    " and nhead=", nhead);
  EMBER_CHECK_VALUE(ff > 0, "[", op, "] dim_feedforward must be greater than 0, got ", ff);
}

template <typename Options>
MultiheadAttention make_attention(const Options& o) {
  return MultiheadAttention(MultiheadAttentionOptions(o.d_model(), o.nhead())
                                .dropout(o.dropout())
                                .bias(o.bias())
                                .batch_first(o.batch_first()));
}

template <typename Options>
void print_layer(std::ostream& os, const char* name, const Options& o) {
  os << std::boolalpha << "ember::nn::" << name << "(d_model=" << o.d_model()
     << ", nhead=" << o.nhead() << ", dim_feedforward=" << o.dim_feedforward()
     << ", dropout=" << o.dropout() << ", activation=" << o.activation().name()
     << ", layer_norm_eps=" << o.layer_norm_eps() << ", batch_first=" << o.batch_first()
     << ", norm_first=" << o.norm_first() << ", bias=" << o.bias() << ")";
}

}  // namespace

// ---- TransformerEncoderLayer ----

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& o)
    : Module("ember::nn::TransformerEncoderLayer"), options(o) {
  reset();
}

void TransformerEncoderLayerImpl::reset() {
  const auto& o = options;
  check_layer(o.d_model(), o.nhead(), o.dim_feedforward(), "TransformerEncoderLayer");
  self_attn = register_module("self_attn", make_attention(o));
  linear1 = register_module("linear1",
                            Linear(LinearOptions(o.d_model(), o.dim_feedforward()).bias(o.bias())));
  dropout = register_module("dropout", Dropout(DropoutOptions(o.dropout())));
  linear2 = register_module("linear2",
                            Linear(LinearOptions(o.dim_feedforward(), o.d_model()).bias(o.bias())));
  norm1 = register_module(
      "norm1", LayerNorm(LayerNormOptions({o.d_model()}).eps(o.layer_norm_eps()).bias(o.bias())));
  norm2 = register_module(
      "norm2", LayerNorm(LayerNormOptions({o.d_model()}).eps(o.layer_norm_eps()).bias(o.bias())));
  dropout1 = register_module("dropout1", Dropout(DropoutOptions(o.dropout())));
  dropout2 = register_module("dropout2", Dropout(DropoutOptions(o.dropout())));
}

void TransformerEncoderLayerImpl::reset_parameters() {
  self_attn->_reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm1->reset_parameters();
  norm2->reset_parameters();
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask, bool is_causal) {
  EMBER_CHECK(src.defined(), "[TransformerEncoderLayer] src is an undefined tensor");
  EMBER_CHECK_VALUE(src.dim() == 2 || src.dim() == 3,
                    "[TransformerEncoderLayer] expected src to be 2-D (unbatched) or 3-D "
                    "(batched), got ",
                    src.dim(), "-D");
  auto sa = [&](const Tensor& x) {
    Tensor y = std::get<0>(self_attn->forward(x, x, x, src_key_padding_mask,
                                              /*need_weights=*/false, src_mask, true, is_causal));
    return dropout1->forward(y);
  };
  auto ff = [&](const Tensor& x) {
    Tensor h = dropout->forward(options.activation()(linear1->forward(x)));
    return dropout2->forward(linear2->forward(h));
  };
  Tensor x = src;
  if (options.norm_first()) {
    x = x + sa(norm1->forward(x));
    x = x + ff(norm2->forward(x));
  } else {
    x = norm1->forward(x + sa(x));
    x = norm2->forward(x + ff(x));
  }
  return x;
}

void TransformerEncoderLayerImpl::pretty_print(std::ostream& os) const {
  print_layer(os, "TransformerEncoderLayer", options);
}

// ---- TransformerDecoderLayer ----

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& o)
    : Module("ember::nn::TransformerDecoderLayer"), options(o) {
  reset();
}

void TransformerDecoderLayerImpl::reset() {
  const auto& o = options;
  check_layer(o.d_model(), o.nhead(), o.dim_feedforward(), "TransformerDecoderLayer");
  self_attn = register_module("self_attn", make_attention(o));
  multihead_attn = register_module("multihead_attn", make_attention(o));
  linear1 = register_module("linear1",
                            Linear(LinearOptions(o.d_model(), o.dim_feedforward()).bias(o.bias())));
  dropout = register_module("dropout", Dropout(DropoutOptions(o.dropout())));
  linear2 = register_module("linear2",
                            Linear(LinearOptions(o.dim_feedforward(), o.d_model()).bias(o.bias())));
  auto norm = [&] {
    return LayerNorm(LayerNormOptions({o.d_model()}).eps(o.layer_norm_eps()).bias(o.bias()));
  };
  norm1 = register_module("norm1", norm());
  norm2 = register_module("norm2", norm());
  norm3 = register_module("norm3", norm());
  dropout1 = register_module("dropout1", Dropout(DropoutOptions(o.dropout())));
  dropout2 = register_module("dropout2", Dropout(DropoutOptions(o.dropout())));
  dropout3 = register_module("dropout3", Dropout(DropoutOptions(o.dropout())));
}

void TransformerDecoderLayerImpl::reset_parameters() {
  self_attn->_reset_parameters();
  multihead_attn->_reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm1->reset_parameters();
  norm2->reset_parameters();
  norm3->reset_parameters();
}

Tensor TransformerDecoderLayerImpl::forward(const Tensor& tgt, const Tensor& memory,
                                            const Tensor& tgt_mask, const Tensor& memory_mask,
                                            const Tensor& tgt_key_padding_mask,
                                            const Tensor& memory_key_padding_mask,
                                            bool tgt_is_causal, bool memory_is_causal) {
  EMBER_CHECK(tgt.defined() && memory.defined(),
              "[TransformerDecoderLayer] tgt and memory must be defined tensors");
  EMBER_CHECK_VALUE(tgt.dim() == 2 || tgt.dim() == 3,
                    "[TransformerDecoderLayer] expected tgt to be 2-D (unbatched) or 3-D "
                    "(batched), got ",
                    tgt.dim(), "-D");
  auto sa = [&](const Tensor& x) {
    Tensor y = std::get<0>(
        self_attn->forward(x, x, x, tgt_key_padding_mask, false, tgt_mask, true, tgt_is_causal));
    return dropout1->forward(y);
  };
  auto mha = [&](const Tensor& x) {
    Tensor y = std::get<0>(multihead_attn->forward(x, memory, memory, memory_key_padding_mask,
                                                   false, memory_mask, true, memory_is_causal));
    return dropout2->forward(y);
  };
  auto ff = [&](const Tensor& x) {
    Tensor h = dropout->forward(options.activation()(linear1->forward(x)));
    return dropout3->forward(linear2->forward(h));
  };
  Tensor x = tgt;
  if (options.norm_first()) {
    x = x + sa(norm1->forward(x));
    x = x + mha(norm2->forward(x));
    x = x + ff(norm3->forward(x));
  } else {
    x = norm1->forward(x + sa(x));
    x = norm2->forward(x + mha(x));
    x = norm3->forward(x + ff(x));
  }
  return x;
}

void TransformerDecoderLayerImpl::pretty_print(std::ostream& os) const {
  print_layer(os, "TransformerDecoderLayer", options);
}

// ---- stacks ----

namespace {

/// A fresh layer with the same options and values as `layer` (PyTorch's copy.deepcopy).
template <typename Holder>
Holder clone_layer(const Holder& layer) {
  Holder copy(layer->options);
  auto params = layer->parameters();
  if (!params.empty()) copy->to(params.front().dtype());
  copy->load_state_dict(layer->state_dict());
  if (!layer->is_training()) copy->eval();
  return copy;
}

}  // namespace

TransformerEncoderImpl::TransformerEncoderImpl(TransformerEncoderOptions o)
    : Module("ember::nn::TransformerEncoder"), options(std::move(o)) {
  reset();
}

void TransformerEncoderImpl::reset() {
  EMBER_CHECK(!options.encoder_layer().is_empty(),
              "[TransformerEncoder] encoder_layer must not be empty");
  EMBER_CHECK_VALUE(options.num_layers() >= 0,
                    "[TransformerEncoder] num_layers must be non-negative, got ",
                    options.num_layers());
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options.num_layers(); ++i) {
    layers->push_back(clone_layer(options.encoder_layer()));
  }
  norm = options.norm();
  if (norm.ptr()) register_module("norm", norm.ptr());
}

void TransformerEncoderImpl::reset_parameters() {
  for (const auto& l : *layers) {
    std::static_pointer_cast<TransformerEncoderLayerImpl>(l)->reset_parameters();
  }
}

Tensor TransformerEncoderImpl::forward(const Tensor& src, const Tensor& mask,
                                       const Tensor& src_key_padding_mask, bool is_causal) {
  Tensor x = src;
  for (const auto& l : *layers) {
    x = std::static_pointer_cast<TransformerEncoderLayerImpl>(l)->forward(
        x, mask, src_key_padding_mask, is_causal);
  }
  return norm.ptr() ? norm.forward(x) : x;
}

TransformerDecoderImpl::TransformerDecoderImpl(TransformerDecoderOptions o)
    : Module("ember::nn::TransformerDecoder"), options(std::move(o)) {
  reset();
}

void TransformerDecoderImpl::reset() {
  EMBER_CHECK(!options.decoder_layer().is_empty(),
              "[TransformerDecoder] decoder_layer must not be empty");
  EMBER_CHECK_VALUE(options.num_layers() >= 0,
                    "[TransformerDecoder] num_layers must be non-negative, got ",
                    options.num_layers());
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options.num_layers(); ++i) {
    layers->push_back(clone_layer(options.decoder_layer()));
  }
  norm = options.norm();
  if (norm.ptr()) register_module("norm", norm.ptr());
}

void TransformerDecoderImpl::reset_parameters() {
  for (const auto& l : *layers) {
    std::static_pointer_cast<TransformerDecoderLayerImpl>(l)->reset_parameters();
  }
}

Tensor TransformerDecoderImpl::forward(const Tensor& tgt, const Tensor& memory,
                                       const Tensor& tgt_mask, const Tensor& memory_mask,
                                       const Tensor& tgt_key_padding_mask,
                                       const Tensor& memory_key_padding_mask, bool tgt_is_causal,
                                       bool memory_is_causal) {
  Tensor x = tgt;
  for (const auto& l : *layers) {
    x = std::static_pointer_cast<TransformerDecoderLayerImpl>(l)->forward(
        x, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask,
        tgt_is_causal, memory_is_causal);
  }
  return norm.ptr() ? norm.forward(x) : x;
}

}  // namespace ember::nn
