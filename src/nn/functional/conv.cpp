// F::conv1d / conv2d / conv_transpose1d / conv_transpose2d / unfold / fold: PyTorch's argument
// checks (aten/src/ATen/native/Convolution.cpp, Im2Col.cpp), then 4-D views into the
// Convolution and SlidingWindow primitives (src/primitives/conv.h).
#include "ember/nn/functional/conv.h"

#include <sstream>

#include "ember/nn/functional/padding.h"
#include "ember/ops/shape.h"
#include "nn/conv_internal.h"
#include "ops/util.h"

namespace ember::nn {
namespace {

using ops::shape_str;

std::string join(const std::vector<int64_t>& v, const char* sep) {
  std::ostringstream ss;
  for (size_t i = 0; i < v.size(); ++i) ss << (i ? sep : "") << v[i];
  return ss.str();
}

void check_floating(const Tensor& t, const char* op, const char* kernel) {
  EMBER_CHECK_TYPE(is_floating_point(t.dtype()), "[", op, "] \"", kernel,
                   "\" not implemented for '", scalar_type_name(t.dtype()), "' (dtype ",
                   dtype_name(t.dtype()), ")");
}

void check_same_dtype(const Tensor& input, const Tensor& other, const char* what, const char* op) {
  EMBER_CHECK(input.dtype() == other.dtype(), "[", op, "] Input type (", dtype_name(input.dtype()),
              ") and ", what, " type (", dtype_name(other.dtype()), ") should be the same");
}

// Convolution hyper-parameters as D-length vectors (D = 1 or 2).
struct ConvArgs {
  std::vector<int64_t> stride, padding, dilation, output_padding;
  int64_t groups = 1;
};

void check_conv_args(const ConvArgs& a, const char* op) {
  for (int64_t s : a.stride) EMBER_CHECK(s > 0, "[", op, "] non-positive stride is not supported");
  for (int64_t p : a.padding) EMBER_CHECK(p >= 0, "[", op, "] negative padding is not supported");
  for (int64_t d : a.dilation) {
    EMBER_CHECK(d > 0, "[", op, "] dilation should be greater than zero");
  }
  for (int64_t p : a.output_padding) {
    EMBER_CHECK(p >= 0, "[", op, "] negative output_padding is not supported");
  }
  EMBER_CHECK(a.groups > 0, "[", op, "] non-positive groups is not supported");
}

// The 4-D primitive parameters of a D-dim convolution (1-D runs as H = 1).
Conv2dParams to_params(const ConvArgs& a) {
  Conv2dParams p;
  const bool one = a.stride.size() == 1;
  p.stride_h = one ? 1 : a.stride[0], p.stride_w = a.stride.back();
  p.pad_h = one ? 0 : a.padding[0], p.pad_w = a.padding.back();
  p.dilation_h = one ? 1 : a.dilation[0], p.dilation_w = a.dilation.back();
  p.groups = a.groups;
  return p;
}

// Batched input (unsqueezing an unbatched one) after the "Expected 3D (unbatched) or 4D
// (batched)" check.
Tensor batchify(const Tensor& input, int64_t D, const char* op, bool& batched) {
  EMBER_CHECK(input.defined(), "[", op, "] argument 'input' is an undefined tensor");
  const int64_t d = input.dim();
  EMBER_CHECK(d == D + 1 || d == D + 2, "[", op, "] Expected ", D + 1, "D (unbatched) or ", D + 2,
              "D (batched) input to ", op, ", but got input of size: ", shape_str(input.sizes()));
  batched = d == D + 2;
  return batched ? input : input.unsqueeze(0);
}

Tensor unbatchify(const Tensor& out, bool batched) { return batched ? out : out.squeeze(0); }

// x [N, C, L] -> [N, C, 1, L] for 1-D ops.
Tensor as4d(const Tensor& t, int64_t D) { return D == 1 ? t.unsqueeze(2) : t; }
Tensor from4d(const Tensor& t, int64_t D) { return D == 1 ? t.squeeze(2) : t; }

void check_weight(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t D,
                  const char* op) {
  EMBER_CHECK(weight.defined(), "[", op, "] argument 'weight' is an undefined tensor");
  check_floating(input, op, "slow_conv2d_cpu");
  check_same_dtype(input, weight, "weight", op);
  EMBER_CHECK(weight.dim() == D + 2, "[", op, "] Expected ", weight.dim(),
              "-dimensional input for ", weight.dim(), "-dimensional weight ",
              shape_str(weight.sizes()), ", but got ", input.dim(), "-dimensional input of size ",
              shape_str(input.sizes()), " instead");
  if (bias.defined()) check_same_dtype(input, bias, "bias", op);
}

// Explicit left paddings for padding='same' (extra right-side padding goes into `extra`, F::pad's
// pair list), or the explicit padding as given.
std::vector<int64_t> resolve_padding(const std::variant<ExpandingArray<1>, ExpandingArray<2>,
                                                        enumtype::kValid, enumtype::kSame>& pad,
                                     const Tensor& weight, const ConvArgs& a, int64_t D,
                                     std::vector<int64_t>& extra, const char* op) {
  if (std::holds_alternative<ExpandingArray<1>>(pad)) return std::get<ExpandingArray<1>>(pad).vec();
  if (std::holds_alternative<ExpandingArray<2>>(pad)) return std::get<ExpandingArray<2>>(pad).vec();
  if (std::holds_alternative<enumtype::kValid>(pad)) return std::vector<int64_t>(D, 0);
  for (int64_t s : a.stride) {
    EMBER_CHECK(s == 1, "[", op, "] padding='same' is not supported for strided convolutions");
  }
  std::vector<int64_t> left(D);
  extra.assign(2 * D, 0);
  for (int64_t i = 0; i < D; ++i) {
    const int64_t total = a.dilation[i] * (weight.size(i + 2) - 1);
    left[i] = total / 2;
    extra[2 * (D - 1 - i) + 1] = total - 2 * left[i];
  }
  return left;
}

template <size_t D>
using AnyPadding = typename functional::ConvFuncOptions<D>::padding_t;

template <size_t D>
std::variant<ExpandingArray<1>, ExpandingArray<2>, enumtype::kValid, enumtype::kSame> widen(
    const AnyPadding<D>& p) {
  return std::visit(
      [](const auto& v)
          -> std::variant<ExpandingArray<1>, ExpandingArray<2>, enumtype::kValid, enumtype::kSame> {
        return v;
      },
      p);
}

Tensor conv_nd(const char* op, int64_t D, const Tensor& input, const Tensor& weight,
               const Tensor& bias, ConvArgs a,
               const std::variant<ExpandingArray<1>, ExpandingArray<2>, enumtype::kValid,
                                  enumtype::kSame>& padding) {
  bool batched = true;
  Tensor x = batchify(input, D, op, batched);
  check_weight(x, weight, bias, D, op);
  std::vector<int64_t> extra;
  a.padding = resolve_padding(padding, weight, a, D, extra, op);
  check_conv_args(a, op);
  const auto& ws = weight.sizes();
  EMBER_CHECK(ws[0] % a.groups == 0, "[", op, "] Given groups=", a.groups,
              ", expected weight to be divisible by ", a.groups,
              " at dimension 0, but got weight of size ", shape_str(ws), " instead");
  EMBER_CHECK(x.size(1) == ws[1] * a.groups, "[", op, "] Given groups=", a.groups,
              ", weight of size ", shape_str(ws), ", expected input", shape_str(x.sizes()),
              " to have ", ws[1] * a.groups, " channels, but got ", x.size(1), " channels instead");
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == ws[0]), "[", op,
              "] Given weight of size ", shape_str(ws), ", expected bias to be 1-dimensional with ",
              ws[0], " elements, but got bias of size ", shape_str(bias.sizes()), " instead");
  for (int64_t v : extra) {
    if (v != 0) {
      x = functional::pad(x, functional::PadFuncOptions(extra));
      break;
    }
  }
  // Only the spatial sizes are read (Tensor::size(d) guards that dim alone): a dynamic batch
  // stays symbolic.
  std::vector<int64_t> padded(D), kernel(D);
  bool too_big = false;
  for (int64_t i = 0; i < D; ++i) {
    padded[i] = ops::padded_size(x.size(i + 2), a.padding[i], op);
    kernel[i] = ops::window_extent(ws[i + 2], a.dilation[i], op);
    too_big = too_big || padded[i] < kernel[i];
  }
  EMBER_CHECK(!too_big, "[", op, "] Calculated padded input size per channel: (",
              join(padded, " x "), "). Kernel size: (", join(kernel, " x "),
              "). Kernel size can't be greater than actual input size");
  Tensor y =
      nn::detail::conv2d_forward(as4d(x, D).contiguous(), as4d(weight, D).contiguous(),
                                 bias.defined() ? bias.contiguous() : bias, to_params(a), op);
  return unbatchify(from4d(y, D), batched);
}

