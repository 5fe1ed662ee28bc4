// F::linear_cross_entropy and nn::LinearCrossEntropyLoss (PyTorch 2.14's fused linear +
// cross-entropy, the reference's §6): the batch-chunked path against the unfused
// cross_entropy(linear(x, W, b), t) and its autograd gradients in float64, the loss also against
// a plain-loop float64 reference; every reduction, ignore_index, label smoothing, class weights,
// probability targets, each acc_policy and chunk sizes that do not divide N; retained graphs,
// the allocator's high-water mark, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn.h"
#include "ember/nn/functional.h"
#include "opdb.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;
using nn::LinearCrossEntropyOptions;

enum class Red { None, Mean, Sum };

struct LceCase {
  Red red = Red::Mean;
  bool ignore = false;     // some targets equal ignore_index (3)
  double smoothing = 0.0;  // label_smoothing
  bool class_weight = false;
  bool bias = true;
  bool prob = false;  // class-probability targets
};

struct Data {
  Tensor x, w, b, t, cw;
};

constexpr int64_t kIgnore = 3;

Data make_data(int64_t n, int64_t d, int64_t c, const LceCase& s, ScalarType dt, uint64_t seed) {
  Data r;
  r.x = make_tensor({n, d}, dt, -1, 1, seed);
  r.w = make_tensor({c, d}, dt, -1, 1, seed + 1);
  if (s.bias) r.b = make_tensor({c}, dt, -1, 1, seed + 2);
  if (s.prob) {
    r.t = ember::softmax(make_tensor({n, c}, kFloat64, -2, 2, seed + 3), 1).to(dt);
  } else {
    std::vector<double> tv(n);
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = (i * 7 + static_cast<int64_t>(seed)) % c;
      // With ignore: exactly the rows i % 4 == 0 hold ignore_index.
      if (s.ignore && v == kIgnore) v = (kIgnore + 1) % c;
      if (s.ignore && i % 4 == 0) v = kIgnore;
      tv[i] = static_cast<double>(v);
    }
    r.t = from_values({n}, tv).to(kInt64);
  }
  if (s.class_weight) r.cw = make_tensor({c}, dt, 0.5, 2, seed + 4);
  return r;
}

F::LinearCrossEntropyFuncOptions func_options(const LceCase& s, const Data& d) {
  F::LinearCrossEntropyFuncOptions o;
  o.linear_bias(d.b).weight(d.cw).label_smoothing(s.smoothing);
  if (s.ignore) o.ignore_index(kIgnore);
  switch (s.red) {
    case Red::None:
      o.reduction(ember::kNone);
      break;
    case Red::Sum:
      o.reduction(ember::kSum);
      break;
    case Red::Mean:
      o.reduction(ember::kMean);
      break;
  }
  return o;
}

struct Result {
  Tensor loss, gx, gw, gb;
};

/// The loss and the gradients of sum(loss * go) with respect to x, W and b.
Result run(const Data& d, F::LinearCrossEntropyFuncOptions o, const Tensor& go, bool unfused) {
  Tensor x = d.x.detach().requires_grad_(), w = d.w.detach().requires_grad_();
  Tensor b = d.b.defined() ? d.b.detach().requires_grad_() : Tensor();
  o.linear_bias(b);
  Tensor loss;
  if (unfused) {
    F::CrossEntropyFuncOptions ce;
    ce.weight(o.weight()).label_smoothing(o.label_smoothing()).reduction(o.reduction());
    ce.ignore_index(o.ignore_index().value_or(-100));
    loss = F::cross_entropy(F::linear(x, w, b), d.t, ce);
  } else {
    loss = F::linear_cross_entropy(x, w, d.t, o);
  }
  std::vector<Tensor> inputs = {x, w};
  if (b.defined()) inputs.push_back(b);
  const Tensor g = go.defined() ? go : ember::ones_like(loss);
  auto grads = ember::autograd::grad({loss}, inputs, {g});
  return {loss.detach(), grads[0], grads[1], b.defined() ? grads[2] : Tensor()};
}

double max_rel_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.sizes(), b.sizes());
  const std::vector<double> av = values(a), bv = values(b);
  double m = 0;
  for (size_t i = 0; i < av.size() && i < bv.size(); ++i) {
    if (std::isnan(av[i]) && std::isnan(bv[i])) continue;
    m = std::max(m, std::abs(av[i] - bv[i]) / (1 + std::abs(bv[i])));
  }
  return m;
}

