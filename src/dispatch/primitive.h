#pragma once
// Note [Primitive]: one class per operation kind (or per family, parametrised by an op enum).
// A primitive knows its name, how to run on each backend, and its vjp written with Ember ops (so
// that higher-order gradients work). Ops build a primitive, allocate outputs, and call dispatch().
#include <memory>
#include <string>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

/// What a vjp sees (Note [Autograd graph] in ember/autograd/node.h).
struct VjpContext {
  /// The forward inputs the primitive asked to keep (saves_input); others are undefined.
  const std::vector<Tensor>& inputs;
  /// The forward outputs it asked to keep (saves_output); others are undefined.
  const std::vector<Tensor>& outputs;
  /// Shape and dtype of every forward input, kept or not.
  const std::vector<std::vector<int64_t>>& input_sizes;
  const std::vector<ScalarType>& input_dtypes;
  /// Gradient of each forward output; zeros where none flowed (never undefined for floating
  /// outputs).
  const std::vector<Tensor>& grads;
  /// Which outputs actually received a gradient (the others hold materialised zeros).
  const std::vector<bool>& has_grad;
  /// Which inputs need a gradient.
  const std::vector<bool>& needs_grad;
};

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

  // ---- autograd (src/autograd). A primitive without clone() is not differentiable: using it in
  // a graph raises NotImplementedError at backward time, naming the op.
  /// A copy kept by the graph node; EMBER_PRIMITIVE_CLONE(Class) writes it.
  virtual std::shared_ptr<const Primitive> clone() const { return nullptr; }
  /// Gradients of the inputs (one per input; undefined where not needed or zero). Gradients may
  /// have a broadcast shape or another dtype: the engine sums them down to the input's shape and
  /// converts them to its dtype.
  virtual std::vector<Tensor> vjp(const VjpContext& ctx) const;
  /// Which forward values vjp reads; the others are not kept alive (and may be modified in place
  /// without invalidating the graph).
  virtual bool saves_input(size_t /*i*/) const { return true; }
  virtual bool saves_output(size_t /*i*/) const { return false; }
  /// For an in-place op whose target is not among its inputs: whether it overwrites every element
  /// (copy_, fill_, random fills), so the target's previous values get no gradient. Otherwise
  /// (and unless the target is passed as an input) differentiating through the previous values
  /// raises NotImplementedError.
  virtual bool overwrites_target() const { return false; }
};

#define EMBER_PRIMITIVE_CLONE(Class)                                \
  std::shared_ptr<const Primitive> clone() const override {         \
    return std::make_shared<Class>(*this);                          \
  }

}  // namespace ember
