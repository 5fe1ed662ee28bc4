#pragma once
// Helpers shared by the op builders.
#include <string>
#include <vector>

#include "core/shape.h"
#include "dispatch/dispatch.h"
#include "ember/core/checked.h"
#include "ember/core/tensor.h"

namespace ember {
class Generator;
}  // namespace ember

namespace ember::ops {

using ember::wrap_dim;  // core/shape.h
/// Wraps a dim list, raising RuntimeError on repeated dims ("dim 1 appears multiple times").
std::vector<int64_t> wrap_dims(const IntList& dims, int64_t ndim, const char* op);

/// A new contiguous CPU tensor (uninitialised). Validates sizes (negative, overflow).
Tensor empty_tensor(const std::vector<int64_t>& sizes, ScalarType dtype, const char* op = "empty",
                    Device device = kCPU);
/// A 0-d tensor holding `s` in `dtype`.
Tensor scalar_tensor(const Scalar& s, ScalarType dtype);
/// Reserves `draws` 32-bit draws from `gen` and returns their Philox stream (seed, offset) as the
/// int64 tensor [2] on `device` that random primitives take as their last input (Note
/// [Functional randomness] in primitives/random.h).
Tensor philox_state(Generator& gen, uint64_t draws, Device device);
/// Size arithmetic on user arguments: Note [Checked size arithmetic] (ember/core/checked.h).
/// The extent of a dilated window, dilation * (kernel - 1) + 1, checked.
inline int64_t window_extent(int64_t kernel, int64_t dilation, const char* op) {
  return checked_add(checked_mul(dilation, kernel - 1, op, "the dilated kernel size"), 1, op,
                     "the dilated kernel size");
}
/// size + 2 * padding, checked.
inline int64_t padded_size(int64_t size, int64_t padding, const char* op) {
  return checked_add(size, checked_mul(2, padding, op, "the padded input size"), op,
                     "the padded input size");
}

/// A C++ number as a 0-d "wrapped number" tensor: int64, float64 or bool by its kind.
Tensor wrapped_scalar(const Scalar& s);
using ember::shape_str;  // core/shape.h
/// Broadcast shape of a and b; RuntimeError naming `op` with PyTorch's wording when they differ.
std::vector<int64_t> broadcast_pair(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                    const char* op);
/// The same over SymInts (Note [Symbolic shapes]): dims compared by their ranges.
std::vector<SymInt> broadcast_pair(const std::vector<SymInt>& a, const std::vector<SymInt>& b,
                                   const char* op);
/// broadcast_pair's check alone, for builders whose primitive infers the shape.
/// The same for two tensors' sizes, symbolic or not (Note [Symbolic shapes]).
void check_broadcastable(const Tensor& a, const Tensor& b, const char* op);
void check_broadcastable(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                         const char* op);
/// A new factory tensor, made a leaf that requires grad when `options` ask for it (RuntimeError
/// for non-floating dtypes, as PyTorch).
Tensor with_grad(Tensor t, const TensorOptions& options);
/// Rejects dtypes outside the implemented set with a TypeError naming `op`.
void check_implemented(ScalarType t, const char* op);

}  // namespace ember::ops

namespace ember::ops {
/// In-place writes to a tensor in which several elements share memory (expanded views) are
/// rejected as PyTorch does.
void check_no_internal_overlap(const Tensor& t, const char* op);
/// Whether the memory ranges spanned by a and b intersect.
bool may_overlap(const Tensor& a, const Tensor& b);
/// masked_fill / index_fill with a 0-d value tensor that needs a gradient: where(mask, value, x)
/// (written into x when in place), so that value's gradient is the sum of the filled positions'.
/// Defined in ternary.cpp.
Tensor fill_with_value_grad(Tensor x, const Tensor& mask, const Tensor& value, bool inplace);
/// Whether a fill value tensor needs that path.
bool value_needs_grad(const Tensor& value);
}  // namespace ember::ops
