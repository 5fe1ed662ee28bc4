// nn::MultiheadAttention, F::multi_head_attention_forward and the Transformer layers against an
// explicit float64 softmax(q k^T / sqrt(d) + mask) v written with plain loops.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "ember/autograd.h"
#include "ember/ember.h"
#include "opdb.h"

namespace ember {
namespace {

namespace F = nn::functional;
using test::expect_errors;
using test::from_values;
using test::make_tensor;
using test::values;
using V = std::vector<double>;
const double kInf = std::numeric_limits<double>::infinity();

/// y[r, o] = sum_k W[o, k] x[r, k] + b[o] for rows r of x (R, In).
V linear_ref(const V& x, int64_t R, int64_t In, const V& w, const V& b, int64_t Out) {
  V y(R * Out);
  for (int64_t r = 0; r < R; ++r) {
    for (int64_t o = 0; o < Out; ++o) {
      double acc = b.empty() ? 0 : b[o];
      for (int64_t k = 0; k < In; ++k) acc += w[o * In + k] * x[r * In + k];
      y[r * Out + o] = acc;
    }
  }
  return y;
}

V slice(const V& v, int64_t start, int64_t n) {
  return V(v.begin() + start, v.begin() + start + n);
}

/// Additive mask value for (batch n, head h, query l, key s); 0 when absent.
using MaskFn = std::function<double(int64_t n, int64_t h, int64_t l, int64_t s)>;

struct MhaRef {
  V out;      // (L, N, E)
  V weights;  // (N, H, L, S')
};

/// Multi-head attention in double, sequence first: query (L, N, E), key (S, N, Ek), value (S, N,
/// Ev).
MhaRef mha_ref(const nn::MultiheadAttentionImpl& m, const V& q_in, const V& k_in, const V& v_in,
               int64_t L, int64_t S, int64_t N, const MaskFn& mask) {
  const int64_t E = m.options.embed_dim(), H = m.options.num_heads(), hd = E / H;
  const int64_t Ek = m.options.kdim(), Ev = m.options.vdim();
  V wq, wk, wv, bq, bk, bv;
  if (m.in_proj_weight.defined()) {
    V w = values(m.in_proj_weight);
    wq = slice(w, 0, E * E), wk = slice(w, E * E, E * E), wv = slice(w, 2 * E * E, E * E);
  } else {
    wq = values(m.q_proj_weight), wk = values(m.k_proj_weight), wv = values(m.v_proj_weight);
  }
  if (m.in_proj_bias.defined()) {
    V b = values(m.in_proj_bias);
    bq = slice(b, 0, E), bk = slice(b, E, E), bv = slice(b, 2 * E, E);
  }
  V q = linear_ref(q_in, L * N, E, wq, bq, E);
  V k = linear_ref(k_in, S * N, Ek, wk, bk, E);
  V v = linear_ref(v_in, S * N, Ev, wv, bv, E);
  int64_t S2 = S;
  if (m.bias_k.defined()) {  // one more key / value row per batch: bias_k, bias_v
    V bk2 = values(m.bias_k), bv2 = values(m.bias_v);
    for (int64_t n = 0; n < N; ++n) k.insert(k.end(), bk2.begin(), bk2.end());
    for (int64_t n = 0; n < N; ++n) v.insert(v.end(), bv2.begin(), bv2.end());
    ++S2;
  }
  if (m.options.add_zero_attn()) {
    k.resize(k.size() + N * E, 0);
    v.resize(v.size() + N * E, 0);
    ++S2;
  }
  MhaRef r;
  r.weights.assign(N * H * L * S2, 0);
  V o(L * N * E, 0);
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t h = 0; h < H; ++h) {
      for (int64_t l = 0; l < L; ++l) {
        V sc(S2);
        double mx = -kInf;
        for (int64_t s = 0; s < S2; ++s) {
          double acc = 0;
          for (int64_t d = 0; d < hd; ++d) {
            acc += q[(l * N + n) * E + h * hd + d] * k[(s * N + n) * E + h * hd + d];
          }
          sc[s] = acc / std::sqrt(static_cast<double>(hd)) + (s < S ? mask(n, h, l, s) : 0.0);
          mx = std::max(mx, sc[s]);
        }
        double z = 0;
        for (double& x : sc) z += (x = std::exp(x - mx));
        for (int64_t s = 0; s < S2; ++s) {
          const double w = sc[s] / z;
          r.weights[((n * H + h) * L + l) * S2 + s] = w;
          for (int64_t d = 0; d < hd; ++d) {
            o[(l * N + n) * E + h * hd + d] += w * v[(s * N + n) * E + h * hd + d];
          }
        }
      }
    }
  }
  V bo = m.out_proj->bias.defined() ? values(m.out_proj->bias) : V();
  r.out = linear_ref(o, L * N, E, values(m.out_proj->weight), bo, E);
  return r;
}

