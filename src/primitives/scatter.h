#pragma once
// Gather/scatter-style primitives: index_select, gather, scatter (with reductions), index_add /
// index_copy / index_fill, take, masked_scatter, and the counting ops bincount and histc.
// Kernels: src/backend/cpu/scatter.cpp. Op builders (src/ops/scatter.cpp) check dtypes and
// shapes; kernels check index bounds (data-dependent) with PyTorch's messages.
//
// Note [Scatter along a dim]: gather, scatter and the index_* ops all walk "rows": the 1-D slices
// along `dim` of the iteration shape (index's shape for gather/scatter, source's for index_*).
// Two rows differ in some coordinate other than `dim`, so they read and write disjoint slices of
// self: rows run in parallel, and within a row elements run in order (the last write wins).
#include <cstdint>
#include <optional>
#include <string>

#include "dispatch/primitive.h"
#include "primitives/shape.h"  // DimParam

namespace ember {

/// outputs[0] = inputs[0].index_select(dim, inputs[1]) (index int64 or int32, 1-D or 0-d).
class IndexSelect : public PrimitiveOf<IndexSelect, DimParam, PrimitiveKind::IndexSelect> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit IndexSelect(int64_t dim) : PrimitiveOf({dim}) {}
  EMBER_INFER
  EMBER_VJP
  bool saves_input(size_t i) const override { return i == 1; }
  const char* default_name() const override { return "index_select"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  int64_t dim() const { return p_.dim; }
};

/// outputs[0] (index's shape) = inputs[0] gathered along dim by inputs[1] (int64).
class Gather : public PrimitiveOf<Gather, DimParam, PrimitiveKind::Gather> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit Gather(int64_t dim) : PrimitiveOf({dim}) {}
  EMBER_INFER
  EMBER_VJP
  bool saves_input(size_t i) const override { return i == 1; }
  const char* default_name() const override { return "gather"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  int64_t dim() const { return p_.dim; }
};

EMBER_ENUM(ScatterReduce, uint8_t, None, Sum, Prod, Mean, AMax, AMin);

/// In place on outputs[0] (self): inputs = {self, index, src} or {self, index} with a scalar value
/// (self is passed as an input so that its previous values get a gradient; inference states the
/// target, inputs[0]'s metadata, as for every in-place primitive of this file). None
/// overwrites; the others combine with what is there (include_self = false first resets the
/// written positions to the reduction's identity; Mean divides by the count of contributions).
struct ScatterParams {
  int64_t dim = 0;
  ScatterReduce reduce = ScatterReduce::None;
  bool include_self = true;
  std::optional<Scalar> value;
  EMBER_FIELDS(dim, reduce, include_self, value)
};

class Scatter : public PrimitiveOf<Scatter, ScatterParams, PrimitiveKind::Scatter> {
 public:
  using PrimitiveOf::PrimitiveOf;
  Scatter(int64_t dim, ScatterReduce reduce, bool include_self, std::optional<Scalar> value,
          const char* name)
      : PrimitiveOf({dim, reduce, include_self, value}) {
    set_display_name(name);
  }
  EMBER_INFER
  EMBER_VJP
  bool saves_input(size_t i) const override { return i == 1 || reads_values(); }
  bool saves_output(size_t) const override { return reads_values(); }
  const char* default_name() const override { return "scatter"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  int64_t dim() const { return p_.dim; }
  ScatterReduce reduce() const { return p_.reduce; }
  bool include_self() const { return p_.include_self; }
  const std::optional<Scalar>& value() const { return p_.value; }

 private:
  // prod, amax and amin gradients read self, src and the result.
  bool reads_values() const {
    return p_.reduce == ScatterReduce::Prod || p_.reduce == ScatterReduce::AMax ||
           p_.reduce == ScatterReduce::AMin;
  }
};

EMBER_ENUM(IndexUpdateOp, uint8_t, Add, Copy, Fill);

/// In place on outputs[0] (self, also inputs[0]) along dim at a 1-D int64/int32 index (inputs[1]):
/// Add: self[.., index[i], ..] += alpha * source[.., i, ..] (inputs[2], self's dtype);
/// Copy: self[.., index[i], ..] = source[.., i, ..]; Fill: self[.., index[i], ..] = value.
struct IndexUpdateParams {
  IndexUpdateOp op = IndexUpdateOp::Add;
  int64_t dim = 0;
  Scalar scalar = 1;
  EMBER_FIELDS(op, dim, scalar)
};

class IndexUpdate : public PrimitiveOf<IndexUpdate, IndexUpdateParams, PrimitiveKind::IndexUpdate> {
 public:
  using PrimitiveOf::PrimitiveOf;
  IndexUpdate(IndexUpdateOp op, int64_t dim, Scalar scalar) : PrimitiveOf({op, dim, scalar}) {}
  EMBER_INFER
  EMBER_VJP
  bool saves_input(size_t i) const override { return i == 1; }
  const char* default_name() const override;
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  IndexUpdateOp op() const { return p_.op; }
  int64_t dim() const { return p_.dim; }
  const Scalar& scalar() const { return p_.scalar; }
};

/// outputs[0] (index's shape) = inputs[0] flattened, at inputs[1] (int64; negative wraps).
class Take : public PrimitiveOf<Take, NoParams, PrimitiveKind::Take> {
 public:
  EMBER_INFER
  EMBER_VJP
  bool saves_input(size_t i) const override { return i == 1; }
  const char* default_name() const override { return "take"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
};

/// In place on outputs[0] (self, also inputs[0]): the positions where inputs[1] (a bool mask of
/// self's shape) is true take inputs[2]'s elements (1-D, self's dtype) in row-major order.
class MaskedScatter : public PrimitiveOf<MaskedScatter, NoParams, PrimitiveKind::MaskedScatter> {
 public:
  EMBER_INFER
  EMBER_VJP
  bool saves_input(size_t i) const override { return i == 1; }
  const char* default_name() const override {
    return inplace() ? "masked_scatter_" : "masked_scatter";
  }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
};

/// Counts (or sums of inputs[1], float32 or float64) of the values of the 1-D integer inputs[0].
/// The length depends on the data, so the kernel appends the output.
struct BincountParams {
  int64_t minlength = 0;
  EMBER_FIELDS(minlength)
};

class Bincount : public PrimitiveOf<Bincount, BincountParams, PrimitiveKind::Bincount> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit Bincount(int64_t minlength) : PrimitiveOf({minlength}) {}
  const char* default_name() const override { return "bincount"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  int64_t minlength() const { return p_.minlength; }
};

/// outputs[0] ([bins], input's dtype) = the histogram of inputs[0] over [min, max]; with
/// min == max the kernel takes the range of the input's values (widened by 1 on each side when
/// that is one value), as PyTorch's kernel does.
struct HistcParams {
  int64_t bins = 100;
  double min = 0, max = 0;
  EMBER_FIELDS(bins, min, max)
};

class Histc : public PrimitiveOf<Histc, HistcParams, PrimitiveKind::Histc> {
 public:
  using PrimitiveOf::PrimitiveOf;
  Histc(int64_t bins, double min, double max) : PrimitiveOf({bins, min, max}) {}
  EMBER_INFER
  const char* default_name() const override { return "histc"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  /// RuntimeError unless [lo, hi] is finite (PyTorch's "range of [lo, hi] is not finite").
  static void check_range(double lo, double hi);
};

}  // namespace ember
