// Activation modules: argument checks at construction, forward through nn::functional.
#include "ember/nn/modules/activation.h"

#include <ostream>

#include "ember/ember.h"
#include "ember/nn/functional/activation.h"
#include "ember/nn/init.h"

namespace ember::nn {

namespace F = functional;

namespace {
const char* inplace_str(bool inplace) { return inplace ? "inplace=true" : ""; }
const char* comma_inplace(bool inplace) { return inplace ? ", inplace=true" : ""; }
}  // namespace

ReLUImpl::ReLUImpl(const ReLUOptions& o) : Module("ember::nn::ReLU"), options(o) {}
Tensor ReLUImpl::forward(Tensor input) { return F::relu(std::move(input), options); }
void ReLUImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::ReLU(" << inplace_str(options.inplace()) << ")";
}

ReLU6Impl::ReLU6Impl(const ReLU6Options& o) : Module("ember::nn::ReLU6"), options(o) {}
Tensor ReLU6Impl::forward(Tensor input) { return F::relu6(std::move(input), options); }
void ReLU6Impl::pretty_print(std::ostream& s) const {
  s << "ember::nn::ReLU6(" << inplace_str(options.inplace()) << ")";
}

LeakyReLUImpl::LeakyReLUImpl(const LeakyReLUOptions& o)
    : Module("ember::nn::LeakyReLU"), options(o) {}
Tensor LeakyReLUImpl::forward(Tensor input) { return F::leaky_relu(std::move(input), options); }
void LeakyReLUImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::LeakyReLU(negative_slope=" << options.negative_slope()
    << comma_inplace(options.inplace()) << ")";
}

ELUImpl::ELUImpl(const ELUOptions& o) : Module("ember::nn::ELU"), options(o) {}
Tensor ELUImpl::forward(Tensor input) { return F::elu(std::move(input), options); }
void ELUImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::ELU(alpha=" << options.alpha() << comma_inplace(options.inplace()) << ")";
}

SELUImpl::SELUImpl(const SELUOptions& o) : Module("ember::nn::SELU"), options(o) {}
Tensor SELUImpl::forward(Tensor input) { return F::selu(std::move(input), options); }
void SELUImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::SELU(" << inplace_str(options.inplace()) << ")";
}

CELUImpl::CELUImpl(const CELUOptions& o) : Module("ember::nn::CELU"), options(o) {
  EMBER_CHECK(options.alpha() != 0, "[CELU] ZeroDivisionError: alpha cannot be 0 for CELU");
}
Tensor CELUImpl::forward(Tensor input) { return F::celu(std::move(input), options); }
void CELUImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::CELU(alpha=" << options.alpha() << comma_inplace(options.inplace()) << ")";
}

GELUImpl::GELUImpl(const GELUOptions& o) : Module("ember::nn::GELU"), options(o) {
  EMBER_CHECK(options.approximate() == "none" || options.approximate() == "tanh",
              "[GELU] approximate argument must be either none or tanh.");
}
Tensor GELUImpl::forward(const Tensor& input) { return F::gelu(input, options); }
void GELUImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::GELU(";
  if (options.approximate() != "none") s << "approximate='" << options.approximate() << "'";
  s << ")";
}

SoftplusImpl::SoftplusImpl(const SoftplusOptions& o) : Module("ember::nn::Softplus"), options(o) {}
Tensor SoftplusImpl::forward(const Tensor& input) { return F::softplus(input, options); }
void SoftplusImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::Softplus(beta=" << options.beta() << ", threshold=" << options.threshold()
    << ")";
}

HardtanhImpl::HardtanhImpl(const HardtanhOptions& o) : Module("ember::nn::Hardtanh"), options(o) {
  EMBER_CHECK_VALUE(options.max_val() > options.min_val(),
                    "[Hardtanh] max_val must be greater than min_val");
}
Tensor HardtanhImpl::forward(Tensor input) { return F::hardtanh(std::move(input), options); }
void HardtanhImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::Hardtanh(min_val=" << options.min_val() << ", max_val=" << options.max_val()
    << comma_inplace(options.inplace()) << ")";
}

SoftshrinkImpl::SoftshrinkImpl(const SoftshrinkOptions& o)
    : Module("ember::nn::Softshrink"), options(o) {
  EMBER_CHECK(options.lambda() >= 0,
              "[Softshrink] lambda must be greater or equal to 0, but found to be ",
              options.lambda(), ".");
}
Tensor SoftshrinkImpl::forward(const Tensor& input) { return F::softshrink(input, options); }
void SoftshrinkImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::Softshrink(" << options.lambda() << ")";
}

