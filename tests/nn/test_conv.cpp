// F::conv1d, conv2d, conv_transpose1d/2d, unfold, fold against direct-loop float64 references;
// the backward kernels against finite differences; PyTorch's errors.
#include <gtest/gtest.h>

#include <cmath>

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
const std::vector<ScalarType> kRejected = {kInt64, kInt32, kInt16, kInt8, kUInt8, kBool};

// A convolution configuration; D = 1 uses only the *_w fields (H = 1).
struct ConvCase {
  std::string name;
  int64_t D, N, C, H, W, O, kh, kw;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, groups = 1;
  bool bias = true;
  bool same = false;         // padding=kSame (stride 1)
  int64_t oph = 0, opw = 0;  // transposed only
};

// Direct convolution: out[n, o, oh, ow] = b[o] + sum x[n, g*Cg + c, oh*s - pt + i*d, ...] * w.
// Paddings may be asymmetric (top/bottom, left/right) for padding='same'.
Reference conv_ref(const std::vector<Tensor>& in, const ConvCase& c, int64_t pt, int64_t pb,
                   int64_t pl, int64_t pr) {
  const Tensor& xt = in[0];
  const bool batched = xt.dim() == c.D + 2;
  const auto xv = test::values(xt), wv = test::values(in[1]);
  const std::vector<double> bv = in.size() > 2 ? test::values(in[2]) : std::vector<double>();
  const int64_t N = batched ? xt.size(0) : 1, C = xt.size(batched ? 1 : 0);
  const int64_t H = c.D == 1 ? 1 : xt.size(-2), W = xt.size(-1);
  const int64_t O = in[1].size(0), kh = c.D == 1 ? 1 : in[1].size(-2), kw = in[1].size(-1);
  const int64_t sh = c.D == 1 ? 1 : c.sh, dh = c.D == 1 ? 1 : c.dh;
  const int64_t Ho = (H + pt + pb - dh * (kh - 1) - 1) / sh + 1;
  const int64_t Wo = (W + pl + pr - c.dw * (kw - 1) - 1) / c.sw + 1;
  const int64_t Cg = C / c.groups, Og = O / c.groups;
  std::vector<double> out(N * O * Ho * Wo, 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oh = 0; oh < Ho; ++oh)
        for (int64_t ow = 0; ow < Wo; ++ow) {
          double s = bv.empty() ? 0.0 : bv[o];
          const int64_t g = o / Og;
          for (int64_t ci = 0; ci < Cg; ++ci)
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t ih = oh * sh - pt + i * dh, iw = ow * c.sw - pl + j * c.dw;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                s += xv[((n * C + g * Cg + ci) * H + ih) * W + iw] *
                     wv[((o * Cg + ci) * kh + i) * kw + j];
              }
          out[((n * O + o) * Ho + oh) * Wo + ow] = s;
        }
  std::vector<int64_t> shape;
  if (batched) shape.push_back(N);
  shape.push_back(O);
  if (c.D == 2) shape.push_back(Ho);
  shape.push_back(Wo);
  return {shape, out, xt.dtype()};
}

// Direct transposed convolution: every input element scatters x * w into the output.
Reference conv_transpose_ref(const std::vector<Tensor>& in, const ConvCase& c) {
  const Tensor& xt = in[0];
  const bool batched = xt.dim() == c.D + 2;
  const auto xv = test::values(xt), wv = test::values(in[1]);
  const std::vector<double> bv = in.size() > 2 ? test::values(in[2]) : std::vector<double>();
  const int64_t N = batched ? xt.size(0) : 1, C = xt.size(batched ? 1 : 0);
  const int64_t H = c.D == 1 ? 1 : xt.size(-2), W = xt.size(-1);
  const int64_t kh = c.D == 1 ? 1 : in[1].size(-2), kw = in[1].size(-1);
  const int64_t Og = in[1].size(1), O = Og * c.groups, Cg = C / c.groups;
  const int64_t sh = c.D == 1 ? 1 : c.sh, dh = c.D == 1 ? 1 : c.dh, ph = c.D == 1 ? 0 : c.ph;
  const int64_t oph = c.D == 1 ? 0 : c.oph;
  const int64_t Ho = (H - 1) * sh - 2 * ph + dh * (kh - 1) + oph + 1;
  const int64_t Wo = (W - 1) * c.sw - 2 * c.pw + c.dw * (kw - 1) + c.opw + 1;
  std::vector<double> out(N * O * Ho * Wo, 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t p = 0; p < Ho * Wo; ++p) out[(n * O + o) * Ho * Wo + p] = bv.empty() ? 0 : bv[o];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ci = 0; ci < C; ++ci)
      for (int64_t ih = 0; ih < H; ++ih)
        for (int64_t iw = 0; iw < W; ++iw) {
          const int64_t g = ci / Cg;
          const double xval = xv[((n * C + ci) * H + ih) * W + iw];
          for (int64_t oc = 0; oc < Og; ++oc)
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t oh = ih * sh - ph + i * dh, ow = iw * c.sw - c.pw + j * c.dw;
                if (oh < 0 || oh >= Ho || ow < 0 || ow >= Wo) continue;
                out[((n * O + g * Og + oc) * Ho + oh) * Wo + ow] +=
                    xval * wv[((ci * Og + oc) * kh + i) * kw + j];
              }
        }
  std::vector<int64_t> shape;
  if (batched) shape.push_back(N);
  shape.push_back(O);
  if (c.D == 2) shape.push_back(Ho);
  shape.push_back(Wo);
  return {shape, out, xt.dtype()};
}

