// scaled_dot_product_attention: the tiled kernel against the full softmax formula written with
// plain loops (masks, causal, GQA, broadcast batches, block boundaries), its memory at L = 8192,
// the recompute-based backward against finite differences, dropout and the error table.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/nn/functional.h"
#include "ember/profiler.h"
#include "nn/functional/attention_internal.h"
#include "nn/nn_ref.h"
#include "opdb.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;
using nn::Arr;

enum Flags : int64_t { kCausal = 1, kGqa = 2, kMask = 4, kScale = 8 };
constexpr double kCustomScale = 0.3;

/// Right-aligned broadcast read: idx indexes a shape of rank >= a's.
double bread(const Arr& a, const std::vector<int64_t>& idx) {
  std::vector<int64_t> j(a.dim());
  const size_t off = idx.size() - a.dim();
  for (int64_t d = 0; d < a.dim(); ++d) j[d] = a.shape[d] == 1 ? 0 : idx[off + d];
  return a.at(j);
}

/// The full formula on 4-d q [Bq, Hq, L, E], k/v [Bk, Hk, S, *] (batch/head dims of size 1
/// broadcast; under GQA head h reads kv head h / (Hq / Hk)).
Reference sdpa_ref(const Tensor& tq, const Tensor& tk, const Tensor& tv, const Tensor& tmask,
                   int64_t flags) {
  Arr q(tq), k(tk), v(tv);
  const int64_t nd = q.dim();
  auto sz = [&](const Arr& a, int64_t d) { return a.dim() + d >= 0 ? a.size(d) : 1; };
  const int64_t L = q.size(-2), E = q.size(-1), S = k.size(-2), Ev = v.size(-1);
  const bool gqa = flags & kGqa;
  const int64_t B = std::max({sz(q, -4), sz(k, -4), sz(v, -4)});
  const int64_t Hq = gqa ? sz(q, -3) : std::max({sz(q, -3), sz(k, -3), sz(v, -3)});
  const int64_t Hk = gqa ? sz(k, -3) : Hq;
  const double scale = (flags & kScale) ? kCustomScale : 1.0 / std::sqrt(static_cast<double>(E));
  Arr mask;
  if (tmask.defined()) mask = Arr(tmask);
  const bool mbool = tmask.defined() && tmask.dtype() == kBool;
  std::vector<int64_t> oshape = {B, Hq, L, Ev};
  if (nd < 4) oshape.erase(oshape.begin(), oshape.begin() + (4 - nd));
  // Dense copies over the broadcast shapes, read once through the broadcasting rule.
  auto dense = [&](const Arr& a, int64_t h, int64_t rows, int64_t cols) {
    std::vector<double> d(B * h * rows * cols);
    size_t n = 0;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t hh = 0; hh < h; ++hh)
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c) d[n++] = bread(a, {b, hh, r, c});
    return d;
  };
  const auto Q = dense(q, Hq, L, E), K = dense(k, Hk, S, E), V = dense(v, Hk, S, Ev);
  const auto M = tmask.defined() ? dense(mask, Hq, L, S) : std::vector<double>();
  Arr out({B, Hq, L, Ev}, 0);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t hk = gqa ? h / (Hq / Hk) : h;
      const double* qh = Q.data() + (b * Hq + h) * L * E;
      const double* kh = K.data() + (b * Hk + hk) * S * E;
      const double* vh = V.data() + (b * Hk + hk) * S * Ev;
      for (int64_t i = 0; i < L; ++i) {
        std::vector<double> s(S);
        std::vector<bool> keep(S, true);
        double mx = -INFINITY;
        for (int64_t j = 0; j < S; ++j) {
          double acc = 0;
          for (int64_t e = 0; e < E; ++e) acc += qh[i * E + e] * kh[j * E + e];
          s[j] = acc * scale;
          if ((flags & kCausal) && j > i) keep[j] = false;
          if (tmask.defined()) {
            const double m = M[((b * Hq + h) * L + i) * S + j];
            if (mbool)
              keep[j] = keep[j] && m != 0;
            else
              s[j] += m;
          }
          if (keep[j]) mx = std::max(mx, s[j]);
        }
        if (mx == -INFINITY) continue;  // fully masked: zeros
        double sum = 0;
        for (int64_t j = 0; j < S; ++j) sum += keep[j] ? std::exp(s[j] - mx) : 0;
        for (int64_t e = 0; e < Ev; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < S; ++j) {
            if (keep[j]) acc += std::exp(s[j] - mx) / sum * vh[j * Ev + e];
          }
          out.v[((b * Hq + h) * L + i) * Ev + e] = acc;
        }
      }
    }
  }
  return {oshape, out.v, tq.dtype()};
}