V mean_heads(const V& w, int64_t N, int64_t H, int64_t L, int64_t S) {
  V out(N * L * S, 0);
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t h = 0; h < H; ++h) {
      for (int64_t i = 0; i < L * S; ++i) out[n * L * S + i] += w[(n * H + h) * L * S + i] / H;
    }
  }
  return out;
}

const MaskFn kNoMask = [](int64_t, int64_t, int64_t, int64_t) { return 0.0; };

::testing::AssertionResult near(const Tensor& t, const std::vector<int64_t>& shape, const V& ref,
                                double tol = 1e-10) {
  return test::close(t, shape, ref, tol, tol);
}

/// Randomises every parameter (so zero-initialised biases matter in the comparisons).
void randomize(nn::Module& m, uint64_t seed) {
  NoGradGuard g;
  for (auto& p : m.parameters()) {
    p.copy_(make_tensor(p.sizes(), p.dtype(), -0.5, 0.5, seed++));
  }
}

TEST(NnMultiheadAttention, ParametersStateDictAndInit) {
  nn::MultiheadAttention a(8, 2);
  EXPECT_EQ(a->state_dict().keys(), (std::vector<std::string>{"in_proj_weight", "in_proj_bias",
                                                              "out_proj.weight", "out_proj.bias"}));
  EXPECT_EQ(a->in_proj_weight.sizes(), (std::vector<int64_t>{24, 8}));
  EXPECT_EQ(a->in_proj_bias.sizes(), (std::vector<int64_t>{24}));
  EXPECT_EQ(a->head_dim, 4);
  EXPECT_TRUE(a->_qkv_same_embed_dim);
  for (double v : values(a->in_proj_bias)) EXPECT_EQ(v, 0);
  for (double v : values(a->out_proj->bias)) EXPECT_EQ(v, 0);
  const double xavier = std::sqrt(6.0 / (24 + 8));
  double mx = 0;
  for (double v : values(a->in_proj_weight)) mx = std::max(mx, std::abs(v));
  EXPECT_LE(mx, xavier + 1e-7);
  EXPECT_GT(mx, 1 / std::sqrt(8.0));  // wider than Linear's default bound: really xavier

  nn::MultiheadAttention b(nn::MultiheadAttentionOptions(8, 2).kdim(5).vdim(6).add_bias_kv(true));
  EXPECT_FALSE(b->_qkv_same_embed_dim);
  EXPECT_EQ(
      b->state_dict().keys(),
      (std::vector<std::string>{"q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias",
                                "bias_k", "bias_v", "out_proj.weight", "out_proj.bias"}));
  EXPECT_EQ(b->k_proj_weight.sizes(), (std::vector<int64_t>{8, 5}));
  EXPECT_EQ(b->v_proj_weight.sizes(), (std::vector<int64_t>{8, 6}));
  EXPECT_EQ(b->bias_k.sizes(), (std::vector<int64_t>{1, 1, 8}));
  EXPECT_FALSE(b->in_proj_weight.defined());

  nn::MultiheadAttention c(nn::MultiheadAttentionOptions(4, 4).bias(false));
  EXPECT_EQ(c->state_dict().keys(),
            (std::vector<std::string>{"in_proj_weight", "out_proj.weight"}));
  std::ostringstream os;
  os << *c;
  EXPECT_NE(os.str().find("ember::nn::MultiheadAttention(embed_dim=4, num_heads=4"),
            std::string::npos);
  EXPECT_NE(os.str().find("(out_proj): ember::nn::Linear(in_features=4"), std::string::npos);
}

struct AttnCase {
  std::string name;
  nn::MultiheadAttentionOptions opts;
  bool self;
};

