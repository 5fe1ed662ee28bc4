// The character-level GPT of `ember train --model gpt` (tools/cli/gpt.h): structure, tying,
// causality, the KV cache, sampling, bfloat16 compute and gradients by finite differences.
#include <ember/autograd.h>
#include <ember/ember.h>
#include <ember/nn/functional/loss.h>
#include <ember/testing.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "cli/gpt.h"

namespace {

using namespace ember;
using cli::GPT;
using cli::GPTConfig;
namespace F = nn::functional;

GPTConfig small_config() {
  GPTConfig c{/*vocab_size=*/11, /*context=*/16, /*layers=*/2, /*heads=*/2, /*dim=*/16};
  return c;
}

GPT make_model(const GPTConfig& c, uint64_t seed = 7) {
  manual_seed(seed);
  return GPT(c);
}

/// Weights far from the small initial ones, so the next token depends on the whole context
/// (at init, with the head tied, the argmax mostly repeats the last token).
void scramble(GPT& model, double scale = 0.6) {
  NoGradGuard g;
  Generator gen(17);
  for (auto& p : model->parameters()) p.add_((rand(p.sizes(), gen) - 0.5) * (2 * scale));
}

Tensor random_ids(int64_t b, int64_t t, int64_t vocab, uint64_t seed = 3) {
  Generator g(seed);
  return (rand({b, t}, g, kFloat64) * static_cast<double>(vocab)).floor().to(kInt64);
}

double rel_diff(const Tensor& a, const Tensor& b) {
  return ((a.to(kFloat64) - b.to(kFloat64)).norm() / b.to(kFloat64).norm()).item<double>();
}

TEST(GptStructure, ParameterNamesAndCountMatchGpt2) {
  GPTConfig c{/*vocab_size=*/90, /*context=*/64, /*layers=*/3, /*heads=*/4, /*dim=*/32};
  GPT model = make_model(c);
  const int64_t V = c.vocab_size, C = c.context, L = c.layers, d = c.dim;
  // Embeddings, 12 d^2 + 13 d per block (qkv, proj, 4x MLP, two LayerNorms), the final
  // LayerNorm; the head is wte itself.
  const int64_t expected = V * d + C * d + L * (12 * d * d + 13 * d) + 2 * d;
  int64_t count = 0;
  for (const auto& p : model->parameters()) count += p.numel();
  EXPECT_EQ(count, expected);

  std::vector<std::string> names = {"wte.weight", "wpe.weight"};
  for (int64_t i = 0; i < L; ++i) {
    const std::string h = "h." + std::to_string(i) + ".";
    for (const char* n :
         {"ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias",
          "attn.c_proj.weight", "attn.c_proj.bias", "ln_2.weight", "ln_2.bias", "mlp.c_fc.weight",
          "mlp.c_fc.bias", "mlp.c_proj.weight", "mlp.c_proj.bias"})
      names.push_back(h + n);
  }
  names.push_back("ln_f.weight");
  names.push_back("ln_f.bias");
  EXPECT_EQ(model->named_parameters().keys(), names);
  const auto params = model->named_parameters();
  EXPECT_EQ(params["h.0.attn.c_attn.weight"].sizes(), (std::vector<int64_t>{3 * d, d}));
  EXPECT_EQ(params["h.0.mlp.c_fc.weight"].sizes(), (std::vector<int64_t>{4 * d, d}));
  EXPECT_EQ(params["h.0.mlp.c_proj.weight"].sizes(), (std::vector<int64_t>{d, 4 * d}));
}

TEST(GptStructure, InitialisationFollowsGpt2) {
  GPTConfig c{/*vocab_size=*/50, /*context=*/64, /*layers=*/2, /*heads=*/4, /*dim=*/64};
  GPT model = make_model(c);
  const double proj_std = 0.02 / std::sqrt(2.0 * c.layers);
  for (const auto& item : model->named_parameters()) {
    const std::string& name = item.key();
    const Tensor& p = item.value();
    const bool ln = name.find("ln_") != std::string::npos;
    const bool bias = name.size() >= 4 && name.substr(name.size() - 4) == "bias";
    if (ln && !bias) {
      ember::testing::assert_close(p, ones_like(p));
    } else if (bias) {
      ember::testing::assert_close(p, zeros_like(p));
    } else {
      const bool residual = name.find("c_proj") != std::string::npos;
      const double want = residual ? proj_std : 0.02;
      const double mean = p.mean().item<float>(), std = p.std().item<float>();
      EXPECT_NEAR(std, want, 0.06 * want) << name;
      EXPECT_NEAR(mean, 0.0, 0.1 * want) << name;
    }
  }
}

TEST(GptStructure, HeadIsTiedToTokenEmbedding) {
  GPT model = make_model(small_config());
  // Token 10 never appears in the input, so its embedding row reaches the logits only through
  // the head: changing that row changes logit column 10 and nothing else.
  Tensor idx = random_ids(2, 8, 10);
  Tensor before = model->forward(idx);
  {
    NoGradGuard g;
    Generator gen(2);  // not a constant shift, which LayerNorm's centred output would cancel
    model->wte->weight.select(0, 10).add_(rand({16}, gen) - 0.5);
  }
  Tensor after = model->forward(idx);
  ember::testing::assert_close(after.narrow(2, 0, 10), before.narrow(2, 0, 10), 0.0, 0.0);
  EXPECT_GT((after.select(2, 10) - before.select(2, 10)).abs().min().item<float>(), 1e-4);

  // The unused row also receives a gradient, which only the head can give it.
  model->zero_grad();
  Tensor loss =
      F::cross_entropy(model->forward(idx).view({-1, 11}), random_ids(16, 1, 11, 9).view({-1}));
  loss.backward();
  Tensor g = model->wte->weight.grad();
  ASSERT_TRUE(g.defined());
  EXPECT_GT(g.select(0, 10).abs().sum().item<float>(), 0.0f);
}

TEST(GptForward, IsCausal) {
  GPT model = make_model(small_config());
  scramble(model);
  Tensor idx = random_ids(2, 12, 11);
  Tensor base = model->forward(idx);
  EXPECT_EQ(base.sizes(), (std::vector<int64_t>{2, 12, 11}));
  EXPECT_EQ(base.dtype(), kFloat32);
  const int64_t j = 7;
  Tensor changed = idx.clone();
  changed.select(1, j).copy_((changed.select(1, j) + 1) % 11);
  Tensor out = model->forward(changed);
  ember::testing::assert_close(out.narrow(1, 0, j), base.narrow(1, 0, j));
  for (int64_t i = j; i < 12; ++i)
    EXPECT_GT((out.select(1, i) - base.select(1, i)).abs().max().item<float>(), 1e-5) << i;
}

TEST(GptForward, CachedTokenByTokenEqualsFullForward) {
  GPT model = make_model(small_config());
  scramble(model);
  Tensor idx = random_ids(3, 16, 11);  // the whole context
  Tensor full = model->forward(idx);
  cli::KVCache cache;
  EXPECT_EQ(cache.length(), 0);
  for (int64_t i = 0; i < 16; ++i) {
    Tensor row = model->forward_cached(idx.narrow(1, i, 1), cache);
    EXPECT_EQ(cache.length(), i + 1);
    ember::testing::assert_close(row.select(1, 0), full.select(1, i), 1e-4, 1e-5);
  }
  EXPECT_THROW(model->forward_cached(idx.narrow(1, 0, 1), cache), ValueError);  // past context
}

TEST(GptForward, CachedPrefillThenChunksEqualFullForward) {
  GPT model = make_model(small_config());
  scramble(model);
  Tensor idx = random_ids(2, 14, 11);
  Tensor full = model->forward(idx);
  cli::KVCache cache;
  Tensor pre = model->forward_cached(idx.narrow(1, 0, 5), cache);  // prefill: causal within
  ember::testing::assert_close(pre, full.narrow(1, 0, 5), 1e-4, 1e-5);
  Tensor chunk = model->forward_cached(idx.narrow(1, 5, 4), cache);  // several new positions
  ember::testing::assert_close(chunk, full.narrow(1, 5, 4), 1e-4, 1e-5);
  for (int64_t i = 9; i < 14; ++i)
    ember::testing::assert_close(model->forward_cached(idx.narrow(1, i, 1), cache).select(1, 0),
                                 full.select(1, i), 1e-4, 1e-5);
  EXPECT_EQ(cache.length(), 14);
  EXPECT_EQ(cache.keys.size(), 2u);
  EXPECT_EQ(cache.keys[0].sizes(), (std::vector<int64_t>{2, 2, 14, 8}));
  cache.clear();
  EXPECT_EQ(cache.length(), 0);
}

// Greedy decoding with the cache's policy replayed on full forwards: the window starts at the
// prompt's last `context` tokens and restarts at the last context/2 tokens when the cache fills.
std::vector<int64_t> greedy_reference(GPT& model, std::vector<int64_t> seq, int64_t tokens) {
  NoGradGuard g;
  const int64_t C = model->config().context;
  int64_t start = std::max<int64_t>(0, static_cast<int64_t>(seq.size()) - C);
  std::vector<int64_t> out;
  for (int64_t i = 0; i < tokens; ++i) {
    std::vector<int64_t> window(seq.begin() + start, seq.end());
    const auto n = static_cast<int64_t>(window.size());
    Tensor logits = model->forward(tensor(window, kInt64).view({1, n}));
    const int64_t next = logits.select(0, 0).select(0, n - 1).argmax().item<int64_t>();
    out.push_back(next);
    seq.push_back(next);
    if (static_cast<int64_t>(seq.size()) - 1 - start >= C)
      start = static_cast<int64_t>(seq.size()) - C / 2;
  }
  return out;
}

TEST(GptGenerate, TopKOneIsGreedyAndContinuesPastContext) {
  GPT model = make_model(small_config());
  scramble(model);
  const std::vector<int64_t> prompt = {1, 4, 2, 8, 5};
  cli::SampleOptions o;
  o.tokens = 45;  // crosses the 16-token context several times
  o.top_k = 1;
  o.temperature = 0.7;
  Generator gen(1);
  const auto got = cli::generate(*model, prompt, o, gen);
  EXPECT_EQ(got, greedy_reference(model, prompt, o.tokens));
  EXPECT_GE(std::set<int64_t>(got.begin(), got.end()).size(), 4u);  // not a fixed point
}

TEST(GptGenerate, LongPromptUsesItsLastContextTokens) {
  GPT model = make_model(small_config());
  scramble(model);
  std::vector<int64_t> prompt;
  for (int i = 0; i < 40; ++i) prompt.push_back((i * 7) % 11);
  cli::SampleOptions o;
  o.tokens = 10;
  o.top_k = 1;
  Generator gen(1);
  EXPECT_EQ(cli::generate(*model, prompt, o, gen), greedy_reference(model, prompt, o.tokens));
}

TEST(GptGenerate, DeterministicForASeedStreamsAndRestoresMode) {
  GPT model = make_model(small_config());
  cli::SampleOptions o;
  o.tokens = 30;
  o.temperature = 1.0;
  o.top_k = 0;
  std::vector<int64_t> streamed;
  Generator g1(42), g2(42), g3(43);
  EXPECT_TRUE(model->is_training());
  const auto a = cli::generate(*model, {3}, o, g1, [&](int64_t t) { streamed.push_back(t); });
  EXPECT_TRUE(model->is_training());
  const auto b = cli::generate(*model, {3}, o, g2);
  const auto c = cli::generate(*model, {3}, o, g3);
  EXPECT_EQ(a.size(), 30u);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, streamed);
  EXPECT_NE(a, c);
  for (int64_t t : a) EXPECT_TRUE(t >= 0 && t < 11);
  model->eval();
  cli::generate(*model, {3}, o, g1);
  EXPECT_FALSE(model->is_training());
  EXPECT_TRUE(cli::generate(*model, {3}, cli::SampleOptions{0, 1.0, 0}, g1).empty());
}

