#pragma once
// Factories for op builders that compute a size which may be symbolic while tracing.
#include "ember/core/tensor.h"

namespace ember::ops {

/// arange(end) for a size that may be symbolic (arange's Scalar cannot hold an expression): a
/// traced arange(s0) keeps s0 (Note [Symbolic shapes]). int64 unless `options` name a dtype.
Tensor sym_arange(const SymInt& end, const TensorOptions& options = {});

}  // namespace ember::ops
