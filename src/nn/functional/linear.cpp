// linear and bilinear as matrix products.
#include "ember/nn/functional/linear.h"

#include "ember/ops/matmul.h"
#include "nn/functional/common.h"

namespace ember::nn::functional {

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  nn::detail::check_defined(input, "linear");
  nn::detail::check_defined(weight, "linear", "weight");
  EMBER_CHECK(weight.dim() == 1 || weight.dim() == 2, "[linear] weight must be 1-D or 2-D, got ",
              weight.dim(), "-D");
  Tensor y = weight.dim() == 2 ? ember::matmul(input, weight.t()) : ember::matmul(input, weight);
  return bias.defined() ? y + bias : y;
}

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const Tensor& bias) {
  nn::detail::check_defined(input1, "bilinear", "input1");
  nn::detail::check_defined(input2, "bilinear", "input2");
  nn::detail::check_defined(weight, "bilinear", "weight");
  EMBER_CHECK(input1.dim() == input2.dim(),
              "[bilinear] bilinear(): input dimensions do not match: got ", input1.dim(), " and ",
              input2.dim());
  EMBER_CHECK(input1.dim() >= 1, "[bilinear] bilinear(): input must have at least 1 dimension");
  for (int64_t i = 0; i < input1.dim() - 1; ++i) {
    EMBER_CHECK(input1.size(i) == input2.size(i),
                "[bilinear] bilinear(): input batch dimensions do not match: got ", input1.size(i),
                " and ", input2.size(i));
  }
  EMBER_CHECK(weight.dim() == 3, "[bilinear] bilinear(): weight must be 3-D, got ", weight.dim(),
              "-D");
  EMBER_CHECK(input1.size(-1) == weight.size(1),
              "[bilinear] bilinear(): input1 size does not match weight size: got ",
              input1.size(-1), " but expected ", weight.size(1));
  EMBER_CHECK(input2.size(-1) == weight.size(2),
              "[bilinear] bilinear(): input2 size does not match weight size: got ",
              input2.size(-1), " but expected ", weight.size(2));
  if (bias.defined()) {
    EMBER_CHECK(bias.dim() == 1 && bias.size(0) == weight.size(0),
                "[bilinear] bilinear(): bias size does not match weight size: got ",
                bias.dim() == 1 ? bias.size(0) : -1, " but expected ", weight.size(0));
  }
  Tensor y = ember::einsum("...i,oij,...j->...o", {input1, weight, input2});
  return bias.defined() ? y + bias : y;
}

}  // namespace ember::nn::functional