TEST(NnMultiheadAttention, MatchesExplicitSoftmax) {
  const int64_t L = 3, N = 2;
  const std::vector<AttnCase> cases = {
      {"self", nn::MultiheadAttentionOptions(8, 2), true},
      {"cross", nn::MultiheadAttentionOptions(8, 4), false},
      {"kdim_vdim", nn::MultiheadAttentionOptions(6, 3).kdim(5).vdim(7), false},
      {"bias_kv_zero_attn",
       nn::MultiheadAttentionOptions(8, 2).add_bias_kv(true).add_zero_attn(true), false},
      {"no_bias", nn::MultiheadAttentionOptions(4, 1).bias(false), false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    nn::MultiheadAttention m(c.opts);
    m->to(kFloat64);
    randomize(*m, 40);
    const int64_t E = c.opts.embed_dim(), H = c.opts.num_heads();
    const int64_t S = c.self ? L : 4;
    Tensor q = make_tensor({L, N, E}, kFloat64, -1, 1, 1);
    Tensor k = c.self ? q : make_tensor({S, N, c.opts.kdim()}, kFloat64, -1, 1, 2);
    Tensor v = c.self ? q : make_tensor({S, N, c.opts.vdim()}, kFloat64, -1, 1, 3);
    MhaRef ref = mha_ref(*m, values(q), values(k), values(v), L, S, N, kNoMask);
    const int64_t S2 = S + (c.opts.add_bias_kv() ? 1 : 0) + (c.opts.add_zero_attn() ? 1 : 0);
    auto [out, w] = m->forward(q, k, v);
    EXPECT_TRUE(near(out, {L, N, E}, ref.out));
    EXPECT_TRUE(near(w, {N, L, S2}, mean_heads(ref.weights, N, H, L, S2)));
    auto [out2, w2] = m->forward(q, k, v, {}, true, {}, /*average_attn_weights=*/false);
    EXPECT_TRUE(near(w2, {N, H, L, S2}, ref.weights));
    auto [out3, w3] = m->forward(q, k, v, {}, /*need_weights=*/false);
    EXPECT_FALSE(w3.defined());
    EXPECT_TRUE(near(out3, {L, N, E}, ref.out));
    // The functional form with the module's parameters gives the same.
    F::MultiheadAttentionForwardFuncOptions fo(E, H, m->in_proj_weight, m->in_proj_bias, m->bias_k,
                                               m->bias_v, c.opts.add_zero_attn(), 0.0,
                                               m->out_proj->weight, m->out_proj->bias);
    if (!m->_qkv_same_embed_dim) {
      fo.use_separate_proj_weight(true)
          .q_proj_weight(m->q_proj_weight)
          .k_proj_weight(m->k_proj_weight)
          .v_proj_weight(m->v_proj_weight);
    }
    auto [fout, fw] = F::multi_head_attention_forward(q, k, v, fo);
    EXPECT_TRUE(near(fout, {L, N, E}, ref.out));
  }
}

TEST(NnMultiheadAttention, Masks) {
  const int64_t L = 3, S = 4, N = 2, E = 8, H = 2;
  nn::MultiheadAttention m(E, H);
  m->to(kFloat64);
  randomize(*m, 50);
  Tensor q = make_tensor({L, N, E}, kFloat64, -1, 1, 4);
  Tensor kv = make_tensor({S, N, E}, kFloat64, -1, 1, 5);
  const V qv = values(q), kvv = values(kv);
  // key_padding_mask (bool, true = ignore): batch 0 ignores key 3, batch 1 keys 0 and 2.
  std::vector<std::vector<bool>> pad = {{false, false, false, true}, {true, false, true, false}};
  V padv;
  for (auto& row : pad) {
    for (bool b : row) padv.push_back(b);
  }
  Tensor kpm = from_values({N, S}, padv).to(kBool);
  Tensor fmask = make_tensor({L, S}, kFloat64, -1, 1, 6);
  const V fm = values(fmask);
  // Bool attn_mask (true = not allowed): query l may not see key l + 1.
  V bm(L * S, 0);
  for (int64_t l = 0; l < L; ++l) bm[l * S + l + 1] = 1;
  Tensor bmask = from_values({L, S}, bm).to(kBool);
  Tensor mask3 = make_tensor({N * H, L, S}, kFloat64, -1, 1, 7);
  const V m3 = values(mask3);

  struct MaskCase {
    std::string name;
    Tensor kpm, attn;
    MaskFn fn;
  };
  const std::vector<MaskCase> cases = {
      {"kpm",
       kpm,
       {},
       [&](int64_t n, int64_t, int64_t, int64_t s) { return pad[n][s] ? -kInf : 0.0; }},
      {"float2d", {}, fmask, [&](int64_t, int64_t, int64_t l, int64_t s) { return fm[l * S + s]; }},
      {"bool2d",
       {},
       bmask,
       [&](int64_t, int64_t, int64_t l, int64_t s) { return bm[l * S + s] ? -kInf : 0.0; }},
      {"float3d+kpm", kpm, mask3,
       [&](int64_t n, int64_t h, int64_t l, int64_t s) {
         return m3[((n * H + h) * L + l) * S + s] + (pad[n][s] ? -kInf : 0.0);
       }},
      {"float kpm", where(kpm, full({N, S}, -kInf, kFloat64), zeros({N, S}, kFloat64)), fmask,
       [&](int64_t n, int64_t, int64_t l, int64_t s) {
         return fm[l * S + s] + (pad[n][s] ? -kInf : 0.0);
       }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    MhaRef ref = mha_ref(*m, qv, kvv, kvv, L, S, N, c.fn);
    auto [out, w] = m->forward(q, kv, kv, c.kpm, true, c.attn, false);
    EXPECT_TRUE(near(out, {L, N, E}, ref.out));
    EXPECT_TRUE(near(w, {N, H, L, S}, ref.weights));
    auto [out2, w2] = m->forward(q, kv, kv, c.kpm, false, c.attn);
    EXPECT_TRUE(near(out2, {L, N, E}, ref.out));
  }
  // Causal self-attention: the mask with the is_causal hint (scaled_dot_product_attention's own
  // causal path) equals the explicit mask, float or bool.
  Tensor x = make_tensor({4, N, E}, kFloat64, -1, 1, 8);
  MhaRef ref = mha_ref(*m, values(x), values(x), values(x), 4, 4, N,
                       [](int64_t, int64_t, int64_t l, int64_t s) { return s > l ? -kInf : 0.0; });
  Tensor causal = nn::generate_square_subsequent_mask(4, kFloat64);
  EXPECT_TRUE(near(causal, {4, 4},
                   {0, -kInf, -kInf, -kInf, 0, 0, -kInf, -kInf, 0, 0, 0, -kInf, 0, 0, 0, 0}));
  Tensor causal_bool =
      from_values({4, 4}, {0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0}).to(kBool);
  for (bool hint : {false, true}) {
    for (bool need_weights : {false, true}) {
      EXPECT_TRUE(near(std::get<0>(m->forward(x, x, x, {}, need_weights, causal, true, hint)),
                       {4, N, E}, ref.out));
      EXPECT_TRUE(near(std::get<0>(m->forward(x, x, x, {}, need_weights, causal_bool, true, hint)),
                       {4, N, E}, ref.out));
    }
  }
}

TEST(NnMultiheadAttention, BatchFirstUnbatchedAndDropout) {
  const int64_t L = 3, S = 5, N = 2, E = 6, H = 2;
  nn::MultiheadAttention a(nn::MultiheadAttentionOptions(E, H).kdim(4).vdim(4));
  nn::MultiheadAttention b(nn::MultiheadAttentionOptions(E, H).kdim(4).vdim(4).batch_first(true));
  b->load_state_dict(a->state_dict());
  Tensor q = make_tensor({L, N, E}, kFloat32, -1, 1, 9);
  Tensor kv = make_tensor({S, N, 4}, kFloat32, -1, 1, 10);
  auto [ya, wa] = a->forward(q, kv, kv);
  auto [yb, wb] = b->forward(q.transpose(0, 1), kv.transpose(0, 1), kv.transpose(0, 1));
  EXPECT_EQ(yb.sizes(), (std::vector<int64_t>{N, L, E}));
  EXPECT_TRUE(ya.allclose(yb.transpose(0, 1), 1e-5, 1e-6));
  EXPECT_TRUE(wa.allclose(wb, 1e-5, 1e-6));
  // Self-attention with batch_first (query is key is value).
  Tensor xs = make_tensor({N, L, E}, kFloat32, -1, 1, 11);
  nn::MultiheadAttention c(E, H), d(nn::MultiheadAttentionOptions(E, H).batch_first(true));
  d->load_state_dict(c->state_dict());
  Tensor xt = xs.transpose(0, 1);
  EXPECT_TRUE(std::get<0>(d->forward(xs, xs, xs))
                  .allclose(std::get<0>(c->forward(xt, xt, xt)).transpose(0, 1), 1e-5, 1e-6));
  // Unbatched: (L, E) query gives the batch-of-one result.
  auto [yu, wu] = a->forward(q.select(1, 0), kv.select(1, 0), kv.select(1, 0));
  EXPECT_EQ(yu.sizes(), (std::vector<int64_t>{L, E}));
  EXPECT_EQ(wu.sizes(), (std::vector<int64_t>{L, S}));
  EXPECT_TRUE(yu.allclose(ya.select(1, 0), 1e-5, 1e-6));
  EXPECT_TRUE(wu.allclose(wa.select(0, 0), 1e-5, 1e-6));
  auto [yu2, wu2] = b->forward(q.select(1, 0), kv.select(1, 0), kv.select(1, 0), {}, false);
  EXPECT_TRUE(yu2.allclose(yu, 1e-5, 1e-6));
  // Dropout acts in training only.
  nn::MultiheadAttention e(nn::MultiheadAttentionOptions(E, H).dropout(0.5));
  randomize(*e, 60);
  Tensor x = make_tensor({L, N, E}, kFloat32, -1, 1, 12);
  e->eval();
  auto [y0, w0] = e->forward(x, x, x);
  MhaRef ref = mha_ref(*e, values(x), values(x), values(x), L, L, N, kNoMask);
  EXPECT_TRUE(near(y0, {L, N, E}, ref.out, 1e-5));
  e->train();
  manual_seed(1);
  auto [y1, w1] = e->forward(x, x, x);
  EXPECT_FALSE(y1.allclose(y0, 1e-5, 1e-6));
}

TEST(NnMultiheadAttention, Gradcheck) {
  using autograd::gradcheck;
  nn::MultiheadAttention m(nn::MultiheadAttentionOptions(4, 2).kdim(3).vdim(2));
  m->to(kFloat64);
  randomize(*m, 70);
  Tensor q = make_tensor({2, 2, 4}, kFloat64, -1, 1, 13).requires_grad_();
  Tensor k = make_tensor({3, 2, 3}, kFloat64, -1, 1, 14).requires_grad_();
  Tensor v = make_tensor({3, 2, 2}, kFloat64, -1, 1, 15).requires_grad_();
  Tensor kpm = from_values({2, 3}, {0, 0, 1, 0, 1, 0}).to(kBool);
  for (bool need_weights : {true, false}) {
    EXPECT_TRUE(gradcheck(
        [&](const std::vector<Tensor>& in) {
          auto [o, w] = m->forward(in[0], in[1], in[2], kpm, need_weights);
          return need_weights ? std::vector<Tensor>{o, w} : std::vector<Tensor>{o};
        },
        {q, k, v}));
  }
  nn::MultiheadAttention s(4, 2);
  s->to(kFloat64);
  randomize(*s, 80);
  Tensor causal = nn::generate_square_subsequent_mask(3, kFloat64);
  EXPECT_TRUE(gradcheck(
      [&](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{
            std::get<0>(s->forward(in[0], in[0], in[0], {}, false, causal, true, true))};
      },
      {make_tensor({3, 2, 4}, kFloat64, -1, 1, 16).requires_grad_()}));
  // Parameter gradients reach every weight.
  Tensor x = make_tensor({3, 2, 4}, kFloat64, -1, 1, 17);
  std::get<0>(s->forward(x, x, x)).pow(2).sum().backward();
  for (const auto& p : s->parameters()) {
    ASSERT_TRUE(p.grad().defined());
    EXPECT_GT(p.grad().abs().sum().item<double>(), 0);
  }
}

TEST(NnMultiheadAttention, Errors) {
  nn::MultiheadAttention m(8, 2);
  Tensor x = zeros({3, 2, 8});
  expect_errors<ValueError>({
      {"divisible", [] { nn::MultiheadAttention(10, 3); },
       "[MultiheadAttention] embed_dim must be divisible by num_heads"},
      {"zero heads", [] { nn::MultiheadAttention(8, 0); },
       "[MultiheadAttention] embed_dim and num_heads must be greater than 0"},
      {"rank",
       [&] {
         m->forward(zeros({1, 3, 2, 8}), x, x);
       },
       "[MultiheadAttention] query should be unbatched 2D or batched 3D tensor but received 4-D "
       "query tensor"},
      {"key rank",
       [&] {
         m->forward(x, zeros({3, 8}), zeros({3, 8}));
       },
       "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found 2-D and 2-D"},
      {"kpm rank",
       [&] {
         m->forward(x, x, x, zeros({2, 3, 1}, kBool));
       },
       "expected `key_padding_mask` to be `None` or 2-D but found 3-D"},
  });
  expect_errors<RuntimeError>({
      {"embed",
       [&] {
         m->forward(zeros({3, 2, 6}), x, x);
       },
       "[MultiheadAttention] was expecting embedding dimension of 8, but got 6"},
      {"key shape",
       [&] {
         m->forward(x, zeros({4, 2, 8}), zeros({3, 2, 8}));
       },
       "key shape torch.Size([4, 2, 8]) does not match value shape torch.Size([3, 2, 8])"},
      {"key features",
       [&] {
         m->forward(x, zeros({3, 2, 5}), zeros({3, 2, 5}));
       },
       "expecting key weights shape of (8, 5)"},
      {"mask 2d",
       [&] {
         m->forward(x, x, x, {}, true, zeros({3, 4}));
       },
       "The shape of the 2D attn_mask is torch.Size([3, 4]), but should be (3, 3)."},
      {"mask 3d",
       [&] {
         m->forward(x, x, x, {}, true, zeros({2, 3, 3}));
       },
       "The shape of the 3D attn_mask is torch.Size([2, 3, 3]), but should be (4, 3, 3)."},
      {"kpm shape",
       [&] {
         m->forward(x, x, x, zeros({2, 4}, kBool));
       },
       "expecting key_padding_mask shape of (2, 3), but got torch.Size([2, 4])"},
      {"causal", [&] { m->forward(x, x, x, {}, false, {}, true, true); },
       "Need attn_mask if specifying the is_causal hint"},
      {"F embed",
       [&] {
         F::multi_head_attention_forward(x, x, x,
                                         F::MultiheadAttentionForwardFuncOptions(
                                             6, 2, m->in_proj_weight, m->in_proj_bias, {}, {},
                                             false, 0, m->out_proj->weight, m->out_proj->bias));
       },
       "[multi_head_attention_forward] was expecting embedding dimension of 6, but got 8"},
  });
  expect_errors<TypeError>({
      {"mask dtype",
       [&] {
         m->forward(x, x, x, {}, true, zeros({3, 3}, kInt64));
       },
       "only bool and floating types of attn_mask are supported"},
  });
}

// ---- Transformer layers ----

V layer_norm_ref(const V& x, int64_t R, int64_t E, const V& w, const V& b, double eps) {
  V y(R * E);
  for (int64_t r = 0; r < R; ++r) {
    double mean = 0, var = 0;
    for (int64_t e = 0; e < E; ++e) mean += x[r * E + e] / E;
    for (int64_t e = 0; e < E; ++e) var += (x[r * E + e] - mean) * (x[r * E + e] - mean) / E;
    for (int64_t e = 0; e < E; ++e) {
      y[r * E + e] = (x[r * E + e] - mean) / std::sqrt(var + eps) * w[e] + (b.empty() ? 0 : b[e]);
    }
  }
  return y;
}

V add(const V& a, const V& b) {
  V y(a.size());
  for (size_t i = 0; i < a.size(); ++i) y[i] = a[i] + b[i];
  return y;
}

V norm_of(const nn::LayerNormImpl& n, const V& x, int64_t R) {
  return layer_norm_ref(x, R, n.options.normalized_shape()[0], values(n.weight),
                        n.bias.defined() ? values(n.bias) : V(), n.options.eps());
}

V ff_ref(const nn::Linear& l1, const nn::Linear& l2, const V& x, int64_t R, bool gelu) {
  const int64_t E = l1->options.in_features(), Fd = l1->options.out_features();
  V h = linear_ref(x, R, E, values(l1->weight), values(l1->bias), Fd);
  for (double& v : h) v = gelu ? 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))) : std::max(0.0, v);
  return linear_ref(h, R, Fd, values(l2->weight), values(l2->bias), E);
}

