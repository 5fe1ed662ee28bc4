// Pooling functionals: PyTorch's checks and output-shape rules (aten/src/ATen/native/Pool.h,
// AdaptivePooling.h), then 4-D views into the Pooling primitive (src/primitives/pool.h).
#include "ember/nn/functional/pooling.h"

#include "ember/ops/shape.h"
#include "nn/conv_internal.h"
#include "ops/util.h"

namespace ember::nn {
namespace {

using ops::shape_str;

// Floor division (PyTorch's div_rtn).
int64_t div_floor(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// pooling_output_shape with its checks.
int64_t pool_out(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil,
                 const char* op) {
  EMBER_CHECK(stride != 0, "[", op, "] stride should not be zero");
  EMBER_CHECK(pad >= 0, "[", op, "] pad must be non-negative, but got pad: ", pad);
  const int64_t extent = ops::window_extent(k, dil, op);
  EMBER_CHECK(pad <= extent / 2, "[", op,
              "] pad should be at most half of effective kernel size, but got pad=", pad,
              ", kernel_size=", k, " and dilation=", dil);
  // pad <= extent / 2, so the padded size minus the extent cannot overflow once computed.
  const int64_t span = ops::padded_size(in, pad, op) - extent;
  int64_t out =
      div_floor(checked_add(span, ceil ? stride - 1 : 0, op, "the output size"), stride) + 1;
  if (ceil && checked_mul(out - 1, stride, op, "the output size") >= in + pad) --out;
  return out;
}

struct PoolArgs {
  std::vector<int64_t> kernel, stride, padding, dilation;
  bool ceil_mode = false;
};

// 4-D view [N, C, H, W] of a (un)batched D-dim pooling input, after PyTorch's checks; returns
// the output's spatial sizes in `out` (D values).
Tensor pool_input(const Tensor& input, int64_t D, const PoolArgs& a, const char* op,
                  std::vector<int64_t>& out) {
  EMBER_CHECK(input.defined(), "[", op, "] argument 'input' is an undefined tensor");
  for (int64_t k : a.kernel) {
    EMBER_CHECK(k > 0, "[", op, "] kernel size should be greater than zero, but got kernel_size=",
                shape_str(a.kernel));
  }
  for (int64_t s : a.stride) {
    EMBER_CHECK(s != 0, "[", op, "] stride should not be zero");
    EMBER_CHECK(s > 0, "[", op,
                "] stride should be greater than zero, but got stride=", shape_str(a.stride));
  }
  for (int64_t d : a.dilation) {
    EMBER_CHECK(d > 0, "[", op,
                "] dilation should be greater than zero, but got dilation=", shape_str(a.dilation));
  }
  const int64_t nd = input.dim();
  bool ok = nd == D + 1 || nd == D + 2;
  // SymInt sizes: a dynamic dim is compared by its range (Note [Symbolic shapes]).
  for (int64_t i = nd == D + 2 ? 1 : 0; ok && i < nd; ++i) ok = input.sym_size(i) != 0;
  EMBER_CHECK(ok, "[", op, "] Expected ", D + 1, "D or ", D + 2,
              "D (batch mode) tensor with optional 0 dim batch size for input, but got:",
              shape_str(input.sizes()));
  std::vector<int64_t> in;
  for (int64_t i = 0; i < D; ++i) {
    in.push_back(input.size(nd - D + i));
    out.push_back(pool_out(in.back(), a.kernel[i], a.padding[i], a.stride[i], a.dilation[i],
                           a.ceil_mode, op));
  }
  bool positive = true;
  for (int64_t o : out) positive = positive && o >= 1;
  const SymInt planes = input.sym_size(nd - D - 1);
  EMBER_CHECK(positive, "[", op, "] Given input size: (", planes, "x",
              D == 2 ? std::to_string(in[0]) + "x" : std::string(), in.back(),
              "). Calculated output size: (", planes, "x",
              D == 2 ? std::to_string(out[0]) + "x" : std::string(), out.back(),
              "). Output size is too small");
  Tensor x = nd == D + 2 ? input : input.unsqueeze(0);
  if (D == 1) x = x.unsqueeze(2);
  return x.contiguous();
}

// Back from [N, C, Ho, Wo] to the caller's rank.
Tensor pool_output(const Tensor& y, const Tensor& input, int64_t D) {
  Tensor r = D == 1 ? y.squeeze(2) : y;
  return input.dim() == D + 2 ? r : r.squeeze(0);
}

Pool2dParams to_params(const PoolArgs& a) {
  Pool2dParams p;
  const bool one = a.kernel.size() == 1;
  p.kernel_h = one ? 1 : a.kernel[0], p.kernel_w = a.kernel.back();
  p.stride_h = one ? 1 : a.stride[0], p.stride_w = a.stride.back();
  p.pad_h = one ? 0 : a.padding[0], p.pad_w = a.padding.back();
  p.dilation_h = one ? 1 : a.dilation[0], p.dilation_w = a.dilation.back();
  p.ceil_mode = a.ceil_mode;
  return p;
}

// integers: 0 none, 1 int64 only (average pooling), 2 every integer type (max pooling).
void check_dtype(const Tensor& t, const char* op, const char* kernel, int integers) {
  const ScalarType dt = t.dtype();
  const bool int_ok = integers == 2 ? is_integral(dt, false) : (integers == 1 && dt == kInt64);
  EMBER_CHECK_TYPE(is_floating_point(dt) || int_ok, "[", op, "] \"", kernel,
                   "\" not implemented for '", scalar_type_name(dt), "' (dtype ", dtype_name(dt),
                   ")");
}

std::tuple<Tensor, Tensor> max_pool(const Tensor& input, int64_t D, const PoolArgs& a,
                                    const char* op) {
  std::vector<int64_t> out;
  Tensor x = pool_input(input, D, a, op, out);
  check_dtype(x, op, "max_pool2d", 2);
  const auto y = dispatch(Pooling(op, PoolOp::MaxForward, to_params(a)), {x});
  return {pool_output(y[0], input, D), pool_output(y[1], input, D)};
}

Tensor avg_pool(const Tensor& input, int64_t D, const PoolArgs& a, bool count_include_pad,
                std::optional<int64_t> divisor, const char* op) {
  std::vector<int64_t> out;
  Tensor x = pool_input(input, D, a, op, out);
  check_dtype(x, op, op, 1);
  EMBER_CHECK(!divisor || *divisor != 0, "[", op, "] divisor must be not zero");
  Pool2dParams p = to_params(a);
  p.count_include_pad = count_include_pad;
  p.divisor_override = divisor;
  return pool_output(dispatch(Pooling(op, PoolOp::AvgForward, p), {x})[0], input, D);
}

// Adaptive pooling: 4-D view and output sizes (None keeps the input size).
Tensor adaptive_input(const Tensor& input, int64_t D, const std::vector<std::optional<int64_t>>& os,
                      const char* op, std::vector<int64_t>& out) {
  EMBER_CHECK(input.defined(), "[", op, "] argument 'input' is an undefined tensor");
  const int64_t nd = input.dim();
  EMBER_CHECK(nd == D + 1 || nd == D + 2, "[", op, "] ", op, "(): Expected ", D + 1, "D or ", D + 2,
              "D tensor, but got ", shape_str(input.sizes()));
  for (int64_t i = nd == D + 2 ? 1 : 0; i < nd; ++i) {
    EMBER_CHECK(input.sym_size(i) > 0, "[", op, "] ", op,
                "(): Expected input to have non-zero size for non-batch dimensions, but input "
                "has sizes ",
                shape_str(input.sizes()), " with dimension ", i, " being empty");
  }
  for (int64_t i = 0; i < D; ++i) {
    const int64_t v = os[i].value_or(input.size(nd - D + i));
    EMBER_CHECK(v >= 0, "[", op, "] ", op,
                ": elements of output_size must be greater than or equal to 0 but received ", v);
    out.push_back(v);
  }
  Tensor x = nd == D + 2 ? input : input.unsqueeze(0);
  if (D == 1) x = x.unsqueeze(2);
  return x.contiguous();
}

Tensor adaptive_avg(const Tensor& input, int64_t D, const std::vector<std::optional<int64_t>>& os,
                    const char* op) {
  std::vector<int64_t> out;
  Tensor x = adaptive_input(input, D, os, op, out);
  check_dtype(x, op, "adaptive_avg_pool2d", 0);
  const std::vector<int64_t> hw{D == 1 ? 1 : out[0], out.back()};
  return pool_output(dispatch(Pooling(op, PoolOp::AdaptiveAvgForward, {}, hw), {x})[0], input, D);
}

std::tuple<Tensor, Tensor> adaptive_max(const Tensor& input, int64_t D,
                                        const std::vector<std::optional<int64_t>>& os,
                                        const char* op) {
  std::vector<int64_t> out;
  Tensor x = adaptive_input(input, D, os, op, out);
  check_dtype(x, op, "adaptive_max_pool2d", 0);  // floating only, as PyTorch's CPU kernel
  const std::vector<int64_t> hw{D == 1 ? 1 : out[0], out.back()};
  const auto y = dispatch(Pooling(op, PoolOp::AdaptiveMaxForward, {}, hw), {x});
  return {pool_output(y[0], input, D), pool_output(y[1], input, D)};
}

template <size_t D>
PoolArgs max_args(const MaxPoolOptions<D>& o) {
  return {o.kernel_size().vec(), o.stride().vec(), o.padding().vec(), o.dilation().vec(),
          o.ceil_mode()};
}
template <size_t D>
PoolArgs avg_args(const AvgPoolOptions<D>& o) {
  return {o.kernel_size().vec(), o.stride().vec(), o.padding().vec(), std::vector<int64_t>(D, 1),
          o.ceil_mode()};
}

}  // namespace

namespace detail {

namespace {
void check_grad(const Tensor& g, const std::vector<int64_t>& input_size, const char* name) {
  EMBER_CHECK(g.defined() && g.dim() == 4 && input_size.size() == 4, "[", name,
              "] expected a 4-D grad_output and input_size");
  EMBER_CHECK(g.size(0) == input_size[0] && g.size(1) == input_size[1], "[", name, "] grad_output ",
              shape_str(g.sizes()), " does not match input_size ", shape_str(input_size));
  check_dtype(g, name, name, 0);
}
}  // namespace

Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& indices,
                           const std::vector<int64_t>& input_size, const char* name) {
  check_grad(grad_output, input_size, name);
  EMBER_CHECK(
      indices.defined() && indices.dtype() == kInt64 && indices.sizes() == grad_output.sizes(), "[",
      name, "] expected int64 indices of the grad_output's shape");
  return dispatch(Pooling(name, PoolOp::MaxBackward, {}, {input_size[2], input_size[3]}),
                  {grad_output.contiguous(), indices.contiguous()})[0];
}

Tensor avg_pool2d_backward(const Tensor& grad_output, const std::vector<int64_t>& input_size,
                           const Pool2dParams& p) {
  const char* name = "avg_pool2d_backward";
  check_grad(grad_output, input_size, name);
  EMBER_CHECK(p.kernel_h > 0 && p.kernel_w > 0 && p.stride_h > 0 && p.stride_w > 0 &&
                  p.pad_h >= 0 && p.pad_w >= 0 && (!p.divisor_override || *p.divisor_override != 0),
              "[", name, "] invalid pooling parameters: ", p.str());
  return dispatch(Pooling(name, PoolOp::AvgBackward, p, {input_size[2], input_size[3]}),
                  {grad_output.contiguous()})[0];
}

Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output,
                                    const std::vector<int64_t>& input_size) {
  const char* name = "adaptive_avg_pool2d_backward";
  check_grad(grad_output, input_size, name);
  EMBER_CHECK(input_size[2] > 0 && input_size[3] > 0, "[", name, "] empty input planes");
  return dispatch(Pooling(name, PoolOp::AdaptiveAvgBackward, {}, {input_size[2], input_size[3]}),
                  {grad_output.contiguous()})[0];
}

}  // namespace detail

