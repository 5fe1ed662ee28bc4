// F::interpolate, F::pad, F::pixel_shuffle / pixel_unshuffle against direct float64 references;
// the upsampling and padding backward kernels against finite differences; PyTorch's errors.
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

std::vector<Sample> image_samples(const std::vector<int64_t>& shape, ScalarType dt) {
  std::vector<int64_t> unbatched(shape.begin() + 1, shape.end()), empty = shape;
  empty[0] = 0;
  return {{{mk(shape, dt, 1)}, "batched"},
          {{test::make_noncontiguous(mk(shape, dt, 2))}, "non-contiguous"},
          {{mk(empty, dt, 4)}, "empty-batch"}};
}

/// The gradcheck set: image_samples of one sample of one channel (the spatial sizes as they are).
std::vector<Sample> image_grad_samples(std::vector<int64_t> shape) {
  shape[0] = shape[1] = 1;
  return image_samples(shape, kFloat64);
}

// ---- interpolate

struct Interp {
  std::string name;
  std::vector<int64_t> shape;  // [N, C, (H,) W]
  std::vector<int64_t> size;   // or empty
  std::vector<double> scale;   // or empty
  int mode;                    // 0 nearest, 1 (bi)linear, 2 area
  bool align = false;
};

// Source coordinate of output o along one dim. `scale` is the user's factor (0: none).
double linear_src(int64_t o, int64_t in, int64_t out, double scale, bool align) {
  if (align) return out > 1 ? double(o) * (in - 1) / (out - 1) : 0.0;
  const double ratio = scale > 0 ? 1.0 / scale : double(in) / out;
  return std::max((o + 0.5) * ratio - 0.5, 0.0);
}

Reference interp_ref(const Tensor& x, const Interp& c) {
  const int64_t D = x.dim() - 2;
  const int64_t H = D == 1 ? 1 : x.size(2), W = x.size(-1);
  const double sh = c.scale.empty() || D == 1 ? 0 : c.scale[0];
  const double sw = c.scale.empty() ? 0 : c.scale.back();
  const int64_t Ho = D == 1 ? 1 : (c.size.empty() ? int64_t(std::floor(H * sh)) : c.size[0]);
  const int64_t Wo = c.size.empty() ? int64_t(std::floor(W * sw)) : c.size.back();
  const auto xv = test::values(x);
  const int64_t planes = x.size(0) * x.size(1);
  std::vector<double> out;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oh = 0; oh < Ho; ++oh)
      for (int64_t ow = 0; ow < Wo; ++ow) {
        auto at = [&](int64_t h, int64_t w) { return xv[(p * H + h) * W + w]; };
        if (c.mode == 0) {
          const double rh = sh > 0 ? 1.0 / sh : double(H) / Ho,
                       rw = sw > 0 ? 1.0 / sw : double(W) / Wo;
          const int64_t h = std::min<int64_t>(int64_t(std::floor(oh * rh)), H - 1);
          const int64_t w = std::min<int64_t>(int64_t(std::floor(ow * rw)), W - 1);
          out.push_back(at(h, w));
        } else if (c.mode == 1) {
          const double yh = D == 1 ? 0 : linear_src(oh, H, Ho, sh, c.align);
          const double yw = linear_src(ow, W, Wo, sw, c.align);
          const int64_t h0 = int64_t(yh), w0 = int64_t(yw);
          const int64_t h1 = std::min(h0 + 1, H - 1), w1 = std::min(w0 + 1, W - 1);
          const double lh = yh - h0, lw = yw - w0;
          out.push_back((1 - lh) * ((1 - lw) * at(h0, w0) + lw * at(h0, w1)) +
                        lh * ((1 - lw) * at(h1, w0) + lw * at(h1, w1)));
        } else {
          const int64_t h0 = oh * H / Ho, h1 = ((oh + 1) * H + Ho - 1) / Ho;
          const int64_t w0 = ow * W / Wo, w1 = ((ow + 1) * W + Wo - 1) / Wo;
          double s = 0;
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) s += at(h, w);
          out.push_back(s / double((h1 - h0) * (w1 - w0)));
        }
      }
  std::vector<int64_t> shape{x.size(0), x.size(1)};
  if (D == 2) shape.push_back(Ho);
  shape.push_back(Wo);
  return {shape, out, x.dtype()};
}