TEST(GptGenerate, TopKSamplesOnlyAmongTheKBest) {
  GPTConfig c = small_config();
  GPT model = make_model(c, 11);
  {
    NoGradGuard g;  // sharpen the logits so they have a clear order
    model->wte->weight.mul_(40.0);
  }
  const std::vector<int64_t> prompt = {2, 6};
  Tensor logits = model->forward(tensor(prompt, kInt64).view({1, 2})).select(0, 0).select(0, 1);
  Tensor top3 = std::get<1>(topk(logits, 3));
  std::set<int64_t> allowed;
  for (int64_t i = 0; i < 3; ++i) allowed.insert(top3.select(0, i).item<int64_t>());
  std::set<int64_t> seen;
  cli::SampleOptions o;
  o.tokens = 1;
  o.top_k = 3;
  o.temperature = 5.0;  // flat within the top 3
  for (uint64_t s = 0; s < 200; ++s) {
    Generator gen(s);
    const int64_t t = cli::generate(*model, prompt, o, gen)[0];
    EXPECT_TRUE(allowed.count(t)) << t;
    seen.insert(t);
  }
  EXPECT_EQ(seen, allowed);  // every one of the k is reachable
}

TEST(GptCompute, BFloat16CloseToFloat32WithFloat32Gradients) {
  GPTConfig c = small_config();
  c.dim = 32;
  GPT model = make_model(c);
  Tensor idx = random_ids(4, 16, 11), target = random_ids(4, 16, 11, 5);
  auto run = [&](ScalarType compute) {
    model->zero_grad();
    Tensor logits = model->forward(idx, compute);
    EXPECT_EQ(logits.dtype(), kFloat32);
    F::cross_entropy(logits.view({-1, 11}), target.view({-1})).backward();
    std::vector<Tensor> grads;
    for (const auto& p : model->parameters()) grads.push_back(p.grad().clone());
    return std::make_pair(logits.detach(), grads);
  };
  const auto [l32, g32] = run(kFloat32);
  const auto [l16, g16] = run(kBFloat16);
  const double d = rel_diff(l16, l32);
  EXPECT_GT(d, 0.0);  // it really computed in bfloat16
  EXPECT_LT(d, 2e-2);
  const auto params = model->parameters();
  for (size_t i = 0; i < g16.size(); ++i) {
    EXPECT_EQ(params[i].dtype(), kFloat32);
    EXPECT_EQ(g16[i].dtype(), kFloat32);
    EXPECT_LT(rel_diff(g16[i], g32[i]), 6e-2) << i;
  }
}

