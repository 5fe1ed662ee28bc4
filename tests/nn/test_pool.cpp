// Pooling functionals against direct-loop float64 references, their backward kernels against
// finite differences, and PyTorch's errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "nn/conv_internal.h"
#include "nn/nn_test_util.h"
#include "opdb.h"

using namespace ember;
namespace F = ember::nn::functional;
using test::mk;
using test::OpInfo;
using test::OpTest;
using test::Reference;
using test::Sample;

namespace {

const std::vector<ScalarType> kFloats = {kFloat64, kFloat32, kFloat16, kBFloat16};

// A pooling configuration over the last D dims (D = 1: only *_w used).
struct PoolCase {
  std::string name;
  int64_t D;
  std::vector<int64_t> shape;  // batched input shape
  int64_t kh, kw, sh, sw, ph = 0, pw = 0, dh = 1, dw = 1;
  bool ceil = false, include_pad = true;
  std::optional<int64_t> divisor = std::nullopt;
};

// Output length with PyTorch's ceil_mode rule: the last window must start inside the input or
// the left padding.
int64_t out_len(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  int64_t o = (ceil ? (span + s - 1) / s : span / s) + 1;
  if (ceil && (o - 1) * s >= in + p) --o;
  return o;
}

// Pool geometry read from the input tensor: planes, H, W and the output shape.
struct Geo {
  int64_t planes, H, W, Ho, Wo;
  std::vector<int64_t> out_shape;
};
Geo geo(const Tensor& x, int64_t D, int64_t Ho, int64_t Wo) {
  Geo g;
  g.H = D == 1 ? 1 : x.size(-2), g.W = x.size(-1), g.Ho = Ho, g.Wo = Wo;
  g.planes = x.numel() / std::max<int64_t>(1, g.H * g.W);
  if (x.numel() == 0) {
    g.planes = 1;
    for (int64_t i = 0; i < x.dim() - D; ++i) g.planes *= x.size(i);
  }
  g.out_shape = std::vector<int64_t>(x.sizes().begin(), x.sizes().end() - D);
  if (D == 2) g.out_shape.push_back(Ho);
  g.out_shape.push_back(Wo);
  return g;
}

// Direct max pooling; `indices` selects the returned tensor.
Reference max_ref(const Tensor& x, const PoolCase& c, bool indices) {
  const int64_t kh = c.D == 1 ? 1 : c.kh, sh = c.D == 1 ? 1 : c.sh, ph = c.D == 1 ? 0 : c.ph,
                dh = c.D == 1 ? 1 : c.dh;
  const int64_t H = c.D == 1 ? 1 : x.size(-2);
  const Geo g = geo(x, c.D, out_len(H, kh, sh, ph, dh, c.ceil),
                    out_len(x.size(-1), c.kw, c.sw, c.pw, c.dw, c.ceil));
  const auto xv = test::values(x);
  std::vector<double> out, idx;
  for (int64_t pl = 0; pl < g.planes * (x.numel() > 0); ++pl)
    for (int64_t oh = 0; oh < g.Ho; ++oh)
      for (int64_t ow = 0; ow < g.Wo; ++ow) {
        double best = -INFINITY;
        int64_t bi = -1;
        for (int64_t i = 0; i < kh; ++i)
          for (int64_t j = 0; j < c.kw; ++j) {
            const int64_t ih = oh * sh - ph + i * dh, iw = ow * c.sw - c.pw + j * c.dw;
            if (ih < 0 || ih >= g.H || iw < 0 || iw >= g.W) continue;
            const double v = xv[(pl * g.H + ih) * g.W + iw];
            if (bi < 0 || v > best || (std::isnan(v) && !std::isnan(best))) {
              best = v;
              bi = ih * g.W + iw;
            }
          }
        out.push_back(best);
        idx.push_back(static_cast<double>(bi));
      }
  return {g.out_shape, indices ? idx : out, indices ? kInt64 : x.dtype()};
}

Reference avg_ref(const Tensor& x, const PoolCase& c) {
  const int64_t kh = c.D == 1 ? 1 : c.kh, sh = c.D == 1 ? 1 : c.sh, ph = c.D == 1 ? 0 : c.ph;
  const int64_t H = c.D == 1 ? 1 : x.size(-2);
  const Geo g = geo(x, c.D, out_len(H, kh, sh, ph, 1, c.ceil),
                    out_len(x.size(-1), c.kw, c.sw, c.pw, 1, c.ceil));
  const auto xv = test::values(x);
  std::vector<double> out;
  for (int64_t pl = 0; pl < g.planes * (x.numel() > 0); ++pl)
    for (int64_t oh = 0; oh < g.Ho; ++oh)
      for (int64_t ow = 0; ow < g.Wo; ++ow) {
        // Taps inside the padded input count for count_include_pad; inside the input are summed.
        double sum = 0;
        int64_t in_pad = 0, inside = 0;
        for (int64_t i = 0; i < kh; ++i)
          for (int64_t j = 0; j < c.kw; ++j) {
            const int64_t ih = oh * sh - ph + i, iw = ow * c.sw - c.pw + j;
            if (ih < g.H + ph && iw < g.W + c.pw) ++in_pad;
            if (ih < 0 || ih >= g.H || iw < 0 || iw >= g.W) continue;
            sum += xv[(pl * g.H + ih) * g.W + iw];
            ++inside;
          }
        const double div = c.divisor ? *c.divisor : (c.include_pad ? in_pad : inside);
        // int64 divides with truncation, as PyTorch.
        const double v = inside == 0 ? 0.0 : sum / div;
        out.push_back(x.dtype() == kInt64 ? std::trunc(v) : v);
      }
  return {g.out_shape, out, x.dtype()};
}

std::vector<Sample> pool_samples(const PoolCase& c, ScalarType dt) {
  std::vector<int64_t> unbatched(c.shape.begin() + 1, c.shape.end()), empty = c.shape;
  empty[0] = 0;
  return {{{mk(c.shape, dt, 1)}, "batched"},
          {{test::make_noncontiguous(mk(c.shape, dt, 2))}, "non-contiguous"},
          {{mk(unbatched, dt, 3)}, "unbatched"},
          {{mk(empty, dt, 4)}, "empty-batch"}};
}

// The gradcheck set: pool_samples with one sample of one channel (the windows stay as they are).
std::vector<Sample> pool_grad_samples(PoolCase c) {
  c.shape[0] = 1;
  c.shape[1] = 1;
  return pool_samples(c, kFloat64);
}

Tensor run_max(const Tensor& x, const PoolCase& c, bool indices) {
  if (c.D == 1) {
    auto o =
        F::MaxPool1dFuncOptions(c.kw).stride(c.sw).padding(c.pw).dilation(c.dw).ceil_mode(c.ceil);
    return indices ? std::get<1>(F::max_pool1d_with_indices(x, o)) : F::max_pool1d(x, o);
  }
  auto o = F::MaxPool2dFuncOptions({c.kh, c.kw})
               .stride({c.sh, c.sw})
               .padding({c.ph, c.pw})
               .dilation({c.dh, c.dw})
               .ceil_mode(c.ceil);
  return indices ? std::get<1>(F::max_pool2d_with_indices(x, o)) : F::max_pool2d(x, o);
}

Tensor run_avg(const Tensor& x, const PoolCase& c) {
  if (c.D == 1) {
    return F::avg_pool1d(x, F::AvgPool1dFuncOptions(c.kw)
                                .stride(c.sw)
                                .padding(c.pw)
                                .ceil_mode(c.ceil)
                                .count_include_pad(c.include_pad));
  }
  return F::avg_pool2d(x, F::AvgPool2dFuncOptions({c.kh, c.kw})
                              .stride({c.sh, c.sw})
                              .padding({c.ph, c.pw})
                              .ceil_mode(c.ceil)
                              .count_include_pad(c.include_pad)
                              .divisor_override(c.divisor));
}

std::vector<PoolCase> max_cases() {
  std::vector<PoolCase> v;
  v.push_back({"max_pool2d_k3s2p1", 2, {2, 3, 7, 8}, 3, 3, 2, 2, 1, 1});
  v.push_back({"max_pool2d_dilation_ceil", 2, {2, 2, 7, 6}, 2, 3, 2, 1, 1, 0, 2, 1, true});
  v.push_back({"max_pool2d_ceil_partial", 2, {1, 3, 5, 5}, 2, 2, 2, 2, 0, 0, 1, 1, true});
  v.push_back({"max_pool1d_k3s2p1d2_ceil", 1, {2, 3, 9}, 1, 3, 1, 2, 0, 1, 1, 2, true});
  return v;
}

std::vector<PoolCase> avg_cases() {
  std::vector<PoolCase> v;
  v.push_back({"avg_pool2d_k3s2p1", 2, {2, 3, 7, 8}, 3, 3, 2, 2, 1, 1});
  PoolCase a{"avg_pool2d_ceil_exclude_pad", 2, {2, 2, 6, 7}, 2, 3, 2, 2, 1, 1};
  a.ceil = true, a.include_pad = false;
  v.push_back(a);
  PoolCase b{"avg_pool2d_divisor_override", 2, {1, 3, 7, 7}, 3, 3, 2, 2, 1, 1};
  b.ceil = true, b.divisor = 5;
  v.push_back(b);
  PoolCase c{"avg_pool1d_ceil_exclude_pad", 1, {2, 3, 10}, 1, 3, 1, 2, 0, 1};
  c.ceil = true, c.include_pad = false;
  v.push_back(c);
  return v;
}

// Adaptive pooling: windows [floor(o * I / O), ceil((o + 1) * I / O)).
Reference adaptive_ref(const Tensor& x, int64_t D, int64_t Ho, int64_t Wo, int kind) {
  const Geo g = geo(x, D, D == 1 ? 1 : Ho, Wo);
  const auto xv = test::values(x);
  std::vector<double> out;
  for (int64_t pl = 0; pl < g.planes * (x.numel() > 0); ++pl)
    for (int64_t oh = 0; oh < g.Ho; ++oh)
      for (int64_t ow = 0; ow < g.Wo; ++ow) {
        const int64_t h0 = static_cast<int64_t>(std::floor(double(oh) * g.H / g.Ho));
        const int64_t h1 = static_cast<int64_t>(std::ceil(double(oh + 1) * g.H / g.Ho));
        const int64_t w0 = static_cast<int64_t>(std::floor(double(ow) * g.W / g.Wo));
        const int64_t w1 = static_cast<int64_t>(std::ceil(double(ow + 1) * g.W / g.Wo));
        double sum = 0, best = -INFINITY;
        int64_t bi = -1;
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw) {
            const double v = xv[(pl * g.H + ih) * g.W + iw];
            sum += v;
            if (bi < 0 || v > best) best = v, bi = ih * g.W + iw;
          }
        out.push_back(kind == 0 ? sum / double((h1 - h0) * (w1 - w0)) : kind == 1 ? best : bi);
      }
  return {g.out_shape, out, kind == 2 ? kInt64 : x.dtype()};
}