Tensor run_interp(const Tensor& x, const Interp& c) {
  F::InterpolateFuncOptions o;
  if (!c.size.empty()) o.size(c.size);
  if (!c.scale.empty()) o.scale_factor(c.scale);
  const bool is3d = x.dim() == 3;
  if (c.mode == 0) o.mode(kNearest);
  if (c.mode == 1) {
    if (is3d) {
      o.mode(kLinear);
    } else {
      o.mode(kBilinear);
    }
    o.align_corners(c.align);
  }
  if (c.mode == 2) o.mode(kArea);
  return F::interpolate(x, o);
}

std::vector<OpInfo> interp_ops() {
  const std::vector<Interp> cases = {
      {"interpolate_nearest_size", {2, 3, 4, 3}, {7, 5}, {}, 0},
      {"interpolate_nearest_scale", {2, 2, 4, 4}, {}, {2.0, 1.5}, 0},
      {"interpolate_nearest_down", {1, 2, 7, 8}, {3, 3}, {}, 0},
      {"interpolate_nearest_1d", {2, 3, 5}, {7}, {}, 0},
      {"interpolate_bilinear", {2, 3, 4, 5}, {7, 9}, {}, 1},
      {"interpolate_bilinear_align", {2, 3, 4, 5}, {7, 9}, {}, 1, true},
      {"interpolate_bilinear_scale", {1, 2, 4, 5}, {}, {1.7, 2.5}, 1},
      {"interpolate_bilinear_down", {1, 2, 9, 7}, {4, 3}, {}, 1},
      {"interpolate_linear_1d", {2, 3, 5}, {8}, {}, 1},
      {"interpolate_linear_1d_align", {2, 3, 5}, {8}, {}, 1, true},
      {"interpolate_area", {2, 3, 7, 5}, {3, 2}, {}, 2},
  };
  std::vector<OpInfo> ops;
  for (const Interp& c : cases) {
    OpInfo info;
    info.name = c.name;
    info.dtypes = kFloats;
    if (c.mode == 0) info.dtypes.push_back(kUInt8);
    info.samples = [c](ScalarType dt) { return image_samples(c.shape, dt); };
    info.grad_samples = [c] { return image_grad_samples(c.shape); };
    info.op = [c](const std::vector<Tensor>& in) { return run_interp(in[0], c); };
    info.reference = [c](const std::vector<Tensor>& in) { return interp_ref(in[0], c); };
    info.tol_scale = 2;
    // As PyTorch's CPU kernels: nearest also takes uint8, the others floats only.
    for (ScalarType t : test::integral_dtypes(true)) {
      if (!(c.mode == 0 && t == kUInt8)) info.rejected_dtypes.push_back(t);
    }
    ops.push_back(info);
  }
  return ops;
}

INSTANTIATE_TEST_SUITE_P(NnInterpolate, OpTest, ::testing::ValuesIn(interp_ops()),
                         test::op_test_name);

// ---- pad

struct PadCase {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<int64_t> pad;
  int mode;  // 0 constant, 1 reflect, 2 replicate, 3 circular
  double value = 0;
};

Reference pad_ref(const Tensor& x, const PadCase& c) {
  const int64_t nd = x.dim(), m = static_cast<int64_t>(c.pad.size()) / 2;
  std::vector<int64_t> out_shape = x.sizes();
  for (int64_t k = 0; k < m; ++k) out_shape[nd - 1 - k] += c.pad[2 * k] + c.pad[2 * k + 1];
  const auto xv = test::values(x);
  const int64_t total = test::numel_of(out_shape);
  std::vector<double> out(total);
  std::vector<int64_t> idx(nd, 0);
  for (int64_t e = 0; e < total; ++e) {
    // Source position of output index idx, dim by dim.
    int64_t src = 0;
    bool fill = false;
    for (int64_t d = 0; d < nd; ++d) {
      const int64_t k = nd - 1 - d, in = x.size(d);
      int64_t s = idx[d];
      if (k < m) {
        s -= c.pad[2 * k];
        if (c.mode == 0 && (s < 0 || s >= in)) fill = true;
        if (c.mode == 1) s = s < 0 ? -s : (s >= in ? 2 * in - 2 - s : s);
        if (c.mode == 2) s = std::clamp<int64_t>(s, 0, in - 1);
        if (c.mode == 3) s = (s + in) % in;
      }
      src = src * in + s;
    }
    // Integer tensors store the fill value truncated, as fill_ does.
    out[e] = fill ? (is_floating_point(x.dtype()) ? c.value : std::trunc(c.value)) : xv[src];
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < out_shape[d]) break;
      idx[d] = 0;
    }
  }
  return {out_shape, out, x.dtype()};
}

