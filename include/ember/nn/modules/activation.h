#pragma once
// Activation modules (torch::nn::ReLU, ...), thin wrappers over ember::nn::functional:
//   nn::Sequential seq(nn::Linear(4, 8), nn::GELU(nn::GELUOptions().approximate("tanh")));
// Modules whose options carry `inplace` take the input by value, as libtorch.
#include <cstdint>

#include "ember/nn/module.h"
#include "ember/nn/options/activation.h"

namespace ember::nn {

/// Declares a parameter-free activation module XxxImpl(const XxxOptions& = {}) + holder Xxx.
#define EMBER_ACTIVATION_WITH_OPTIONS(Name, InputT)          \
  class Name##Impl : public Module {                         \
   public:                                                   \
    explicit Name##Impl(const Name##Options& options_ = {}); \
    Tensor forward(InputT input);                            \
    void reset() {}                                          \
    void pretty_print(std::ostream& stream) const override;  \
    Name##Options options;                                   \
  };                                                         \
  EMBER_MODULE(Name)

/// Declares an activation without options: XxxImpl() + holder Xxx.
#define EMBER_ACTIVATION_NO_OPTIONS(Name)                   \
  class Name##Impl : public Module {                        \
   public:                                                  \
    Name##Impl() : Module("ember::nn::" #Name) {}           \
    Tensor forward(const Tensor& input);                    \
    void reset() {}                                         \
    void pretty_print(std::ostream& stream) const override; \
  };                                                        \
  EMBER_MODULE(Name)

EMBER_ACTIVATION_WITH_OPTIONS(ReLU, Tensor);
EMBER_ACTIVATION_WITH_OPTIONS(ReLU6, Tensor);
EMBER_ACTIVATION_WITH_OPTIONS(LeakyReLU, Tensor);
EMBER_ACTIVATION_WITH_OPTIONS(ELU, Tensor);
EMBER_ACTIVATION_WITH_OPTIONS(SELU, Tensor);
/// alpha must be non-zero (checked at construction).
EMBER_ACTIVATION_WITH_OPTIONS(CELU, Tensor);
/// approximate: "none" (erf) or "tanh".
EMBER_ACTIVATION_WITH_OPTIONS(GELU, const Tensor&);
EMBER_ACTIVATION_WITH_OPTIONS(Softplus, const Tensor&);
/// max_val must be greater than min_val.
EMBER_ACTIVATION_WITH_OPTIONS(Hardtanh, Tensor);
EMBER_ACTIVATION_WITH_OPTIONS(Softshrink, const Tensor&);
EMBER_ACTIVATION_WITH_OPTIONS(Hardshrink, const Tensor&);
/// Halves the input along dim: a * sigmoid(b).
EMBER_ACTIVATION_WITH_OPTIONS(GLU, const Tensor&);

EMBER_ACTIVATION_NO_OPTIONS(SiLU);
EMBER_ACTIVATION_NO_OPTIONS(Mish);
EMBER_ACTIVATION_NO_OPTIONS(Sigmoid);
EMBER_ACTIVATION_NO_OPTIONS(Tanh);
EMBER_ACTIVATION_NO_OPTIONS(Softsign);
EMBER_ACTIVATION_NO_OPTIONS(Tanhshrink);
EMBER_ACTIVATION_NO_OPTIONS(LogSigmoid);
EMBER_ACTIVATION_NO_OPTIONS(Hardswish);
EMBER_ACTIVATION_NO_OPTIONS(Hardsigmoid);
/// Softmax over the channel dim (-3) of a (N, C, H, W) or (C, H, W) input.
EMBER_ACTIVATION_NO_OPTIONS(Softmax2d);

#undef EMBER_ACTIVATION_WITH_OPTIONS
#undef EMBER_ACTIVATION_NO_OPTIONS

/// x > threshold ? x : value.
class ThresholdImpl : public Module {
 public:
  ThresholdImpl(double threshold, double value)
      : ThresholdImpl(ThresholdOptions(threshold, value)) {}
  explicit ThresholdImpl(const ThresholdOptions& options_);
  Tensor forward(Tensor input);
  void reset() {}
  void pretty_print(std::ostream& stream) const override;
  ThresholdOptions options;
};
EMBER_MODULE(Threshold);

/// Softmax / LogSoftmax / Softmin along options.dim().
class SoftmaxImpl : public Module {
 public:
  explicit SoftmaxImpl(int64_t dim) : SoftmaxImpl(SoftmaxOptions(dim)) {}
  explicit SoftmaxImpl(const SoftmaxOptions& options_);
  Tensor forward(const Tensor& input);
  void reset() {}
  void pretty_print(std::ostream& stream) const override;
  SoftmaxOptions options;
};
EMBER_MODULE(Softmax);

class LogSoftmaxImpl : public Module {
 public:
  explicit LogSoftmaxImpl(int64_t dim) : LogSoftmaxImpl(LogSoftmaxOptions(dim)) {}
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options_);
  Tensor forward(const Tensor& input);
  void reset() {}
  void pretty_print(std::ostream& stream) const override;
  LogSoftmaxOptions options;
};
EMBER_MODULE(LogSoftmax);

class SoftminImpl : public Module {
 public:
  explicit SoftminImpl(int64_t dim) : SoftminImpl(SoftminOptions(dim)) {}
  explicit SoftminImpl(const SoftminOptions& options_);
  Tensor forward(const Tensor& input);
  void reset() {}
  void pretty_print(std::ostream& stream) const override;
  SoftminOptions options;
};
EMBER_MODULE(Softmin);

/// x >= 0 ? x : weight * x with a learnable `weight` of num_parameters values (1 or the number
/// of channels), initialised to options.init().
class PReLUImpl : public Module {
 public:
  explicit PReLUImpl(const PReLUOptions& options_ = {});
  void reset();
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  PReLUOptions options;
  Tensor weight;
};
EMBER_MODULE(PReLU);

}  // namespace ember::nn