namespace functional {

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& o) {
  return std::get<0>(max_pool(input, 1, max_args(o), "max_pool1d"));
}
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& o) {
  return std::get<0>(max_pool(input, 2, max_args(o), "max_pool2d"));
}
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                   const MaxPool1dFuncOptions& o) {
  return max_pool(input, 1, max_args(o), "max_pool1d_with_indices");
}
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                   const MaxPool2dFuncOptions& o) {
  return max_pool(input, 2, max_args(o), "max_pool2d_with_indices");
}
Tensor max_pool1d(const Tensor& input, ExpandingArray<1> kernel_size,
                  std::optional<ExpandingArray<1>> stride, ExpandingArray<1> padding,
                  ExpandingArray<1> dilation, bool ceil_mode) {
  return max_pool1d(input, MaxPool1dFuncOptions(kernel_size)
                               .stride(stride.value_or(kernel_size))
                               .padding(padding)
                               .dilation(dilation)
                               .ceil_mode(ceil_mode));
}
Tensor max_pool2d(const Tensor& input, ExpandingArray<2> kernel_size,
                  std::optional<ExpandingArray<2>> stride, ExpandingArray<2> padding,
                  ExpandingArray<2> dilation, bool ceil_mode) {
  return max_pool2d(input, MaxPool2dFuncOptions(kernel_size)
                               .stride(stride.value_or(kernel_size))
                               .padding(padding)
                               .dilation(dilation)
                               .ceil_mode(ceil_mode));
}

Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& o) {
  return avg_pool(input, 1, avg_args(o), o.count_include_pad(), std::nullopt, "avg_pool1d");
}
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& o) {
  return avg_pool(input, 2, avg_args(o), o.count_include_pad(), o.divisor_override(), "avg_pool2d");
}
Tensor avg_pool1d(const Tensor& input, ExpandingArray<1> kernel_size,
                  std::optional<ExpandingArray<1>> stride, ExpandingArray<1> padding,
                  bool ceil_mode, bool count_include_pad) {
  return avg_pool1d(input, AvgPool1dFuncOptions(kernel_size)
                               .stride(stride.value_or(kernel_size))
                               .padding(padding)
                               .ceil_mode(ceil_mode)
                               .count_include_pad(count_include_pad));
}
Tensor avg_pool2d(const Tensor& input, ExpandingArray<2> kernel_size,
                  std::optional<ExpandingArray<2>> stride, ExpandingArray<2> padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_pool2d(input, AvgPool2dFuncOptions(kernel_size)
                               .stride(stride.value_or(kernel_size))
                               .padding(padding)
                               .ceil_mode(ceil_mode)
                               .count_include_pad(count_include_pad)
                               .divisor_override(divisor_override));
}

Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& o) {
  return adaptive_avg(input, 1, {o.output_size()[0]}, "adaptive_avg_pool1d");
}
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& o) {
  return adaptive_avg(input, 2, o.output_size().vec(), "adaptive_avg_pool2d");
}
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool1dFuncOptions& o) {
  return adaptive_max(input, 1, {o.output_size()[0]}, "adaptive_max_pool1d");
}
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool2dFuncOptions& o) {
  return adaptive_max(input, 2, o.output_size().vec(), "adaptive_max_pool2d");
}
Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& o) {
  return std::get<0>(adaptive_max_pool1d_with_indices(input, o));
}
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& o) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, o));
}

}  // namespace functional
}  // namespace ember::nn