F::PadFuncOptions pad_options(const PadCase& c) {
  F::PadFuncOptions o(c.pad);
  if (c.mode == 0) o.mode(kConstant).value(c.value);
  if (c.mode == 1) o.mode(kReflect);
  if (c.mode == 2) o.mode(kReplicate);
  if (c.mode == 3) o.mode(kCircular);
  return o;
}

std::vector<PadCase> pad_cases() {
  return {
      {"pad_constant_1d", {2, 3, 5}, {1, 2}, 0},
      {"pad_constant_2d_value", {2, 3, 4, 5}, {1, 0, 2, 1}, 0, 1.5},
      {"pad_constant_negative", {2, 3, 4, 5}, {-1, 2, 0, -2}, 0},
      {"pad_constant_all_dims", {2, 3, 4}, {1, 1, 0, 2, 1, 0}, 0},
      {"pad_reflect_1d", {2, 3, 5}, {2, 4}, 1},
      {"pad_reflect_2d", {2, 3, 4, 5}, {1, 2, 3, 0}, 1},
      {"pad_replicate_2d", {2, 3, 4, 5}, {2, 3, 1, 1}, 2},
      {"pad_replicate_1d", {3, 4}, {3, 1}, 2},
      {"pad_circular_2d", {2, 3, 4, 5}, {1, 2, 4, 1}, 3},
      {"pad_circular_1d", {2, 3, 5}, {5, 2}, 3},
  };
}

std::vector<OpInfo> pad_ops() {
  std::vector<OpInfo> ops;
  for (const PadCase& c : pad_cases()) {
    OpInfo info;
    info.name = c.name;
    info.dtypes = kFloats;
    info.dtypes.insert(info.dtypes.end(), {kInt64, kInt32, kUInt8});
    info.samples = [c](ScalarType dt) {
      std::vector<Sample> s{{{mk(c.shape, dt, 1)}, "contiguous"},
                            {{test::make_noncontiguous(mk(c.shape, dt, 2))}, "non-contiguous"}};
      if (c.shape.size() > 2 && c.pad.size() < 2 * c.shape.size()) {
        std::vector<int64_t> e = c.shape;
        e[0] = 0;
        s.push_back({{mk(e, dt, 3)}, "empty-batch"});
      }
      return s;
    };
    info.grad_samples = [c] {
      // The unpadded leading dims shrink to 1.
      std::vector<int64_t> shape = c.shape;
      for (size_t d = 0; d + c.pad.size() / 2 < shape.size(); ++d) shape[d] = 1;
      return std::vector<Sample>{
          {{mk(shape, kFloat64, 1)}, "contiguous"},
          {{test::make_noncontiguous(mk(shape, kFloat64, 2))}, "non-contiguous"}};
    };
    info.op = [c](const std::vector<Tensor>& in) { return F::pad(in[0], pad_options(c)); };
    info.reference = [c](const std::vector<Tensor>& in) { return pad_ref(in[0], c); };
    ops.push_back(info);
  }
  return ops;
}

INSTANTIATE_TEST_SUITE_P(NnPad, OpTest, ::testing::ValuesIn(pad_ops()), test::op_test_name);

// ---- pixel shuffle