void expect_same(const Result& got, const Result& want, double tol, const std::string& what) {
  EXPECT_LE(max_rel_diff(got.loss, want.loss), tol) << what << ": loss";
  EXPECT_LE(max_rel_diff(got.gx, want.gx), tol) << what << ": grad input";
  EXPECT_LE(max_rel_diff(got.gw, want.gw), tol) << what << ": grad weight";
  if (want.gb.defined()) {
    EXPECT_LE(max_rel_diff(got.gb, want.gb), tol) << what << ": grad bias";
  }
}

/// The per-row losses in float64 with plain loops (PyTorch's cross_entropy definition).
std::vector<double> loop_row_losses(const Data& d, const LceCase& s) {
  const int64_t n = d.x.size(0), dim = d.x.size(1), c = d.w.size(0);
  const auto x = values(d.x), w = values(d.w), t = values(d.t);
  const auto b = d.b.defined() ? values(d.b) : std::vector<double>(c, 0.0);
  const auto cw = d.cw.defined() ? values(d.cw) : std::vector<double>(c, 1.0);
  std::vector<double> out(n);
  for (int64_t i = 0; i < n; ++i) {
    std::vector<double> z(c);
    double mx = -std::numeric_limits<double>::infinity();
    for (int64_t k = 0; k < c; ++k) {
      z[k] = b[k];
      for (int64_t j = 0; j < dim; ++j) z[k] += x[i * dim + j] * w[k * dim + j];
      mx = std::max(mx, z[k]);
    }
    double se = 0;
    for (double v : z) se += std::exp(v - mx);
    const double lse = mx + std::log(se);
    double loss = 0;
    if (s.prob) {
      for (int64_t k = 0; k < c; ++k) {
        const double tk = t[i * c + k] * (1 - s.smoothing) + s.smoothing / c;
        loss -= cw[k] * tk * (z[k] - lse);
      }
    } else if (!(s.ignore && static_cast<int64_t>(t[i]) == kIgnore)) {
      const auto y = static_cast<int64_t>(t[i]);
      double smooth = 0;
      for (int64_t k = 0; k < c; ++k) smooth -= cw[k] * (z[k] - lse);
      loss = (1 - s.smoothing) * -cw[y] * (z[y] - lse) + s.smoothing / c * smooth;
    }
    out[i] = loss;
  }
  return out;
}

double loop_loss(const Data& d, const LceCase& s) {
  const auto rows = loop_row_losses(d, s);
  double sum = 0;
  for (double v : rows) sum += v;
  if (s.red == Red::Sum) return sum;
  if (s.prob) return sum / static_cast<double>(rows.size());
  const auto t = values(d.t);
  const auto cw = d.cw.defined() ? values(d.cw) : std::vector<double>(d.w.size(0), 1.0);
  double den = 0;
  for (double v : t) {
    if (!(s.ignore && static_cast<int64_t>(v) == kIgnore)) den += cw[static_cast<int64_t>(v)];
  }
  return sum / den;
}

LinearCrossEntropyOptions chunked(int64_t chunk, const std::string& policy = "auto") {
  return LinearCrossEntropyOptions()
      .chunking_method(std::nullopt)
      .batch_chunk_size(chunk)
      .acc_policy(policy);
}

// Acceptance check 1: N=37, D=16, C=1000 in float64, every chunk size, to 1e-10.
TEST(LinearCrossEntropy, ChunkSizesMatchReferenceFloat64) {
  const LceCase plain;
  LceCase all_options;
  all_options.red = Red::Sum;
  all_options.ignore = true;
  all_options.smoothing = 0.1;
  all_options.class_weight = true;
  for (const LceCase& s : {plain, all_options}) {
    const Data d = make_data(37, 16, 1000, s, kFloat64, 11);
    const Result want = run(d, func_options(s, d), {}, true);
    EXPECT_NEAR(want.loss.item<double>(), loop_loss(d, s), 1e-10 * (1 + std::abs(loop_loss(d, s))));
    for (int64_t chunk : {1, 2, 3, 4, 7, 13, 37}) {
      const Result got = run(d, func_options(s, d).options(chunked(chunk)), {}, false);
      expect_same(got, want, 1e-10, "chunk " + std::to_string(chunk));
    }
  }
}

