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

namespace ember {

/// outputs[0] = inputs[0].index_select(dim, inputs[1]) (index int64 or int32, 1-D or 0-d).
class IndexSelect : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(IndexSelect)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t i) const override { return i == 1; }
  explicit IndexSelect(int64_t dim) : dim_(dim) {}
  const char* name() const override { return "index_select"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override { return "dim=" + std::to_string(dim_); }
  int64_t dim() const { return dim_; }

 private:
  int64_t dim_;
};

/// outputs[0] (index's shape) = inputs[0] gathered along dim by inputs[1] (int64).
class Gather : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Gather)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t i) const override { return i == 1; }
  explicit Gather(int64_t dim) : dim_(dim) {}
  const char* name() const override { return "gather"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override { return "dim=" + std::to_string(dim_); }
  int64_t dim() const { return dim_; }

 private:
  int64_t dim_;
};

enum class ScatterReduce : uint8_t { None, Sum, Prod, Mean, AMax, AMin };

/// In place on outputs[0] (self): inputs = {self, index, src} or {self, index} with a scalar value
/// (self is passed as an input so that its previous values get a gradient). None
/// overwrites; the others combine with what is there (include_self = false first resets the
/// written positions to the reduction's identity; Mean divides by the count of contributions).
class Scatter : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Scatter)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t i) const override { return i == 1 || reads_values(); }
  bool saves_output(size_t) const override { return reads_values(); }
  Scatter(int64_t dim, ScatterReduce reduce, bool include_self, std::optional<Scalar> value,
          const char* name)
      : dim_(dim), reduce_(reduce), include_self_(include_self), value_(value), name_(name) {}
  const char* name() const override { return name_; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override;
  int64_t dim() const { return dim_; }
  ScatterReduce reduce() const { return reduce_; }
  bool include_self() const { return include_self_; }
  const std::optional<Scalar>& value() const { return value_; }

 private:
  // prod, amax and amin gradients read self, src and the result.
  bool reads_values() const {
    return reduce_ == ScatterReduce::Prod || reduce_ == ScatterReduce::AMax ||
           reduce_ == ScatterReduce::AMin;
  }
  int64_t dim_;
  ScatterReduce reduce_;
  bool include_self_;
  std::optional<Scalar> value_;
  const char* name_;
};

enum class IndexUpdateOp : uint8_t { Add, Copy, Fill };

/// In place on outputs[0] (self, also inputs[0]) along dim at a 1-D int64/int32 index (inputs[1]):
/// Add: self[.., index[i], ..] += alpha * source[.., i, ..] (inputs[2], self's dtype);
/// Copy: self[.., index[i], ..] = source[.., i, ..]; Fill: self[.., index[i], ..] = value.
class IndexUpdate : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(IndexUpdate)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t i) const override { return i == 1; }
  IndexUpdate(IndexUpdateOp op, int64_t dim, Scalar scalar) : op_(op), dim_(dim), scalar_(scalar) {}
  const char* name() const override;
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override { return "dim=" + std::to_string(dim_); }
  IndexUpdateOp op() const { return op_; }
  int64_t dim() const { return dim_; }
  /// alpha for Add, the value for Fill.
  const Scalar& scalar() const { return scalar_; }

 private:
  IndexUpdateOp op_;
  int64_t dim_;
  Scalar scalar_;
};

/// outputs[0] (index's shape) = inputs[0] flattened, at inputs[1] (int64; negative wraps).
class Take : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Take)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t i) const override { return i == 1; }
  const char* name() const override { return "take"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
};

/// In place on outputs[0] (self, also inputs[0]): the positions where inputs[1] (a bool mask of
/// self's shape) is true take inputs[2]'s elements (1-D, self's dtype) in row-major order.
class MaskedScatter : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(MaskedScatter)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t i) const override { return i == 1; }
  const char* name() const override { return "masked_scatter_"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
};

/// Counts (or sums of inputs[1], float32 or float64) of the values of the 1-D integer inputs[0].
/// The length depends on the data, so the kernel appends the output.
class Bincount : public Primitive {
 public:
  explicit Bincount(int64_t minlength) : minlength_(minlength) {}
  const char* name() const override { return "bincount"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  int64_t minlength() const { return minlength_; }

 private:
  int64_t minlength_;
};

/// outputs[0] ([bins], input's dtype) = the histogram of inputs[0] over [min, max].
class Histc : public Primitive {
 public:
  Histc(int64_t bins, double min, double max) : bins_(bins), min_(min), max_(max) {}
  const char* name() const override { return "histc"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override;

 private:
  int64_t bins_;
  double min_, max_;
};

}  // namespace ember