TEST(NnTransformer, EncoderLayerKeysAndReference) {
  const int64_t S = 4, N = 2, E = 8, H = 2, FF = 16;
  nn::TransformerEncoderLayer probe(E, H);
  EXPECT_EQ(probe->options.dim_feedforward(), 2048);
  EXPECT_EQ(probe->options.dropout(), 0.1);
  EXPECT_EQ(probe->state_dict().keys(),
            (std::vector<std::string>{
                "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
                "self_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight",
                "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"}));
  EXPECT_EQ(probe->named_children().keys(),
            (std::vector<std::string>{"self_attn", "linear1", "dropout", "linear2", "norm1",
                                      "norm2", "dropout1", "dropout2"}));
  for (bool norm_first : {false, true}) {
    for (const char* act : {"relu", "gelu"}) {
      SCOPED_TRACE(std::string(act) + (norm_first ? " norm_first" : " post-norm"));
      nn::TransformerEncoderLayer m(nn::TransformerEncoderLayerOptions(E, H)
                                        .dim_feedforward(FF)
                                        .activation(act)
                                        .norm_first(norm_first)
                                        .layer_norm_eps(1e-4));
      m->to(kFloat64);
      randomize(*m, 90);
      m->eval();
      Tensor x = make_tensor({S, N, E}, kFloat64, -1, 1, 18);
      Tensor kpm = from_values({N, S}, {0, 0, 0, 1, 0, 1, 0, 0}).to(kBool);
      auto mask = [&](int64_t n, int64_t, int64_t, int64_t s) {
        return (n == 0 && s == 3) || (n == 1 && s == 1) ? -kInf : 0.0;
      };
      const bool gelu = std::string(act) == "gelu";
      auto sa = [&](const V& in) { return mha_ref(*m->self_attn, in, in, in, S, S, N, mask).out; };
      auto ff = [&](const V& in) { return ff_ref(m->linear1, m->linear2, in, S * N, gelu); };
      const V xv = values(x);
      V ref;
      if (norm_first) {
        V x1 = add(xv, sa(norm_of(*m->norm1, xv, S * N)));
        ref = add(x1, ff(norm_of(*m->norm2, x1, S * N)));
      } else {
        V x1 = norm_of(*m->norm1, add(xv, sa(xv)), S * N);
        ref = norm_of(*m->norm2, add(x1, ff(x1)), S * N);
      }
      EXPECT_TRUE(near(m->forward(x, {}, kpm), {S, N, E}, ref, 1e-9));
    }
  }
  // Custom activation and bias=false.
  nn::TransformerEncoderLayer t(
      nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(8).bias(false).activation(
          [](const Tensor& x) { return x.tanh(); }));
  EXPECT_EQ(t->state_dict().keys(),
            (std::vector<std::string>{"self_attn.in_proj_weight", "self_attn.out_proj.weight",
                                      "linear1.weight", "linear2.weight", "norm1.weight",
                                      "norm2.weight"}));
  EXPECT_EQ(t->forward(zeros({3, 4})).sizes(), (std::vector<int64_t>{3, 4}));
  expect_errors<RuntimeError>({
      {"activation", [] { nn::TransformerEncoderLayerOptions(4, 2).activation("swish"); },
       "activation should be relu/gelu, not swish"},
  });
  expect_errors<ValueError>({
      {"nhead", [] { nn::TransformerEncoderLayer(6, 4); },
       "embed_dim must be divisible by num_heads"},
  });
}