Tensor conv_transpose_nd(const char* op, int64_t D, const Tensor& input, const Tensor& weight,
                         const Tensor& bias, const ConvArgs& a) {
  bool batched = true;
  Tensor x = batchify(input, D, op, batched);
  check_weight(x, weight, bias, D, op);
  check_conv_args(a, op);
  const auto& ws = weight.sizes();
  EMBER_CHECK(ws[0] % a.groups == 0, "[", op, "] Given groups=", a.groups,
              ", expected weight to be divisible by ", a.groups,
              " at dimension 0, but got weight of size ", shape_str(ws), " instead");
  EMBER_CHECK(x.size(1) == ws[0], "[", op, "] Given transposed=1, weight of size ", shape_str(ws),
              ", expected input", shape_str(x.sizes()), " to have ", ws[0], " channels, but got ",
              x.size(1), " channels instead");
  const int64_t out_channels = ws[1] * a.groups;
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == out_channels), "[", op,
              "] Given transposed=1, weight of size ", shape_str(ws),
              ", expected bias to be 1-dimensional with ", out_channels,
              " elements, but got bias of size ", shape_str(bias.sizes()), " instead");
  for (int64_t i = 0; i < D; ++i) {
    const int64_t p = a.output_padding[i];
    EMBER_CHECK(p < a.stride[i] || p < a.dilation[i], "[", op,
                "] output padding must be smaller than either stride or dilation, but got "
                "output_padding=",
                shape_str(a.output_padding), ", stride=", shape_str(a.stride),
                ", dilation=", shape_str(a.dilation));
  }
  std::vector<int64_t> in_size, out_size;
  bool too_small = false;
  for (int64_t i = 0; i < D; ++i) {
    in_size.push_back(x.size(i + 2));
    // (in - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1, checked.
    const int64_t spread = checked_mul(x.size(i + 2) - 1, a.stride[i], op, "the output size");
    const int64_t grown = checked_add(ops::window_extent(ws[i + 2], a.dilation[i], op),
                                      a.output_padding[i], op, "the output size");
    out_size.push_back(
        checked_add(checked_add(spread, -checked_mul(2, a.padding[i], op, "the output size"), op,
                                "the output size"),
                    grown, op, "the output size"));
    too_small = too_small || out_size.back() < 1;
  }
  EMBER_CHECK(!too_small, "[", op, "] Given input size per channel: (", join(in_size, " x "),
              "). Calculated output size per channel: (", join(out_size, " x "),
              "). Output size is too small");
  // The batch passes through (conv2d_backward_input's dispatch reads it from x): its hint
  // stands for a dynamic batch in the checks, as in conv2d.
  std::vector<int64_t> full{x.sym_size(0).hint(), out_channels};
  if (D == 1) full.push_back(1);
  full.insert(full.end(), out_size.begin(), out_size.end());
  Tensor y = nn::detail::conv2d_backward_input(
      as4d(x, D).contiguous(), as4d(weight, D).contiguous(), full, to_params(a), op, bias);
  return unbatchify(from4d(y, D), batched);
}

}  // namespace

