// Convolution, pooling, resampling and padding modules: parameter names and PyTorch's default
// init, forward against plain-loop float64 references, padding modes, output_size, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "ember/ember.h"
#include "nn_ref.h"
#include "opdb.h"

namespace ember {
namespace {

using test::expect_errors;
using test::values;
using test::nn::Arr;

std::string str(const nn::Module& m) {
  std::ostringstream s;
  s << m;
  return s.str();
}

/// Plain-loop grouped 2-d cross-correlation of x (N, C, H, W) with w (O, C / g, kH, kW); the
/// input is read through `at(n, c, h, w)` so that padding modes can remap indices (nullopt: 0).
using Reader = std::function<double(int64_t, int64_t, int64_t, int64_t)>;
std::vector<double> conv2d_ref(const Reader& at, std::vector<int64_t> xs, const Arr& w,
                               const std::vector<double>& bias, std::array<int64_t, 2> stride,
                               std::array<int64_t, 2> pad, std::array<int64_t, 2> dil,
                               int64_t groups, std::vector<int64_t>& out_shape) {
  const int64_t n = xs[0], c = xs[1], h = xs[2], wd = xs[3];
  const int64_t o = w.size(0), cg = w.size(1), kh = w.size(2), kw = w.size(3);
  const int64_t oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) / stride[0] + 1;
  const int64_t ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) / stride[1] + 1;
  out_shape = {n, o, oh, ow};
  std::vector<double> y;
  (void)c;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t oc = 0; oc < o; ++oc) {
      const int64_t g = oc / (o / groups);
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          double s = bias.empty() ? 0 : bias[oc];
          for (int64_t ic = 0; ic < cg; ++ic) {
            for (int64_t p = 0; p < kh; ++p) {
              for (int64_t q = 0; q < kw; ++q) {
                const int64_t hi = i * stride[0] - pad[0] + p * dil[0];
                const int64_t wi = j * stride[1] - pad[1] + q * dil[1];
                s += at(b, g * cg + ic, hi, wi) * w.at({oc, ic, p, q});
              }
            }
          }
          y.push_back(s);
        }
      }
    }
  }
  return y;
}

Reader zero_padded(const Arr& x) {
  return [&x](int64_t n, int64_t c, int64_t h, int64_t w) {
    if (h < 0 || w < 0 || h >= x.size(2) || w >= x.size(3)) return 0.0;
    return x.at({n, c, h, w});
  };
}

double uniform_var(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return s / static_cast<double>(v.size());
}