std::vector<int64_t> input_shape(const ConvCase& c, int64_t N, bool transposed) {
  std::vector<int64_t> s{N, transposed ? c.C : c.C};
  if (c.D == 2) s.push_back(c.H);
  s.push_back(c.W);
  return s;
}

std::vector<int64_t> weight_shape(const ConvCase& c, bool transposed) {
  std::vector<int64_t> s = transposed ? std::vector<int64_t>{c.C, c.O / c.groups}
                                      : std::vector<int64_t>{c.O, c.C / c.groups};
  if (c.D == 2) s.push_back(c.kh);
  s.push_back(c.kw);
  return s;
}

std::vector<Sample> conv_samples(const ConvCase& c, ScalarType dt, bool transposed) {
  const auto ws = weight_shape(c, transposed);
  const int64_t bias_len = transposed ? c.O : c.O;
  auto with_bias = [&](std::vector<Tensor> v, uint64_t seed) {
    if (c.bias) v.push_back(mk({bias_len}, dt, seed));
    return v;
  };
  std::vector<int64_t> unbatched = input_shape(c, 1, transposed);
  unbatched.erase(unbatched.begin());
  return {
      {with_bias({mk(input_shape(c, c.N, transposed), dt, 1), mk(ws, dt, 2)}, 3), "contiguous"},
      {with_bias({test::make_noncontiguous(mk(input_shape(c, c.N, transposed), dt, 4)),
                  test::make_noncontiguous(mk(ws, dt, 5))},
                 6),
       "non-contiguous"},
      {with_bias({mk(unbatched, dt, 7), mk(ws, dt, 8)}, 9), "unbatched"},
      {with_bias({mk(input_shape(c, 0, transposed), dt, 10), mk(ws, dt, 11)}, 12), "empty-batch"},
  };
}

Tensor bias_of(const std::vector<Tensor>& in) { return in.size() > 2 ? in[2] : Tensor(); }

Tensor run_conv(const std::vector<Tensor>& in, const ConvCase& c) {
  if (c.D == 1) {
    F::Conv1dFuncOptions o;
    o.bias(bias_of(in)).stride(c.sw).dilation(c.dw).groups(c.groups);
    if (c.same) {
      o.padding(ember::kSame);
    } else {
      o.padding(c.pw);
    }
    return F::conv1d(in[0], in[1], o);
  }
  F::Conv2dFuncOptions o;
  o.bias(bias_of(in)).stride({c.sh, c.sw}).dilation({c.dh, c.dw}).groups(c.groups);
  if (c.same) {
    o.padding(ember::kSame);
  } else {
    o.padding({c.ph, c.pw});
  }
  return F::conv2d(in[0], in[1], o);
}

Tensor run_conv_transpose(const std::vector<Tensor>& in, const ConvCase& c) {
  if (c.D == 1) {
    return F::conv_transpose1d(in[0], in[1],
                               F::ConvTranspose1dFuncOptions()
                                   .bias(bias_of(in))
                                   .stride(c.sw)
                                   .padding(c.pw)
                                   .output_padding(c.opw)
                                   .dilation(c.dw)
                                   .groups(c.groups));
  }
  return F::conv_transpose2d(in[0], in[1],
                             F::ConvTranspose2dFuncOptions()
                                 .bias(bias_of(in))
                                 .stride({c.sh, c.sw})
                                 .padding({c.ph, c.pw})
                                 .output_padding({c.oph, c.opw})
                                 .dilation({c.dh, c.dw})
                                 .groups(c.groups));
}