std::vector<OpInfo> pool_ops() {
  std::vector<OpInfo> ops;
  for (const PoolCase& c : max_cases()) {
    for (bool indices : {false, true}) {
      OpInfo info;
      info.name = c.name + (indices ? "_indices" : "");
      info.dtypes = kFloats;
      info.dtypes.insert(info.dtypes.end(), {kInt64, kInt32, kInt16, kInt8, kUInt8});
      info.samples = [c](ScalarType dt) { return pool_samples(c, dt); };
      info.grad_samples = [c] { return pool_grad_samples(c); };
      if (indices)
        info.not_differentiable = "int64 indices: PyTorch's integral outputs carry no gradient";
      info.op = [c, indices](const std::vector<Tensor>& in) { return run_max(in[0], c, indices); };
      info.reference = [c, indices](const std::vector<Tensor>& in) {
        return max_ref(in[0], c, indices);
      };
      info.rejected_dtypes = {kBool};
      ops.push_back(info);
    }
  }
  for (const PoolCase& c : avg_cases()) {
    OpInfo info;
    info.name = c.name;
    info.dtypes = kFloats;
    info.samples = [c](ScalarType dt) { return pool_samples(c, dt); };
    info.grad_samples = [c] { return pool_grad_samples(c); };
    info.dtypes.push_back(kInt64);
    info.op = [c](const std::vector<Tensor>& in) { return run_avg(in[0], c); };
    info.reference = [c](const std::vector<Tensor>& in) { return avg_ref(in[0], c); };
    info.tol_scale = 3;
    info.rejected_dtypes = {kBool, kInt32, kInt16, kInt8, kUInt8};
    ops.push_back(info);
  }
  struct Adaptive {
    std::string name;
    int64_t D;
    std::vector<int64_t> shape;
    int64_t Ho, Wo;
    int kind;  // 0 avg, 1 max values, 2 max indices
  };
  const std::vector<Adaptive> adaptive = {
      {"adaptive_avg_pool2d_3x4", 2, {2, 3, 7, 9}, 3, 4, 0},
      {"adaptive_avg_pool2d_global", 2, {2, 3, 5, 6}, 1, 1, 0},
      {"adaptive_avg_pool2d_upsampling", 2, {1, 2, 3, 2}, 5, 4, 0},
      {"adaptive_avg_pool1d_4", 1, {2, 3, 10}, 1, 4, 0},
      {"adaptive_max_pool2d_3x2", 2, {2, 3, 7, 5}, 3, 2, 1},
      {"adaptive_max_pool2d_3x2_indices", 2, {2, 3, 7, 5}, 3, 2, 2},
      {"adaptive_max_pool1d_4", 1, {2, 3, 10}, 1, 4, 1},
  };
  for (const Adaptive& a : adaptive) {
    OpInfo info;
    info.name = a.name;
    info.dtypes = kFloats;
    info.samples = [a](ScalarType dt) {
      PoolCase c{a.name, a.D, a.shape, 1, 1, 1, 1};
      return pool_samples(c, dt);
    };
    info.grad_samples = [a] { return pool_grad_samples({a.name, a.D, a.shape, 1, 1, 1, 1}); };
    if (a.kind == 2)
      info.not_differentiable = "int64 indices: PyTorch's integral outputs carry no gradient";
    info.op = [a](const std::vector<Tensor>& in) -> Tensor {
      if (a.kind == 0) {
        return a.D == 1
                   ? F::adaptive_avg_pool1d(in[0], F::AdaptiveAvgPool1dFuncOptions(a.Wo))
                   : F::adaptive_avg_pool2d(in[0], F::AdaptiveAvgPool2dFuncOptions({a.Ho, a.Wo}));
      }
      if (a.D == 1) return F::adaptive_max_pool1d(in[0], F::AdaptiveMaxPool1dFuncOptions(a.Wo));
      auto r =
          F::adaptive_max_pool2d_with_indices(in[0], F::AdaptiveMaxPool2dFuncOptions({a.Ho, a.Wo}));
      return a.kind == 1 ? std::get<0>(r) : std::get<1>(r);
    };
    info.reference = [a](const std::vector<Tensor>& in) {
      return adaptive_ref(in[0], a.D, a.Ho, a.Wo, a.kind);
    };
    info.tol_scale = 3;
    info.rejected_dtypes = {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64};
    ops.push_back(info);
  }
  return ops;
}