TEST(NnModulesConv, NamesInitAndPrinting) {
  manual_seed(8);
  nn::Conv2d conv(nn::Conv2dOptions(8, 64, 3).padding(1));
  EXPECT_EQ(conv->state_dict().keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(conv->weight.sizes(), (std::vector<int64_t>{64, 8, 3, 3}));
  // kaiming_uniform_(a = sqrt(5)): U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = 8 * 9.
  const double bound = 1 / std::sqrt(72.0);
  auto wv = values(conv->weight);
  for (double x : wv) EXPECT_LE(std::abs(x), bound);
  EXPECT_NEAR(uniform_var(wv), bound * bound / 3, 0.1 * bound * bound / 3);  // 4608 samples
  for (double x : values(conv->bias)) EXPECT_LE(std::abs(x), bound);
  EXPECT_EQ(str(*conv.ptr()),
            "ember::nn::Conv2d(8, 64, kernel_size=[3, 3], stride=[1, 1], padding=[1, 1])");

  nn::ConvTranspose2d ct(nn::ConvTranspose2dOptions(4, 6, {2, 3}).groups(2).bias(false));
  EXPECT_EQ(ct->state_dict().keys(), (std::vector<std::string>{"weight"}));
  EXPECT_EQ(ct->weight.sizes(), (std::vector<int64_t>{4, 3, 2, 3}));  // (in, out / groups, k)
  const double tb = 1 / std::sqrt(3.0 * 6);                           // fan_in = size(1) * k
  for (double x : values(ct->weight)) EXPECT_LE(std::abs(x), tb);
  EXPECT_EQ(str(*ct.ptr()),
            "ember::nn::ConvTranspose2d(4, 6, kernel_size=[2, 3], stride=[1, 1], groups=2, "
            "bias=false)");
  nn::Conv1d c1(nn::Conv1dOptions(2, 2, 3).padding(ember::kSame).padding_mode(ember::kReflect));
  EXPECT_EQ(c1->weight.sizes(), (std::vector<int64_t>{2, 2, 3}));
  EXPECT_EQ(str(*c1.ptr()),
            "ember::nn::Conv1d(2, 2, kernel_size=[3], stride=[1], padding='same', "
            "padding_mode=reflect)");
  nn::ConvTranspose1d t1(3, 2, 4);
  EXPECT_EQ(t1->weight.sizes(), (std::vector<int64_t>{3, 2, 4}));
}

TEST(NnModulesConv, Conv2dForwardGroupsStrideDilation) {
  nn::Conv2d conv(
      nn::Conv2dOptions(4, 6, {3, 2}).stride({2, 1}).padding({1, 0}).dilation({1, 2}).groups(2));
  conv->to(kFloat64);
  Tensor x = test::make_tensor({2, 4, 5, 6}, kFloat64, -1, 1, 81);
  Arr xa(x), wa(conv->weight);
  std::vector<int64_t> shape;
  auto ref = conv2d_ref(zero_padded(xa), x.sizes(), wa, values(conv->bias), {2, 1}, {1, 0}, {1, 2},
                        2, shape);
  EXPECT_TRUE(test::close(conv(x), shape, ref, 1e-12, 1e-12));
  // Unbatched input.
  Tensor x0 = x.select(0, 0);
  std::vector<int64_t> s0(shape.begin() + 1, shape.end());
  EXPECT_TRUE(test::close(
      conv(x0), s0, std::vector<double>(ref.begin(), ref.begin() + ref.size() / 2), 1e-12, 1e-12));
}

TEST(NnModulesConv, PaddingModes) {
  Tensor x = test::make_tensor({2, 2, 5}, kFloat64, -1, 1, 82);
  Arr xa(x);
  const int64_t len = 5;
  auto mapper = [&](const std::string& mode) -> Reader {
    return [&xa, mode, len](int64_t n, int64_t c, int64_t, int64_t i) {
      if (mode == "circular") {
        i = ((i % len) + len) % len;
      } else if (mode == "reflect") {
        if (i < 0) i = -i;
        if (i >= len) i = 2 * (len - 1) - i;
      } else {
        i = std::min<int64_t>(std::max<int64_t>(i, 0), len - 1);
      }
      return xa.at({n, c, i});
    };
  };
  const std::vector<std::pair<std::string, nn::Conv1dOptions::padding_mode_t>> modes = {
      {"circular", ember::kCircular},
      {"reflect", ember::kReflect},
      {"replicate", ember::kReplicate}};
  for (const auto& [name, mode] : modes) {
    SCOPED_TRACE(name);
    nn::Conv1d conv(nn::Conv1dOptions(2, 3, 3).padding(2).padding_mode(mode));
    conv->to(kFloat64);
    Arr w(conv->weight.unsqueeze(2));
    std::vector<int64_t> shape;
    auto ref = conv2d_ref(mapper(name), {2, 2, 1, 5}, w, values(conv->bias), {1, 1}, {0, 2}, {1, 1},
                          1, shape);
    EXPECT_TRUE(test::close(conv(x), {2, 3, 7}, ref, 1e-12, 1e-12));
  }
  // 'same' with an even kernel pads 1 left, 2 right (PyTorch's split).
  nn::Conv1d same(nn::Conv1dOptions(2, 1, 4).padding(ember::kSame).padding_mode(ember::kReplicate));
  same->to(kFloat64);
  Arr w(same->weight.unsqueeze(2));
  std::vector<int64_t> shape;
  Reader shifted = [&](int64_t n, int64_t c, int64_t h, int64_t i) {
    return mapper("replicate")(n, c, h, i - 1);
  };
  auto ref = conv2d_ref(shifted, {2, 2, 1, 8}, w, values(same->bias), {1, 1}, {0, 0}, {1, 1}, 1,
                        shape);  // input length 8 = 5 + 3 padded positions
  EXPECT_TRUE(test::close(same(x), {2, 1, 5}, ref, 1e-12, 1e-12));
  EXPECT_TRUE(autograd::gradcheck(
      [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{same(in[0])}; },
      {x.clone().requires_grad_()}));
}

TEST(NnModulesConv, ConvTransposeAndOutputSize) {
  nn::ConvTranspose2d ct(nn::ConvTranspose2dOptions(2, 3, 3).stride(2).padding(1));
  ct->to(kFloat64);
  Tensor x = test::make_tensor({1, 2, 3, 3}, kFloat64, -1, 1, 83);
  Arr xa(x), wa(ct->weight);
  auto ref_for = [&](int64_t out) {
    std::vector<double> y(3 * out * out);
    auto b = values(ct->bias);
    for (int64_t o = 0; o < 3; ++o) {
      for (int64_t k = 0; k < out * out; ++k) y[o * out * out + k] = b[o];
    }
    for (int64_t c = 0; c < 2; ++c) {
      for (int64_t i = 0; i < 3; ++i) {
        for (int64_t j = 0; j < 3; ++j) {
          for (int64_t o = 0; o < 3; ++o) {
            for (int64_t p = 0; p < 3; ++p) {
              for (int64_t q = 0; q < 3; ++q) {
                const int64_t h = i * 2 - 1 + p, w = j * 2 - 1 + q;
                if (h < 0 || w < 0 || h >= out || w >= out) continue;
                y[(o * out + h) * out + w] += xa.at({0, c, i, j}) * wa.at({c, o, p, q});
              }
            }
          }
        }
      }
    }
    return y;
  };
  EXPECT_TRUE(test::close(ct(x), {1, 3, 5, 5}, ref_for(5), 1e-12, 1e-12));
  EXPECT_TRUE(test::close(ct->forward(x, std::vector<int64_t>{6, 6}), {1, 3, 6, 6}, ref_for(6),
                          1e-12, 1e-12));
  EXPECT_TRUE(test::close(ct->forward(x, std::vector<int64_t>{1, 3, 6, 6}), {1, 3, 6, 6},
                          ref_for(6), 1e-12, 1e-12));
  expect_errors<ValueError>({
      {"output_size range",
       [&] {
         ct->forward(x, std::vector<int64_t>{8, 8});
       },
       "requested an output size of [8, 8], but valid sizes range from [5, 5] to [6, 6]"},
      {"output_size len", [&] { ct->forward(x, std::vector<int64_t>{6}); }, "[ConvTranspose2d]"},
  });
  nn::ConvTranspose1d t1(nn::ConvTranspose1dOptions(2, 2, 2).stride(2));
  t1->to(kFloat64);
  Tensor x1 = test::make_tensor({1, 2, 3}, kFloat64, -1, 1, 84);
  EXPECT_EQ(t1(x1).sizes(), (std::vector<int64_t>{1, 2, 6}));
  EXPECT_TRUE(autograd::gradcheck(
      [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{t1(in[0])}; },
      {x1.clone().requires_grad_()}));
}

TEST(NnModulesConv, ConvErrors) {
  nn::Conv2d conv(3, 4, 3);
  expect_errors<ValueError>({
      {"kernel 0", [] { nn::Conv2d(3, 4, 0); }, "[Conv2d] kernel_size must be positive"},
      {"groups", [] { nn::Conv2d(nn::Conv2dOptions(3, 4, 3).groups(2)); },
       "[Conv2d] in_channels must be divisible by groups"},
      {"out groups", [] { nn::Conv1d(nn::Conv1dOptions(4, 3, 3).groups(2)); },
       "[Conv1d] out_channels must be divisible by groups"},
      {"groups 0", [] { nn::Conv1d(nn::Conv1dOptions(4, 4, 3).groups(0)); },
       "groups must be a positive integer"},
      {"same strided", [] { nn::Conv2d(nn::Conv2dOptions(3, 4, 3).padding(kSame).stride(2)); },
       "padding='same' is not supported for strided convolutions"},
      {"transpose mode",
       [] {
         nn::ConvTranspose2d(nn::ConvTranspose2dOptions(2, 2, 2).padding_mode(ember::kReflect));
       },
       "Only \"zeros\" padding mode is supported for ConvTranspose2d"},
      {"negative channels", [] { nn::Conv2d(-3, 4, 3); }, "[Conv2d]"},
  });
  expect_errors<RuntimeError>({
      {"channels",
       [&] {
         conv(ones({1, 2, 5, 5}));
       },
       "conv2d"},
      {"rank",
       [&] {
         conv(ones({5, 5}));
       },
       "conv2d"},
  });
}

TEST(NnModulesPool, PoolingModules) {
  Tensor x = test::make_tensor({1, 2, 4, 5}, kFloat64, -2, 2, 91);
  Arr xa(x);
  // MaxPool2d(2): stride 2, floor.
  nn::MaxPool2d mp(2);
  std::vector<double> mref, iref;
  for (int64_t c = 0; c < 2; ++c) {
    for (int64_t i = 0; i < 2; ++i) {
      for (int64_t j = 0; j < 2; ++j) {
        double best = -INFINITY;
        int64_t arg = 0;
        for (int64_t p = 0; p < 2; ++p) {
          for (int64_t q = 0; q < 2; ++q) {
            const double v = xa.at({0, c, 2 * i + p, 2 * j + q});
            if (v > best) {
              best = v;
              arg = (2 * i + p) * 5 + 2 * j + q;
            }
          }
        }
        mref.push_back(best);
        iref.push_back(static_cast<double>(arg));
      }
    }
  }
  EXPECT_TRUE(test::close(mp(x), {1, 2, 2, 2}, mref, 0, 0));
  auto [my, mi] = mp->forward_with_indices(x);
  EXPECT_EQ(values(mi), iref);
  EXPECT_EQ(str(*mp.ptr()),
            "ember::nn::MaxPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], "
            "dilation=[1, 1], ceil_mode=false)");
  EXPECT_TRUE(mp->parameters().empty());

  // AvgPool2d(3, stride 2, padding 1), count_include_pad: divide by 9 always.
  nn::AvgPool2d ap(nn::AvgPool2dOptions(3).stride(2).padding(1));
  std::vector<double> aref;
  for (int64_t c = 0; c < 2; ++c) {
    for (int64_t i = 0; i < 2; ++i) {
      for (int64_t j = 0; j < 3; ++j) {
        double s = 0;
        for (int64_t p = 0; p < 3; ++p) {
          for (int64_t q = 0; q < 3; ++q) {
            const int64_t h = 2 * i - 1 + p, w = 2 * j - 1 + q;
            if (h >= 0 && w >= 0 && h < 4 && w < 5) s += xa.at({0, c, h, w});
          }
        }
        aref.push_back(s / 9);
      }
    }
  }
  EXPECT_TRUE(test::close(ap(x), {1, 2, 2, 3}, aref, 1e-12, 1e-12));

  // Adaptive average to (2, None): rows [0, 2) and [2, 4), columns kept.
  nn::AdaptiveAvgPool2d aap(nn::AdaptiveAvgPool2dOptions({2, std::nullopt}));
  std::vector<double> aaref;
  for (int64_t c = 0; c < 2; ++c) {
    for (int64_t i = 0; i < 2; ++i) {
      for (int64_t j = 0; j < 5; ++j) {
        aaref.push_back((xa.at({0, c, 2 * i, j}) + xa.at({0, c, 2 * i + 1, j})) / 2);
      }
    }
  }
  EXPECT_TRUE(test::close(aap(x), {1, 2, 2, 5}, aaref, 1e-12, 1e-12));
  EXPECT_EQ(str(*aap.ptr()), "ember::nn::AdaptiveAvgPool2d(output_size=[2, None])");
  // Adaptive max to 1x1 is the global maximum per channel.
  nn::AdaptiveMaxPool2d amp(1);
  std::vector<double> gmax(2, -INFINITY);
  for (int64_t i = 0; i < 40; ++i) gmax[i / 20] = std::max(gmax[i / 20], xa.v[i]);
  EXPECT_TRUE(test::close(amp(x), {1, 2, 1, 1}, gmax, 0, 0));
  EXPECT_EQ(std::get<1>(amp->forward_with_indices(x)).dtype(), kInt64);

  // 1-d variants.
  Tensor s = test::from_values({1, 1, 6}, {1, 5, 2, 8, 3, 0});
  EXPECT_TRUE(
      test::close(nn::MaxPool1d(nn::MaxPool1dOptions(3).stride(2))(s), {1, 1, 2}, {5, 8}, 0, 0));
  EXPECT_TRUE(test::close(nn::AvgPool1d(2)(s), {1, 1, 3}, {3, 5, 1.5}, 1e-12, 1e-12));
  EXPECT_TRUE(
      test::close(nn::AdaptiveAvgPool1d(2)(s), {1, 1, 2}, {8.0 / 3, 11.0 / 3}, 1e-12, 1e-12));
  EXPECT_TRUE(test::close(nn::AdaptiveMaxPool1d(3)(s), {1, 1, 3}, {5, 8, 3}, 0, 0));

  expect_errors<ValueError>({
      {"kernel 0", [] { nn::MaxPool2d(0); }, "[MaxPool2d] kernel_size must be greater than zero"},
      {"pad", [] { nn::AvgPool1d(nn::AvgPool1dOptions(2).padding(2)); },
       "[AvgPool1d] pad should be at most half of effective kernel size"},
      {"stride 0", [] { nn::MaxPool1d(nn::MaxPool1dOptions(2).stride(0)); }, "[MaxPool1d]"},
  });
  expect_errors<RuntimeError>({{"rank", [&] { mp(ones({4})); }, "max_pool2d"}});
}

TEST(NnModulesPool, UpsampleFoldShufflePad) {
  Tensor x = test::make_tensor({1, 2, 2, 3}, kFloat64, -2, 2, 92);
  Arr xa(x);
  nn::Upsample up(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}));
  std::vector<double> uref;
  for (int64_t c = 0; c < 2; ++c) {
    for (int64_t i = 0; i < 4; ++i) {
      for (int64_t j = 0; j < 6; ++j) uref.push_back(xa.at({0, c, i / 2, j / 2}));
    }
  }
  EXPECT_TRUE(test::close(up(x), {1, 2, 4, 6}, uref, 0, 0));
  EXPECT_EQ(str(*up.ptr()), "ember::nn::Upsample(scale_factor=[2, 2], mode='nearest')");
  // Bilinear with align_corners to size (3, 5): the midpoints are averages of neighbours.
  nn::Upsample bil(nn::UpsampleOptions()
                       .size(std::vector<int64_t>{3, 5})
                       .mode(ember::kBilinear)
                       .align_corners(true));
  std::vector<double> bref;
  for (int64_t c = 0; c < 2; ++c) {
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < 5; ++j) {
        const double h = i * 0.5, w = j * 0.5;
        const int64_t h0 = static_cast<int64_t>(h), w0 = static_cast<int64_t>(w);
        const int64_t h1 = std::min<int64_t>(h0 + 1, 1), w1 = std::min<int64_t>(w0 + 1, 2);
        const double fh = h - h0, fw = w - w0;
        bref.push_back((1 - fh) * ((1 - fw) * xa.at({0, c, h0, w0}) + fw * xa.at({0, c, h0, w1})) +
                       fh * ((1 - fw) * xa.at({0, c, h1, w0}) + fw * xa.at({0, c, h1, w1})));
      }
    }
  }
  EXPECT_TRUE(test::close(bil(x), {1, 2, 3, 5}, bref, 1e-12, 1e-12));

  // Unfold 2x2 windows (stride 1): columns are windows, rows (c, p, q).
  Tensor u = nn::Unfold(2)(x);
  std::vector<double> fref;
  for (int64_t c = 0; c < 2; ++c) {
    for (int64_t p = 0; p < 2; ++p) {
      for (int64_t q = 0; q < 2; ++q) {
        for (int64_t j = 0; j < 2; ++j) fref.push_back(xa.at({0, c, p, j + q}));
      }
    }
  }
  EXPECT_TRUE(test::close(u, {1, 8, 2}, fref, 0, 0));
  // Fold sums overlaps: fold(unfold(ones)) counts the windows covering each pixel.
  Tensor cnt =
      nn::Fold(nn::FoldOptions({2, 3}, {2, 2}))(nn::Unfold(2)(ones({1, 1, 2, 3}, kFloat64)));
  EXPECT_TRUE(test::close(cnt, {1, 1, 2, 3}, {1, 2, 1, 1, 2, 1}, 0, 0));

  // PixelShuffle(2): out[c, 2h + i, 2w + j] = in[c * 4 + i * 2 + j, h, w]; Unshuffle inverts.
  Tensor ps_in = test::make_tensor({1, 8, 2, 2}, kFloat64, -1, 1, 93);
  Arr pa(ps_in);
  std::vector<double> pref;
  for (int64_t c = 0; c < 2; ++c) {
    for (int64_t y = 0; y < 4; ++y) {
      for (int64_t z = 0; z < 4; ++z) {
        pref.push_back(pa.at({0, c * 4 + (y % 2) * 2 + z % 2, y / 2, z / 2}));
      }
    }
  }
  Tensor shuffled = nn::PixelShuffle(2)(ps_in);
  EXPECT_TRUE(test::close(shuffled, {1, 2, 4, 4}, pref, 0, 0));
  EXPECT_TRUE(nn::PixelUnshuffle(2)(shuffled).equal(ps_in));

  // Padding modules.
  Tensor r = test::from_values({1, 1, 4}, {1, 2, 3, 4});
  EXPECT_TRUE(test::close(nn::ReflectionPad1d(2)(r), {1, 1, 8}, {3, 2, 1, 2, 3, 4, 3, 2}, 0, 0));
  EXPECT_TRUE(test::close(nn::ReplicationPad1d(nn::ReplicationPad1dOptions({1, 2}))(r), {1, 1, 7},
                          {1, 1, 2, 3, 4, 4, 4}, 0, 0));
  EXPECT_TRUE(test::close(nn::ConstantPad1d(nn::ConstantPad1dOptions({1, 0}, 3.5))(r), {1, 1, 5},
                          {3.5, 1, 2, 3, 4}, 0, 0));
  Tensor q = test::from_values({1, 2, 2}, {1, 2, 3, 4});
  EXPECT_TRUE(test::close(nn::ZeroPad2d(nn::ZeroPad2dOptions({1, 0, 0, 1}))(q), {1, 3, 3},
                          {0, 1, 2, 0, 3, 4, 0, 0, 0}, 0, 0));
  EXPECT_TRUE(test::close(nn::ReflectionPad2d(nn::ReflectionPad2dOptions({1, 1, 1, 0}))(q),
                          {1, 3, 4}, {4, 3, 4, 3, 2, 1, 2, 1, 4, 3, 4, 3}, 0, 0));
  EXPECT_TRUE(test::close(nn::ReplicationPad2d(nn::ReplicationPad2dOptions({0, 1, 1, 0}))(q),
                          {1, 3, 3}, {1, 2, 2, 1, 2, 2, 3, 4, 4}, 0, 0));
  EXPECT_EQ(str(*nn::ReflectionPad2d(1).ptr()), "ember::nn::ReflectionPad2d(padding=[1, 1, 1, 1])");
  expect_errors<ValueError>(
      {{"negative reflect", [] { nn::ReflectionPad1d(-1); }, "[ReflectionPad1d]"}});
}