HardshrinkImpl::HardshrinkImpl(const HardshrinkOptions& o)
    : Module("ember::nn::Hardshrink"), options(o) {}
Tensor HardshrinkImpl::forward(const Tensor& input) { return F::hardshrink(input, options); }
void HardshrinkImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::Hardshrink(" << options.lambda() << ")";
}

GLUImpl::GLUImpl(const GLUOptions& o) : Module("ember::nn::GLU"), options(o) {}
Tensor GLUImpl::forward(const Tensor& input) { return F::glu(input, options); }
void GLUImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::GLU(dim=" << options.dim() << ")";
}

#define EMBER_PRINT_PLAIN(Name) \
  void Name##Impl::pretty_print(std::ostream& s) const { s << "ember::nn::" #Name "()"; }
EMBER_PRINT_PLAIN(SiLU)
EMBER_PRINT_PLAIN(Mish)
EMBER_PRINT_PLAIN(Sigmoid)
EMBER_PRINT_PLAIN(Tanh)
EMBER_PRINT_PLAIN(Softsign)
EMBER_PRINT_PLAIN(Tanhshrink)
EMBER_PRINT_PLAIN(LogSigmoid)
EMBER_PRINT_PLAIN(Hardswish)
EMBER_PRINT_PLAIN(Hardsigmoid)
EMBER_PRINT_PLAIN(Softmax2d)
#undef EMBER_PRINT_PLAIN

Tensor SiLUImpl::forward(const Tensor& input) { return F::silu(input); }
Tensor MishImpl::forward(const Tensor& input) { return F::mish(input); }
Tensor SigmoidImpl::forward(const Tensor& input) { return ember::sigmoid(input); }
Tensor TanhImpl::forward(const Tensor& input) { return ember::tanh(input); }
Tensor SoftsignImpl::forward(const Tensor& input) { return F::softsign(input); }
Tensor TanhshrinkImpl::forward(const Tensor& input) { return F::tanhshrink(input); }
Tensor LogSigmoidImpl::forward(const Tensor& input) { return F::logsigmoid(input); }
Tensor HardswishImpl::forward(const Tensor& input) { return F::hardswish(input); }
Tensor HardsigmoidImpl::forward(const Tensor& input) { return F::hardsigmoid(input); }
Tensor Softmax2dImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4,
              "[Softmax2d] Softmax2d: expected input to be 3D or 4D, got ", input.dim(),
              "D instead");
  return F::softmax(input, -3);
}

ThresholdImpl::ThresholdImpl(const ThresholdOptions& o)
    : Module("ember::nn::Threshold"), options(o) {}
Tensor ThresholdImpl::forward(Tensor input) { return F::threshold(std::move(input), options); }
void ThresholdImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::Threshold(threshold=" << options.threshold() << ", value=" << options.value()
    << comma_inplace(options.inplace()) << ")";
}

SoftmaxImpl::SoftmaxImpl(const SoftmaxOptions& o) : Module("ember::nn::Softmax"), options(o) {}
Tensor SoftmaxImpl::forward(const Tensor& input) { return F::softmax(input, options.dim()); }
void SoftmaxImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::Softmax(dim=" << options.dim() << ")";
}

LogSoftmaxImpl::LogSoftmaxImpl(const LogSoftmaxOptions& o)
    : Module("ember::nn::LogSoftmax"), options(o) {}
Tensor LogSoftmaxImpl::forward(const Tensor& input) { return F::log_softmax(input, options.dim()); }
void LogSoftmaxImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::LogSoftmax(dim=" << options.dim() << ")";
}

SoftminImpl::SoftminImpl(const SoftminOptions& o) : Module("ember::nn::Softmin"), options(o) {}
Tensor SoftminImpl::forward(const Tensor& input) { return F::softmin(input, options.dim()); }
void SoftminImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::Softmin(dim=" << options.dim() << ")";
}

PReLUImpl::PReLUImpl(const PReLUOptions& o) : Module("ember::nn::PReLU"), options(o) { reset(); }

void PReLUImpl::reset() {
  EMBER_CHECK_VALUE(options.num_parameters() >= 1, "[PReLU] num_parameters must be positive, got ",
                    options.num_parameters());
  weight = register_parameter("weight", empty({options.num_parameters()}, kFloat32));
  reset_parameters();
}

void PReLUImpl::reset_parameters() { init::constant_(weight, options.init()); }

Tensor PReLUImpl::forward(const Tensor& input) { return F::prelu(input, weight); }

void PReLUImpl::pretty_print(std::ostream& s) const {
  s << "ember::nn::PReLU(num_parameters=" << options.num_parameters() << ")";
}

}  // namespace ember::nn