namespace detail {

namespace {
void check_4d(const Tensor& t, const char* what, const char* name) {
  EMBER_CHECK(t.defined() && t.dim() == 4, "[", name, "] expected ", what,
              " to be a 4-D tensor, but got ",
              t.defined() ? shape_str(t.sizes()) : std::string("an undefined tensor"));
}

// What the kernels rely on for memory safety: x [N, C, H, W], w [O, C / groups, kH, kW] and
// y [N, O, Ho, Wo] agree, and the hyper-parameters are in range.
void check_geometry(const std::vector<int64_t>& x, const std::vector<int64_t>& w,
                    const std::vector<int64_t>& y, const Conv2dParams& p, const char* name) {
  EMBER_CHECK(p.groups > 0 && p.stride_h > 0 && p.stride_w > 0 && p.dilation_h > 0 &&
                  p.dilation_w > 0 && p.pad_h >= 0 && p.pad_w >= 0,
              "[", name, "] invalid convolution parameters: ", p.str());
  EMBER_CHECK(x[1] % p.groups == 0 && w[0] % p.groups == 0 && w[1] == x[1] / p.groups &&
                  y[0] == x[0] && y[1] == w[0],
              "[", name, "] shapes do not match: input ", shape_str(x), ", weight ", shape_str(w),
              ", output ", shape_str(y), ", groups=", p.groups);
}

// Output blocks of a sliding window over H x W; RuntimeError on parameters the kernels cannot use.
std::pair<int64_t, int64_t> blocks(int64_t H, int64_t W, int64_t kh, int64_t kw,
                                   const Conv2dParams& p, const char* name) {
  EMBER_CHECK(kh > 0 && kw > 0 && p.stride_h > 0 && p.stride_w > 0 && p.dilation_h > 0 &&
                  p.dilation_w > 0 && p.pad_h >= 0 && p.pad_w >= 0,
              "[", name, "] invalid sliding-window parameters");
  const int64_t eh = H + 2 * p.pad_h - p.dilation_h * (kh - 1) - 1;
  const int64_t ew = W + 2 * p.pad_w - p.dilation_w * (kw - 1) - 1;
  EMBER_CHECK(eh >= 0 && ew >= 0, "[", name, "] kernel larger than the padded input");
  return {eh / p.stride_h + 1, ew / p.stride_w + 1};
}

void check_bias(const Tensor& bias, const Tensor& like, int64_t n, const char* name) {
  if (!bias.defined()) return;
  check_same_dtype(like, bias, "bias", name);
  EMBER_CHECK(bias.dim() == 1 && bias.size(0) == n, "[", name, "] expected a bias of ", n,
              " elements, but got bias of size ", shape_str(bias.sizes()));
}
}  // namespace

Tensor conv2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dParams& p,
                      const char* name) {
  check_4d(x, "input", name);
  check_4d(w, "weight", name);
  check_floating(x, name, "slow_conv2d_cpu");
  check_same_dtype(x, w, "weight", name);
  check_bias(bias, x, w.size(0), name);
  EMBER_CHECK(p.stride_h > 0 && p.stride_w > 0, "[", name,
              "] non-positive stride is not supported");
  // The output's N is the input's by construction: a dynamic batch is not specialised for this
  // check, only its example value (hint) shows in a message.
  const std::vector<int64_t> xs{x.sym_size(0).hint(), x.size(1), x.size(2), x.size(3)};
  check_geometry(xs, w.sizes(), {xs[0], w.size(0)}, p, name);   // the output's N, O
  blocks(x.size(2), x.size(3), w.size(2), w.size(3), p, name);  // the kernel fits
  std::vector<Tensor> inputs{x.contiguous(), w.contiguous()};
  if (bias.defined()) inputs.push_back(bias.contiguous());
  return dispatch(Convolution(name, ConvOp::Forward, p), inputs)[0];
}