// pytorch/examples' cpp/mnist network in the libtorch spelling: registration names, state_dict
// keys as PyTorch, train/eval reaching the dropout and batch-norm children.
struct MnistNetImpl : nn::Module {
  MnistNetImpl()
      : conv1(nn::Conv2dOptions(1, 4, /*kernel_size=*/5)),
        conv2(nn::Conv2dOptions(4, 8, /*kernel_size=*/5)),
        fc1(8 * 4 * 4, 16),
        fc2(16, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv2_drop", conv2_drop);
    register_module("bn", bn);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  Tensor forward(Tensor x) {
    namespace F = nn::functional;
    x = F::relu(F::max_pool2d(conv1->forward(x), F::MaxPool2dFuncOptions(2)));
    x = F::relu(F::max_pool2d(conv2_drop->forward(bn->forward(conv2->forward(x))),
                              F::MaxPool2dFuncOptions(2)));
    x = x.view({-1, 8 * 4 * 4});
    x = F::relu(fc1->forward(x));
    x = F::dropout(x, F::DropoutFuncOptions().p(0.5).training(is_training()));
    return F::log_softmax(fc2->forward(x), /*dim=*/1);
  }
  nn::Conv2d conv1, conv2;
  nn::Dropout2d conv2_drop;
  nn::BatchNorm2d bn{8};
  nn::Linear fc1, fc2;
};
EMBER_MODULE(MnistNet);

TEST(NnModulesConv, MnistStyleNet) {
  manual_seed(9);
  MnistNet net;
  EXPECT_EQ(net->state_dict().keys(),
            (std::vector<std::string>{"conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias",
                                      "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var",
                                      "bn.num_batches_tracked", "fc1.weight", "fc1.bias",
                                      "fc2.weight", "fc2.bias"}));
  Tensor x = randn({2, 1, 28, 28});
  Tensor y = net->forward(x);
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{2, 10}));
  y.sum().backward();
  EXPECT_TRUE(net->conv1->weight.grad().defined());
  EXPECT_EQ(net->bn->num_batches_tracked.item<int64_t>(), 1);
  net->eval();
  EXPECT_FALSE(net->conv2_drop->is_training());
  NoGradGuard g;
  Tensor a = net->forward(x), b = net->forward(x);
  EXPECT_TRUE(a.equal(b));  // deterministic in eval mode
  EXPECT_EQ(net->bn->num_batches_tracked.item<int64_t>(), 1);
}

}  // namespace
}  // namespace ember
