// F::interpolate: Python's argument handling (torch/nn/functional.py) and the upsample kernels'
// checks (aten/src/ATen/native/UpSample.cpp), then the Upsample primitive on a 4-D view.
#include "ember/nn/functional/upsampling.h"

#include <cmath>

#include "ember/nn/functional/pooling.h"
#include "ember/ops/shape.h"
#include "nn/conv_internal.h"
#include "ops/util.h"

namespace ember::nn {
namespace {

using ops::shape_str;

std::string list_str(const std::vector<double>& v) {
  std::ostringstream ss;
  ss << "[";
  for (size_t i = 0; i < v.size(); ++i) ss << (i ? ", " : "") << v[i];
  return ss.str() + "]";
}

void check_resample_dtype(const Tensor& t, ResampleOp op, const char* name) {
  const ScalarType dt = t.dtype();
  const bool ok = is_floating_point(dt) || (op == ResampleOp::Nearest && dt == kUInt8);
  EMBER_CHECK_TYPE(
      ok, "[", name, "] \"",
      op == ResampleOp::Nearest ? "upsample_nearest2d_out_frame" : "upsample_bilinear2d_out_frame",
      "\" not implemented for '", scalar_type_name(dt), "' (dtype ", dtype_name(dt), ")");
}

// floor(size * scale), rejecting results outside int64 (a cast there would be undefined).
int64_t scaled_size(int64_t size, double scale) {
  const double v = std::floor(static_cast<double>(size) * scale);
  EMBER_CHECK(std::abs(v) < 9.0e18, "[interpolate] output size ", v, " is too large");
  return static_cast<int64_t>(v);
}

}  // namespace

namespace detail {

Tensor upsample2d(const Tensor& x, ResampleOp op, const std::vector<int64_t>& out_hw,
                  bool align_corners, std::optional<double> scale_h, std::optional<double> scale_w,
                  const char* name) {
  EMBER_CHECK(x.defined() && x.dim() == 4 && out_hw.size() == 2, "[", name,
              "] expected a 4-D input and two output sizes");
  check_resample_dtype(x, op, name);
  EMBER_CHECK(x.size(2) > 0 && x.size(3) > 0 && out_hw[0] > 0 && out_hw[1] > 0, "[", name,
              "] Input and output sizes should be greater than 0, but got input (H: ", x.size(2),
              ", W: ", x.size(3), ") output (H: ", out_hw[0], ", W: ", out_hw[1], ")");
  return dispatch(Upsample(name, op, false, align_corners, scale_h, scale_w, out_hw),
                  {x.contiguous()})[0];
}

Tensor upsample2d_backward(const Tensor& grad_output, ResampleOp op,
                           const std::vector<int64_t>& input_size, bool align_corners,
                           std::optional<double> scale_h, std::optional<double> scale_w) {
  const char* name =
      op == ResampleOp::Nearest ? "upsample_nearest2d_backward" : "upsample_bilinear2d_backward";
  EMBER_CHECK(grad_output.defined() && grad_output.dim() == 4 && input_size.size() == 4 &&
                  grad_output.size(0) == input_size[0] && grad_output.size(1) == input_size[1],
              "[", name, "] expected a 4-D grad_output matching input_size ",
              shape_str(input_size));
  EMBER_CHECK(
      input_size[2] > 0 && input_size[3] > 0 && grad_output.size(2) > 0 && grad_output.size(3) > 0,
      "[", name,
      "] Input and output sizes should be greater than 0, but got input (H: ", input_size[2],
      ", W: ", input_size[3], ") output (H: ", grad_output.size(2), ", W: ", grad_output.size(3),
      ")");
  EMBER_CHECK_TYPE(is_floating_point(grad_output.dtype()), "[", name, "] \"", name,
                   "\" not implemented for '", scalar_type_name(grad_output.dtype()), "' (dtype ",
                   dtype_name(grad_output.dtype()), ")");
  return dispatch(
      Upsample(name, op, true, align_corners, scale_h, scale_w, {input_size[2], input_size[3]}),
      {grad_output.contiguous()})[0];
}

}  // namespace detail

namespace functional {

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& o) {
  const char* op = "interpolate";
  EMBER_CHECK(input.defined(), "[interpolate] argument 'input' is an undefined tensor");
  const char* mode = enumtype::name(o.mode());
  const int64_t dim = input.dim() - 2;
  const bool is_area = std::holds_alternative<enumtype::kArea>(o.mode());
  const bool is_nearest = std::holds_alternative<enumtype::kNearest>(o.mode());
  const bool linear_mode = std::holds_alternative<enumtype::kLinear>(o.mode()) ||
                           std::holds_alternative<enumtype::kBilinear>(o.mode()) ||
                           std::holds_alternative<enumtype::kBicubic>(o.mode()) ||
                           std::holds_alternative<enumtype::kTrilinear>(o.mode());
  EMBER_CHECK_VALUE(!(o.size() && o.scale_factor()),
                    "[interpolate] only one of size or scale_factor should be defined");
  EMBER_CHECK_VALUE(o.size() || o.scale_factor(),
                    "[interpolate] either size or scale_factor should be defined");
  // Tensor::size(d) guards only the spatial dims: a dynamic batch stays symbolic.
  std::vector<int64_t> spatial;
  for (int64_t d = std::min<int64_t>(2, input.dim()); d < input.dim(); ++d) {
    spatial.push_back(input.size(d));
  }
  std::optional<std::vector<int64_t>> out_size;
  std::optional<std::vector<double>> scales;
  if (o.size()) {
    // One value acts as Python's int: the same size for every spatial dim.
    std::vector<int64_t> s = *o.size();
    if (s.size() == 1 && dim != 1) s.assign(std::max<int64_t>(dim, 0), s[0]);
    EMBER_CHECK_VALUE(static_cast<int64_t>(s.size()) == dim,
                      "[interpolate] Input and output must "
                      "have the same number of spatial dimensions, but got input with spatial "
                      "dimensions of ",
                      shape_str(spatial), " and output size of ", shape_str(s),
                      ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                      "size in (o1, o2, ...,oK) format.");
    out_size = s;
    EMBER_CHECK_VALUE(!o.recompute_scale_factor().value_or(false),
                      "[interpolate] "
                      "recompute_scale_factor is not meaningful with an explicit size.");
  } else {
    std::vector<double> s = *o.scale_factor();
    if (s.size() == 1 && dim != 1) s.assign(std::max<int64_t>(dim, 0), s[0]);
    EMBER_CHECK_VALUE(static_cast<int64_t>(s.size()) == dim,
                      "[interpolate] Input and "
                      "scale_factor must have the same number of spatial dimensions, but got "
                      "input with spatial dimensions of ",
                      shape_str(spatial), " and scale_factor of shape ", list_str(s),
                      ". Please provide input tensor "
                      "in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) "
                      "format.");
    for (double v : s) {
      EMBER_CHECK_VALUE(std::isfinite(v), "[interpolate] scale_factor must be finite, but got ", v);
    }
    scales = s;
  }
  EMBER_CHECK_VALUE(!(o.align_corners() && !linear_mode),
                    "[interpolate] align_corners option can "
                    "only be set with the interpolating modes: linear | bilinear | bicubic | "
                    "trilinear");
  const bool align = o.align_corners().value_or(false);
  EMBER_CHECK_VALUE(!o.antialias() || ((std::holds_alternative<enumtype::kBilinear>(o.mode()) ||
                                        std::holds_alternative<enumtype::kBicubic>(o.mode())) &&
                                       input.dim() == 4),
                    "[interpolate] Anti-alias option is restricted to bilinear and bicubic modes "
                    "and requires a 4-D tensor as input");
  EMBER_CHECK_NOT_IMPL(!o.antialias(), "[interpolate] antialias=true is not implemented");
  if (scales && (o.recompute_scale_factor().value_or(false) || is_area)) {
    std::vector<int64_t> s;
    for (int64_t i = 0; i < dim; ++i) {
      s.push_back(scaled_size(spatial[i], (*scales)[i]));
    }
    out_size = s;
    scales.reset();
  }
  if (!out_size) {
    std::vector<int64_t> s;
    for (int64_t i = 0; i < dim; ++i) {
      s.push_back(scaled_size(spatial[i], (*scales)[i]));
    }
    out_size = s;
  }
  const bool linear = std::holds_alternative<enumtype::kLinear>(o.mode());
  const bool bilinear = std::holds_alternative<enumtype::kBilinear>(o.mode());
  if (input.dim() == 3 || input.dim() == 4) {
    EMBER_CHECK_NOT_IMPL(!(bilinear && input.dim() == 3),
                         "[interpolate] Got 3D input, but "
                         "bilinear mode needs 4D input");
    EMBER_CHECK_NOT_IMPL(!(linear && input.dim() == 4),
                         "[interpolate] Got 4D input, but linear "
                         "mode needs 3D input");
    EMBER_CHECK_NOT_IMPL(!std::holds_alternative<enumtype::kTrilinear>(o.mode()),
                         "[interpolate] "
                         "Got ",
                         input.dim(), "D input, but trilinear mode needs 5D input");
  }
  EMBER_CHECK_NOT_IMPL(
      (input.dim() == 3 || input.dim() == 4) && (is_nearest || is_area || linear || bilinear),
      "[interpolate] Input Error: Only 3D, 4D and 5D input Tensors supported (got ", input.dim(),
      "D) for the modes: nearest | linear | bilinear | bicubic | "
      "trilinear | area | nearest-exact (got ",
      mode,
      "); Ember implements "
      "nearest, linear, bilinear and area on 3D and 4D inputs");
  if (is_area) {
    if (dim == 1) return adaptive_avg_pool1d(input, AdaptiveAvgPool1dFuncOptions((*out_size)[0]));
    return adaptive_avg_pool2d(input,
                               AdaptiveAvgPool2dFuncOptions({(*out_size)[0], (*out_size)[1]}));
  }
  const ResampleOp rop = is_nearest ? ResampleOp::Nearest : ResampleOp::Bilinear;
  const char* name = is_nearest ? (dim == 1 ? "upsample_nearest1d" : "upsample_nearest2d")
                                : (dim == 1 ? "upsample_linear1d" : "upsample_bilinear2d");
  (void)op;
  if (dim == 1) {
    std::optional<double> sw = scales ? std::optional<double>((*scales)[0]) : std::nullopt;
    Tensor y = nn::detail::upsample2d(input.unsqueeze(2), rop, {1, (*out_size)[0]}, align,
                                      std::nullopt, sw, name);
    return y.squeeze(2);
  }
  std::optional<double> sh = scales ? std::optional<double>((*scales)[0]) : std::nullopt;
  std::optional<double> sw = scales ? std::optional<double>((*scales)[1]) : std::nullopt;
  return nn::detail::upsample2d(input, rop, *out_size, align, sh, sw, name);
}

}  // namespace functional
}  // namespace ember::nn
