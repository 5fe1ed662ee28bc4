#pragma once
// A character-level GPT: token + position embeddings, pre-norm blocks (LayerNorm, causal
// multi-head self-attention, LayerNorm, MLP with GELU), a final LayerNorm and a head tied to the
// token embedding. Initialisation as GPT-2/nanoGPT: N(0, 0.02) for linear and embedding weights,
// N(0, 0.02/sqrt(2*layers)) for the two residual projections of each block, zero biases,
// LayerNorm weight 1 and bias 0. No dropout.
#include <ember/ember.h>
#include <ember/nn.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace ember::cli {

struct GPTConfig {
  int64_t vocab_size = 0;
  int64_t context = 128;  // longest sequence the position table covers
  int64_t layers = 4;
  int64_t heads = 4;
  int64_t dim = 128;  // must be divisible by heads
};

/// Keys and values of every layer for the positions seen so far (decoding one token at a time).
struct KVCache {
  std::vector<Tensor> keys, values;  // per layer: [B, heads, t, dim/heads]
  int64_t length() const;            // t, 0 when empty
  void clear();
};

class GPTBlockImpl;  // one pre-norm transformer block (gpt.cpp)

class GPTImpl : public nn::Module {
 public:
  explicit GPTImpl(const GPTConfig& config);
  /// idx: int64 [B, T] with 1 ≤ T ≤ context -> logits float32 [B, T, vocab_size].
  /// compute = kBFloat16 runs the matmuls with bfloat16 inputs (autocast-style: parameters stay
  /// float32 and receive float32 gradients; LayerNorm, softmax and the logits stay float32).
  Tensor forward(const Tensor& idx, ScalarType compute = kFloat32);
  /// Forward for new positions only: idx int64 [B, t] continuing the sequence held in `cache`
  /// (positions cache.length() .. cache.length()+t-1, which must stay < context); appends their
  /// keys/values to the cache and returns logits [B, t, vocab_size]. Equal to the matching rows
  /// of forward() on the whole sequence.
  Tensor forward_cached(const Tensor& idx, KVCache& cache);
  const GPTConfig& config() const { return config_; }

  nn::Embedding wte{nullptr}, wpe{nullptr};  // the head reuses wte->weight
  nn::LayerNorm ln_f{nullptr};

 private:
  Tensor run(const Tensor& idx, KVCache* cache, ScalarType compute);

  GPTConfig config_;
  // submodules registered as: wte, wpe, h.{i}.{ln_1, attn.c_attn, attn.c_proj, ln_2, mlp.c_fc,
  // mlp.c_proj}, ln_f (the GPT-2 parameter names)
  std::vector<std::shared_ptr<GPTBlockImpl>> blocks_;
};
EMBER_MODULE(GPT);

struct SampleOptions {
  int64_t tokens = 300;
  double temperature = 0.8;  // > 0
  int64_t top_k = 40;        // 0 = no top-k filtering
};

/// Continues `prompt` (token ids, at least one) by `options.tokens` tokens sampled with `gen`,
/// calling on_token(id) as each is produced (for streaming). Uses a KVCache so every new token
/// costs one single-position forward; when the sequence reaches the context length the cache is
/// rebuilt from the last context/2 tokens. Runs in eval mode under NoGradGuard. Returns the new
/// tokens.
std::vector<int64_t> generate(GPTImpl& model, const std::vector<int64_t>& prompt,
                              const SampleOptions& options, Generator& gen,
                              const std::function<void(int64_t)>& on_token = {});

}  // namespace ember::cli