Tensor run_sdpa(const std::vector<Tensor>& in) {
  const int64_t flags = nn::arg_of(in[3]);
  Tensor mask = in.size() > 4 ? in[4] : Tensor();
  return F::scaled_dot_product_attention(
      in[0], in[1], in[2], mask, 0.0, flags & kCausal,
      (flags & kScale) ? std::optional<double>(kCustomScale) : std::nullopt, flags & kGqa);
}

std::vector<Sample> sdpa_samples(ScalarType dt) {
  auto mk = [&](std::vector<int64_t> s, uint64_t seed) { return make_tensor(s, dt, -2, 2, seed); };
  auto S3 = [&](std::vector<int64_t> q, std::vector<int64_t> k, std::vector<int64_t> v,
                int64_t flags, const std::string& desc, Tensor mask = {}) {
    Sample s{{mk(q, 1), mk(k, 2), mk(v, 3), nn::arg(flags)}, desc};
    if (mask.defined()) s.inputs.push_back(mask);
    return s;
  };
  // A bool mask [5, 7] whose row 2 is fully masked, and a float mask [2, 1, 5, 7].
  std::vector<double> mb(35);
  for (int i = 0; i < 35; ++i) mb[i] = (i / 7 == 2) ? 0 : ((i * 5 + 3) % 4 != 0);
  Tensor bool_mask = from_values({5, 7}, mb, kBool);
  Tensor float_mask = make_tensor({2, 1, 5, 7}, dt, -3, 3, 9);
  std::vector<double> big(150 * 300);
  for (size_t i = 0; i < big.size(); ++i) big[i] = (i * 7919 % 13) != 0;
  std::vector<Sample> out = {
      S3({2, 3, 5, 4}, {2, 3, 7, 4}, {2, 3, 7, 6}, 0, "basic"),
      S3({2, 3, 5, 4}, {2, 3, 7, 4}, {2, 3, 7, 6}, kScale, "custom scale"),
      S3({1, 2, 9, 4}, {1, 2, 9, 4}, {1, 2, 9, 4}, kCausal, "causal square"),
      S3({1, 2, 5, 4}, {1, 2, 7, 4}, {1, 2, 7, 3}, kCausal, "causal L < S"),
      S3({1, 2, 7, 4}, {1, 2, 5, 4}, {1, 2, 5, 3}, kCausal, "causal L > S"),
      S3({2, 3, 5, 4}, {2, 3, 7, 4}, {2, 3, 7, 6}, kMask, "bool mask broadcast", bool_mask),
      S3({2, 3, 5, 4}, {2, 3, 7, 4}, {2, 3, 7, 6}, kMask, "float mask", float_mask),
      S3({1, 4, 5, 4}, {1, 2, 7, 4}, {1, 2, 7, 3}, kGqa, "gqa"),
      S3({2, 6, 5, 4}, {2, 2, 7, 4}, {2, 2, 7, 3}, kGqa | kCausal, "gqa causal"),
      S3({2, 4, 5, 4}, {2, 2, 7, 4}, {2, 2, 7, 3}, kGqa | kMask, "gqa float mask",
         make_tensor({4, 1, 7}, dt, -2, 2, 4)),
      S3({3, 5, 4}, {3, 7, 4}, {3, 7, 2}, 0, "3-d"),
      S3({5, 4}, {7, 4}, {7, 2}, kCausal, "2-d causal"),
      S3({2, 1, 5, 4}, {1, 3, 7, 4}, {1, 3, 7, 2}, 0, "broadcast batch"),
      S3({1, 2, 0, 4}, {1, 2, 7, 4}, {1, 2, 7, 3}, 0, "empty L"),
      S3({1, 2, 5, 4}, {1, 2, 0, 4}, {1, 2, 0, 3}, 0, "empty S"),
      S3({1, 1, 150, 8}, {1, 1, 300, 8}, {1, 1, 300, 5}, kCausal, "blocks causal"),
      S3({1, 1, 150, 8}, {1, 1, 300, 8}, {1, 1, 300, 5}, kMask, "blocks bool mask",
         from_values({150, 300}, big, kBool)),
  };
  Sample nc{{make_noncontiguous(mk({2, 2, 5, 4}, 5)), make_noncontiguous(mk({2, 2, 7, 4}, 6)),
             make_noncontiguous(mk({2, 2, 7, 3}, 7)), nn::arg(0)},
            "non-contiguous"};
  out.push_back(nc);
  // The heads of x.view(B, L, H, E).transpose(1, 2): rows H * E apart, read in place; over
  // several query and key blocks, with GQA and a mask.
  auto heads = [&](std::vector<int64_t> s, uint64_t seed) {
    std::swap(s[1], s[2]);
    return mk(s, seed).transpose(1, 2);
  };
  auto H3 = [&](std::vector<int64_t> q, std::vector<int64_t> k, std::vector<int64_t> v,
                int64_t flags, const std::string& desc, Tensor mask = {}) {
    Sample s{{heads(q, 11), heads(k, 12), heads(v, 13), nn::arg(flags)}, desc};
    if (mask.defined()) s.inputs.push_back(mask);
    return s;
  };
  out.push_back(H3({2, 3, 5, 4}, {2, 3, 7, 4}, {2, 3, 7, 6}, kCausal, "heads transposed causal"));
  out.push_back(H3({2, 4, 70, 8}, {2, 2, 150, 8}, {2, 2, 150, 5}, kGqa | kMask,
                   "heads transposed gqa blocks",
                   from_values({150, 300}, big, kBool).narrow(0, 0, 70).narrow(1, 0, 150)));
  return out;
}