Reference shuffle_ref(const Tensor& x, int64_t r, bool inverse) {
  const int64_t nb = x.dim() - 3;
  const int64_t C = x.size(-3), H = x.size(-2), W = x.size(-1);
  int64_t batch = 1;
  for (int64_t i = 0; i < nb; ++i) batch *= x.size(i);
  const auto xv = test::values(x);
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end() - 3);
  std::vector<double> out(xv.size());
  if (!inverse) {
    const int64_t oc = C / (r * r);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t c = 0; c < oc; ++c)
        for (int64_t h = 0; h < H * r; ++h)
          for (int64_t w = 0; w < W * r; ++w)
            out[((b * oc + c) * H * r + h) * W * r + w] =
                xv[((b * C + c * r * r + (h % r) * r + (w % r)) * H + h / r) * W + w / r];
    shape.insert(shape.end(), {oc, H * r, W * r});
  } else {
    const int64_t oc = C * r * r, oh = H / r, ow = W / r;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t c = 0; c < oc; ++c)
        for (int64_t h = 0; h < oh; ++h)
          for (int64_t w = 0; w < ow; ++w)
            out[((b * oc + c) * oh + h) * ow + w] =
                xv[((b * C + c / (r * r)) * H + h * r + (c % (r * r)) / r) * W + w * r + c % r];
    shape.insert(shape.end(), {oc, oh, ow});
  }
  return {shape, out, x.dtype()};
}

std::vector<OpInfo> shuffle_ops() {
  std::vector<OpInfo> ops;
  for (bool inverse : {false, true}) {
    OpInfo info;
    info.name = inverse ? "pixel_unshuffle" : "pixel_shuffle";
    info.dtypes = test::all_dtypes();
    info.samples = [inverse](ScalarType dt) {
      const std::vector<int64_t> s4 =
          inverse ? std::vector<int64_t>{2, 3, 4, 6} : std::vector<int64_t>{2, 8, 3, 2};
      const std::vector<int64_t> s5 =
          inverse ? std::vector<int64_t>{2, 1, 2, 2, 4} : std::vector<int64_t>{2, 1, 4, 2, 3};
      return std::vector<Sample>{{{mk(s4, dt, 1)}, "4-d"},
                                 {{test::make_noncontiguous(mk(s4, dt, 2))}, "non-contiguous"},
                                 {{mk(s5, dt, 3)}, "5-d"},
                                 {{mk({0, s4[1], s4[2], s4[3]}, dt, 4)}, "empty-batch"}};
    };
    info.grad_samples = [inverse] {
      const std::vector<int64_t> s4 =
          inverse ? std::vector<int64_t>{1, 1, 4, 6} : std::vector<int64_t>{1, 4, 3, 2};
      const std::vector<int64_t> s5 =
          inverse ? std::vector<int64_t>{1, 1, 1, 2, 4} : std::vector<int64_t>{1, 1, 4, 2, 3};
      return std::vector<Sample>{
          {{mk(s4, kFloat64, 1)}, "4-d"},
          {{test::make_noncontiguous(mk(s4, kFloat64, 2))}, "non-contiguous"},
          {{mk(s5, kFloat64, 3)}, "5-d"}};
    };
    info.op = [inverse](const std::vector<Tensor>& in) {
      return inverse ? F::pixel_unshuffle(in[0], 2) : F::pixel_shuffle(in[0], 2);
    };
    info.reference = [inverse](const std::vector<Tensor>& in) {
      return shuffle_ref(in[0], 2, inverse);
    };
    ops.push_back(info);
  }
  return ops;
}

INSTANTIATE_TEST_SUITE_P(NnPixelShuffle, OpTest, ::testing::ValuesIn(shuffle_ops()),
                         test::op_test_name);

// ---- backward kernels against finite differences (float64)