Tensor conv2d_backward_input(const Tensor& grad_output, const Tensor& weight,
                             const std::vector<int64_t>& input_size, const Conv2dParams& p,
                             const char* name, const Tensor& bias) {
  check_4d(grad_output, "grad_output", name);
  check_4d(weight, "weight", name);
  EMBER_CHECK(input_size.size() == 4, "[", name, "] expected a 4-D input_size");
  check_floating(grad_output, name, "slow_conv2d_cpu");
  check_same_dtype(grad_output, weight, "weight", name);
  // The input's N is grad_output's by construction: a dynamic batch is checked by its hint.
  const std::vector<int64_t> ys{grad_output.sym_size(0).hint(), grad_output.size(1),
                                grad_output.size(2), grad_output.size(3)};
  check_geometry(input_size, weight.sizes(), ys, p, name);
  check_bias(bias, grad_output, input_size[1], name);
  std::vector<Tensor> inputs{grad_output.contiguous(), weight.contiguous()};
  if (bias.defined()) inputs.push_back(bias.contiguous());
  return dispatch(Convolution(name, ConvOp::BackwardInput, p, {input_size[2], input_size[3]}),
                  inputs)[0];
}

Tensor conv2d_backward_weight(const Tensor& grad_output, const Tensor& input,
                              const std::vector<int64_t>& weight_size, const Conv2dParams& p,
                              const char* name) {
  check_4d(grad_output, "grad_output", name);
  check_4d(input, "input", name);
  EMBER_CHECK(weight_size.size() == 4, "[", name, "] expected a 4-D weight_size");
  check_floating(grad_output, name, "slow_conv2d_cpu");
  check_same_dtype(grad_output, input, "input", name);
  check_geometry(input.sizes(), weight_size, grad_output.sizes(), p, name);
  return dispatch(Convolution(name, ConvOp::BackwardWeight, p, {weight_size[2], weight_size[3]}),
                  {grad_output.contiguous(), input.contiguous()})[0];
}

