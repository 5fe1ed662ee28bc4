// Normalization modules over nn::functional, with PyTorch's _NormBase / _BatchNorm /
// _InstanceNorm logic for the running statistics.
#include "ember/nn/modules/normalization.h"

#include <ostream>

#include "ember/ember.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/init.h"
#include "ops/util.h"

namespace ember::nn {

namespace F = functional;

namespace {
void print_shape(std::ostream& s, const std::vector<int64_t>& shape) {
  s << "[";
  for (size_t i = 0; i < shape.size(); ++i) s << (i ? ", " : "") << shape[i];
  s << "]";
}

void check_shape(const std::vector<int64_t>& shape, const char* op) {
  for (int64_t d : shape) {
    EMBER_CHECK_VALUE(d >= 0, "[", op, "] normalized_shape must be non-negative, got ",
                      ops::shape_str(shape));
  }
}
}  // namespace

template <typename Options>
NormImplBase<Options>::NormImplBase(const Options& o, std::string name)
    : Module(std::move(name)), options(o) {
  reset();
}

template <typename Options>
void NormImplBase<Options>::reset() {
  const int64_t c = options.num_features();
  EMBER_CHECK_VALUE(c >= 0, "[", this->name().substr(11),
                    "] num_features must be non-negative, got ", c);
  if (options.affine()) {
    weight = register_parameter("weight", empty({c}, kFloat32));
    bias = register_parameter("bias", empty({c}, kFloat32));
  } else {
    weight = register_parameter("weight", Tensor(), /*requires_grad=*/false);
    bias = register_parameter("bias", Tensor(), /*requires_grad=*/false);
  }
  if (options.track_running_stats()) {
    running_mean = register_buffer("running_mean", zeros({c}, kFloat32));
    running_var = register_buffer("running_var", ones({c}, kFloat32));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, kInt64));
  } else {
    running_mean = register_buffer("running_mean", Tensor());
    running_var = register_buffer("running_var", Tensor());
    num_batches_tracked = register_buffer("num_batches_tracked", Tensor());
  }
  reset_parameters();
}