TEST(GptGradient, MatchesFiniteDifferencesInFloat64) {
  GPTConfig c{/*vocab_size=*/7, /*context=*/6, /*layers=*/2, /*heads=*/2, /*dim=*/8};
  GPT model = make_model(c, 5);
  model->to(kFloat64);
  {
    NoGradGuard g;  // move biases and LayerNorm affine off their trivial initial values
    Generator gen(3);
    for (auto& p : model->parameters()) p.add_(rand(p.sizes(), gen, kFloat64) * 0.2 - 0.1);
  }
  Tensor idx = random_ids(2, 6, 7), target = random_ids(2, 6, 7, 8);
  auto loss_fn = [&] {
    return F::cross_entropy(model->forward(idx).view({-1, 7}), target.view({-1}));
  };
  EXPECT_EQ(model->forward(idx).dtype(), kFloat64);
  model->zero_grad();
  loss_fn().backward();
  const double eps = 1e-6;
  int checked = 0;
  for (auto& item : model->named_parameters()) {
    const std::string& name = item.key();
    Tensor& p = item.value();
    Tensor grad = p.grad().contiguous();
    ASSERT_EQ(grad.dtype(), kFloat64) << name;
    const int64_t n = p.numel(), stride = std::max<int64_t>(1, n / 12);  // ~12 entries each
    for (int64_t k = 0; k < n; k += stride) {
      double* v = p.data_ptr<double>() + k;
      const double orig = *v;
      NoGradGuard g;
      *v = orig + eps;
      const double up = loss_fn().item<double>();
      *v = orig - eps;
      const double down = loss_fn().item<double>();
      *v = orig;
      const double numeric = (up - down) / (2 * eps);
      const double analytic = grad.data_ptr<double>()[k];
      EXPECT_NEAR(analytic, numeric, 1e-7 + 1e-5 * std::abs(numeric)) << name << "[" << k << "]";
      ++checked;
    }
  }
  EXPECT_GT(checked, 200);
}

