#pragma once
// softmax / log_softmax along one dim: outputs[0] = f(inputs[0]), same shape and dtype (floating).
// The op builder (src/nn/functional/activation.cpp) casts the input to the requested dtype and
// makes it contiguous; the kernel (src/backend/cpu/softmax.cpp) fuses max, exp-sum and the
// normalisation in one pass per row, computing 16-bit floats in float32.
#include <cstdint>
#include <string>

#include "dispatch/primitive.h"

namespace ember {

class Softmax : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Softmax)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override { return false; }
  bool saves_output(size_t) const override { return true; }
  Softmax(int64_t dim, bool log) : dim_(dim), log_(log) {}
  const char* name() const override { return log_ ? "log_softmax" : "softmax"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override { return "dim=" + std::to_string(dim_); }
  int64_t dim() const { return dim_; }
  bool log() const { return log_; }

 private:
  int64_t dim_;
  bool log_;
};

}  // namespace ember