// The gradcheck set: sdpa_samples' configurations (scale, causal with L = S, L < S, L > S, masks,
// GQA, 3-d and 2-d, broadcast batch, empty, non-contiguous) on L, S <= 4 and one or two heads.
std::vector<Sample> sdpa_grad_samples() {
  auto mk = [](std::vector<int64_t> s, uint64_t seed) {
    return make_tensor(s, kFloat64, -2, 2, seed);
  };
  auto S3 = [&](std::vector<int64_t> q, std::vector<int64_t> k, std::vector<int64_t> v,
                int64_t flags, const std::string& desc, Tensor mask = {}) {
    Sample s{{mk(q, 1), mk(k, 2), mk(v, 3), nn::arg(flags)}, desc};
    if (mask.defined()) s.inputs.push_back(mask);
    return s;
  };
  // No fully masked row: its output is NaN, where finite differences say nothing.
  Tensor bool_mask = from_values({3, 4}, {1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1}, kBool);
  return {
      S3({1, 1, 3, 2}, {1, 1, 4, 2}, {1, 1, 4, 2}, 0, "basic"),
      S3({1, 1, 3, 2}, {1, 1, 4, 2}, {1, 1, 4, 2}, kScale, "custom scale"),
      S3({1, 1, 3, 2}, {1, 1, 3, 2}, {1, 1, 3, 2}, kCausal, "causal square"),
      S3({1, 1, 2, 2}, {1, 1, 4, 2}, {1, 1, 4, 2}, kCausal, "causal L < S"),
      S3({1, 1, 4, 2}, {1, 1, 2, 2}, {1, 1, 2, 2}, kCausal, "causal L > S"),
      S3({1, 2, 3, 2}, {1, 2, 4, 2}, {1, 2, 4, 1}, kMask, "bool mask broadcast", bool_mask),
      S3({1, 1, 3, 2}, {1, 1, 4, 2}, {1, 1, 4, 2}, kMask, "float mask", mk({1, 1, 3, 4}, 9)),
      S3({1, 2, 3, 2}, {1, 1, 4, 2}, {1, 1, 4, 2}, kGqa, "gqa"),
      S3({1, 2, 3, 2}, {1, 1, 4, 2}, {1, 1, 4, 2}, kGqa | kCausal, "gqa causal"),
      S3({2, 3, 2}, {2, 4, 2}, {2, 4, 1}, 0, "3-d"),
      S3({3, 2}, {4, 2}, {4, 2}, kCausal, "2-d causal"),
      S3({2, 1, 2, 2}, {1, 2, 3, 2}, {1, 2, 3, 1}, 0, "broadcast batch"),
      S3({1, 1, 0, 2}, {1, 1, 4, 2}, {1, 1, 4, 2}, 0, "empty L"),
      {{make_noncontiguous(mk({1, 1, 3, 2}, 5)), make_noncontiguous(mk({1, 1, 4, 2}, 6)),
        make_noncontiguous(mk({1, 1, 4, 2}, 7)), nn::arg(0)},
       "non-contiguous"},
      // The heads of x.view(B, L, H, E).transpose(1, 2), read in place; GQA causal.
      {{mk({1, 3, 2, 2}, 5).transpose(1, 2), mk({1, 4, 1, 2}, 6).transpose(1, 2),
        mk({1, 4, 1, 2}, 7).transpose(1, 2), nn::arg(kGqa | kCausal)},
       "heads transposed gqa causal"},
  };
}

