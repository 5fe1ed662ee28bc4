// Normalization functions: layer_norm and rms_norm through fused primitives, the others as
// composites; 16-bit inputs compute in float32 and round once.
// Note [Batch norm running stats]: in training, running_mean and running_var are updated in
// place: running = (1 - momentum) * running + momentum * stat, where the variance statistic is
// the unbiased one (n / (n - 1) times the biased variance used to normalise), as PyTorch.
#include "ember/nn/functional/normalization.h"

#include <cmath>
#include <limits>

#include "dispatch/dispatch.h"
#include "ember/autograd.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "nn/functional/common.h"
#include "primitives/norm.h"

namespace ember::nn::functional {
namespace {

using nn::detail::check_floating;
using nn::detail::from_opmath;
using nn::detail::to_opmath;

void check_normalized_shape(const Tensor& input, const std::vector<int64_t>& ns, const char* op) {
  EMBER_CHECK(!ns.empty(), "[", op,
              "] Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
              "least one element, but got normalized_shape = []");
  bool ok = input.dim() >= static_cast<int64_t>(ns.size());
  for (size_t i = 0; ok && i < ns.size(); ++i) {
    ok = input.size(input.dim() - ns.size() + i) == ns[i];
  }
  EMBER_CHECK(ok, "[", op, "] Given normalized_shape=", ops::shape_str(ns),
              ", expected input with shape [*, ",
              ops::shape_str(ns).substr(1, ops::shape_str(ns).size() - 2),
              "], but got input of size", ops::shape_str(input.sizes()));
}

void check_affine(const Tensor& t, const std::vector<int64_t>& ns, const char* what,
                  const char* op) {
  if (!t.defined()) return;
  EMBER_CHECK(t.sizes() == ns, "[", op, "] Expected ", what,
              " to be of same shape as normalized_shape, but got ", what, " of shape ",
              ops::shape_str(t.sizes()), " and normalized_shape = ", ops::shape_str(ns));
}

/// [C] -> [1, C, 1, ...] for an input of `ndim` dims.
Tensor channel_view(const Tensor& t, int64_t ndim) {
  std::vector<int64_t> shape(ndim, 1);
  shape[1] = t.numel();
  return t.reshape(shape);
}

void check_channels(const Tensor& t, int64_t c, const char* what, const char* op) {
  if (!t.defined()) return;
  EMBER_CHECK(t.numel() == c, "[", op, "] Expected ", what, " to have ", c,
              " elements (one per channel), but got ", what, " of shape ",
              ops::shape_str(t.sizes()));
}

// layer_norm / rms_norm through their fused primitives (primitives/norm.h): x contiguous, the
// affine parameters in the compute dtype (float32 for 16-bit inputs, as PyTorch computes them).
template <typename Norm>
Tensor fused_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                  const Tensor& weight, const Tensor& bias, double eps) {
  const ScalarType acc = norm_acc_dtype(input.dtype());
  NormParams p{static_cast<int64_t>(normalized_shape.size()), eps, weight.defined(),
               bias.defined()};
  std::vector<Tensor> in{input.contiguous()};
  if (weight.defined()) in.push_back(weight.to(acc).contiguous());
  if (bias.defined()) in.push_back(bias.to(acc).contiguous());
  return dispatch(Norm(p), in)[0];
}

}  // namespace

Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& o) {
  return layer_norm(input, o.normalized_shape(), o.weight(), o.bias(), o.eps());
}

Tensor layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                  const Tensor& weight, const Tensor& bias, double eps) {
  check_floating(input, "layer_norm", "LayerNormKernelImpl");
  check_normalized_shape(input, normalized_shape, "layer_norm");
  check_affine(weight, normalized_shape, "weight", "layer_norm");
  check_affine(bias, normalized_shape, "bias", "layer_norm");
  return fused_norm<ember::LayerNorm>(input, normalized_shape, weight, bias, eps);
}

Tensor rms_norm(const Tensor& input, const RMSNormFuncOptions& o) {
  return rms_norm(input, o.normalized_shape(), o.weight(), o.eps());
}

