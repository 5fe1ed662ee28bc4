// Dropout modules: functional dropout with training taken from the module.
#include "ember/nn/modules/dropout.h"

#include <ostream>

#include "ember/nn/functional/dropout.h"

namespace ember::nn {

namespace F = functional;

#define EMBER_DROPOUT_IMPL(Name, call, FuncOptions)                                               \
  Name##Impl::Name##Impl(const Name##Options& o) : Module("ember::nn::" #Name), options(o) {      \
    reset();                                                                                      \
  }                                                                                               \
  void Name##Impl::reset() {                                                                      \
    EMBER_CHECK_VALUE(options.p() >= 0 && options.p() <= 1,                                       \
                      "[" #Name "] dropout probability has to be between 0 and 1, but got ",      \
                      options.p());                                                               \
  }                                                                                               \
  Tensor Name##Impl::forward(Tensor input) {                                                      \
    return call(std::move(input),                                                                 \
                FuncOptions().p(options.p()).training(is_training()).inplace(options.inplace())); \
  }                                                                                               \
  void Name##Impl::pretty_print(std::ostream& s) const {                                          \
    s << "ember::nn::" #Name "(p=" << options.p() << ", inplace=" << std::boolalpha               \
      << options.inplace() << ")";                                                                \
  }

EMBER_DROPOUT_IMPL(Dropout, F::dropout, F::DropoutFuncOptions)
EMBER_DROPOUT_IMPL(Dropout1d, F::dropout1d, F::Dropout1dFuncOptions)
EMBER_DROPOUT_IMPL(Dropout2d, F::dropout2d, F::Dropout2dFuncOptions)
EMBER_DROPOUT_IMPL(Dropout3d, F::dropout3d, F::Dropout3dFuncOptions)
EMBER_DROPOUT_IMPL(AlphaDropout, F::alpha_dropout, F::AlphaDropoutFuncOptions)
EMBER_DROPOUT_IMPL(FeatureAlphaDropout, F::feature_alpha_dropout, F::FeatureAlphaDropoutFuncOptions)
#undef EMBER_DROPOUT_IMPL

}  // namespace ember::nn