TEST(GptErrors, TypedErrorsForBadArguments) {
  GPTConfig bad = small_config();
  bad.dim = 10;
  bad.heads = 4;
  EXPECT_THROW({ GPT m(bad); }, ValueError);
  bad = small_config();
  bad.vocab_size = 0;
  EXPECT_THROW({ GPT m(bad); }, ValueError);
  bad = small_config();
  bad.layers = 0;
  EXPECT_THROW({ GPT m(bad); }, ValueError);

  GPT model = make_model(small_config());
  EXPECT_THROW(model->forward(random_ids(1, 17, 11)), ValueError);  // T > context
  EXPECT_THROW(model->forward(tensor({{1, 11}}, kInt64)), IndexError);
  EXPECT_THROW(model->forward(tensor({{1, -1}}, kInt64)), IndexError);
  EXPECT_THROW(model->forward(tensor({{1.0, 2.0}}, kFloat32)), TypeError);
  EXPECT_THROW(model->forward(tensor({1, 2}, kInt64)), ValueError);  // not [B, T]
  EXPECT_THROW(model->forward(random_ids(1, 4, 11), kInt64), ValueError);

  Generator gen(1);
  cli::SampleOptions o;
  EXPECT_THROW(cli::generate(*model, {}, o, gen), ValueError);
  EXPECT_THROW(cli::generate(*model, {11}, o, gen), IndexError);
  o.temperature = 0.0;
  EXPECT_THROW(cli::generate(*model, {1}, o, gen), ValueError);
  o = {};
  o.top_k = -1;
  EXPECT_THROW(cli::generate(*model, {1}, o, gen), ValueError);
  o = {};
  o.tokens = -1;
  EXPECT_THROW(cli::generate(*model, {1}, o, gen), ValueError);
  EXPECT_TRUE(model->is_training());
}

}  // namespace
