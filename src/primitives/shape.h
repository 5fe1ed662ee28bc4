#pragma once
// Shape ops that compute (copy data into a new layout): cat, flip, roll, repeat, tril/triu.
// Kernels: src/backend/cpu/shape.cpp. Each copies through the Copy kernel into strided views of
// the output, so every dtype and any input layout (strided, expanded) works the same way.
#include <string>
#include <vector>

#include "dispatch/primitive.h"

namespace ember {

/// outputs[0] = the inputs laid end to end along `dim`, each converted to the output's dtype.
/// The op builder drops the legacy 1-D empty inputs before dispatch.
class Cat : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Cat)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override { return false; }
  explicit Cat(int64_t dim) : dim_(dim) {}
  const char* name() const override { return "cat"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override { return "dim=" + std::to_string(dim_); }
  int64_t dim() const { return dim_; }

 private:
  int64_t dim_;
};

/// outputs[0] = inputs[0] reversed along each of `dims` (wrapped, distinct).
class Flip : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Flip)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override { return false; }
  explicit Flip(std::vector<int64_t> dims) : dims_(std::move(dims)) {}
  const char* name() const override { return "flip"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  const std::vector<int64_t>& dims() const { return dims_; }

 private:
  std::vector<int64_t> dims_;
};

/// outputs[0] = inputs[0] rolled by shifts[i] along dims[i]. Dims are wrapped and distinct and
/// shifts normalised into [0, size) by the op builder.
class Roll : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Roll)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override { return false; }
  Roll(std::vector<int64_t> shifts, std::vector<int64_t> dims)
      : shifts_(std::move(shifts)), dims_(std::move(dims)) {}
  const char* name() const override { return "roll"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  const std::vector<int64_t>& shifts() const { return shifts_; }
  const std::vector<int64_t>& dims() const { return dims_; }

 private:
  std::vector<int64_t> shifts_, dims_;
};

/// outputs[0] = inputs[0] tiled `repeats[i]` times along dim i (inputs[0] is left-padded with
/// size-1 dims to repeats.size()).
class Repeat : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Repeat)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override { return false; }
  explicit Repeat(std::vector<int64_t> repeats) : repeats_(std::move(repeats)) {}
  const char* name() const override { return "repeat"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  const std::vector<int64_t>& repeats() const { return repeats_; }

 private:
  std::vector<int64_t> repeats_;
};

/// outputs[0] = the lower (tril) or upper (triu) triangle of each matrix in inputs[0], the rest
/// zero. In place when outputs[0] is inputs[0] (tril_, triu_).
class Triangle : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Triangle)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override { return false; }
  Triangle(bool lower, int64_t diagonal, bool inplace)
      : lower_(lower), diagonal_(diagonal), inplace_(inplace) {}
  const char* name() const override {
    return lower_ ? (inplace_ ? "tril_" : "tril") : (inplace_ ? "triu_" : "triu");
  }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override { return "diagonal=" + std::to_string(diagonal_); }
  bool lower() const { return lower_; }
  int64_t diagonal() const { return diagonal_; }

 private:
  bool lower_;
  int64_t diagonal_;
  bool inplace_;
};

}  // namespace ember