std::vector<OpInfo> attention_ops() {
  OpInfo info;
  info.name = "scaled_dot_product_attention";
  info.dtypes = float_dtypes();
  info.samples = sdpa_samples;
  info.grad_samples = sdpa_grad_samples;
  info.op = run_sdpa;
  info.arg_inputs = {3};
  info.reference = [](const std::vector<Tensor>& in) {
    return sdpa_ref(in[0], in[1], in[2], in.size() > 4 ? in[4] : Tensor(), nn::arg_of(in[3]));
  };
  info.tol_scale = 4;
  info.rejected_dtypes = integral_dtypes(true);
  return {info};
}

INSTANTIATE_TEST_SUITE_P(NNAttention, OpTest, ::testing::ValuesIn(attention_ops()), op_test_name);

// Note [Tiled attention]: at L = S = 8192, E = 64 a materialised score matrix alone would take
// 256 MiB in float32; the tiled kernel needs the output and a few tiles.
TEST(NNAttention, LongSequenceMemoryStaysSmall) {
  const int64_t L = 8192, E = 64;
  Tensor q = make_tensor({1, 1, L, E}, kFloat32, -1, 1, 1);
  Tensor k = make_tensor({1, 1, L, E}, kFloat32, -1, 1, 2);
  Tensor v = make_tensor({1, 1, L, E}, kFloat32, -1, 1, 3);
  reset_peak_memory_stats();
  const int64_t baseline = memory_stats().allocated;
  Tensor out = F::scaled_dot_product_attention(q, k, v);
  const int64_t extra = memory_stats().peak_allocated - baseline;
  EXPECT_LT(extra, 64LL << 20) << "extra bytes: " << extra;
  RecordProperty("extra_bytes", std::to_string(extra));
  // Spot-check a few rows against the formula.
  Arr aq(q), ak(k), av(v);
  auto got = values(out);
  for (int64_t i : {int64_t(0), int64_t(4097), L - 1}) {
    std::vector<double> s(L);
    double mx = -INFINITY;
    for (int64_t j = 0; j < L; ++j) {
      double acc = 0;
      for (int64_t e = 0; e < E; ++e) acc += aq.v[i * E + e] * ak.v[j * E + e];
      s[j] = acc / 8.0;
      mx = std::max(mx, s[j]);
    }
    double sum = 0;
    for (auto& x : s) sum += (x = std::exp(x - mx));
    for (int64_t e = 0; e < E; e += 9) {
      double acc = 0;
      for (int64_t j = 0; j < L; ++j) acc += s[j] * av.v[j * E + e];
      EXPECT_NEAR(got[i * E + e], acc / sum, 1e-5) << "row " << i << " col " << e;
    }
  }
}