Tensor im2col(const Tensor& x, int64_t kernel_h, int64_t kernel_w, const Conv2dParams& p) {
  check_4d(x, "input", "im2col");
  blocks(x.size(2), x.size(3), kernel_h, kernel_w, p, "im2col");
  return dispatch(SlidingWindow(true, kernel_h, kernel_w, p), {x.contiguous()})[0];
}

Tensor col2im(const Tensor& cols, const std::vector<int64_t>& output_hw, int64_t kernel_h,
              int64_t kernel_w, const Conv2dParams& p) {
  EMBER_CHECK(cols.defined() && cols.dim() == 3 && output_hw.size() == 2,
              "[col2im] expected 3-D "
              "columns and a 2-element output size");
  const auto [bh, bw] = blocks(output_hw[0], output_hw[1], kernel_h, kernel_w, p, "col2im");
  EMBER_CHECK(cols.size(1) % (kernel_h * kernel_w) == 0 && cols.size(2) == bh * bw,
              "[col2im] "
              "columns ",
              shape_str(cols.sizes()), " do not match the sliding blocks");
  return dispatch(SlidingWindow(false, kernel_h, kernel_w, p, output_hw), {cols.contiguous()})[0];
}

}  // namespace detail

namespace functional {

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& o) {
  return conv_nd("conv1d", 1, input, weight, o.bias(),
                 {o.stride().vec(), {}, o.dilation().vec(), {}, o.groups()}, widen<1>(o.padding()));
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& o) {
  return conv_nd("conv2d", 2, input, weight, o.bias(),
                 {o.stride().vec(), {}, o.dilation().vec(), {}, o.groups()}, widen<2>(o.padding()));
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias,
              ExpandingArray<1> stride, const Conv1dFuncOptions::padding_t& padding,
              ExpandingArray<1> dilation, int64_t groups) {
  return conv1d(
      input, weight,
      Conv1dFuncOptions().bias(bias).stride(stride).padding(padding).dilation(dilation).groups(
          groups));
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
              ExpandingArray<2> stride, const Conv2dFuncOptions::padding_t& padding,
              ExpandingArray<2> dilation, int64_t groups) {
  return conv2d(
      input, weight,
      Conv2dFuncOptions().bias(bias).stride(stride).padding(padding).dilation(dilation).groups(
          groups));
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose1dFuncOptions& o) {
  return conv_transpose_nd("conv_transpose1d", 1, input, weight, o.bias(),
                           {o.stride().vec(), o.padding().vec(), o.dilation().vec(),
                            o.output_padding().vec(), o.groups()});
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& o) {
  return conv_transpose_nd("conv_transpose2d", 2, input, weight, o.bias(),
                           {o.stride().vec(), o.padding().vec(), o.dilation().vec(),
                            o.output_padding().vec(), o.groups()});
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        ExpandingArray<2> stride, ExpandingArray<2> padding,
                        ExpandingArray<2> output_padding, int64_t groups,
                        ExpandingArray<2> dilation) {
  return conv_transpose2d(input, weight,
                          ConvTranspose2dFuncOptions()
                              .bias(bias)
                              .stride(stride)
                              .padding(padding)
                              .output_padding(output_padding)
                              .groups(groups)
                              .dilation(dilation));
}