TEST(NnResampleBackward, UpsampleMatchesFiniteDifferences) {
  Tensor x = mk({2, 2, 4, 5}, kFloat64, 1);
  struct Case {
    ResampleOp op;
    std::vector<int64_t> out;
    bool align;
    std::optional<double> sh, sw;
  };
  const std::vector<Case> cases = {
      {ResampleOp::Nearest, {7, 9}, false, std::nullopt, std::nullopt},
      {ResampleOp::Nearest, {3, 2}, false, std::nullopt, std::nullopt},
      {ResampleOp::Nearest, {6, 8}, false, 1.5, 1.7},
      {ResampleOp::Bilinear, {7, 9}, false, std::nullopt, std::nullopt},
      {ResampleOp::Bilinear, {7, 9}, true, std::nullopt, std::nullopt},
      {ResampleOp::Bilinear, {3, 3}, false, std::nullopt, std::nullopt},
      {ResampleOp::Bilinear, {6, 8}, false, 1.5, 1.7},
  };
  for (const Case& c : cases) {
    auto f = [&](const Tensor& v) {
      return nn::detail::upsample2d(v, c.op, c.out, c.align, c.sh, c.sw, "upsample");
    };
    Tensor gy = mk(f(x).sizes(), kFloat64, 2);
    Tensor gx = nn::detail::upsample2d_backward(gy, c.op, x.sizes(), c.align, c.sh, c.sw);
    test::expect_matches_fd(x, f, gy, gx);
  }
}

TEST(NnResampleBackward, PadMatchesFiniteDifferences) {
  for (const PadCase& c : pad_cases()) {
    SCOPED_TRACE(c.name);
    Tensor x = mk(c.shape, kFloat64, 1);
    const auto o = pad_options(c);
    auto f = [&](const Tensor& v) { return F::pad(v, o); };
    Tensor gy = mk(f(x).sizes(), kFloat64, 2);
    const PadMode mode = c.mode == 0   ? PadMode::Constant
                         : c.mode == 1 ? PadMode::Reflect
                         : c.mode == 2 ? PadMode::Replicate
                                       : PadMode::Circular;
    Tensor gx = nn::detail::pad_backward(gy, mode, c.pad, x.sizes());
    test::expect_matches_fd(x, f, gy, gx);
  }
}

// ---- errors

