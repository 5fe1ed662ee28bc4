// Slice and TensorIndex: libtorch's index vocabulary (include/ember/core/indexing.h).
#include "ember/core/indexing.h"

#include <cstring>
#include <memory>

#include "ember/core/tensor.h"

namespace ember::indexing {

// As at::indexing::Slice: a zero step is rejected here; a negative one is rejected when the
// slice is applied ("step must be greater than zero"), where the op is known.
Slice::Slice(std::optional<SymInt> start, std::optional<SymInt> stop, std::optional<SymInt> step) {
  step_ = step ? step->guard_int("Slice") : 1;
  EMBER_CHECK_VALUE(step_ != 0, "[Slice] slice step cannot be zero");
  start_ = start ? start->guard_int("Slice") : (step_ < 0 ? INDEX_MAX : 0);
  stop_ = stop ? stop->guard_int("Slice") : (step_ < 0 ? INDEX_MIN : INDEX_MAX);
}

TensorIndex::TensorIndex(const char* s) : kind_(Kind::Ellipsis) {
  EMBER_CHECK_VALUE(s != nullptr && std::strcmp(s, "...") == 0,
                    "[TensorIndex] Expected \"...\" to represent an ellipsis index, but got \"",
                    s ? s : "(null)", "\"");
}

TensorIndex::TensorIndex(const Tensor& t) : kind_(Kind::Tensor) {
  EMBER_CHECK(t.defined(), "[TensorIndex] an undefined tensor cannot be used as an index");
  tensor_ = std::make_shared<Tensor>(t);
}

}  // namespace ember::indexing
