#include "ember/core/tensor.h"

namespace ember {
// Placeholder until the PyTorch-style printer lands.
std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  return os << "tensor(<" << t.numel() << " elements>, dtype=" << t.dtype() << ")";
}
}  // namespace ember