TEST(NnTransformer, DecoderLayerReferenceAndStacks) {
  const int64_t T = 3, S = 4, N = 2, E = 4, H = 2, FF = 8;
  for (bool norm_first : {false, true}) {
    SCOPED_TRACE(norm_first ? "norm_first" : "post-norm");
    nn::TransformerDecoderLayer m(
        nn::TransformerDecoderLayerOptions(E, H).dim_feedforward(FF).norm_first(norm_first));
    EXPECT_EQ(m->state_dict().keys().size(), 18u);
    EXPECT_EQ(m->state_dict().keys()[4], "multihead_attn.in_proj_weight");
    EXPECT_EQ(m->state_dict().keys().back(), "norm3.bias");
    m->to(kFloat64);
    randomize(*m, 100);
    m->eval();
    Tensor x = make_tensor({T, N, E}, kFloat64, -1, 1, 19);
    Tensor mem = make_tensor({S, N, E}, kFloat64, -1, 1, 20);
    Tensor causal = nn::generate_square_subsequent_mask(T, kFloat64);
    const V xv = values(x), mv = values(mem);
    auto sa = [&](const V& in) {
      return mha_ref(*m->self_attn, in, in, in, T, T, N,
                     [](int64_t, int64_t, int64_t l, int64_t s) { return s > l ? -kInf : 0.0; })
          .out;
    };
    auto ca = [&](const V& in) {
      return mha_ref(*m->multihead_attn, in, mv, mv, T, S, N, kNoMask).out;
    };
    auto ff = [&](const V& in) { return ff_ref(m->linear1, m->linear2, in, T * N, false); };
    V ref;
    if (norm_first) {
      V x1 = add(xv, sa(norm_of(*m->norm1, xv, T * N)));
      V x2 = add(x1, ca(norm_of(*m->norm2, x1, T * N)));
      ref = add(x2, ff(norm_of(*m->norm3, x2, T * N)));
    } else {
      V x1 = norm_of(*m->norm1, add(xv, sa(xv)), T * N);
      V x2 = norm_of(*m->norm2, add(x1, ca(x1)), T * N);
      ref = norm_of(*m->norm3, add(x2, ff(x2)), T * N);
    }
    EXPECT_TRUE(
        near(m->forward(x, mem, causal, {}, {}, {}, /*tgt_is_causal=*/true), {T, N, E}, ref, 1e-9));
  }
  // Stacks: deep copies of the layer under layers.{i}, then the optional norm.
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(E, H).dim_feedforward(FF));
  nn::TransformerEncoder enc(nn::TransformerEncoderOptions(layer, 2).norm(
      nn::AnyModule(nn::LayerNorm(std::vector<int64_t>{E}))));
  auto keys = enc->state_dict().keys();
  EXPECT_EQ(keys.size(), 26u);
  EXPECT_EQ(keys.front(), "layers.0.self_attn.in_proj_weight");
  EXPECT_EQ(keys[12], "layers.1.self_attn.in_proj_weight");
  EXPECT_EQ(keys.back(), "norm.bias");
  auto l0 = enc->layers->ptr<nn::TransformerEncoderLayerImpl>(0);
  auto l1 = enc->layers->ptr<nn::TransformerEncoderLayerImpl>(1);
  EXPECT_TRUE(l0->linear1->weight.equal(layer->linear1->weight));
  EXPECT_FALSE(l0->linear1->weight.is_same(layer->linear1->weight));
  EXPECT_FALSE(l0->linear1->weight.is_same(l1->linear1->weight));
  enc->eval();
  Tensor src = make_tensor({S, N, E}, kFloat32, -1, 1, 21);
  auto norm = std::dynamic_pointer_cast<nn::LayerNormImpl>(enc->named_children()["norm"]);
  ASSERT_NE(norm, nullptr);
  Tensor manual = norm->forward(l1->forward(l0->forward(src)));
  EXPECT_TRUE(enc->forward(src).allclose(manual, 1e-6, 1e-6));
  nn::TransformerDecoder dec(
      nn::TransformerDecoderLayer(nn::TransformerDecoderLayerOptions(E, H).dim_feedforward(FF)), 3);
  EXPECT_EQ(dec->layers->size(), 3u);
  EXPECT_EQ(dec->state_dict().keys().size(), 54u);
  EXPECT_EQ(dec->forward(src, src).sizes(), (std::vector<int64_t>{S, N, E}));
}

