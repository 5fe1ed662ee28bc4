#include "autograd/functions.h"
#include "ember/autograd.h"

namespace ember::autograd {

const std::shared_ptr<Node>& grad_fn_of(const Tensor& t) { return meta(t).grad_fn; }

void backward(const std::vector<Tensor>&, const std::vector<Tensor>&, std::optional<bool>, bool,
              const std::vector<Tensor>&) {
  EMBER_THROW(NotImplementedError, "[backward] the autograd engine is not built yet");
}

std::vector<Tensor> grad(const std::vector<Tensor>&, const std::vector<Tensor>&,
                         const std::vector<Tensor>&, std::optional<bool>, bool, bool) {
  EMBER_THROW(NotImplementedError, "[grad] the autograd engine is not built yet");
}

}  // namespace ember::autograd
