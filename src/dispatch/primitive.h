#pragma once
// Note [Primitive]: one class per operation kind (or per family, parametrised by an op enum).
// A primitive knows its name, how to run on each backend, and (with the autograd issue) its
// vjp written with Ember ops. Ops build a primitive, allocate outputs, and call dispatch().
#include <string>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

class Primitive {
 public:
  virtual ~Primitive() = default;
  /// The op's name as PyTorch spells it ("add", "sum", "view", ...).
  virtual const char* name() const = 0;
  /// Runs on the CPU. `outputs` arrive allocated by the op builder (or hold the in-place target);
  /// a view primitive receives an empty vector and appends the views it creates.
  virtual void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const = 0;
  /// True when the outputs alias the first input's storage (views).
  virtual bool is_view() const { return false; }
  /// A short description of non-tensor arguments, for printing and profiling ("dim=1").
  virtual std::string describe() const { return {}; }
};

}  // namespace ember
