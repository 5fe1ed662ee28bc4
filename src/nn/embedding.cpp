// Embedding modules: weight init as PyTorch's reset_parameters (normal_, padding row zeroed).
#include "ember/nn/modules/embedding.h"

#include <ostream>

#include "ember/ember.h"
#include "ember/nn/functional/embedding.h"
#include "ember/nn/init.h"

namespace ember::nn {

namespace F = functional;

namespace {

/// Validates and wraps a negative padding_idx into [0, n).
std::optional<int64_t> wrap_padding_idx(std::optional<int64_t> p, int64_t n, const char* op) {
  if (!p.has_value()) return p;
  EMBER_CHECK_VALUE(*p < n && *p >= -n, "[", op, "] Padding_idx must be within num_embeddings");
  return *p < 0 ? *p + n : *p;
}

/// The module's weight: `given` (checked against the shape, detached as a new leaf sharing its
/// storage, as nn.Parameter(_weight)) or a fresh float32 tensor.
Tensor make_weight(const Tensor& given, int64_t n, int64_t d, const char* op) {
  EMBER_CHECK_VALUE(n >= 0 && d >= 0, "[", op,
                    "] num_embeddings and embedding_dim must be non-negative, got ", n, " and ", d);
  if (!given.defined()) return empty({n, d}, kFloat32);
  EMBER_CHECK(given.sizes() == std::vector<int64_t>({n, d}), "[", op,
              "] Shape of _weight does not match num_embeddings and embedding_dim");
  return given.detach();
}

void zero_row(const Tensor& weight, std::optional<int64_t> row) {
  if (!row.has_value()) return;
  NoGradGuard g;
  weight.select(0, *row).fill_(0);
}

void print_common(std::ostream& s, std::optional<double> max_norm, double norm_type,
                  bool scale_grad_by_freq, bool sparse) {
  if (max_norm.has_value()) s << ", max_norm=" << *max_norm;
  if (norm_type != 2) s << ", norm_type=" << norm_type;
  if (scale_grad_by_freq) s << ", scale_grad_by_freq=true";
  if (sparse) s << ", sparse=true";
}

}  // namespace

EmbeddingImpl::EmbeddingImpl(EmbeddingOptions o)
    : Module("ember::nn::Embedding"), options(std::move(o)) {
  reset();
}

void EmbeddingImpl::reset() {
  options.padding_idx(
      wrap_padding_idx(options.padding_idx(), options.num_embeddings(), "Embedding"));
  const bool given = options._weight().defined();
  weight = register_parameter("weight", make_weight(options._weight(), options.num_embeddings(),
                                                    options.embedding_dim(), "Embedding"));
  if (!given) reset_parameters();
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  zero_row(weight, options.padding_idx());
}

Tensor EmbeddingImpl::forward(const Tensor& indices) {
  return F::embedding(indices, weight,
                      F::EmbeddingFuncOptions()
                          .padding_idx(options.padding_idx())
                          .max_norm(options.max_norm())
                          .norm_type(options.norm_type())
                          .scale_grad_by_freq(options.scale_grad_by_freq())
                          .sparse(options.sparse()));
}

void EmbeddingImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::Embedding(num_embeddings=" << options.num_embeddings()
    << ", embedding_dim=" << options.embedding_dim();
  if (options.padding_idx().has_value()) s << ", padding_idx=" << *options.padding_idx();
  print_common(s, options.max_norm(), options.norm_type(), options.scale_grad_by_freq(),
               options.sparse());
  s << ")";
}

Embedding Embedding::from_pretrained(const Tensor& embeddings,
                                     const EmbeddingFromPretrainedOptions& o) {
  EMBER_CHECK(embeddings.defined() && embeddings.dim() == 2,
              "[Embedding.from_pretrained] Embeddings parameter is expected to be 2-dimensional");
  Embedding e(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                  ._weight(embeddings)
                  .padding_idx(o.padding_idx())
                  .max_norm(o.max_norm())
                  .norm_type(o.norm_type())
                  .scale_grad_by_freq(o.scale_grad_by_freq())
                  .sparse(o.sparse()));
  e->weight.requires_grad_(!o.freeze());
  return e;
}

EmbeddingBagImpl::EmbeddingBagImpl(EmbeddingBagOptions o)
    : Module("ember::nn::EmbeddingBag"), options(std::move(o)) {
  reset();
}

void EmbeddingBagImpl::reset() {
  options.padding_idx(
      wrap_padding_idx(options.padding_idx(), options.num_embeddings(), "EmbeddingBag"));
  const bool given = options._weight().defined();
  weight = register_parameter("weight", make_weight(options._weight(), options.num_embeddings(),
                                                    options.embedding_dim(), "EmbeddingBag"));
  if (!given) reset_parameters();
}

void EmbeddingBagImpl::reset_parameters() {
  init::normal_(weight);
  zero_row(weight, options.padding_idx());
}

Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets,
                                 const Tensor& per_sample_weights) {
  return F::embedding_bag(input, weight,
                          F::EmbeddingBagFuncOptions()
                              .offsets(offsets)
                              .max_norm(options.max_norm())
                              .norm_type(options.norm_type())
                              .scale_grad_by_freq(options.scale_grad_by_freq())
                              .mode(options.mode())
                              .sparse(options.sparse())
                              .per_sample_weights(per_sample_weights)
                              .include_last_offset(options.include_last_offset())
                              .padding_idx(options.padding_idx()));
}

void EmbeddingBagImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::EmbeddingBag(num_embeddings=" << options.num_embeddings()
    << ", embedding_dim=" << options.embedding_dim();
  print_common(s, options.max_norm(), options.norm_type(), options.scale_grad_by_freq(),
               options.sparse());
  s << ", mode=" << get_enum_name(options.mode());
  if (options.include_last_offset()) s << ", include_last_offset=true";
  if (options.padding_idx().has_value()) s << ", padding_idx=" << *options.padding_idx();
  s << ")";
}

EmbeddingBag EmbeddingBag::from_pretrained(const Tensor& embeddings,
                                           const EmbeddingBagFromPretrainedOptions& o) {
  EMBER_CHECK(
      embeddings.defined() && embeddings.dim() == 2,
      "[EmbeddingBag.from_pretrained] Embeddings parameter is expected to be 2-dimensional");
  EmbeddingBag e(EmbeddingBagOptions(embeddings.size(0), embeddings.size(1))
                     ._weight(embeddings)
                     .max_norm(o.max_norm())
                     .norm_type(o.norm_type())
                     .scale_grad_by_freq(o.scale_grad_by_freq())
                     .mode(o.mode())
                     .sparse(o.sparse())
                     .include_last_offset(o.include_last_offset())
                     .padding_idx(o.padding_idx()));
  e->weight.requires_grad_(!o.freeze());
  return e;
}

}  // namespace ember::nn
