#pragma once
// Factories for op builders that compute a size which may be symbolic while tracing.
#include "ember/core/tensor.h"

namespace ember::ops {

/// arange(end) for a size that may be symbolic (arange's Scalar cannot hold an expression): a
/// traced arange(s0) keeps s0 (Note [Symbolic shapes]). int64 unless `options` name a dtype.
Tensor sym_arange(const SymInt& end, const TensorOptions& options = {});

/// A 0-d tensor holding a size that may be symbolic (int64 unless `options` name a dtype): what
/// an op builder needs where a size enters arithmetic on values (roll's index modulo the size, a
/// tolerance proportional to it), so that a traced graph takes each run's size.
Tensor sym_size_tensor(const SymInt& size, const TensorOptions& options = {});

}  // namespace ember::ops