namespace {
void check_window(const char* op, const ExpandingArray<2>& k, const ExpandingArray<2>& d,
                  const ExpandingArray<2>& p, const ExpandingArray<2>& s) {
  EMBER_CHECK(k[0] > 0 && k[1] > 0, "[", op,
              "] kernel size should be greater than zero, but got kernel_height: ", k[0],
              " kernel_width: ", k[1]);
  EMBER_CHECK(s[0] > 0 && s[1] > 0, "[", op,
              "] stride should be greater than zero, but got stride_height: ", s[0],
              " stride_width: ", s[1]);
  EMBER_CHECK(d[0] > 0 && d[1] > 0, "[", op,
              "] dilation should be greater than zero, but got dilation_height: ", d[0],
              " dilation_width: ", d[1]);
  EMBER_CHECK(p[0] >= 0 && p[1] >= 0, "[", op,
              "] padding should be non-negative, but got pad_height: ", p[0], " pad_width: ", p[1]);
}
Conv2dParams window_params(const ExpandingArray<2>& d, const ExpandingArray<2>& p,
                           const ExpandingArray<2>& s) {
  Conv2dParams c;
  c.stride_h = s[0], c.stride_w = s[1], c.pad_h = p[0], c.pad_w = p[1];
  c.dilation_h = d[0], c.dilation_w = d[1];
  return c;
}
}  // namespace