std::vector<ConvCase> conv_cases() {
  std::vector<ConvCase> v;
  v.push_back({"conv2d_basic", 2, 2, 3, 6, 7, 4, 3, 3});
  ConvCase s{"conv2d_stride_pad", 2, 2, 3, 7, 6, 4, 3, 2};
  s.sh = 2, s.sw = 3, s.ph = 1, s.pw = 2;
  v.push_back(s);
  ConvCase d{"conv2d_dilation_groups", 2, 2, 4, 7, 8, 6, 2, 3};
  d.dh = 2, d.dw = 2, d.groups = 2, d.ph = 1, d.bias = false;
  v.push_back(d);
  ConvCase dw{"conv2d_depthwise", 2, 3, 4, 5, 5, 8, 3, 3};
  dw.groups = 4, dw.ph = 1, dw.pw = 1;
  v.push_back(dw);
  v.push_back({"conv2d_1x1", 2, 2, 5, 4, 3, 3, 1, 1});
  ConvCase same{"conv2d_same", 2, 2, 2, 5, 6, 3, 4, 3};
  same.same = true, same.dw = 2;
  v.push_back(same);
  ConvCase c1{"conv1d_stride_pad_dil", 1, 2, 4, 1, 9, 6, 1, 3};
  c1.sw = 2, c1.pw = 1, c1.dw = 2, c1.groups = 2;
  v.push_back(c1);
  ConvCase c1s{"conv1d_same_even", 1, 2, 3, 1, 7, 2, 1, 4};
  c1s.same = true;
  v.push_back(c1s);
  return v;
}

std::vector<ConvCase> transpose_cases() {
  std::vector<ConvCase> v;
  v.push_back({"conv_transpose2d_basic", 2, 2, 3, 4, 5, 4, 3, 3});
  ConvCase s{"conv_transpose2d_stride_pad_outpad", 2, 2, 4, 3, 4, 6, 3, 2};
  s.sh = 2, s.sw = 3, s.ph = 1, s.pw = 0, s.oph = 1, s.opw = 2, s.groups = 2;
  v.push_back(s);
  ConvCase d{"conv_transpose2d_dilation", 2, 1, 2, 4, 3, 3, 2, 3};
  d.dh = 2, d.dw = 3, d.oph = 1, d.bias = false;  // output_padding < dilation
  v.push_back(d);
  ConvCase c1{"conv_transpose1d", 1, 2, 3, 1, 5, 4, 1, 3};
  c1.sw = 2, c1.pw = 1, c1.opw = 1;
  v.push_back(c1);
  return v;
}

// The case's strides, paddings, dilations and groups on the smallest shapes that still exercise
// them: one sample, one channel per group, a kernel's extent (plus one column) of input.
ConvCase small_case(ConvCase c, bool transposed) {
  c.N = 1;
  c.C = c.groups;
  c.O = c.groups;
  if (transposed) {
    c.H = c.D == 1 ? 1 : 2;
    c.W = 2;
  } else {
    c.H = c.D == 1 ? 1 : std::max<int64_t>(1, c.dh * (c.kh - 1) + 1 - 2 * c.ph);
    c.W = std::max<int64_t>(1, c.dw * (c.kw - 1) + 2 - 2 * c.pw);
  }
  return c;
}

double tol_for(const ConvCase& c) { return std::sqrt(static_cast<double>(c.C * c.kh * c.kw + 1)); }

std::vector<OpInfo> conv_ops() {
  std::vector<OpInfo> ops;
  for (const ConvCase& c : conv_cases()) {
    OpInfo info;
    info.name = c.name;
    info.dtypes = kFloats;
    info.samples = [c](ScalarType dt) { return conv_samples(c, dt, false); };
    info.grad_samples = [c] { return conv_samples(small_case(c, false), kFloat64, false); };
    info.op = [c](const std::vector<Tensor>& in) { return run_conv(in, c); };
    info.reference = [c](const std::vector<Tensor>& in) {
      int64_t pt = c.ph, pb = c.ph, pl = c.pw, pr = c.pw;
      if (c.same) {
        const int64_t th = c.D == 1 ? 0 : c.dh * (c.kh - 1), tw = c.dw * (c.kw - 1);
        pt = th / 2, pb = th - pt, pl = tw / 2, pr = tw - pl;
      }
      if (c.D == 1) pt = pb = 0;
      return conv_ref(in, c, pt, pb, pl, pr);
    };
    info.tol_scale = tol_for(c);
    info.rejected_dtypes = kRejected;
    ops.push_back(info);
  }
  for (const ConvCase& c : transpose_cases()) {
    OpInfo info;
    info.name = c.name;
    info.dtypes = kFloats;
    info.samples = [c](ScalarType dt) { return conv_samples(c, dt, true); };
    info.grad_samples = [c] { return conv_samples(small_case(c, true), kFloat64, true); };
    info.op = [c](const std::vector<Tensor>& in) { return run_conv_transpose(in, c); };
    info.reference = [c](const std::vector<Tensor>& in) { return conv_transpose_ref(in, c); };
    info.tol_scale = tol_for(c);
    info.rejected_dtypes = kRejected;
    ops.push_back(info);
  }
  return ops;
}