// primitives/attention.h: the heads of x.view(B, L, H, E).transpose(1, 2) go to the kernels in
// place, the output is stored as [B, L, H, E] (so merging the heads back copies nothing, as with
// PyTorch's CPU flash attention) and each input's gradient takes its input's layout: a GPT
// block's attention forward and backward copy no tensor. A query whose rows are not contiguous
// is still copied; both against the same inputs made contiguous.
TEST(NNAttention, TransposedHeadsAreReadAndWrittenInPlace) {
  const int64_t B = 2, L = 70, H = 3, E = 8;
  auto leaf = [&](uint64_t seed) {
    return make_tensor({B, L, H, E}, kFloat32, -1, 1, seed).requires_grad_();
  };
  Tensor xq = leaf(1), xk = leaf(2), xv = leaf(3);
  const Tensor g = make_tensor({B, L, H, E}, kFloat32, -1, 1, 4);
  auto copies = [](const std::function<void()>& f) {
    profiler::profile p;
    p.start();
    f();
    p.stop();
    const auto averages = p.key_averages();
    int64_t n = 0;
    for (const char* name : {"aten::copy_", "aten::clone", "aten::contiguous"}) {
      if (const auto* e = averages.find(name)) n += e->count;
    }
    return n;
  };
  Tensor y;
  EXPECT_EQ(copies([&] {
              y = F::scaled_dot_product_attention(xq.transpose(1, 2), xk.transpose(1, 2),
                                                  xv.transpose(1, 2), {}, 0.0, true);
              Tensor merged = y.transpose(1, 2).contiguous();
              EXPECT_EQ(merged.data_ptr(), y.data_ptr());
              merged.backward(g);
            }),
            0);
  // The same computation from contiguous [B, H, L, E] copies.
  auto heads_first = [](const Tensor& x) {
    return x.detach().transpose(1, 2).contiguous().requires_grad_();
  };
  Tensor cq = heads_first(xq), ck = heads_first(xk), cv = heads_first(xv);
  Tensor cy = F::scaled_dot_product_attention(cq, ck, cv, {}, 0.0, true);
  cy.backward(g.transpose(1, 2));
  auto close = [](const Tensor& a, const Tensor& b) {
    const auto x = values(a), z = values(b);
    ASSERT_EQ(x.size(), z.size());
    for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], z[i], 1e-5) << "element " << i;
  };
  close(y, cy);
  close(xq.grad().transpose(1, 2), cq.grad());
  close(xk.grad().transpose(1, 2), ck.grad());
  close(xv.grad().transpose(1, 2), cv.grad());
  // A query with strided rows (every other element) is copied: the count can fail.
  Tensor wide = make_tensor({B, H, L, 2 * E}, kFloat32, -1, 1, 5);
  EXPECT_GT(copies([&] {
              (void)F::scaled_dot_product_attention(wide.slice(3, 0, 2 * E, 2), cq.detach(),
                                                    cv.detach());
            }),
            0);
}

