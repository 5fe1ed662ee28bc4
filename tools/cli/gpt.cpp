#include "cli/gpt.h"

#include <ember/autograd.h>
#include <ember/core/error.h>
#include <ember/nn/functional/attention.h>
#include <ember/nn/init.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "cli/evaluating.h"

namespace ember::cli {
namespace F = nn::functional;

namespace {

/// x W^T + b as one addmm on the rows of x (a 3-D matmul would reach bmm in the backward pass).
/// With a 16-bit `compute` it runs autocast-style: the input, weight and bias are cast to it and
/// the result back to the input's dtype (the casts carry the gradients to the float32 parameters).
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias, ScalarType compute) {
  const int64_t in = x.size(-1), out = weight.size(0);
  std::vector<SymInt> shape = x.sym_sizes();  // symbolic when traced with dynamic shapes
  shape.back() = out;
  auto cast = [&](const Tensor& t) { return compute == x.dtype() ? t : t.to(compute); };
  const Tensor rows = cast(x).reshape({-1, in});
  Tensor y =
      bias.defined() ? addmm(cast(bias), rows, cast(weight).t()) : mm(rows, cast(weight).t());
  return y.to(x.dtype()).view(shape);
}

Tensor linear(nn::LinearImpl& layer, const Tensor& x, ScalarType compute) {
  return linear(x, layer.weight, layer.bias, compute);
}

/// Rounds through `compute` (Ember's attention kernel has no 16-bit path, so bfloat16 attention
/// is float32 attention on bfloat16-rounded inputs).
Tensor round_to(const Tensor& x, ScalarType compute) {
  return compute == x.dtype() ? x : x.to(compute).to(x.dtype());
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Blocks

class CausalSelfAttentionImpl : public nn::Module {
 public:
  CausalSelfAttentionImpl(int64_t dim, int64_t heads) : heads_(heads) {
    c_attn = register_module("c_attn", nn::Linear(dim, 3 * dim));
    c_proj = register_module("c_proj", nn::Linear(dim, dim));
  }

  /// x: [B, t, dim] for positions cache.length().. (no cache: the whole sequence from 0).
  Tensor forward(const Tensor& x, Tensor* cache_k, Tensor* cache_v, ScalarType compute) {
    // The batch and the sequence may be dynamic (Note [Symbolic shapes]).
    const SymInt B = x.sym_size(0), t = x.sym_size(1);
    const int64_t dim = x.size(2), hd = dim / heads_;
    // q, k and v from row blocks of c_attn's weight: three matmuls cost what one does, and the
    // gradient of a weight slice is cheap where splitting the [B, t, 3 * dim] output is not.
    auto heads = [&](int64_t i) {
      const Tensor w = c_attn->weight.narrow(0, i * dim, dim);
      const Tensor b = c_attn->bias.narrow(0, i * dim, dim);
      return round_to(linear(x, w, b, compute).view({B, t, heads_, hd}).transpose(1, 2), compute);
    };
    Tensor q = heads(0), k = heads(1), v = heads(2);
    Tensor mask;
    bool causal = true;
    if (cache_k != nullptr) {
      const int64_t past = cache_k->defined() ? cache_k->size(2) : 0;
      if (past > 0) {
        k = cat({*cache_k, k}, 2);
        v = cat({*cache_v, v}, 2);
        causal = false;
        // Query i sits at position past + i and sees keys 0..past + i; one query sees them all.
        const int64_t n = x.size(1);
        if (n > 1)
          mask = arange(past + n, kInt64).unsqueeze(0) <= (arange(n, kInt64) + past).unsqueeze(1);
      }
      *cache_k = k;
      *cache_v = v;
    }
    Tensor y = scaled_dot_product_attention(q, k, v, mask, 0.0, causal);
    return linear(*c_proj, y.transpose(1, 2).contiguous().view({B, t, dim}), compute);
  }

  nn::Linear c_attn{nullptr}, c_proj{nullptr};

 private:
  int64_t heads_;
};
EMBER_MODULE(CausalSelfAttention);

class MLPImpl : public nn::Module {
 public:
  explicit MLPImpl(int64_t dim) {
    c_fc = register_module("c_fc", nn::Linear(dim, 4 * dim));
    c_proj = register_module("c_proj", nn::Linear(4 * dim, dim));
  }
  Tensor forward(const Tensor& x, ScalarType compute) {
    return linear(*c_proj, F::gelu(linear(*c_fc, x, compute)), compute);
  }
  nn::Linear c_fc{nullptr}, c_proj{nullptr};
};
EMBER_MODULE(MLP);

class GPTBlockImpl : public nn::Module {
 public:
  GPTBlockImpl(int64_t dim, int64_t heads) {
    ln_1 = register_module("ln_1", nn::LayerNorm(std::vector<int64_t>{dim}));
    attn = register_module("attn", CausalSelfAttention(dim, heads));
    ln_2 = register_module("ln_2", nn::LayerNorm(std::vector<int64_t>{dim}));
    mlp = register_module("mlp", MLP(dim));
  }
  Tensor forward(const Tensor& x, Tensor* cache_k, Tensor* cache_v, ScalarType compute) {
    Tensor h = x + attn->forward(ln_1(x), cache_k, cache_v, compute);
    return h + mlp->forward(ln_2(h), compute);
  }
  nn::LayerNorm ln_1{nullptr}, ln_2{nullptr};
  CausalSelfAttention attn{nullptr};
  MLP mlp{nullptr};
};

// ---------------------------------------------------------------------------------------------
// GPT

int64_t KVCache::length() const { return keys.empty() || !keys[0].defined() ? 0 : keys[0].size(2); }

void KVCache::clear() {
  keys.clear();
  values.clear();
}

GPTImpl::GPTImpl(const GPTConfig& config) : nn::Module("ember::cli::GPT"), config_(config) {
  const auto& c = config_;
  EMBER_CHECK_VALUE(c.vocab_size > 0 && c.context > 0 && c.layers > 0 && c.heads > 0 && c.dim > 0,
                    "[GPT] vocab_size, context, layers, heads and dim must be positive, "
                    "got vocab_size=",
                    c.vocab_size, " context=", c.context, " layers=", c.layers, " heads=", c.heads,
                    " dim=", c.dim);
  EMBER_CHECK_VALUE(c.dim % c.heads == 0, "[GPT] dim (", c.dim, ") must be divisible by heads (",
                    c.heads, ")");
  wte = register_module("wte", nn::Embedding(c.vocab_size, c.dim));
  wpe = register_module("wpe", nn::Embedding(c.context, c.dim));
  auto h = register_module("h", nn::ModuleList());
  for (int64_t i = 0; i < c.layers; ++i) {
    blocks_.push_back(std::make_shared<GPTBlockImpl>(c.dim, c.heads));
    h->push_back(blocks_.back());
  }
  ln_f = register_module("ln_f", nn::LayerNorm(std::vector<int64_t>{c.dim}));

  // GPT-2 initialisation; the residual projections are scaled down by sqrt(2 * layers).
  NoGradGuard no_grad;
  const double proj_std = 0.02 / std::sqrt(2.0 * static_cast<double>(c.layers));
  nn::init::normal_(wte->weight, 0.0, 0.02);
  nn::init::normal_(wpe->weight, 0.0, 0.02);
  for (auto& b : blocks_) {
    for (nn::LinearImpl* l :
         {b->attn->c_attn.get(), b->attn->c_proj.get(), b->mlp->c_fc.get(), b->mlp->c_proj.get()}) {
      const bool residual = l == b->attn->c_proj.get() || l == b->mlp->c_proj.get();
      nn::init::normal_(l->weight, 0.0, residual ? proj_std : 0.02);
      nn::init::zeros_(l->bias);
    }
  }
}

Tensor GPTImpl::run(const Tensor& idx, KVCache* cache, ScalarType compute) {
  const char* op = cache != nullptr ? "[GPT.forward_cached]" : "[GPT.forward]";
  EMBER_CHECK_TYPE(idx.dtype() == kInt64, op, " expected int64 token ids, got ",
                   dtype_name(idx.dtype()));
  EMBER_CHECK_VALUE(idx.dim() == 2 && idx.sym_size(1) >= 1, op,
                    " expected token ids of shape [B, T] with T >= 1, got ", idx.dim(), " dims",
                    idx.dim() == 2 ? " with T = 0" : "");
  const Tensor& w = wte->weight;
  EMBER_CHECK_VALUE(
      compute == kFloat32 || compute == w.dtype() || compute == kBFloat16 || compute == kFloat16,
      op, " compute must be float32, bfloat16 or float16, got ", dtype_name(compute));
  if (compute == kFloat32) compute = w.dtype();  // a float64 model computes in float64
  const SymInt t = idx.sym_size(1);  // symbolic while traced with a dynamic sequence
  const int64_t past = cache != nullptr ? cache->length() : 0;
  EMBER_CHECK_VALUE(past + t <= config_.context, op, " sequence of ", past + t,
                    " positions exceeds the context length ", config_.context);
  if (!idx.device().is_meta() && idx.numel() > 0) {  // meta ids (tracing) have no values
    const int64_t lo = idx.min().item<int64_t>(), hi = idx.max().item<int64_t>();
    EMBER_CHECK_INDEX(lo >= 0 && hi < config_.vocab_size, op, " token id ", lo < 0 ? lo : hi,
                      " is out of range for a vocabulary of ", config_.vocab_size);
  }
  if (cache != nullptr) {
    cache->keys.resize(blocks_.size());
    cache->values.resize(blocks_.size());
  }
  // Positions past..past + t: rows of wpe's weight (a slice, as wpe(arange(past, past + t))).
  Tensor x = wte(idx) + wpe->weight.narrow(0, past, t).unsqueeze(0);
  for (size_t i = 0; i < blocks_.size(); ++i)
    x = blocks_[i]->forward(x, cache ? &cache->keys[i] : nullptr,
                            cache ? &cache->values[i] : nullptr, compute);
  x = ln_f(x);
  return linear(x, w, Tensor(), compute);  // the head shares wte's weight
}

Tensor GPTImpl::forward(const Tensor& idx, ScalarType compute) {
  return run(idx, nullptr, compute);
}

Tensor GPTImpl::forward_cached(const Tensor& idx, KVCache& cache) {
  return run(idx, &cache, kFloat32);
}

// ---------------------------------------------------------------------------------------------
// Sampling

namespace {

/// Draws a token from one row of logits [V] (float32): temperature, top-k, then a multinomial
/// draw from `gen`.
int64_t sample(const Tensor& logits, const SampleOptions& o, Generator& gen) {
  Tensor scaled = logits.to(kFloat64) / o.temperature;
  const int64_t V = scaled.numel();
  if (o.top_k > 0 && o.top_k < V) {
    const Tensor kth = std::get<0>(topk(scaled, o.top_k)).select(0, o.top_k - 1);
    scaled = scaled.masked_fill(scaled < kth, -std::numeric_limits<double>::infinity());
  }
  return multinomial(scaled.softmax(0), 1, false, gen).item<int64_t>();
}

}  // namespace

std::vector<int64_t> generate(GPTImpl& model, const std::vector<int64_t>& prompt,
                              const SampleOptions& options, Generator& gen,
                              const std::function<void(int64_t)>& on_token) {
  const auto& c = model.config();
  EMBER_CHECK_VALUE(!prompt.empty(), "[generate] the prompt must have at least one token");
  EMBER_CHECK_VALUE(options.tokens >= 0, "[generate] tokens must be >= 0, got ", options.tokens);
  EMBER_CHECK_VALUE(options.temperature > 0 && std::isfinite(options.temperature),
                    "[generate] temperature must be positive, got ", options.temperature);
  EMBER_CHECK_VALUE(options.top_k >= 0, "[generate] top_k must be >= 0, got ", options.top_k);
  for (int64_t id : prompt)
    EMBER_CHECK_INDEX(id >= 0 && id < c.vocab_size, "[generate] prompt token ", id,
                      " is out of range for a vocabulary of ", c.vocab_size);

  Evaluating eval(model);
  std::vector<int64_t> seq = prompt, out;
  out.reserve(static_cast<size_t>(options.tokens));
  KVCache cache;
  // Fills a fresh cache with the last `n` tokens and returns the logits after the last one.
  auto prefill = [&](int64_t n) {
    cache.clear();
    std::vector<int64_t> window(seq.end() - n, seq.end());
    Tensor ids = tensor(window, kInt64).view({1, n});
    return model.forward_cached(ids, cache).select(0, 0).select(0, n - 1);
  };
  Tensor logits = prefill(std::min<int64_t>(static_cast<int64_t>(seq.size()), c.context));
  for (int64_t i = 0; i < options.tokens; ++i) {
    const int64_t next = sample(logits, options, gen);
    out.push_back(next);
    seq.push_back(next);
    if (on_token) on_token(next);
    if (i + 1 == options.tokens) break;
    if (cache.length() >= c.context) {
      logits = prefill(std::max<int64_t>(1, c.context / 2));
    } else {
      logits = model.forward_cached(tensor(std::vector<int64_t>{next}, kInt64).view({1, 1}), cache)
                   .select(0, 0)
                   .select(0, 0);
    }
  }
  return out;
}

}  // namespace ember::cli