INSTANTIATE_TEST_SUITE_P(NnConv, OpTest, ::testing::ValuesIn(conv_ops()), test::op_test_name);

// ---- unfold / fold

struct Window {
  int64_t kh, kw, dh, dw, ph, pw, sh, sw;
};

// Direct im2col: cols[n, (c, i, j), (oh, ow)] = x[n, c, oh*s - p + i*d, ...] or 0.
Reference unfold_ref(const Tensor& xt, const Window& w) {
  const bool batched = xt.dim() == 4;
  const auto xv = test::values(xt);
  const int64_t N = batched ? xt.size(0) : 1, C = xt.size(-3), H = xt.size(-2), W = xt.size(-1);
  const int64_t Ho = (H + 2 * w.ph - w.dh * (w.kh - 1) - 1) / w.sh + 1;
  const int64_t Wo = (W + 2 * w.pw - w.dw * (w.kw - 1) - 1) / w.sw + 1;
  const int64_t K = C * w.kh * w.kw, L = Ho * Wo;
  std::vector<double> out(N * K * L, 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < w.kh; ++i)
        for (int64_t j = 0; j < w.kw; ++j)
          for (int64_t oh = 0; oh < Ho; ++oh)
            for (int64_t ow = 0; ow < Wo; ++ow) {
              const int64_t ih = oh * w.sh - w.ph + i * w.dh, iw = ow * w.sw - w.pw + j * w.dw;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
              out[(n * K + (c * w.kh + i) * w.kw + j) * L + oh * Wo + ow] =
                  xv[((n * C + c) * H + ih) * W + iw];
            }
  std::vector<int64_t> shape;
  if (batched) shape.push_back(N);
  shape.push_back(K);
  shape.push_back(L);
  return {shape, out, xt.dtype()};
}

// Direct col2im: sums every column entry into its image position.
Reference fold_ref(const Tensor& ct, int64_t H, int64_t W, const Window& w) {
  const bool batched = ct.dim() == 3;
  const auto cv = test::values(ct);
  const int64_t N = batched ? ct.size(0) : 1, K = ct.size(-2), C = K / (w.kh * w.kw);
  const int64_t Ho = (H + 2 * w.ph - w.dh * (w.kh - 1) - 1) / w.sh + 1;
  const int64_t Wo = (W + 2 * w.pw - w.dw * (w.kw - 1) - 1) / w.sw + 1;
  const int64_t L = Ho * Wo;
  std::vector<double> out(N * C * H * W, 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < w.kh; ++i)
        for (int64_t j = 0; j < w.kw; ++j)
          for (int64_t oh = 0; oh < Ho; ++oh)
            for (int64_t ow = 0; ow < Wo; ++ow) {
              const int64_t ih = oh * w.sh - w.ph + i * w.dh, iw = ow * w.sw - w.pw + j * w.dw;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
              out[((n * C + c) * H + ih) * W + iw] +=
                  cv[(n * K + (c * w.kh + i) * w.kw + j) * L + oh * Wo + ow];
            }
  std::vector<int64_t> shape;
  if (batched) shape.push_back(N);
  shape.insert(shape.end(), {C, H, W});
  return {shape, out, ct.dtype()};
}