Tensor rms_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                const Tensor& weight, std::optional<double> eps) {
  check_floating(input, "rms_norm");
  check_normalized_shape(input, normalized_shape, "rms_norm");
  check_affine(weight, normalized_shape, "weight", "rms_norm");
  double e = eps.value_or(0);
  if (!eps.has_value()) {  // torch.finfo(input.dtype).eps
    switch (input.dtype()) {
      case kFloat16:
        e = 0.0009765625;
        break;
      case kBFloat16:
        e = 0.0078125;
        break;
      case kFloat32:
        e = std::numeric_limits<float>::epsilon();
        break;
      default:
        e = std::numeric_limits<double>::epsilon();
        break;
    }
  }
  return fused_norm<ember::RmsNorm>(input, normalized_shape, weight, Tensor(), e);
}

Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& o) {
  return group_norm(input, o.num_groups(), o.weight(), o.bias(), o.eps());
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias,
                  double eps) {
  check_floating(input, "group_norm", "GroupNormKernelImpl");
  EMBER_CHECK(input.dim() >= 2,
              "[group_norm] Expected at least 2 dimensions for input tensor but received ",
              input.dim());
  // The batch as a SymInt: a dynamic one stays symbolic (Note [Symbolic shapes]).
  const SymInt n = input.sym_size(0);
  const int64_t c = input.size(1);
  EMBER_CHECK(num_groups > 0 && c % num_groups == 0,
              "[group_norm] Expected number of channels in input to be divisible by num_groups, "
              "but got input of shape ",
              ops::shape_str(input.sizes()), " and num_groups=", num_groups);
  check_channels(weight, c, "weight", "group_norm");
  check_channels(bias, c, "bias", "group_norm");
  Tensor x = to_opmath(input);
  Tensor g = x.reshape({n, num_groups, -1});
  auto [var, mean] = ember::var_mean(g, {2}, /*correction=*/0, /*keepdim=*/true);
  Tensor y = ((g - mean) * (var + eps).rsqrt()).reshape(x.sym_sizes());
  if (weight.defined()) y = y * channel_view(to_opmath(weight), x.dim());
  if (bias.defined()) y = y + channel_view(to_opmath(bias), x.dim());
  return from_opmath(y, input.dtype());
}

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& o) {
  return batch_norm(input, running_mean, running_var, o.weight(), o.bias(), o.training(),
                    o.momentum(), o.eps());
}

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum,
                  double eps) {
  check_floating(input, "batch_norm", "batch_norm");
  EMBER_CHECK(input.dim() >= 2, "[batch_norm] Expected 2D or higher input (got ", input.dim(),
              "D input)");
  const int64_t c = input.size(1);
  check_channels(running_mean, c, "running_mean", "batch_norm");
  check_channels(running_var, c, "running_var", "batch_norm");
  check_channels(weight, c, "weight", "batch_norm");
  check_channels(bias, c, "bias", "batch_norm");
  Tensor x = to_opmath(input);
  std::vector<int64_t> dims = {0};
  for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
  Tensor mean, var;
  if (training) {
    const int64_t count = c == 0 ? 0 : input.numel() / c;
    EMBER_CHECK(
        count > 1,
        "[batch_norm] Expected more than 1 value per channel when training, got input size ",
        ops::shape_str(input.sizes()));
    auto vm = ember::var_mean(x, dims, /*correction=*/0, /*keepdim=*/false);
    var = std::get<0>(vm);
    mean = std::get<1>(vm);
    // Note [Batch norm running stats]
    NoGradGuard no_grad;  // the buffers are updated outside the graph
    if (running_mean.defined()) {
      Tensor rm = running_mean;
      rm.copy_(to_opmath(running_mean) * (1 - momentum) + mean * momentum);
    }
    if (running_var.defined()) {
      Tensor rv = running_var;
      const double unbias = static_cast<double>(count) / static_cast<double>(count - 1);
      rv.copy_(to_opmath(running_var) * (1 - momentum) + var * (momentum * unbias));
    }
  } else {
    EMBER_CHECK(running_mean.defined() && running_var.defined(),
                "[batch_norm] running_mean and running_var must be defined in evaluation mode");
    mean = to_opmath(running_mean);
    var = to_opmath(running_var);
  }
  Tensor y = (x - channel_view(mean, x.dim())) * channel_view((var + eps).rsqrt(), x.dim());
  if (weight.defined()) y = y * channel_view(to_opmath(weight), x.dim());
  if (bias.defined()) y = y + channel_view(to_opmath(bias), x.dim());
  return from_opmath(y, input.dtype());
}

Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& o) {
  check_floating(input, "instance_norm", "batch_norm");
  EMBER_CHECK(input.dim() >= 2, "[instance_norm] Expected 2D or higher input (got ", input.dim(),
              "D input)");
  const int64_t n = input.size(0), c = input.size(1);
  check_channels(o.running_mean(), c, "running_mean", "instance_norm");
  check_channels(o.running_var(), c, "running_var", "instance_norm");
  check_channels(o.weight(), c, "weight", "instance_norm");
  check_channels(o.bias(), c, "bias", "instance_norm");
  Tensor x = to_opmath(input);
  std::vector<int64_t> dims;
  for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
  Tensor mean, var;  // shape [N, C, 1, ...]
  if (o.use_input_stats()) {
    const int64_t spatial = n * c == 0 ? 0 : input.numel() / (n * c);
    EMBER_CHECK(
        spatial > 1,
        "[instance_norm] Expected more than 1 spatial element when training, got input size ",
        ops::shape_str(input.sizes()));
    auto vm = ember::var_mean(x, dims, /*correction=*/0, /*keepdim=*/true);
    var = std::get<0>(vm);
    mean = std::get<1>(vm);
    const double m = o.momentum();
    // Running statistics: the batch average of the per-instance statistics (unbiased variance).
    NoGradGuard no_grad;  // the buffers are updated outside the graph
    if (o.running_mean().defined()) {
      Tensor rm = o.running_mean();
      rm.copy_(to_opmath(rm) * (1 - m) + mean.reshape({n, c}).mean({0}) * m);
    }
    if (o.running_var().defined()) {
      Tensor rv = o.running_var();
      const double unbias = static_cast<double>(spatial) / static_cast<double>(spatial - 1);
      rv.copy_(to_opmath(rv) * (1 - m) + var.reshape({n, c}).mean({0}) * (m * unbias));
    }
  } else {
    EMBER_CHECK(o.running_mean().defined() && o.running_var().defined(),
                "[instance_norm] Expected running_mean and running_var to be defined when "
                "use_input_stats is false");
    mean = channel_view(to_opmath(o.running_mean()), x.dim());
    var = channel_view(to_opmath(o.running_var()), x.dim());
  }
  Tensor y = (x - mean) * (var + o.eps()).rsqrt();
  if (o.weight().defined()) y = y * channel_view(to_opmath(o.weight()), x.dim());
  if (o.bias().defined()) y = y + channel_view(to_opmath(o.bias()), x.dim());
  return from_opmath(y, input.dtype());
}

Tensor normalize(const Tensor& input, NormalizeFuncOptions o) {
  check_floating(input, "normalize", "norm");
  Tensor x = to_opmath(input);
  Tensor norm = ember::norm(x, o.p(), {o.dim()}, /*keepdim=*/true);
  return from_opmath(x / norm.clamp_min(o.eps()), input.dtype());
}

}  // namespace ember::nn::functional