TEST(NnTransformer, BatchFirstUnbatchedTrainingAndGradcheck) {
  nn::TransformerEncoderLayer a(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(8));
  nn::TransformerEncoderLayer b(
      nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(8).batch_first(true));
  b->load_state_dict(a->state_dict());
  a->eval();
  b->eval();
  Tensor x = make_tensor({3, 2, 4}, kFloat32, -1, 1, 30);
  Tensor ya = a->forward(x);
  EXPECT_TRUE(b->forward(x.transpose(0, 1)).allclose(ya.transpose(0, 1), 1e-5, 1e-6));
  EXPECT_TRUE(a->forward(x.select(1, 0)).allclose(ya.select(1, 0), 1e-5, 1e-6));
  a->train();
  manual_seed(3);
  EXPECT_FALSE(a->forward(x).allclose(ya, 1e-5, 1e-6));  // dropout 0.1 acts in training
  a->eval();
  a->forward(x).pow(2).sum().backward();
  for (const auto& p : a->parameters()) EXPECT_TRUE(p.grad().defined());

  nn::TransformerEncoderLayer g(
      nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(4).norm_first(true));
  g->to(kFloat64);
  g->eval();
  Tensor kpm = from_values({1, 3}, {0, 1, 0}).to(kBool);
  EXPECT_TRUE(autograd::gradcheck(
      [&](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{g->forward(in[0], {}, kpm)};
      },
      {make_tensor({3, 1, 4}, kFloat64, -1, 1, 31).requires_grad_()}));
}

}  // namespace
}  // namespace ember