std::vector<OpInfo> fold_ops() {
  std::vector<OpInfo> ops;
  const Window w{2, 3, 2, 1, 1, 0, 1, 2};
  {
    OpInfo info;
    info.name = "unfold";
    info.dtypes = kFloats;
    info.samples = [](ScalarType dt) {
      return std::vector<Sample>{
          {{mk({2, 3, 6, 7}, dt, 1)}, "batched"},
          {{test::make_noncontiguous(mk({2, 3, 6, 7}, dt, 2))}, "non-contiguous"},
          {{mk({3, 5, 5}, dt, 3)}, "unbatched"},
          {{mk({0, 3, 5, 5}, dt, 4)}, "empty-batch"}};
    };
    info.grad_samples = [] {
      return std::vector<Sample>{
          {{mk({1, 1, 3, 4}, kFloat64, 1)}, "batched"},
          {{test::make_noncontiguous(mk({1, 2, 3, 4}, kFloat64, 2))}, "non-contiguous"},
          {{mk({1, 3, 5}, kFloat64, 3)}, "unbatched"},
          {{mk({0, 1, 3, 4}, kFloat64, 4)}, "empty-batch"}};
    };
    info.op = [w](const std::vector<Tensor>& in) {
      return F::unfold(in[0], F::UnfoldFuncOptions({w.kh, w.kw})
                                  .dilation({w.dh, w.dw})
                                  .padding({w.ph, w.pw})
                                  .stride({w.sh, w.sw}));
    };
    info.reference = [w](const std::vector<Tensor>& in) { return unfold_ref(in[0], w); };
    info.rejected_dtypes = kRejected;
    ops.push_back(info);
  }
  {
    // Output 5 x 6: blocks ((5 + 2 - 3) / 1 + 1) x ((6 - 3) / 2 + 1) = 5 x 2, L = 10.
    OpInfo info;
    info.name = "fold";
    info.dtypes = kFloats;
    info.samples = [](ScalarType dt) {
      return std::vector<Sample>{
          {{mk({2, 12, 10}, dt, 1)}, "batched"},
          {{test::make_noncontiguous(mk({2, 12, 10}, dt, 2))}, "non-contiguous"},
          {{mk({6, 10}, dt, 3)}, "unbatched"},
          {{mk({0, 6, 10}, dt, 4)}, "empty-batch"}};
    };
    info.grad_samples = [] {
      return std::vector<Sample>{
          {{mk({1, 6, 10}, kFloat64, 1)}, "batched"},
          {{test::make_noncontiguous(mk({1, 6, 10}, kFloat64, 2))}, "non-contiguous"},
          {{mk({6, 10}, kFloat64, 3)}, "unbatched"},
          {{mk({0, 6, 10}, kFloat64, 4)}, "empty-batch"}};
    };
    info.op = [w](const std::vector<Tensor>& in) {
      return F::fold(in[0], F::FoldFuncOptions({5, 6}, {w.kh, w.kw})
                                .dilation({w.dh, w.dw})
                                .padding({w.ph, w.pw})
                                .stride({w.sh, w.sw}));
    };
    info.reference = [w](const std::vector<Tensor>& in) { return fold_ref(in[0], 5, 6, w); };
    info.tol_scale = 3;
    info.rejected_dtypes = kRejected;
    ops.push_back(info);
  }
  return ops;
}

INSTANTIATE_TEST_SUITE_P(NnFold, OpTest, ::testing::ValuesIn(fold_ops()), test::op_test_name);

// ---- backward kernels against finite differences (float64)

Conv2dParams params(int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,
                    int64_t groups) {
  Conv2dParams p;
  p.stride_h = sh, p.stride_w = sw, p.pad_h = ph, p.pad_w = pw, p.dilation_h = dh,
  p.dilation_w = dw, p.groups = groups;
  return p;
}

TEST(NnConvBackward, InputAndWeightMatchFiniteDifferences) {
  struct Case {
    std::vector<int64_t> x, w;
    Conv2dParams p;
  };
  const std::vector<Case> cases = {
      {{2, 4, 5, 6}, {6, 2, 3, 2}, params(2, 1, 1, 1, 1, 2, 2)},
      {{1, 3, 4, 4}, {2, 3, 1, 1}, params(1, 1, 0, 0, 1, 1, 1)},  // the direct 1x1 path
      {{2, 2, 6, 5}, {3, 2, 2, 3}, params(1, 2, 0, 2, 2, 1, 1)},
  };
  for (const Case& c : cases) {
    Tensor x = mk(c.x, kFloat64, 1), w = mk(c.w, kFloat64, 2);
    Tensor y = nn::detail::conv2d_forward(x, w, Tensor(), c.p);
    Tensor gy = mk(y.sizes(), kFloat64, 3);
    Tensor gx = nn::detail::conv2d_backward_input(gy, w, c.x, c.p);
    Tensor gw = nn::detail::conv2d_backward_weight(gy, x, c.w, c.p);
    test::expect_matches_fd(
        x, [&](const Tensor& v) { return nn::detail::conv2d_forward(v, w, Tensor(), c.p); }, gy,
        gx);
    test::expect_matches_fd(
        w, [&](const Tensor& v) { return nn::detail::conv2d_forward(x, v, Tensor(), c.p); }, gy,
        gw);
  }
}

