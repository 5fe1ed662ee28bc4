#pragma once
// Shared by the vjp files: compute an input's gradient only when the engine asks for it.
#include <algorithm>

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
  const std::vector<SymInt> x = a.sym_sizes(), y = b.sym_sizes();
  return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                    [](const SymInt& p, const SymInt& q) { return p.same_as(q); });
}

}  // namespace ember
