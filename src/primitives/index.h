#pragma once
// Advanced indexing: Index (x[idx...], a gather) and IndexPut (x[idx...] = v, a scatter), and
// Nonzero, which turns a bool mask into integer indices. Kernels: src/backend/cpu/index.cpp.
//
// Note [Advanced indexing layout]: the index tensors (int64 or int32) apply to `dims`, distinct
// and ascending dims of the indexed tensor, and broadcast together to the index shape B. The
// result has B in place of the indexed dims when those are adjacent (x[:, i, j] -> [n, *B]);
// when they are separated by a non-indexed dim, B moves to the front (x[i, :, j] -> [*B, n]),
// as in NumPy and PyTorch. The kernels view `self` with the result's shape (stride 0 on the B
// dims) and add, per result element, the byte offset that the indices select.
#include <string>
#include <vector>

#include "dispatch/primitive.h"
#include "primitives/shape.h"  // DimsParam

namespace ember {

struct AdvancedIndexGeometry {
  std::vector<int64_t> index_shape;    // B: the broadcast shape of the index tensors
  std::vector<int64_t> result_sizes;   // the shape of x.index(...)
  std::vector<int64_t> self_strides;   // self's strides over result_sizes, 0 on the B dims
  std::vector<int64_t> index_strides;  // a contiguous B tensor's strides over result_sizes
};

/// Computes the layout above; IndexError naming `op` when the index shapes do not broadcast.
AdvancedIndexGeometry advanced_index_geometry(const Tensor& self, const std::vector<int64_t>& dims,
                                              const std::vector<Tensor>& indices, const char* op);

/// outputs[0] = inputs[0] indexed by inputs[1..] on `dims` (see the note above).
class Index : public PrimitiveOf<Index, DimsParam, PrimitiveKind::Index> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit Index(std::vector<int64_t> dims) : PrimitiveOf({std::move(dims)}) {}
  EMBER_INFER
  EMBER_VJP
  bool saves_input(size_t i) const override { return i > 0; }
  const char* default_name() const override { return "index"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  const std::vector<int64_t>& dims() const { return p_.dims; }
};

/// outputs[0] (the tensor written in place, also inputs[0]) at the positions inputs[2..] select on
/// `dims` = inputs[1] (the values, already of outputs[0]'s dtype, broadcastable to the result
/// shape). With repeated positions the last write wins, or with `accumulate` all are added.
/// Inference states the target: inputs[0]'s metadata.
struct IndexPutParams {
  std::vector<int64_t> dims;
  bool accumulate = false;
  EMBER_FIELDS(dims, accumulate)
};

class IndexPut : public PrimitiveOf<IndexPut, IndexPutParams, PrimitiveKind::IndexPut> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit IndexPut(std::vector<int64_t> dims, bool accumulate = false)
      : PrimitiveOf({std::move(dims), accumulate}) {}
  const char* default_name() const override { return inplace() ? "index_put_" : "index_put"; }
  EMBER_INFER
  EMBER_VJP
  bool saves_input(size_t i) const override { return i >= 2; }
  bool accumulate() const { return p_.accumulate; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  const std::vector<int64_t>& dims() const { return p_.dims; }
};

/// The coordinates of the nonzero elements of inputs[0], as an int64 [count, ndim] tensor in
/// row-major order. Its shape depends on the data, so the kernel appends the output itself.
class Nonzero : public PrimitiveOf<Nonzero, NoParams, PrimitiveKind::Nonzero> {
 public:
  const char* default_name() const override { return "nonzero"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
};

}  // namespace ember