INSTANTIATE_TEST_SUITE_P(NnPool, OpTest, ::testing::ValuesIn(pool_ops()), test::op_test_name);

TEST(NnPool, AdaptiveOutputSizeNoneKeepsInputSize) {
  Tensor x = mk({2, 3, 5, 6}, kFloat64, 1);
  Tensor y = F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({std::nullopt, 2}));
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{2, 3, 5, 2}));
  Tensor r = F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({5, 2}));
  EXPECT_TRUE(y.equal(r));
}

TEST(NnPool, MaxPoolPropagatesNaN) {
  Tensor x = mk({1, 1, 4, 4}, kFloat32, 1);
  x.data_ptr<float>()[5] = std::numeric_limits<float>::quiet_NaN();
  auto [y, idx] = F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions(2));
  EXPECT_TRUE(std::isnan(y.data_ptr<float>()[0]));
  EXPECT_EQ(idx.data_ptr<int64_t>()[0], 5);
  EXPECT_FALSE(std::isnan(y.data_ptr<float>()[1]));
}

TEST(NnPool, PlainArgumentOverloads) {
  Tensor x = mk({2, 3, 7, 7}, kFloat32, 1);
  EXPECT_TRUE(F::max_pool2d(x, 3, 2, 1)
                  .equal(F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2).padding(1))));
  EXPECT_TRUE(F::max_pool2d(x, {2, 3}).equal(F::max_pool2d(x, F::MaxPool2dFuncOptions({2, 3}))));
  EXPECT_TRUE(
      F::avg_pool2d(x, 3, 2, 1, true, false)
          .equal(F::avg_pool2d(
              x, F::AvgPool2dFuncOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(
                     false))));
  EXPECT_EQ(F::avg_pool1d(mk({3, 8}, kFloat32, 2), 2).sizes(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(F::max_pool1d(mk({3, 8}, kFloat32, 2), 3, 1).sizes(), (std::vector<int64_t>{3, 6}));
}

// ---- backward kernels against finite differences (float64)

TEST(NnPoolBackward, MaxPoolFromIndices) {
  Tensor x = mk({2, 2, 7, 6}, kFloat64, 1);
  const auto o =
      F::MaxPool2dFuncOptions({3, 2}).stride({2, 1}).padding({1, 1}).dilation({1, 2}).ceil_mode(
          true);
  auto [y, idx] = F::max_pool2d_with_indices(x, o);
  Tensor gy = mk(y.sizes(), kFloat64, 2);
  Tensor gx = nn::detail::max_pool2d_backward(gy, idx, x.sizes());
  test::expect_matches_fd(
      x, [&](const Tensor& v) { return F::max_pool2d(v, o); }, gy, gx);
}

TEST(NnPoolBackward, AdaptiveMaxPoolFromIndices) {
  Tensor x = mk({2, 2, 7, 5}, kFloat64, 1);
  const auto o = F::AdaptiveMaxPool2dFuncOptions({3, 4});
  auto [y, idx] = F::adaptive_max_pool2d_with_indices(x, o);
  Tensor gy = mk(y.sizes(), kFloat64, 2);
  Tensor gx = nn::detail::max_pool2d_backward(gy, idx, x.sizes(), "adaptive_max_pool2d_backward");
  test::expect_matches_fd(
      x, [&](const Tensor& v) { return F::adaptive_max_pool2d(v, o); }, gy, gx);
}

TEST(NnPoolBackward, AvgPool) {
  Tensor x = mk({2, 2, 7, 6}, kFloat64, 1);
  for (int variant = 0; variant < 3; ++variant) {
    auto o = F::AvgPool2dFuncOptions({3, 2}).stride({2, 2}).padding({1, 1}).ceil_mode(true);
    if (variant == 1) o.count_include_pad(false);
    if (variant == 2) o.divisor_override(4);
    Pool2dParams p;
    p.kernel_h = 3, p.kernel_w = 2, p.stride_h = 2, p.stride_w = 2, p.pad_h = 1, p.pad_w = 1;
    p.count_include_pad = variant != 1;
    if (variant == 2) p.divisor_override = 4;
    Tensor y = F::avg_pool2d(x, o);
    Tensor gy = mk(y.sizes(), kFloat64, 2);
    Tensor gx = nn::detail::avg_pool2d_backward(gy, x.sizes(), p);
    test::expect_matches_fd(
        x, [&](const Tensor& v) { return F::avg_pool2d(v, o); }, gy, gx);
  }
}

TEST(NnPoolBackward, AdaptiveAvgPool) {
  Tensor x = mk({2, 2, 7, 5}, kFloat64, 1);
  for (std::vector<int64_t> os : {std::vector<int64_t>{3, 4}, {1, 1}, {9, 6}}) {
    const auto o = F::AdaptiveAvgPool2dFuncOptions(os);
    Tensor y = F::adaptive_avg_pool2d(x, o);
    Tensor gy = mk(y.sizes(), kFloat64, 2);
    Tensor gx = nn::detail::adaptive_avg_pool2d_backward(gy, x.sizes());
    test::expect_matches_fd(
        x, [&](const Tensor& v) { return F::adaptive_avg_pool2d(v, o); }, gy, gx);
  }
}

// ---- errors

TEST(NnPoolErrors, PyTorchMessages) {
  Tensor x = mk({2, 3, 5, 5}, kFloat32, 1);
  test::expect_errors<RuntimeError>({
      {"pad too large", [&] { F::max_pool2d(x, F::MaxPool2dFuncOptions(3).padding(2)); },
       "[max_pool2d] pad should be at most half of effective kernel size, but got pad=2, "
       "kernel_size=3 and dilation=1"},
      {"avg pad too large", [&] { F::avg_pool2d(x, F::AvgPool2dFuncOptions(2).padding(2)); },
       "[avg_pool2d] pad should be at most half of effective kernel size"},
      {"negative pad", [&] { F::max_pool2d(x, F::MaxPool2dFuncOptions(3).padding(-1)); },
       "[max_pool2d] pad must be non-negative"},
      {"zero stride", [&] { F::max_pool2d(x, F::MaxPool2dFuncOptions(2).stride(0)); },
       "[max_pool2d] stride should not be zero"},
      {"negative stride", [&] { F::max_pool2d(x, F::MaxPool2dFuncOptions(2).stride(-1)); },
       "[max_pool2d] stride should be greater than zero"},
      {"zero kernel", [&] { F::max_pool2d(x, F::MaxPool2dFuncOptions(0)); },
       "[max_pool2d] kernel size should be greater than zero"},
      {"zero dilation", [&] { F::max_pool2d(x, F::MaxPool2dFuncOptions(2).dilation(0)); },
       "[max_pool2d] dilation should be greater than zero"},
      {"2-D input",
       [&] {
         F::max_pool2d(mk({5, 5}, kFloat32, 1), F::MaxPool2dFuncOptions(2));
       },
       "[max_pool2d] Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
       "input, but got:[5, 5]"},
      {"empty channel",
       [&] {
         F::max_pool2d(mk({2, 0, 5, 5}, kFloat32, 1), F::MaxPool2dFuncOptions(2));
       },
       "[max_pool2d] Expected 3D or 4D"},
      {"kernel larger than input",
       [&] {
         F::max_pool2d(mk({1, 2, 2}, kFloat32, 1), F::MaxPool2dFuncOptions(3));
       },
       "[max_pool2d] Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is "
       "too "
       "small"},
      {"max_pool1d 4-D", [&] { F::max_pool1d(x, F::MaxPool1dFuncOptions(2)); },
       "[max_pool1d] Expected 2D or 3D"},
      {"divisor zero", [&] { F::avg_pool2d(x, F::AvgPool2dFuncOptions(2).divisor_override(0)); },
       "[avg_pool2d] divisor must be not zero"},
      {"adaptive 2-D",
       [&] {
         F::adaptive_avg_pool2d(mk({5, 5}, kFloat32, 1), F::AdaptiveAvgPool2dFuncOptions(2));
       },
       "[adaptive_avg_pool2d] adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [5, 5]"},
      {"adaptive empty dim",
       [&] {
         F::adaptive_avg_pool2d(mk({2, 3, 0, 5}, kFloat32, 1), F::AdaptiveAvgPool2dFuncOptions(2));
       },
       "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but "
       "input has sizes [2, 3, 0, 5] with dimension 2 being empty"},
      {"adaptive negative",
       [&] {
         F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({-1, 2}));
       },
       "[adaptive_avg_pool2d] adaptive_avg_pool2d: elements of output_size must be greater than "
       "or equal to 0"},
      {"adaptive max 5-D",
       [&] {
         F::adaptive_max_pool2d(mk({1, 1, 2, 3, 3}, kFloat32, 1),
                                F::AdaptiveMaxPool2dFuncOptions(2));
       },
       "[adaptive_max_pool2d] adaptive_max_pool2d(): Expected 3D or 4D tensor"},
      {"undefined", [&] { F::max_pool2d(Tensor(), F::MaxPool2dFuncOptions(2)); }, "[max_pool2d]"},
      {"backward bad indices",
       [&] {
         nn::detail::max_pool2d_backward(mk({1, 1, 2, 2}, kFloat32, 1),
                                         ember::full({1, 1, 2, 2}, 99, kInt64), {1, 1, 4, 4});
       },
       "[max_pool2d_with_indices_backward] index 99 is out of bounds"},
  });
  test::expect_errors<TypeError>({
      {"bool max", [&] { F::max_pool2d(x.to(kBool), F::MaxPool2dFuncOptions(2)); },
       "[max_pool2d] \"max_pool2d\" not implemented for 'Bool'"},
      {"int32 avg", [&] { F::avg_pool2d(x.to(kInt32), F::AvgPool2dFuncOptions(2)); },
       "[avg_pool2d] \"avg_pool2d\" not implemented for 'Int'"},
      {"int adaptive avg",
       [&] { F::adaptive_avg_pool2d(x.to(kInt64), F::AdaptiveAvgPool2dFuncOptions(2)); },
       "[adaptive_avg_pool2d] \"adaptive_avg_pool2d\" not implemented for 'Long'"},
  });
}

}  // namespace
