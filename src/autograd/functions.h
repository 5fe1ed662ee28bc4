#pragma once
// Internal autograd pieces shared by dispatch, the engine and Tensor's methods: the node kinds
// and the recording entry point.
#include <optional>

#include "autograd/meta.h"
#include "dispatch/dispatch.h"

namespace ember::autograd {

/// The tensor's grad_fn, regenerated first when it is a view whose base changed in place.
const std::shared_ptr<Node>& grad_fn_of(const Tensor& t);

/// The geometry of `view` inside `base` (two strided views of one storage); nullopt when the
/// base's layout is not one Ember can invert (overlapping or interleaved).
std::optional<ViewGeometry> relative_geometry(const Tensor& base, const Tensor& view);

/// The gradient of a view's base from the gradient of the view (differentiable).
Tensor view_backward(const Tensor& grad, const ViewGeometry& g,
                     const std::vector<int64_t>& base_sizes);

/// The tensor's sizes as given, symbolic or not (no guard).
SymShape shape_of(const Tensor& t);

/// Sums a broadcast gradient down to `sizes` (differentiable; symbolic sizes compare as
/// expressions first, so equal shapes need no guard).
Tensor sum_to(const Tensor& grad, const SymShape& sizes);

/// "MulBackward0" from "mul".
std::string backward_name(const char* op);
/// The name of a primitive's node with libtorch's overload number (Note [Overload suffix]):
/// "MulBackward1" for mul with a wrapped scalar operand.
std::string backward_name(const Primitive& prim, const std::vector<Tensor>& inputs);
/// Its parts: the overload number, and the name from the op's name and that number (recording
/// keeps the two and makes the string only when asked).
int backward_overload(const Primitive& prim, const std::vector<Tensor>& inputs);
std::string backward_name(const char* op, int overload);

/// A tensor's saved value, checked against in-place modification when unpacked.
class SavedVariable {
 public:
  SavedVariable() = default;
  /// `output_nr` set: an output of the node that saves it (kept without its grad_fn, to avoid a
  /// cycle, and reconnected to the node on unpack).
  SavedVariable(const Tensor& t, std::optional<uint32_t> output_nr);
  Tensor unpack(const std::shared_ptr<Node>& owner, const std::string& owner_name) const;
  bool defined() const { return data_.defined(); }
  void reset() { data_ = Tensor(); }

 private:
  Tensor data_;
  uint32_t version_ = 0;
  std::optional<uint32_t> output_nr_;
};

/// Accumulates into a leaf's .grad (running the leaf's hooks first and its post-accumulate hooks
/// after).
class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(Tensor variable) : variable_(std::move(variable)) {}
  std::string name() const override { return "torch::autograd::AccumulateGrad"; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override;
  const Tensor& variable() const { return variable_; }

 private:
  Tensor variable_;
};

/// Makes `fn` (output `output_nr`) the tensor's grad_fn.
void set_history(const Tensor& t, std::shared_ptr<Node> fn, uint32_t output_nr);

/// Records one dispatched op into the graph: called by dispatch around the backend when an input
/// has autograd state or the op is a view. `run` executes the op.
void record(OpCall& call, void (*run)(OpCall&));

/// Runs the backward graph from `roots` (engine.cpp). With `capture` non-empty, returns the
/// gradients that flow into those edges instead of running the leaves' accumulators for them.
std::vector<Tensor> run_backward(const std::vector<Edge>& roots,
                                 const std::vector<Tensor>& root_grads, bool keep_graph,
                                 bool create_graph, const std::vector<Edge>& capture,
                                 bool accumulate_into_captured);

}  // namespace ember::autograd