TEST(NnResampleErrors, PyTorchMessages) {
  Tensor x = mk({2, 3, 4, 5}, kFloat32, 1);
  test::expect_errors<ValueError>({
      {"nan scale",
       [&] {
         F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{NAN}));
       },
       "[interpolate] scale_factor must be finite"},
      {"size and scale",
       [&] {
         F::interpolate(x, F::InterpolateFuncOptions()
                               .size(std::vector<int64_t>{2, 2})
                               .scale_factor(std::vector<double>{2}));
       },
       "[interpolate] only one of size or scale_factor should be defined"},
      {"neither", [&] { F::interpolate(x, F::InterpolateFuncOptions()); },
       "[interpolate] either size or scale_factor should be defined"},
      {"size rank",
       [&] {
         F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{2, 2, 2}));
       },
       "[interpolate] Input and output must have the same number of spatial dimensions, but got "
       "input with spatial dimensions of [4, 5] and output size of [2, 2, 2]"},
      {"align nearest",
       [&] {
         F::interpolate(
             x, F::InterpolateFuncOptions().size(std::vector<int64_t>{2, 2}).align_corners(true));
       },
       "[interpolate] align_corners option can only be set with the interpolating modes"},
  });
  test::expect_errors<NotImplementedError>({
      {"linear on 4-D",
       [&] {
         F::interpolate(x,
                        F::InterpolateFuncOptions().size(std::vector<int64_t>{2, 2}).mode(kLinear));
       },
       "[interpolate] Got 4D input, but linear mode needs 3D input"},
      {"bilinear on 3-D",
       [&] {
         F::interpolate(mk({2, 3, 4}, kFloat32, 1),
                        F::InterpolateFuncOptions().size(std::vector<int64_t>{2}).mode(kBilinear));
       },
       "[interpolate] Got 3D input, but bilinear mode needs 4D input"},
      {"2-D input",
       [&] {
         F::interpolate(mk({3, 4}, kFloat32, 1),
                        F::InterpolateFuncOptions().scale_factor(std::vector<double>{2}));
       },
       "[interpolate] Input Error: Only 3D, 4D and 5D input Tensors supported (got 2D)"},
      {"bicubic",
       [&] {
         F::interpolate(
             x, F::InterpolateFuncOptions().size(std::vector<int64_t>{8, 8}).mode(kBicubic));
       },
       "[interpolate]"},
      {"non-constant 1-D input",
       [&] {
         F::pad(mk({5}, kFloat32, 1), F::PadFuncOptions({1, 1}).mode(kReflect));
       },
       "[pad] Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now"},
      {"one pair on 4-D",
       [&] {
         F::pad(x, F::PadFuncOptions({1, 1}).mode(kReplicate));
       },
       "[pad] Only 2D, 3D, 4D, 5D padding"},
  });
  test::expect_errors<RuntimeError>({
      {"zero output",
       [&] {
         F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{0.1}));
       },
       "[upsample_nearest2d] Input and output sizes should be greater than 0, but got input (H: "
       "4, W: 5) output (H: 0, W: 0)"},
      {"odd pad",
       [&] {
         F::pad(x, F::PadFuncOptions({1, 2, 3}));
       },
       "[pad] Padding length must be divisible by 2"},
      {"pad too long",
       [&] {
         F::pad(mk({3}, kFloat32, 1), F::PadFuncOptions({1, 1, 1, 1}));
       },
       "[pad] Padding length should be less than or equal to two times the input dimension but "
       "got padding length 4 and input of dimension 1"},
      {"reflect too large",
       [&] {
         F::pad(x, F::PadFuncOptions({5, 0, 0, 0}).mode(kReflect));
       },
       "[pad] Argument #4: Padding size should be less than the corresponding input dimension, "
       "but got: padding (5, 0) at dimension 3 of input [2, 3, 4, 5]"},
      {"circular wraps twice",
       [&] {
         F::pad(x, F::PadFuncOptions({6, 0, 0, 0}).mode(kCircular));
       },
       "[pad] Padding value causes wrapping around more than once."},
      {"negative size",
       [&] {
         F::pad(x, F::PadFuncOptions({-3, -3}));
       },
       "[pad] The input size 5, plus negative padding -3 and -3 resulted in a negative output "
       "size, which is invalid. Check dimension 3 of your input."},
      {"value with reflect",
       [&] {
         F::pad(x, F::PadFuncOptions({1, 1}).mode(kReflect).value(1));
       },
       "[pad] Padding mode \"reflect\" doesn't take in value argument"},
      {"shuffle dims",
       [&] {
         F::pixel_shuffle(mk({4, 4}, kFloat32, 1), 2);
       },
       "[pixel_shuffle] pixel_shuffle expects input to have at least 3 dimensions, but got input "
       "with 2 dimension(s)"},
      {"shuffle factor", [&] { F::pixel_shuffle(x, 0); },
       "[pixel_shuffle] pixel_shuffle expects a positive upscale_factor, but got 0"},
      {"shuffle channels", [&] { F::pixel_shuffle(x, 2); },
       "[pixel_shuffle] pixel_shuffle expects its input's 'channel' dimension to be divisible by "
       "the square of upscale_factor, but input.size(-3)=3 is not divisible by 4"},
      {"unshuffle height", [&] { F::pixel_unshuffle(x, 2); },
       "[pixel_unshuffle] pixel_unshuffle expects width to be divisible by downscale_factor, but "
       "input.size(-1)=5 is not divisible by 2"},
  });
  test::expect_errors<RuntimeError>({
      {"upsample backward empty",
       [&] {
         nn::detail::upsample2d_backward(mk({1, 1, 2, 2}, kFloat32, 1), ResampleOp::Bilinear,
                                         {1, 1, 0, 3}, false, std::nullopt, std::nullopt);
       },
       "[upsample_bilinear2d_backward] Input and output sizes should be greater than 0"},
      {"pad backward reflect",
       [&] {
         nn::detail::pad_backward(mk({1, 9}, kFloat32, 1), PadMode::Reflect, {3, 3}, {1, 3});
       },
       "[pad_backward] padding (3, 3) is invalid for dimension 1 of size 3"},
      {"huge scale",
       [&] {
         F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{1e300}));
       },
       "[interpolate] output size"},
  });
  test::expect_errors<TypeError>({
      {"bilinear int",
       [&] {
         F::interpolate(
             x.to(kInt64),
             F::InterpolateFuncOptions().size(std::vector<int64_t>{8, 8}).mode(kBilinear));
       },
       "[upsample_bilinear2d] \"upsample_bilinear2d_out_frame\" not implemented for 'Long'"},
  });
}

}  // namespace
