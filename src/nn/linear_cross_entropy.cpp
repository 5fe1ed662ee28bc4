// nn::LinearCrossEntropyLoss: a classifier head's weight (and bias) with its loss.
#include "ember/nn/modules/linear_cross_entropy.h"

#include <ostream>

#include "ember/nn/functional/linear_cross_entropy.h"
#include "ember/ops/factory.h"
#include "nn/linear_internal.h"

namespace ember::nn {

LinearCrossEntropyLossImpl::LinearCrossEntropyLossImpl(const LinearCrossEntropyLossOptions& o)
    : Module("ember::nn::LinearCrossEntropyLoss"), options(o) {
  reset();
}

void LinearCrossEntropyLossImpl::reset() {
  const int64_t in = options.in_features(), classes = options.num_classes();
  EMBER_CHECK_VALUE(in >= 0 && classes >= 0,
                    "[LinearCrossEntropyLoss] in_features and num_classes must be non-negative, "
                    "got ",
                    in, " and ", classes);
  EMBER_CHECK_TYPE(is_floating_point(options.dtype()),
                   "[LinearCrossEntropyLoss] dtype must be a floating point type, got ",
                   dtype_name(options.dtype()));
  if (options.options()) options.options()->validate();
  const TensorOptions to(options.dtype());
  weight = register_parameter("weight", empty({classes, in}, to));
  bias =
      register_parameter("bias", options.bias() ? empty({classes}, to) : Tensor(), options.bias());
  class_weight = register_buffer("class_weight", options.weight());
  reset_parameters();
}

void LinearCrossEntropyLossImpl::reset_parameters() {
  detail::reset_linear_parameters(weight, bias, options.in_features());
}

Tensor LinearCrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) {
  functional::LinearCrossEntropyFuncOptions o;
  o.linear_bias(bias).weight(class_weight).reduction(options.reduction());
  o.ignore_index(options.ignore_index()).label_smoothing(options.label_smoothing());
  o.options(options.options());
  return functional::linear_cross_entropy(input, weight, target, o);
}

void LinearCrossEntropyLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::LinearCrossEntropyLoss(in_features=" << options.in_features()
         << ", num_classes=" << options.num_classes() << ", bias=" << std::boolalpha
         << options.bias() << ")";
}

}  // namespace ember::nn