TEST(NnConvBackward, Float32AndHalfMatchFloat64) {
  Tensor x = mk({3, 4, 6, 6}, kFloat64, 1), w = mk({4, 2, 3, 3}, kFloat64, 2);
  const Conv2dParams p = params(1, 2, 1, 0, 1, 1, 2);
  Tensor gy = mk(nn::detail::conv2d_forward(x, w, Tensor(), p).sizes(), kFloat64, 3);
  Tensor gx = nn::detail::conv2d_backward_input(gy, w, x.sizes(), p);
  Tensor gw = nn::detail::conv2d_backward_weight(gy, x, w.sizes(), p);
  for (ScalarType dt : {kFloat32, kBFloat16}) {
    Tensor xd = x.to(dt), wd = w.to(dt), gyd = gy.to(dt);
    Tensor gx_ref =
        nn::detail::conv2d_backward_input(gyd.to(kFloat64), wd.to(kFloat64), x.sizes(), p);
    Tensor gw_ref =
        nn::detail::conv2d_backward_weight(gyd.to(kFloat64), xd.to(kFloat64), w.sizes(), p);
    const double rtol = dt == kFloat32 ? 1e-5 : 2e-2;
    EXPECT_TRUE(test::close(nn::detail::conv2d_backward_input(gyd, wd, x.sizes(), p), x.sizes(),
                            test::values(gx_ref), rtol, 1e-4));
    EXPECT_TRUE(test::close(nn::detail::conv2d_backward_weight(gyd, xd, w.sizes(), p), w.sizes(),
                            test::values(gw_ref), rtol, 1e-4));
  }
  (void)gx, (void)gw;
}

TEST(NnConvBackward, ConvTransposeIsBackwardInputPlusBias) {
  // conv_transpose2d(x, w) is the adjoint of conv2d: <conv(a, w), b> == <a, conv_t(b, w)>.
  Tensor a = mk({2, 4, 7, 6}, kFloat64, 1), w = mk({6, 2, 3, 3}, kFloat64, 2);
  Tensor ya = F::conv2d(a, w, F::Conv2dFuncOptions().stride(2).padding(1).groups(2));
  Tensor b = mk(ya.sizes(), kFloat64, 3);
  Tensor tb = F::conv_transpose2d(
      b, w, F::ConvTranspose2dFuncOptions().stride(2).padding(1).groups(2).output_padding({0, 1}));
  ASSERT_EQ(tb.sizes(), a.sizes());
  const auto av = test::values(a), bv = test::values(b), yv = test::values(ya),
             tv = test::values(tb);
  double lhs = 0, rhs = 0;
  for (size_t i = 0; i < yv.size(); ++i) lhs += yv[i] * bv[i];
  for (size_t i = 0; i < av.size(); ++i) rhs += av[i] * tv[i];
  EXPECT_NEAR(lhs, rhs, 1e-9 * (1 + std::abs(lhs)));
}

TEST(NnFoldBackward, FoldIsTheAdjointOfUnfold) {
  Tensor x = mk({2, 3, 5, 6}, kFloat64, 1);
  const auto o = F::UnfoldFuncOptions({2, 3}).padding(1).stride({1, 2}).dilation({2, 1});
  Tensor cols = F::unfold(x, o);
  Tensor c = mk(cols.sizes(), kFloat64, 2);
  Tensor folded =
      F::fold(c, F::FoldFuncOptions({5, 6}, {2, 3}).padding(1).stride({1, 2}).dilation({2, 1}));
  const auto xv = test::values(x), cv = test::values(c), uv = test::values(cols),
             fv = test::values(folded);
  double lhs = 0, rhs = 0;
  for (size_t i = 0; i < uv.size(); ++i) lhs += uv[i] * cv[i];
  for (size_t i = 0; i < xv.size(); ++i) rhs += xv[i] * fv[i];
  EXPECT_NEAR(lhs, rhs, 1e-9 * (1 + std::abs(lhs)));
}

// ---- API spellings

TEST(NnConvApi, PlainArgumentOverloadsMatchOptions) {
  Tensor x = mk({1, 2, 6, 6}, kFloat32, 1), w = mk({3, 2, 3, 3}, kFloat32, 2),
         b = mk({3}, kFloat32, 3);
  Tensor a = F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).stride(2).padding(1));
  Tensor c = F::conv2d(x, w, b, 2, 1);
  EXPECT_TRUE(a.equal(c));
  EXPECT_EQ(F::conv2d(x, w, b, 1, ember::kSame).sizes(), (std::vector<int64_t>{1, 3, 6, 6}));
  EXPECT_EQ(F::conv2d(x, w, b, 1, ember::kValid).sizes(), (std::vector<int64_t>{1, 3, 4, 4}));
  EXPECT_EQ(F::conv_transpose2d(x, mk({2, 4, 3, 3}, kFloat32, 4), Tensor(), 2, 1, 1).sizes(),
            (std::vector<int64_t>{1, 4, 12, 12}));
  EXPECT_EQ(F::conv1d(mk({2, 5}, kFloat32, 5), mk({4, 2, 3}, kFloat32, 6)).sizes(),
            (std::vector<int64_t>{4, 3}));
}

