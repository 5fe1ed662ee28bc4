#pragma once
// Sorting and selection along a dim, unique, and binary search. Kernels:
// src/backend/cpu/sort.cpp. Note [NaN order]: NaN compares larger than every number (PyTorch's
// and NumPy's order); ties between equal keys are broken by the lower index first, so every
// result (including topk, kthvalue and median indices) is deterministic.
#include <cstdint>
#include <optional>
#include <string>

#include "dispatch/primitive.h"

namespace ember {

enum class SortOp : uint8_t {
  Sort,       // outputs: [values, indices]  (input's shape)
  TopK,       // outputs: [values, indices]  (size k along dim)
  KthValue,   // outputs: [values, indices]  (dim reduced; keepdim or not, contiguous)
  Median,     // outputs: [values, indices]  (dim reduced)
  NanMedian,  // outputs: [values, indices]  (dim reduced)
  Mode,       // outputs: [values, indices]  (dim reduced)
};

const char* sort_op_name(SortOp op);

/// outputs arrive allocated and contiguous. k: k for TopK and KthValue. descending: descending
/// order (Sort) or largest (TopK). whole: median()/nanmedian() of every element (the input
/// flattened), whose gradient is shared evenly by the elements equal to the median, as PyTorch's;
/// the other forms send the gradient to the selected index.
class SortSelect : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(SortSelect)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override { return whole_; }
  bool saves_output(size_t i) const override { return whole_ ? i == 0 : i == 1; }
  SortSelect(SortOp op, int64_t dim, bool descending = false, int64_t k = 0, bool whole = false)
      : op_(op), dim_(dim), descending_(descending), k_(k), whole_(whole) {}
  const char* name() const override { return sort_op_name(op_); }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override;
  SortOp op() const { return op_; }
  int64_t dim() const { return dim_; }
  bool descending() const { return descending_; }
  int64_t k() const { return k_; }

 private:
  SortOp op_;
  int64_t dim_;
  bool descending_;
  int64_t k_;
  bool whole_;
};

/// torch.unique / unique_consecutive. inputs[0]: the tensor, or with `dim`, a contiguous tensor
/// whose dim 0 is the one to unique over (the builder moves it there). The kernel appends
/// [values, inverse, counts]; inverse/counts are empty unless asked for.
class Unique : public Primitive {
 public:
  Unique(bool consecutive, bool return_inverse, bool return_counts, bool by_dim)
      : consecutive_(consecutive),
        return_inverse_(return_inverse),
        return_counts_(return_counts),
        by_dim_(by_dim) {}
  const char* name() const override;
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  bool consecutive() const { return consecutive_; }
  bool return_inverse() const { return return_inverse_; }
  bool return_counts() const { return return_counts_; }
  bool by_dim() const { return by_dim_; }

 private:
  bool consecutive_, return_inverse_, return_counts_, by_dim_;
};

/// outputs[0] (values' shape, int64 or int32) = insertion points of inputs[1] (values) into the
/// innermost dim of inputs[0] (boundaries, same dtype), optionally through inputs[2] (sorter).
class SearchSorted : public Primitive {
 public:
  SearchSorted(bool right, const char* name) : right_(right), name_(name) {}
  const char* name() const override { return name_; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override { return right_ ? "right=True" : "right=False"; }
  bool right() const { return right_; }

 private:
  bool right_;
  const char* name_;
};

}  // namespace ember