/// Finite-difference check of sdpa_backward in float64 for loss = sum(out * G).
void check_backward(std::vector<int64_t> qs, std::vector<int64_t> ks, std::vector<int64_t> vs,
                    const Tensor& mask, bool causal, bool gqa, double dropout_p = 0,
                    int64_t every = 1) {
  SCOPED_TRACE(::testing::Message() << "causal=" << causal << " gqa=" << gqa
                                    << " mask=" << mask.defined() << " dropout=" << dropout_p);
  Tensor q = make_tensor(qs, kFloat64, -1, 1, 11);
  Tensor k = make_tensor(ks, kFloat64, -1, 1, 12);
  Tensor v = make_tensor(vs, kFloat64, -1, 1, 13);
  const auto state = default_generator().get_state();
  auto fwd = [&]() {
    default_generator().set_state(state);  // the same dropout mask every time
    return ember::nn::detail::sdpa_forward(q, k, v, mask, dropout_p, causal, std::nullopt, gqa);
  };
  auto res = fwd();
  Tensor g = make_tensor(res.output.sizes(), kFloat64, -1, 1, 14);
  auto [dq, dk, dv] =
      ember::nn::detail::sdpa_backward(g, q, k, v, mask, res, dropout_p, causal, std::nullopt, gqa);
  ASSERT_EQ(dq.sizes(), q.sizes());
  ASSERT_EQ(dk.sizes(), k.sizes());
  ASSERT_EQ(dv.sizes(), v.sizes());
  const auto gv = values(g);
  auto loss = [&]() {
    auto o = values(fwd().output);
    double s = 0;
    for (size_t i = 0; i < o.size(); ++i) s += o[i] * gv[i];
    return s;
  };
  const double h = 1e-6;
  int64_t checked = 0;
  for (auto [t, grad, name] :
       {std::tuple{q, dq, "q"}, std::tuple{k, dk, "k"}, std::tuple{v, dv, "v"}}) {
    auto ana = values(grad);
    double* p = t.data_ptr<double>();
    for (int64_t i = 0; i < t.numel(); i += every) {
      const double x0 = p[i];
      p[i] = x0 + h;
      const double up = loss();
      p[i] = x0 - h;
      const double down = loss();
      p[i] = x0;
      const double num = (up - down) / (2 * h);
      EXPECT_NEAR(ana[i], num, 1e-6 + 1e-5 * std::fabs(num)) << name << "[" << i << "]";
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

TEST(NNAttention, BackwardMatchesFiniteDifferences) {
  check_backward({1, 2, 5, 3}, {1, 2, 6, 3}, {1, 2, 6, 2}, {}, false, false);
  check_backward({1, 2, 5, 3}, {1, 2, 6, 3}, {1, 2, 6, 2}, {}, true, false);
  check_backward({2, 4, 5, 3}, {2, 2, 6, 3}, {2, 2, 6, 2}, {}, true, true);
  check_backward({1, 2, 5, 3}, {1, 2, 6, 3}, {1, 2, 6, 2}, make_tensor({5, 6}, kFloat64, -2, 2, 5),
                 false, false);
  std::vector<double> mb(30, 1.0);
  for (int j = 0; j < 6; ++j) mb[6 + j] = 0;  // row 1 fully masked: zero output and gradient
  mb[3] = mb[17] = 0;
  check_backward({1, 2, 5, 3}, {1, 2, 6, 3}, {1, 2, 6, 2}, from_values({5, 6}, mb, kBool), false,
                 false);
  check_backward({2, 1, 5, 3}, {1, 3, 6, 3}, {1, 3, 6, 2}, {}, false, false);  // broadcast batch
  check_backward({1, 1, 70, 2}, {1, 1, 140, 2}, {1, 1, 140, 2}, {}, true, false, 0,
                 7);  // several blocks
  check_backward({1, 2, 5, 3}, {1, 2, 6, 3}, {1, 2, 6, 2}, {}, false, false, 0.4);  // dropout
}

TEST(NNAttention, BackwardInFloat32AndBFloat16) {
  for (ScalarType dt : {kFloat32, kBFloat16}) {
    Tensor q = make_tensor({1, 2, 9, 4}, dt, -1, 1, 1);
    Tensor k = make_tensor({1, 2, 9, 4}, dt, -1, 1, 2);
    Tensor v = make_tensor({1, 2, 9, 4}, dt, -1, 1, 3);
    auto res = ember::nn::detail::sdpa_forward(q, k, v, {}, 0, true, std::nullopt, false);
    Tensor g = ember::ones_like(res.output);
    auto [dq, dk, dv] =
        ember::nn::detail::sdpa_backward(g, q, k, v, {}, res, 0, true, std::nullopt, false);
    EXPECT_EQ(dq.dtype(), dt);
    // With g = 1, dV[j] = sum_i P[i, j]: the column sums of the causal attention weights, which
    // add up to L over all keys.
    double total = 0;
    for (double x : values(dv)) total += x;
    EXPECT_NEAR(total, 2 * 9 * 4, dt == kBFloat16 ? 0.5 : 1e-4);
  }
}

TEST(NNAttention, DropoutIsSeededAndUnbiased) {
  Tensor q = make_tensor({1, 1, 64, 8}, kFloat32, -1, 1, 1);
  Tensor k = make_tensor({1, 1, 256, 8}, kFloat32, -1, 1, 2);
  Tensor v = ember::ones({1, 1, 256, 1});
  manual_seed(7);
  Tensor a = F::scaled_dot_product_attention(q, k, v, {}, 0.5);
  manual_seed(7);
  Tensor b = F::scaled_dot_product_attention(q, k, v, {}, 0.5);
  Tensor c = F::scaled_dot_product_attention(q, k, v, {}, 0.5);
  EXPECT_TRUE(a.equal(b));
  EXPECT_FALSE(a.equal(c));
  // out_i = sum_j P_ij Z_ij / (1 - p) with v = 1: mean 1 over rows.
  double mean = 0;
  for (double x : values(a)) mean += x / 64;
  EXPECT_NEAR(mean, 1.0, 0.05);
  Tensor none = F::scaled_dot_product_attention(q, k, v, {}, 1.0);
  for (double x : values(none)) EXPECT_EQ(x, 0.0);
  Tensor zero_p = F::scaled_dot_product_attention(q, k, v, {}, 0.0);
  for (double x : values(zero_p)) EXPECT_NEAR(x, 1.0, 1e-5);
}

TEST(NNAttention, Errors) {
  Tensor q = make_tensor({1, 2, 5, 4}, kFloat32);
  Tensor k = make_tensor({1, 2, 7, 4}, kFloat32);
  Tensor v = make_tensor({1, 2, 7, 3}, kFloat32);
  auto sdpa = [](auto&&... a) { return F::scaled_dot_product_attention(a...); };
  expect_errors<RuntimeError>({
      {"mask shape mismatch",
       [&] {
         sdpa(q, k, v, make_tensor({5, 6}, kBool));
       },
       "is not broadcastable"},
      {"mask too many heads",
       [&] {
         sdpa(q, k, v, make_tensor({3, 5, 7}, kBool));
       },
       "[scaled_dot_product_attention]"},
      {"mask dtype",
       [&] {
         sdpa(q, k, v, make_tensor({5, 7}, kInt64));
       },
       "Expected attn_mask dtype to be bool"},
      {"float mask of another dtype",
       [&] {
         sdpa(q, k, v, make_tensor({5, 7}, kFloat64));
       },
       "Expected attn_mask dtype"},
      {"causal with mask",
       [&] {
         sdpa(q, k, v, make_tensor({5, 7}, kBool), 0.0, true);
       },
       "Explicit attn_mask should not be set when is_causal=True"},
      {"dtype mismatch", [&] { sdpa(q, k.to(kFloat64), v); },
       "Expected query, key, and value to have the same dtype"},
      {"embedding dim",
       [&] {
         sdpa(q, make_tensor({1, 2, 7, 5}, kFloat32), v);
       },
       "same embedding dimension"},
      {"sequence length",
       [&] {
         sdpa(q, k, make_tensor({1, 2, 6, 3}, kFloat32));
       },
       "same sequence length"},
      {"gqa heads",
       [&] {
         sdpa(make_tensor({1, 3, 5, 4}, kFloat32), k, v, Tensor(), 0.0, false, std::nullopt, true);
       },
       "must divide"},
      {"batch dims",
       [&] {
         sdpa(make_tensor({3, 2, 5, 4}, kFloat32), make_tensor({2, 2, 7, 4}, kFloat32),
              make_tensor({2, 2, 7, 3}, kFloat32));
       },
       "not broadcastable"},
      {"1-d query", [&] { sdpa(make_tensor({4}, kFloat32), k, v); }, "at least 2 dimensions"},
  });
  expect_errors<ValueError>({
      {"dropout_p > 1", [&] { sdpa(q, k, v, Tensor(), 1.5); }, "dropout probability"},
  });
  expect_errors<TypeError>({
      {"int64 inputs", [&] { sdpa(q.to(kInt64), k.to(kInt64), v.to(kInt64)); }, "int64"},
  });
}

}  // namespace
}  // namespace ember::test
