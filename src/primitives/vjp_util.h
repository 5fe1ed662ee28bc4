#pragma once
// Shared by the vjp files: compute an input's gradient only when the engine asks for it.
#include "dispatch/primitive.h"
#include "ember/core/tensor.h"
#include "ember/core/tensor_impl.h"

namespace ember {

/// f() when `need`, an undefined tensor (no gradient) otherwise.
template <typename F>
Tensor grad_if(bool need, F&& f) {
  return need ? Tensor(f()) : Tensor();
}

/// Equal sizes; symbolic ones (a joint graph traced with dynamic shapes, Note [Symbolic autograd]
/// in src/autograd/record.cpp) are compared as expressions, without a guard.
inline bool same_sizes(const Tensor& a, const Tensor& b) {
  if (!a.unsafeGetTensorImpl()->is_symbolic() && !b.unsafeGetTensorImpl()->is_symbolic()) {
    return a.sizes() == b.sizes();
  }
  return same_as(TensorMeta::of(a).sizes, TensorMeta::of(b).sizes);
}

}  // namespace ember
