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

// clang-format off
EMBER_ENUM(SortOp, uint8_t,
  Sort,       // outputs: [values, indices]  (input's shape)
  TopK,       // outputs: [values, indices]  (size k along dim)
  KthValue,   // outputs: [values, indices]  (dim reduced, kept with keepdim)
  Median,     // outputs: [values, indices]  (dim reduced)
  NanMedian,  // outputs: [values, indices]  (dim reduced)
  Mode        // outputs: [values, indices]  (dim reduced)
);
// clang-format on

const char* sort_op_name(SortOp op);

/// outputs are contiguous. k: k for TopK and KthValue. descending: descending order (Sort) or
/// largest (TopK). whole: median()/nanmedian() of every element (the input flattened, a 0-d
/// result), whose gradient is shared evenly by the elements equal to the median, as PyTorch's;
/// the other forms send the gradient to the selected index. keepdim: the reducing ops keep `dim`
/// with size 1.
struct SortSelectParams {
  SortOp op = SortOp::Sort;
  int64_t dim = -1;
  bool descending = false;
  int64_t k = 0;
  bool whole = false;
  bool keepdim = false;
  EMBER_FIELDS(op, dim, descending, k, whole, keepdim)
};

class SortSelect : public PrimitiveOf<SortSelect, SortSelectParams, PrimitiveKind::SortSelect> {
 public:
  using PrimitiveOf::PrimitiveOf;
  SortSelect(SortOp op, int64_t dim, bool descending = false, int64_t k = 0, bool whole = false,
             bool keepdim = false)
      : PrimitiveOf({op, dim, descending, k, whole, keepdim}) {}
  EMBER_INFER
  EMBER_VJP
  bool saves_input(size_t) const override { return p_.whole; }
  bool saves_output(size_t i) const override { return p_.whole ? i == 0 : i == 1; }
  const char* default_name() const override { return sort_op_name(p_.op); }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  SortOp op() const { return p_.op; }
  int64_t dim() const { return p_.dim; }
  bool descending() const { return p_.descending; }
  int64_t k() const { return p_.k; }
};

/// torch.unique / unique_consecutive. inputs[0]: the tensor, or with `dim`, a contiguous tensor
/// whose dim 0 is the one to unique over (the builder moves it there). The kernel appends
/// [values, inverse, counts]; inverse/counts are empty unless asked for.
struct UniqueParams {
  bool consecutive = false, return_inverse = false, return_counts = false, by_dim = false;
  EMBER_FIELDS(consecutive, return_inverse, return_counts, by_dim)
};

class Unique : public PrimitiveOf<Unique, UniqueParams, PrimitiveKind::Unique> {
 public:
  using PrimitiveOf::PrimitiveOf;
  Unique(bool consecutive, bool return_inverse, bool return_counts, bool by_dim)
      : PrimitiveOf({consecutive, return_inverse, return_counts, by_dim}) {}
  const char* default_name() const override;
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  bool consecutive() const { return p_.consecutive; }
  bool return_inverse() const { return p_.return_inverse; }
  bool return_counts() const { return p_.return_counts; }
  bool by_dim() const { return p_.by_dim; }
};

/// outputs[0] (values' shape, int32 with out_int32, else int64) = insertion points of inputs[1]
/// (values) into the innermost dim of inputs[0] (boundaries, same dtype), optionally through
/// inputs[2] (sorter).
struct SearchSortedParams {
  bool right = false;
  bool out_int32 = false;
  EMBER_FIELDS(right, out_int32)
};

class SearchSorted
    : public PrimitiveOf<SearchSorted, SearchSortedParams, PrimitiveKind::SearchSorted> {
 public:
  using PrimitiveOf::PrimitiveOf;
  SearchSorted(bool right, bool out_int32, const char* name) : PrimitiveOf({right, out_int32}) {
    set_display_name(name);
  }
  EMBER_INFER
  const char* default_name() const override { return "searchsorted"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  bool right() const { return p_.right; }
};

}  // namespace ember