// Every reduction x ignore_index x label smoothing x class weights x acc_policy, float64, with a
// chunk size (5) that does not divide N (23); reduction='none' with a random grad_output.
TEST(LinearCrossEntropy, OptionMatrixMatchesReference) {
  int checked = 0;
  for (Red red : {Red::None, Red::Mean, Red::Sum}) {
    for (bool ignore : {false, true}) {
      for (double ls : {0.0, 0.2}) {
        for (bool cw : {false, true}) {
          LceCase s{red, ignore, ls, cw, /*bias=*/cw, false};
          const Data d = make_data(23, 6, 40, s, kFloat64, 5 + checked);
          const Tensor go = red == Red::None ? make_tensor({23}, kFloat64, -1, 1, 99) : Tensor();
          const Result want = run(d, func_options(s, d), go, true);
          if (red == Red::None) {
            EXPECT_LE(max_rel_diff(want.loss, from_values({23}, loop_row_losses(d, s))), 1e-12);
          } else {
            EXPECT_NEAR(want.loss.item<double>(), loop_loss(d, s), 1e-12);
          }
          for (const char* policy : {"auto", "accurate", "compact"}) {
            const Result got = run(d, func_options(s, d).options(chunked(5, policy)), go, false);
            expect_same(got, want, 1e-12,
                        "red " + std::to_string(static_cast<int>(red)) + " ignore " +
                            std::to_string(ignore) + " ls " + std::to_string(ls) + " cw " +
                            std::to_string(cw) + " " + policy);
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 72);
}

TEST(LinearCrossEntropy, ProbabilityTargets) {
  for (Red red : {Red::None, Red::Mean, Red::Sum}) {
    for (double ls : {0.0, 0.3}) {
      LceCase s{red, false, ls, /*class_weight=*/ls > 0, true, /*prob=*/true};
      const Data d = make_data(19, 5, 30, s, kFloat64, 3);
      const Tensor go = red == Red::None ? make_tensor({19}, kFloat64, -1, 1, 7) : Tensor();
      const Result want = run(d, func_options(s, d), go, true);
      if (red != Red::None) {
        EXPECT_NEAR(want.loss.item<double>(), loop_loss(d, s), 1e-12);
      }
      for (int64_t chunk : {4, 19}) {
        expect_same(run(d, func_options(s, d).options(chunked(chunk)), go, false), want, 1e-12,
                    "prob chunk " + std::to_string(chunk));
      }
    }
  }
}

// float32 and bfloat16 against the float64 reference, within their tolerances; every policy.
TEST(LinearCrossEntropy, LowPrecisionWithinTolerance) {
  LceCase s;
  s.ignore = true;
  s.smoothing = 0.1;
  const Data d64 = make_data(50, 32, 300, s, kFloat64, 21);
  for (ScalarType dt : {kFloat32, kBFloat16}) {
    Data d = d64, ref = d64;
    d.x = d64.x.to(dt);
    d.w = d64.w.to(dt);
    d.b = d64.b.to(dt);
    // The float64 reference of the rounded inputs: the tolerance covers the arithmetic alone.
    ref.x = d.x.to(kFloat64);
    ref.w = d.w.to(kFloat64);
    ref.b = d.b.to(kFloat64);
    const Result want = run(ref, func_options(s, ref), {}, true);
    const double tol = dt == kFloat32 ? 1e-5 : 2e-2;
    for (const char* policy : {"auto", "accurate", "compact"}) {
      Result got = run(d, func_options(s, d).options(chunked(7, policy)), {}, false);
      EXPECT_EQ(got.loss.dtype(), dt);
      EXPECT_EQ(got.gw.dtype(), dt);
      got = {got.loss.to(kFloat64), got.gx.to(kFloat64), got.gw.to(kFloat64), got.gb.to(kFloat64)};
      expect_same(got, want, tol, std::string(dtype_name(dt)) + " " + policy);
    }
  }
}

// Input (B, T, D) with target (B, T): reduction='none' keeps (B, T).
TEST(LinearCrossEntropy, BatchedLeadingDimensions) {
  const Tensor x = make_tensor({3, 4, 8}, kFloat64, -1, 1, 1).requires_grad_();
  const Tensor w = make_tensor({20, 8}, kFloat64, -1, 1, 2).requires_grad_();
  const Tensor t = from_values({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}).to(kInt64);
  for (bool none : {true, false}) {
    F::LinearCrossEntropyFuncOptions o;
    if (none) o.reduction(ember::kNone);
    const Tensor ref = F::linear_cross_entropy(x, w, t, o);
    const Tensor got = F::linear_cross_entropy(x, w, t, o.options(chunked(5)));
    EXPECT_EQ(got.sizes(), ref.sizes());
    EXPECT_LE(max_rel_diff(got, ref), 1e-12);
    auto gr = ember::autograd::grad({ref.sum()}, {x, w});
    auto gg = ember::autograd::grad({got.sum()}, {x, w});
    EXPECT_LE(max_rel_diff(gg[0], gr[0]), 1e-12);
    EXPECT_LE(max_rel_diff(gg[1], gr[1]), 1e-12);
  }
}

// Acceptance check 4: ignored rows give zero loss and zero gradient; an all-ignored batch's mean
// is NaN as PyTorch's, its gradients zero.
TEST(LinearCrossEntropy, IgnoredRows) {
  LceCase s;
  s.ignore = true;
  s.red = Red::None;
  const Data d = make_data(12, 4, 10, s, kFloat64, 8);
  const Result r = run(d, func_options(s, d).options(chunked(5)), {}, false);
  const auto t = values(d.t), loss = values(r.loss), gx = values(r.gx);
  int ignored = 0;
  for (int64_t i = 0; i < 12; ++i) {
    if (static_cast<int64_t>(t[i]) != kIgnore) continue;
    ++ignored;
    EXPECT_EQ(loss[i], 0.0);
    for (int64_t j = 0; j < 4; ++j) EXPECT_EQ(gx[i * 4 + j], 0.0);
  }
  EXPECT_EQ(ignored, 3);
  Data all = d;
  all.t = ember::full({12}, kIgnore, TensorOptions(kInt64));
  s.red = Red::Mean;
  const Result m = run(all, func_options(s, all).options(chunked(5)), {}, false);
  EXPECT_TRUE(std::isnan(m.loss.item<double>()));
  EXPECT_EQ(m.gx.abs().max().item<double>(), 0.0);
  EXPECT_EQ(m.gw.abs().max().item<double>(), 0.0);
  EXPECT_TRUE(std::isnan(run(all, func_options(s, all), {}, true).loss.item<double>()));
}

// Acceptance check 5: a second backward needs allow_retain_graph; with it the grads repeat.
TEST(LinearCrossEntropy, RetainGraph) {
  const LceCase s;
  const Data d = make_data(9, 4, 12, s, kFloat64, 2);
  auto make = [&](bool allow, Tensor& x, Tensor& w) {
    x = d.x.detach().requires_grad_();
    w = d.w.detach().requires_grad_();
    return F::linear_cross_entropy(
        x, w, d.t,
        F::LinearCrossEntropyFuncOptions().options(chunked(4).allow_retain_graph(allow)));
  };
  Tensor x, w;
  Tensor loss = make(false, x, w);
  loss.backward({}, true);
  const Tensor g1 = x.grad().clone();
  expect_errors<RuntimeError>({{"consumed in place", [&] { loss.backward({}, true); },
                                "pass LinearCrossEntropyOptions().allow_retain_graph(true)"}});
  loss = make(false, x, w);
  loss.backward();
  expect_errors<RuntimeError>(
      {{"graph freed", [&] { loss.backward(); }, "backward through the graph a second time"}});
  loss = make(true, x, w);
  loss.backward({}, true);
  EXPECT_LE(max_rel_diff(x.grad(), g1), 0.0);
  loss.backward({}, true);
  EXPECT_LE(max_rel_diff(x.grad(), g1 * 2), 1e-15);
  // A scaled grad_output scales the stored gradients.
  loss = make(true, x, w);
  loss.backward(ember::full({}, 3.0, TensorOptions(kFloat64)));
  EXPECT_LE(max_rel_diff(x.grad(), g1 * 3), 1e-15);
  // Higher-order gradients are refused rather than silently wrong.
  loss = make(true, x, w);
  expect_errors<RuntimeError>(
      {{"create_graph",
        [&] { ember::autograd::grad({loss}, {x}, {}, true, /*create_graph=*/true); },
        "higher-order gradients (create_graph=True) are not supported"}});
}

// Only the inputs that require grad get one; under NoGradGuard no gradient is computed.
TEST(LinearCrossEntropy, PartialAndNoGrad) {
  const LceCase s;
  const Data d = make_data(10, 4, 12, s, kFloat64, 4);
  const Tensor x = d.x.detach().requires_grad_();
  const Tensor loss = F::linear_cross_entropy(
      x, d.w, d.t, F::LinearCrossEntropyFuncOptions().linear_bias(d.b).options(chunked(3)));
  const Result want = run(d, func_options(s, d), {}, true);
  EXPECT_LE(max_rel_diff(ember::autograd::grad({loss}, {x})[0], want.gx), 1e-12);
  NoGradGuard no_grad;
  const Tensor l2 = F::linear_cross_entropy(
      x, d.w, d.t, F::LinearCrossEntropyFuncOptions().linear_bias(d.b).options(chunked(3)));
  EXPECT_FALSE(l2.requires_grad());
  EXPECT_NEAR(l2.item<double>(), want.loss.item<double>(), 1e-12);
}

// A probability target that needs a gradient takes the reference path (with a warning), as
// PyTorch's unsupported configurations do.
TEST(LinearCrossEntropy, ProbabilityTargetWithGradFallsBack) {
  LceCase s;
  s.prob = true;
  const Data d = make_data(7, 3, 9, s, kFloat64, 6);
  const Tensor t = d.t.detach().requires_grad_();
  const Tensor x = d.x.detach().requires_grad_();
  const Tensor loss = F::linear_cross_entropy(
      x, d.w, t, F::LinearCrossEntropyFuncOptions().linear_bias(d.b).options(chunked(2)));
  EXPECT_NEAR(loss.item<double>(), loop_loss(d, s), 1e-12);
  auto g = ember::autograd::grad({loss}, {x, t});
  EXPECT_TRUE(g[1].defined());
  EXPECT_LE(max_rel_diff(g[0], run(d, func_options(s, d), {}, true).gx), 1e-12);
}

// Acceptance check 2: chunk sizes from the aspect ratio; explicit sizes; conflicts.
TEST(LinearCrossEntropy, ResolveChunk) {
  LinearCrossEntropyOptions o;
  EXPECT_EQ(o.chunking_method("aspect_ratio").resolve_chunk(4096, 512, 32000), 128);
  EXPECT_EQ(o.chunking_method("aspect_ratio:2").resolve_chunk(4096, 512, 32000), 64);
  EXPECT_EQ(o.chunking_method("aspect_ratio:4").resolve_chunk(4096, 512, 32000), 32);
  EXPECT_EQ(LinearCrossEntropyOptions().resolve_chunk(4096, 512, 32000, kFloat32), 64);
  EXPECT_EQ(LinearCrossEntropyOptions().resolve_chunk(4096, 512, 32000, kBFloat16), 128);
  EXPECT_EQ(LinearCrossEntropyOptions().batch_chunk_size(100).resolve_chunk(4096, 512, 32000), 100);
  EXPECT_EQ(chunked(7).resolve_chunk(4096, 512, 32000), 7);
  EXPECT_EQ(LinearCrossEntropyOptions().chunking_method(std::nullopt).resolve_chunk(37, 4, 9), 37);
  EXPECT_EQ(o.chunking_method("aspect_ratio").batch_chunk_size(128).resolve_chunk(4096, 512, 32000),
            128);
  EXPECT_THROW(o.batch_chunk_size(100).resolve_chunk(4096, 512, 32000), ValueError);
  EXPECT_EQ(LinearCrossEntropyOptions().resolve_acc_policy(kFloat32), "compact");
  EXPECT_EQ(LinearCrossEntropyOptions().resolve_acc_policy(kBFloat16), "accurate");
  EXPECT_EQ(LinearCrossEntropyOptions().resolve_acc_dtype(kBFloat16), kFloat32);
  EXPECT_EQ(LinearCrossEntropyOptions().resolve_acc_dtype(kFloat64), kFloat64);
}

/// Bytes allocated above the level before `fn` at its high-water mark.
template <typename Fn>
int64_t peak_extra(Fn fn) {
  const int64_t base = memory_stats().allocated;
  reset_peak_memory_stats();
  fn();
  return memory_stats().peak_allocated - base;
}

// Acceptance check 3 (the allocator's high-water mark, deterministic): the chunked path's scratch
// stays within a few (chunk, C) buffers plus O(N D) beyond the gradients it returns, a tenth of
// the logits here, where the reference path allocates at least the (N, C) logits.
TEST(LinearCrossEntropy, PeakScratchMemory) {
  const int64_t n = 256, d = 32, c = 4096, chunk = 8;
  const LceCase s;
  const Data data = make_data(n, d, c, s, kFloat32, 1);
  const int64_t f32 = 4, logits = n * c * f32, grads = (n * d + c * d + c) * f32;
  auto step = [&](bool fused) {
    Tensor x = data.x.detach().requires_grad_(), w = data.w.detach().requires_grad_();
    Tensor b = data.b.detach().requires_grad_();
    F::LinearCrossEntropyFuncOptions o;
    o.linear_bias(b);
    if (fused) o.options(chunked(chunk));
    F::linear_cross_entropy(x, w, data.t, o).backward();
  };
  step(true);  // warm the caches that are not per call
  const int64_t fused = peak_extra([&] { step(true); }) - grads;
  const int64_t reference = peak_extra([&] { step(false); }) - grads;
  EXPECT_LE(fused, 4 * chunk * c * f32 + 2 * n * d * f32) << "fused scratch " << fused;
  EXPECT_LE(fused * 10, logits) << "fused scratch " << fused << " vs logits " << logits;
  EXPECT_GE(reference, logits) << "reference scratch " << reference;
  std::printf("[ INFO     ] peak extra bytes: fused %ld, reference %ld, logits %ld\n",
              static_cast<long>(fused), static_cast<long>(reference), static_cast<long>(logits));
}

TEST(LinearCrossEntropy, Module) {
  nn::LinearCrossEntropyLoss head(nn::LinearCrossEntropyLossOptions(8, 30).bias(true).options(
      LinearCrossEntropyOptions().chunking_method(std::nullopt).batch_chunk_size(6)));
  EXPECT_EQ(head->weight.sizes(), (std::vector<int64_t>{30, 8}));
  EXPECT_EQ(head->bias.sizes(), (std::vector<int64_t>{30}));
  EXPECT_EQ(head->parameters().size(), 2u);
  const Tensor x = make_tensor({16, 8}, kFloat32, -1, 1, 3);
  const Tensor t = from_values({16}, std::vector<double>(16, 2.0)).to(kInt64);
  const Tensor loss = head(x, t);
  loss.backward();
  const Tensor ref = F::cross_entropy(F::linear(x, head->weight, head->bias), t);
  EXPECT_NEAR(loss.item<float>(), ref.item<float>(), 1e-5);
  EXPECT_TRUE(head->weight.grad().defined());
  std::ostringstream ss;
  ss << *head;
  EXPECT_EQ(ss.str(),
            "ember::nn::LinearCrossEntropyLoss(in_features=8, num_classes=30, bias=true)");
  nn::LinearCrossEntropyLoss plain(8, 30);
  EXPECT_FALSE(plain->bias.defined());
  nn::LinearCrossEntropyLoss weighted(
      nn::LinearCrossEntropyLossOptions(8, 30).weight(ember::ones({30})).reduction(ember::kSum));
  EXPECT_TRUE(weighted->named_buffers().contains("class_weight"));
  EXPECT_THROW(nn::LinearCrossEntropyLoss(nn::LinearCrossEntropyLossOptions(8, 30).options(
                   LinearCrossEntropyOptions().acc_policy("balanced"))),
               ValueError);
}

TEST(LinearCrossEntropy, Errors) {
  const LceCase s;
  const Data d = make_data(6, 4, 10, s, kFloat32, 1);
  auto call = [&](const Tensor& x, const Tensor& w, const Tensor& t,
                  F::LinearCrossEntropyFuncOptions o = {}) {
    F::linear_cross_entropy(x, w, t, o.options(o.options().value_or(LinearCrossEntropyOptions())));
  };
  auto with = [](LinearCrossEntropyOptions o) {
    return F::LinearCrossEntropyFuncOptions().options(o);
  };
  const std::string op = "[linear_cross_entropy]";
  expect_errors<ValueError>({
      {"balanced",
       [&] { call(d.x, d.w, d.t, with(LinearCrossEntropyOptions().acc_policy("balanced"))); },
       "use acc_policy='compact'"},
      {"unknown policy",
       [&] { call(d.x, d.w, d.t, with(LinearCrossEntropyOptions().acc_policy("fast"))); },
       "invalid acc_policy: 'fast'"},
      {"chunking method",
       [&] { call(d.x, d.w, d.t, with(LinearCrossEntropyOptions().chunking_method("rows"))); },
       "invalid chunking_method: 'rows'"},
      {"aspect k 0",
       [&] {
         call(d.x, d.w, d.t, with(LinearCrossEntropyOptions().chunking_method("aspect_ratio:0")));
       },
       "invalid chunking_method"},
      {"chunk 0", [&] { call(d.x, d.w, d.t, with(chunked(0))); },
       "batch_chunk_size must be a positive"},
      {"chunk -3", [&] { call(d.x, d.w, d.t, with(chunked(-3))); }, "got -3"},
      {"acc dtype",
       [&] { call(d.x, d.w, d.t, with(LinearCrossEntropyOptions().acc_dtype(kInt64))); },
       "unsupported acc_dtype: int64"},
      {"mixed", [&] { call(d.x, d.w, d.t, with(LinearCrossEntropyOptions().acc_dtype(kFloat64))); },
       "mixed precision"},
      {"weight 1-D", [&] { call(d.x, d.b, d.t); }, "linear_weight must be 2-D"},
      {"target batch", [&] { call(d.x, d.w, d.t.narrow(0, 0, 5)); },
       "Expected input batch_size (6) to match target batch_size (5)."},
  });
  expect_errors<RuntimeError>({
      {"D mismatch",
       [&] {
         call(d.x, make_tensor({10, 5}, kFloat32, -1, 1, 0), d.t);
       },
       op + " mat1 and mat2 shapes cannot be multiplied (6x4 and 5x10)"},
      {"dtype", [&] { call(d.x, d.w.to(kFloat64), d.t); },
       "same dtype, but got: float32 != float64"},
      {"bias size",
       [&] { call(d.x, d.w, d.t, F::LinearCrossEntropyFuncOptions().linear_bias(d.w)); },
       "linear_bias must have shape [10]"},
      {"smoothing",
       [&] { call(d.x, d.w, d.t, F::LinearCrossEntropyFuncOptions().label_smoothing(1.5)); },
       "label_smoothing must be between 0.0 and 1.0. Got: 1.5"},
      {"class weight",
       [&] { call(d.x, d.w, d.t, F::LinearCrossEntropyFuncOptions().weight(ember::ones({3}))); },
       "weight tensor should be defined either for all 10 classes"},
      {"prob ignore",
       [&] {
         call(d.x, d.w, ember::softmax(d.x.matmul(d.w.t()), 1),
              F::LinearCrossEntropyFuncOptions().ignore_index(0));
       },
       "ignore_index is not supported for floating point target"},
      {"target shape",
       [&] {
         call(d.x.reshape({2, 3, 4}), d.w, d.t.reshape({3, 2}));
       },
       "Expected target size [2, 3]"},
      {"0-d input", [&] { call(ember::ones({}), d.w, d.t); }, "need to be at least 1D"},
  });
  expect_errors<TypeError>({
      {"int input", [&] { call(d.x.to(kInt64), d.w.to(kInt64), d.t); },
       "\"addmm_impl_cpu_\" not implemented for 'Long'"},
      {"int32 target", [&] { call(d.x, d.w, d.t.to(kInt32)); },
       "expected scalar type Long but found Int"},
  });
  expect_errors<IndexError>({
      {"target range", [&] { call(d.x, d.w, ember::full({6}, 10, TensorOptions(kInt64))); },
       "Target 10 is out of bounds."},
      {"negative target", [&] { call(d.x, d.w, ember::full({6}, -5, TensorOptions(kInt64))); },
       "Target -5 is out of bounds."},
  });
  // The reference path fails alike.
  EXPECT_THROW(F::linear_cross_entropy(d.x, d.w.to(kFloat64), d.t), RuntimeError);
}

}  // namespace
}  // namespace ember::test