template <typename Options>
void NormImplBase<Options>::reset_running_stats() {
  if (!options.track_running_stats()) return;
  NoGradGuard g;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

template <typename Options>
void NormImplBase<Options>::reset_parameters() {
  reset_running_stats();
  if (options.affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

template class NormImplBase<BatchNormOptions>;
template class NormImplBase<InstanceNormOptions>;

BatchNormImplBase::BatchNormImplBase(const BatchNormOptions& o, int64_t dims)
    : NormImplBase(o, "ember::nn::BatchNorm" + std::to_string(dims) + "d"), dims_(dims) {}

Tensor BatchNormImplBase::forward(const Tensor& input) {
  const std::string op = name().substr(11);
  EMBER_CHECK(input.defined(), "[", op, "] expected a defined input tensor");
  if (dims_ == 1) {
    EMBER_CHECK_VALUE(input.dim() == 2 || input.dim() == 3, "[", op,
                      "] expected 2D or 3D input (got ", input.dim(), "D input)");
  } else {
    EMBER_CHECK_VALUE(input.dim() == dims_ + 2, "[", op, "] expected ", dims_ + 2, "D input (got ",
                      input.dim(), "D input)");
  }
  EMBER_CHECK(input.size(1) == options.num_features(), "[", op, "] expected input with ",
              options.num_features(), " channels (num_features) at dim 1, got input of shape ",
              ops::shape_str(input.sizes()));
  // PyTorch's _BatchNorm.forward: momentum None means a cumulative average.
  double factor = options.momentum().value_or(0.0);
  if (is_training() && options.track_running_stats()) {
    NoGradGuard g;
    num_batches_tracked.add_(1);
    factor = options.momentum().has_value()
                 ? *options.momentum()
                 : 1.0 / static_cast<double>(num_batches_tracked.item<int64_t>());
  }
  const bool use_batch_stats = is_training() || (!running_mean.defined() && !running_var.defined());
  const bool pass_stats = !is_training() || options.track_running_stats();
  return F::batch_norm(input, pass_stats ? running_mean : Tensor(),
                       pass_stats ? running_var : Tensor(), weight, bias, use_batch_stats, factor,
                       options.eps());
}

void BatchNormImplBase::pretty_print(std::ostream& s) const {
  s << std::boolalpha << name() << "(" << options.num_features() << ", eps=" << options.eps()
    << ", momentum=";
  if (options.momentum().has_value()) {
    s << *options.momentum();
  } else {
    s << "None";
  }
  s << ", affine=" << options.affine() << ", track_running_stats=" << options.track_running_stats()
    << ")";
}

InstanceNormImplBase::InstanceNormImplBase(const InstanceNormOptions& o, int64_t dims)
    : NormImplBase(o, "ember::nn::InstanceNorm" + std::to_string(dims) + "d"), dims_(dims) {}

Tensor InstanceNormImplBase::forward(const Tensor& input) {
  const std::string op = name().substr(11);
  EMBER_CHECK(input.defined(), "[", op, "] expected a defined input tensor");
  EMBER_CHECK_VALUE(input.dim() == dims_ + 1 || input.dim() == dims_ + 2, "[", op, "] expected ",
                    dims_ + 1, "D (unbatched) or ", dims_ + 2, "D (batched) input (got ",
                    input.dim(), "D input)");
  const int64_t feature_dim = input.dim() - (dims_ + 1);
  // PyTorch raises only with affine (otherwise it warns, and F fails on the running stats).
  EMBER_CHECK_VALUE(!options.affine() || input.size(feature_dim) == options.num_features(), "[", op,
                    "] expected input's size at dim=", feature_dim, " to match num_features (",
                    options.num_features(), "), but got: ", input.size(feature_dim), ".");
  if (input.dim() == dims_ + 1) return forward(input.unsqueeze(0)).squeeze(0);
  return F::instance_norm(input,
                          F::InstanceNormFuncOptions()
                              .running_mean(running_mean)
                              .running_var(running_var)
                              .weight(weight)
                              .bias(bias)
                              .use_input_stats(is_training() || !options.track_running_stats())
                              .momentum(options.momentum())
                              .eps(options.eps()));
}

void InstanceNormImplBase::pretty_print(std::ostream& s) const {
  s << std::boolalpha << name() << "(" << options.num_features() << ", eps=" << options.eps()
    << ", momentum=" << options.momentum() << ", affine=" << options.affine()
    << ", track_running_stats=" << options.track_running_stats() << ")";
}

LayerNormImpl::LayerNormImpl(const LayerNormOptions& o)
    : Module("ember::nn::LayerNorm"), options(o) {
  reset();
}

void LayerNormImpl::reset() {
  check_shape(options.normalized_shape(), "LayerNorm");
  if (options.elementwise_affine()) {
    weight = register_parameter("weight", empty(options.normalized_shape(), kFloat32));
    bias = register_parameter(
        "bias", options.bias() ? empty(options.normalized_shape(), kFloat32) : Tensor(),
        options.bias());
  } else {
    weight = register_parameter("weight", Tensor(), false);
    bias = register_parameter("bias", Tensor(), false);
  }
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (weight.defined()) init::ones_(weight);
  if (bias.defined()) init::zeros_(bias);
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return F::layer_norm(input, options.normalized_shape(), weight, bias, options.eps());
}

void LayerNormImpl::pretty_print(std::ostream& s) const {
  s << std::boolalpha << "ember::nn::LayerNorm(";
  print_shape(s, options.normalized_shape());
  s << ", eps=" << options.eps() << ", elementwise_affine=" << options.elementwise_affine() << ")";
}

RMSNormImpl::RMSNormImpl(const RMSNormOptions& o) : Module("ember::nn::RMSNorm"), options(o) {
  reset();
}

void RMSNormImpl::reset() {
  check_shape(options.normalized_shape(), "RMSNorm");
  weight = options.elementwise_affine()
               ? register_parameter("weight", empty(options.normalized_shape(), kFloat32))
               : register_parameter("weight", Tensor(), false);
  reset_parameters();
}

void RMSNormImpl::reset_parameters() {
  if (weight.defined()) init::ones_(weight);
}

Tensor RMSNormImpl::forward(const Tensor& input) {
  return F::rms_norm(input, options.normalized_shape(), weight, options.eps());
}

void RMSNormImpl::pretty_print(std::ostream& s) const {
  s << std::boolalpha << "ember::nn::RMSNorm(";
  print_shape(s, options.normalized_shape());
  s << ", eps=";
  if (options.eps().has_value()) {
    s << *options.eps();
  } else {
    s << "None";
  }
  s << ", elementwise_affine=" << options.elementwise_affine() << ")";
}

GroupNormImpl::GroupNormImpl(const GroupNormOptions& o)
    : Module("ember::nn::GroupNorm"), options(o) {
  reset();
}

void GroupNormImpl::reset() {
  EMBER_CHECK_VALUE(options.num_groups() > 0, "[GroupNorm] num_groups must be positive, got ",
                    options.num_groups());
  EMBER_CHECK_VALUE(options.num_channels() >= 0,
                    "[GroupNorm] num_channels must be non-negative, got ", options.num_channels());
  EMBER_CHECK_VALUE(options.num_channels() % options.num_groups() == 0,
                    "[GroupNorm] num_channels must be divisible by num_groups");
  if (options.affine()) {
    weight = register_parameter("weight", empty({options.num_channels()}, kFloat32));
    bias = register_parameter("bias", empty({options.num_channels()}, kFloat32));
  } else {
    weight = register_parameter("weight", Tensor(), false);
    bias = register_parameter("bias", Tensor(), false);
  }
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  if (weight.defined()) init::ones_(weight);
  if (bias.defined()) init::zeros_(bias);
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  return F::group_norm(input, options.num_groups(), weight, bias, options.eps());
}

void GroupNormImpl::pretty_print(std::ostream& s) const {
  s << std::boolalpha << "ember::nn::GroupNorm(" << options.num_groups() << ", "
    << options.num_channels() << ", eps=" << options.eps() << ", affine=" << options.affine()
    << ")";
}

}  // namespace ember::nn
