#pragma once
// Shape ops that compute (copy data into a new layout): cat, flip, roll, repeat, tril/triu.
// Kernels: src/backend/cpu/shape.cpp. Each copies through the Copy kernel into strided views of
// the output, so every dtype and any input layout (strided, expanded) works the same way.
#include <string>
#include <vector>

#include "dispatch/primitive.h"

namespace ember {

struct DimParam {
  int64_t dim = 0;
  EMBER_FIELDS(dim)
};

/// outputs[0] = the inputs laid end to end along `dim`, each converted to `dtype` (the promoted
/// dtype of every tensor given, the dropped ones included). The op builder drops the legacy 1-D
/// empty inputs before dispatch.
struct CatParams {
  int64_t dim = 0;
  ScalarType dtype = kFloat32;
  EMBER_FIELDS(dim, dtype)
};

class Cat : public PrimitiveOf<Cat, CatParams, PrimitiveKind::Cat> {
 public:
  using PrimitiveOf::PrimitiveOf;
  Cat(int64_t dim, ScalarType dtype) : PrimitiveOf({dim, dtype}) {}
  EMBER_INFER
  EMBER_VJP
  bool saves_input(size_t) const override { return false; }
  const char* default_name() const override { return "cat"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  int64_t dim() const { return p_.dim; }
};

struct DimsParam {
  std::vector<int64_t> dims;
  EMBER_FIELDS(dims)
};

/// outputs[0] = inputs[0] reversed along each of `dims` (wrapped, distinct).
class Flip : public PrimitiveOf<Flip, DimsParam, PrimitiveKind::Flip> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit Flip(std::vector<int64_t> dims) : PrimitiveOf({std::move(dims)}) {}
  EMBER_VJP
  EMBER_INFER
  bool saves_input(size_t) const override { return false; }
  const char* default_name() const override { return "flip"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  const std::vector<int64_t>& dims() const { return p_.dims; }
};

struct RollParams {
  std::vector<int64_t> shifts, dims;
  EMBER_FIELDS(shifts, dims)
};

/// outputs[0] = inputs[0] rolled by shifts[i] along dims[i]. Dims are wrapped and distinct and
/// shifts normalised into [0, size) by the op builder.
class Roll : public PrimitiveOf<Roll, RollParams, PrimitiveKind::Roll> {
 public:
  using PrimitiveOf::PrimitiveOf;
  Roll(std::vector<int64_t> shifts, std::vector<int64_t> dims)
      : PrimitiveOf({std::move(shifts), std::move(dims)}) {}
  EMBER_VJP
  EMBER_INFER
  bool saves_input(size_t) const override { return false; }
  const char* default_name() const override { return "roll"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  const std::vector<int64_t>& shifts() const { return p_.shifts; }
  const std::vector<int64_t>& dims() const { return p_.dims; }
};

struct RepeatParams {
  std::vector<int64_t> repeats;
  EMBER_FIELDS(repeats)
};

/// outputs[0] = inputs[0] tiled `repeats[i]` times along dim i (inputs[0] is left-padded with
/// size-1 dims to repeats.size()).
class Repeat : public PrimitiveOf<Repeat, RepeatParams, PrimitiveKind::Repeat> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit Repeat(std::vector<int64_t> repeats) : PrimitiveOf({std::move(repeats)}) {}
  EMBER_VJP
  EMBER_INFER
  bool saves_input(size_t) const override { return false; }
  const char* default_name() const override { return "repeat"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  const std::vector<int64_t>& repeats() const { return p_.repeats; }
};

struct TriangleParams {
  bool lower = true;
  int64_t diagonal = 0;
  EMBER_FIELDS(lower, diagonal)
};

/// outputs[0] = the lower (tril) or upper (triu) triangle of each matrix in inputs[0], the rest
/// zero. The in-place form (tril_, triu_) writes inputs[0].
class Triangle : public PrimitiveOf<Triangle, TriangleParams, PrimitiveKind::Triangle> {
 public:
  using PrimitiveOf::PrimitiveOf;
  Triangle(bool lower, int64_t diagonal) : PrimitiveOf({lower, diagonal}) {}
  EMBER_VJP
  EMBER_INFER
  bool saves_input(size_t) const override { return false; }
  const char* default_name() const override {
    return p_.lower ? (inplace() ? "tril_" : "tril") : (inplace() ? "triu_" : "triu");
  }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  bool lower() const { return p_.lower; }
  int64_t diagonal() const { return p_.diagonal; }
};

}  // namespace ember