TEST(NnConvApi, LargeBatchUsesSeveralThreadsAndMatchesSmall) {
  // Samples run in parallel: the same sample at every batch position gives the same output.
  Tensor x1 = mk({1, 8, 20, 20}, kFloat32, 1), w = mk({16, 8, 3, 3}, kFloat32, 2);
  Tensor x = x1.expand({16, 8, 20, 20}).contiguous();
  Tensor y = F::conv2d(x, w, F::Conv2dFuncOptions().padding(1));
  Tensor y1 = F::conv2d(x1, w, F::Conv2dFuncOptions().padding(1));
  for (int64_t n = 0; n < 16; ++n) EXPECT_TRUE(y.select(0, n).equal(y1.select(0, 0)));
}

// ---- errors

TEST(NnConvErrors, PyTorchMessages) {
  Tensor x = mk({2, 3, 5, 5}, kFloat32, 1), w = mk({4, 3, 3, 3}, kFloat32, 2);
  test::expect_errors<RuntimeError>({
      {"2-D input",
       [&] {
         F::conv2d(mk({3, 5}, kFloat32, 1), w);
       },
       "[conv2d] Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
       "[3, 5]"},
      {"5-D input",
       [&] {
         F::conv2d(mk({1, 2, 3, 5, 5}, kFloat32, 1), w);
       },
       "[conv2d] Expected"},
      {"conv1d 4-D input",
       [&] {
         F::conv1d(x, mk({4, 3, 3}, kFloat32, 1));
       },
       "[conv1d] Expected 2D (unbatched) or 3D (batched) input to conv1d"},
      {"weight dims",
       [&] {
         F::conv2d(x, mk({4, 3, 3}, kFloat32, 1));
       },
       "[conv2d] Expected 3-dimensional input for 3-dimensional weight"},
      {"channels",
       [&] {
         F::conv2d(x, mk({4, 2, 3, 3}, kFloat32, 1));
       },
       "[conv2d] Given groups=1, weight of size [4, 2, 3, 3], expected input[2, 3, 5, 5] to have 2 "
       "channels, but got 3 channels instead"},
      {"groups divide weight",
       [&] {
         F::conv2d(mk({1, 4, 5, 5}, kFloat32, 1), mk({3, 2, 3, 3}, kFloat32, 2),
                   F::Conv2dFuncOptions().groups(2));
       },
       "[conv2d] Given groups=2, expected weight to be divisible by 2 at dimension 0"},
      {"zero groups", [&] { F::conv2d(x, w, F::Conv2dFuncOptions().groups(0)); },
       "[conv2d] non-positive groups is not supported"},
      {"zero stride", [&] { F::conv2d(x, w, F::Conv2dFuncOptions().stride(0)); },
       "[conv2d] non-positive stride is not supported"},
      {"negative stride",
       [&] {
         F::conv2d(x, w, F::Conv2dFuncOptions().stride({1, -1}));
       },
       "[conv2d] non-positive stride is not supported"},
      {"negative padding", [&] { F::conv2d(x, w, F::Conv2dFuncOptions().padding(-1)); },
       "[conv2d] negative padding is not supported"},
      {"zero dilation", [&] { F::conv2d(x, w, F::Conv2dFuncOptions().dilation(0)); },
       "[conv2d] dilation should be greater than zero"},
      {"kernel too large",
       [&] {
         F::conv2d(mk({1, 3, 2, 2}, kFloat32, 1), w);
       },
       "[conv2d] Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel "
       "size can't be greater than actual input size"},
      {"dilated kernel too large", [&] { F::conv2d(x, w, F::Conv2dFuncOptions().dilation(3)); },
       "Kernel size: (7 x 7)"},
      {"bias size", [&] { F::conv2d(x, w, F::Conv2dFuncOptions().bias(mk({3}, kFloat32, 1))); },
       "[conv2d] Given weight of size [4, 3, 3, 3], expected bias to be 1-dimensional with 4 "
       "elements, but got bias of size [3] instead"},
      {"same with stride",
       [&] { F::conv2d(x, w, F::Conv2dFuncOptions().padding(kSame).stride(2)); },
       "[conv2d] padding='same' is not supported for strided convolutions"},
      {"dtype mismatch", [&] { F::conv2d(x, w.to(kFloat64)); },
       "[conv2d] Input type (float32) and weight type (float64) should be the same"},
      {"bias dtype", [&] { F::conv2d(x, w, F::Conv2dFuncOptions().bias(mk({4}, kFloat64, 1))); },
       "and bias type (float64)"},
      {"transpose channels",
       [&] {
         F::conv_transpose2d(x, mk({4, 2, 3, 3}, kFloat32, 1));
       },
       "[conv_transpose2d] Given transposed=1, weight of size [4, 2, 3, 3], expected input[2, 3, "
       "5, 5] to have 4 channels, but got 3 channels instead"},
      {"output_padding",
       [&] {
         F::conv_transpose2d(x, mk({3, 2, 3, 3}, kFloat32, 1),
                             F::ConvTranspose2dFuncOptions().output_padding(1));
       },
       "[conv_transpose2d] output padding must be smaller than either stride or dilation"},
      {"transpose too small",
       [&] {
         F::conv_transpose2d(mk({1, 3, 1, 1}, kFloat32, 1), mk({3, 2, 1, 1}, kFloat32, 1),
                             F::ConvTranspose2dFuncOptions().padding(1));
       },
       "[conv_transpose2d] Given input size per channel: (1 x 1). Calculated output size per "
       "channel: (-1 x -1). Output size is too small"},
      {"undefined weight", [&] { F::conv2d(x, Tensor()); }, "[conv2d]"},
      {"unfold kernel", [&] { F::unfold(x, F::UnfoldFuncOptions(0)); },
       "[unfold] kernel size should be greater than zero"},
      {"unfold stride", [&] { F::unfold(x, F::UnfoldFuncOptions(2).stride(0)); },
       "[unfold] stride should be greater than zero"},
      {"unfold too big", [&] { F::unfold(x, F::UnfoldFuncOptions(6)); },
       "[unfold] Given input with spatial size (5, 5), kernel_size=(6, 6)"},
      {"fold divisible",
       [&] {
         F::fold(mk({1, 5, 4}, kFloat32, 1), F::FoldFuncOptions(3, 2));
       },
       "[fold] Expected size of input's dimension 1 to be divisible by the product of kernel_size"},
      {"fold blocks",
       [&] {
         F::fold(mk({1, 4, 5}, kFloat32, 1), F::FoldFuncOptions(3, 2));
       },
       "[fold] Given output_size=(3, 3), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), "
       "stride=(1, 1), expected size of input's dimension 2 to match the calculated number of "
       "sliding blocks 2 * 2 = 4, but got input.size(2)=5."},
  });
  // The internal backward ops validate what a vjp passes them.
  const Conv2dParams p1;
  test::expect_errors<RuntimeError>({
      {"backward_input weight mismatch",
       [&] {
         nn::detail::conv2d_backward_input(mk({2, 4, 3, 3}, kFloat32, 1), w, {2, 5, 5, 5}, p1);
       },
       "[conv2d_backward_input] shapes do not match"},
      {"backward_weight grad channels",
       [&] {
         nn::detail::conv2d_backward_weight(mk({2, 5, 3, 3}, kFloat32, 1), x, {4, 3, 3, 3}, p1);
       },
       "[conv2d_backward_weight] shapes do not match"},
      {"backward zero stride",
       [&] {
         Conv2dParams p0;
         p0.stride_h = 0;
         nn::detail::conv2d_backward_input(mk({2, 4, 3, 3}, kFloat32, 1), w, {2, 3, 5, 5}, p0);
       },
       "[conv2d_backward_input] invalid convolution parameters"},
      {"col2im blocks",
       [&] {
         nn::detail::col2im(mk({1, 4, 5}, kFloat32, 1), {3, 3}, 2, 2, p1);
       },
       "[col2im] columns [1, 4, 5] do not match the sliding blocks"},
  });
  test::expect_errors<NotImplementedError>({
      {"unfold 2-D",
       [&] {
         F::unfold(mk({3, 3}, kFloat32, 1), F::UnfoldFuncOptions(2));
       },
       "[unfold] Input Error: Only 3D or 4D input Tensors are supported (got 2D)"},
      {"fold 4-D", [&] { F::fold(x, F::FoldFuncOptions(3, 2)); }, "[fold] Input Error"},
  });
  test::expect_errors<TypeError>({
      {"int input", [&] { F::conv2d(x.to(kInt64), w.to(kInt64)); },
       "[conv2d] \"slow_conv2d_cpu\" not implemented for 'Long'"},
  });
}

}  // namespace
