#include "ember/nn/modules/linear.h"

#include <cmath>

#include "ember/ember.h"
#include "ember/nn/functional/linear.h"
#include "ember/nn/init.h"
#include "nn/linear_internal.h"

namespace ember::nn {

LinearImpl::LinearImpl(const LinearOptions& o) : Module("ember::nn::Linear"), options(o) {
  reset();
}

void LinearImpl::reset() {
  EMBER_CHECK_VALUE(options.in_features() >= 0 && options.out_features() >= 0,
                    "[Linear] in_features and out_features must be non-negative, got ",
                    options.in_features(), " and ", options.out_features());
  weight = register_parameter("weight",
                              empty({options.out_features(), options.in_features()}, kFloat32));
  bias = register_parameter("bias",
                            options.bias() ? empty({options.out_features()}, kFloat32) : Tensor(),
                            options.bias());
  reset_parameters();
}

namespace detail {
void reset_linear_parameters(const Tensor& weight, const Tensor& bias, int64_t in_features) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const double bound = in_features > 0 ? 1 / std::sqrt(static_cast<double>(in_features)) : 0;
    init::uniform_(bias, -bound, bound);
  }
}
}  // namespace detail

void LinearImpl::reset_parameters() {
  detail::reset_linear_parameters(weight, bias, options.in_features());
}

Tensor LinearImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() >= 1 && input.size(-1) == options.in_features(),
              "[Linear] mat1 and "
              "mat2 shapes cannot be multiplied (input's last dim is ",
              input.dim() >= 1 ? input.size(-1) : 0, ", in_features is ", options.in_features(),
              ")");
  Tensor y = input.matmul(weight.t());
  return bias.defined() ? y + bias : y;
}

void LinearImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Linear(in_features=" << options.in_features()
         << ", out_features=" << options.out_features() << ", bias=" << std::boolalpha
         << options.bias() << ")";
}

BilinearImpl::BilinearImpl(const BilinearOptions& o) : Module("ember::nn::Bilinear"), options(o) {
  reset();
}

void BilinearImpl::reset() {
  EMBER_CHECK_VALUE(
      options.in1_features() >= 0 && options.in2_features() >= 0 && options.out_features() >= 0,
      "[Bilinear] in1_features, in2_features and out_features must be "
      "non-negative, got ",
      options.in1_features(), ", ", options.in2_features(), " and ", options.out_features());
  weight = register_parameter(
      "weight",
      empty({options.out_features(), options.in1_features(), options.in2_features()}, kFloat32));
  bias = register_parameter("bias",
                            options.bias() ? empty({options.out_features()}, kFloat32) : Tensor(),
                            options.bias());
  reset_parameters();
}

void BilinearImpl::reset_parameters() {
  // PyTorch: bound = 1 / sqrt(weight.size(1)) for both weight and bias.
  const double bound =
      options.in1_features() > 0 ? 1 / std::sqrt(static_cast<double>(options.in1_features())) : 0;
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

Tensor BilinearImpl::forward(const Tensor& input1, const Tensor& input2) {
  return functional::bilinear(input1, input2, weight, bias);
}

void BilinearImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Bilinear(in1_features=" << options.in1_features()
         << ", in2_features=" << options.in2_features()
         << ", out_features=" << options.out_features() << ", bias=" << std::boolalpha
         << options.bias() << ")";
}

}  // namespace ember::nn
