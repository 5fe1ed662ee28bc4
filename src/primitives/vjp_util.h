#pragma once
// Shared by the vjp files: compute an input's gradient only when the engine asks for it.
#include "ember/core/tensor.h"

namespace ember {

/// f() when `need`, an undefined tensor (no gradient) otherwise.
template <typename F>
Tensor grad_if(bool need, F&& f) {
  return need ? Tensor(f()) : Tensor();
}

}  // namespace ember