Tensor unfold(const Tensor& input, const UnfoldFuncOptions& o) {
  const char* op = "unfold";
  EMBER_CHECK(input.defined(), "[unfold] argument 'input' is an undefined tensor");
  EMBER_CHECK_NOT_IMPL(input.dim() == 3 || input.dim() == 4,
                       "[unfold] Input Error: Only 3D or 4D "
                       "input Tensors are supported (got ",
                       input.dim(), "D)");
  check_floating(input, op, "im2col");
  const auto &k = o.kernel_size(), &d = o.dilation(), &p = o.padding(), &s = o.stride();
  check_window(op, k, d, p, s);
  const bool batched = input.dim() == 4;
  Tensor x = batched ? input : input.unsqueeze(0);
  // The channels may be a dynamic dim (an unbatched input's dim 0): compared as a SymInt.
  EMBER_CHECK(x.sym_size(1) > 0 && x.size(2) > 0 && x.size(3) > 0,
              "[unfold] Expected 3D or 4D (batch "
              "mode) tensor with possibly 0 batch size and other non-zero dimensions for input, "
              "but got: ",
              shape_str(input.sym_sizes()));
  const int64_t H = x.size(2), W = x.size(3);
  const int64_t Hp = ops::padded_size(H, p[0], op), Wp = ops::padded_size(W, p[1], op);
  const int64_t Hk = ops::window_extent(k[0], d[0], op), Wk = ops::window_extent(k[1], d[1], op);
  const int64_t Ho = (Hp - Hk) / s[0] + 1;
  const int64_t Wo = (Wp - Wk) / s[1] + 1;
  const bool bad = Hp < Hk || Wp < Wk;
  EMBER_CHECK(!bad && Ho >= 1 && Wo >= 1, "[unfold] Given input with spatial size (", H, ", ", W,
              "), kernel_size=(", k[0], ", ", k[1], "), dilation=(", d[0], ", ", d[1],
              "), padding=(", p[0], ", ", p[1],
              "), calculated shape of the array of sliding blocks as (", Ho, ", ", Wo,
              "), but its components must be at least one.");
  Tensor y = nn::detail::im2col(x, k[0], k[1], window_params(d, p, s));
  return batched ? y : y.squeeze(0);
}

Tensor fold(const Tensor& input, const FoldFuncOptions& o) {
  const char* op = "fold";
  EMBER_CHECK(input.defined(), "[fold] argument 'input' is an undefined tensor");
  EMBER_CHECK_NOT_IMPL(input.dim() == 2 || input.dim() == 3,
                       "[fold] Input Error: Only unbatched "
                       "(2D) or batched (3D) input Tensors are supported (got ",
                       input.dim(), "D)");
  check_floating(input, op, "col2im");
  const auto &os = o.output_size(), &k = o.kernel_size(), &d = o.dilation(), &p = o.padding(),
             &s = o.stride();
  check_window(op, k, d, p, s);
  EMBER_CHECK(os[0] > 0 && os[1] > 0,
              "[fold] Expected output spatial size to be positive, but "
              "got: output_size=(",
              os[0], ", ", os[1], ").");
  const bool batched = input.dim() == 3;
  Tensor x = batched ? input : input.unsqueeze(0);
  EMBER_CHECK(x.size(1) > 0 && x.size(2) > 0,
              "[fold] Expected 2D or 3D (batch mode) tensor for "
              "input with possibly 0 batch size and non-zero dimensions for input, but got: ",
              shape_str(input.sizes()));
  EMBER_CHECK(x.size(1) % (k[0] * k[1]) == 0,
              "[fold] Expected size of input's dimension 1 to be "
              "divisible by the product of kernel_size, but got input.size(1)=",
              x.size(1), " and kernel_size=(", k[0], ", ", k[1], ").");
  const int64_t bh = (os[0] + 2 * p[0] - (d[0] * (k[0] - 1) + 1)) / s[0] + 1;
  const int64_t bw = (os[1] + 2 * p[1] - (d[1] * (k[1] - 1) + 1)) / s[1] + 1;
  const bool bad =
      os[0] + 2 * p[0] < d[0] * (k[0] - 1) + 1 || os[1] + 2 * p[1] < d[1] * (k[1] - 1) + 1;
  EMBER_CHECK(!bad && bh >= 1 && bw >= 1 && x.size(2) == bh * bw, "[fold] Given output_size=(",
              os[0], ", ", os[1], "), kernel_size=(", k[0], ", ", k[1], "), dilation=(", d[0], ", ",
              d[1], "), padding=(", p[0], ", ", p[1], "), stride=(", s[0], ", ", s[1],
              "), expected size of input's dimension 2 to match the calculated number of sliding "
              "blocks ",
              bh, " * ", bw, " = ", bh * bw, ", but got input.size(2)=", x.size(2), ".");
  Tensor y = nn::detail::col2im(x, {os[0], os[1]}, k[0], k[1], window_params(d, p, s));
  return batched ? y : y.squeeze(0);
}

}  // namespace functional
}  // namespace ember::nn
