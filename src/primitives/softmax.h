#pragma once
// softmax / log_softmax along one dim: outputs[0] = f(inputs[0]), same shape and dtype (floating).
// The op builder (src/nn/functional/activation.cpp) casts the input to the requested dtype and
// makes it contiguous; the kernel (src/backend/cpu/softmax.cpp) fuses max, exp-sum and the
// normalisation in one pass over memory per row, computing 16-bit floats in float32.
// SoftmaxBackward (PyTorch's _softmax_backward_data / _log_softmax_backward_data):
//   inputs: grad_output, output (both contiguous, same shape and dtype); outputs: grad_input;
//   softmax: y * (g - sum(g * y)), log_softmax: g - exp(y) * sum(g), sums along dim.
#include <cstdint>
#include <string>

#include "dispatch/primitive.h"

namespace ember {

struct SoftmaxParams {
  int64_t dim = -1;
  bool log = false;
  EMBER_FIELDS(dim, log)
};

class Softmax : public PrimitiveOf<Softmax, SoftmaxParams, PrimitiveKind::Softmax> {
 public:
  using PrimitiveOf::PrimitiveOf;
  Softmax(int64_t dim, bool log) : PrimitiveOf({dim, log}) {}
  EMBER_VJP
  EMBER_INFER
  bool saves_input(size_t) const override { return false; }
  bool saves_output(size_t) const override { return true; }
  const char* default_name() const override { return p_.log ? "log_softmax" : "softmax"; }
  EMBER_CPU_DISPATCHED_KERNEL;
  int64_t dim() const { return p_.dim; }
  bool log() const { return p_.log; }
};

class SoftmaxBackward
    : public PrimitiveOf<SoftmaxBackward, SoftmaxParams, PrimitiveKind::SoftmaxBackward> {
 public:
  using PrimitiveOf::PrimitiveOf;
  SoftmaxBackward(int64_t dim, bool log) : PrimitiveOf({dim, log}) {}
  EMBER_VJP
  EMBER_INFER
  EMBER_DECOMPOSE
  const char* default_name() const override {
    return p_.log ? "_log_softmax_backward_data" : "_softmax_backward_data";
  }
  EMBER_CPU_DISPATCHED_KERNEL;
};

}  // namespace ember
