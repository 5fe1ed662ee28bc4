#pragma once
// The single choke point every op passes through. Note [Dispatch modes]: the compiler's tracer,
// the profiler and the flight recorder hook in here as modes. With no mode active the cost is one
// predictable branch on an atomic counter. Autograd is the one built-in layer: it wraps the modes
// and the backend whenever a tensor with autograd state (or a view) is involved, which costs a
// pointer test per input otherwise.
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "dispatch/primitive.h"

namespace ember {

struct OpCall {
  const Primitive& prim;
  const std::vector<Tensor>& inputs;
  std::vector<Tensor>& outputs;
  /// Whether outputs[0] is an input written in place (add_, copy_, ...).
  bool inplace;
};

class DispatchMode {
 public:
  virtual ~DispatchMode() = default;
  /// Handles one op: call next(call) to run it (through inner modes and then the backend), or
  /// replace it. Modes are process-wide; a mode filters by thread itself when it needs to.
  virtual void handle(OpCall& call, const std::function<void(OpCall&)>& next) = 0;
};

/// Registers a mode (outermost last pushed). Not for use while ops run on other threads.
void push_dispatch_mode(DispatchMode* mode);
void pop_dispatch_mode(DispatchMode* mode);

namespace detail {
extern std::atomic<int> g_num_modes;
void dispatch_with_modes(OpCall& call);
void run_backend(OpCall& call);
/// Runs the call through autograd's recording (src/autograd/record.cpp).
void dispatch_autograd(OpCall& call);
/// Whether autograd must see this call: a view, or a tensor with autograd state or made under
/// InferenceMode among the inputs or the in-place target.
inline bool autograd_involved(const OpCall& call) {
  if (call.prim.is_view()) return true;
  for (const auto& t : call.inputs) {
    if (t.defined() && t.unsafeGetTensorImpl()->autograd_meta) return true;
  }
  if (call.inplace) {
    const TensorImpl* impl = call.outputs[0].unsafeGetTensorImpl();
    return impl->autograd_meta || impl->is_inference();
  }
  return false;
}
}  // namespace detail

/// Runs `prim` on `inputs`, writing `outputs` (see Primitive::eval_cpu); returns the outputs.
inline std::vector<Tensor> dispatch(const Primitive& prim, const std::vector<Tensor>& inputs,
                                    std::vector<Tensor> outputs = {}, bool inplace = false) {
  OpCall call{prim, inputs, outputs, inplace};
  if (detail::autograd_involved(call)) {
    detail::dispatch_autograd(call);
  } else if (detail::g_num_modes.load(std::memory_order_relaxed) == 0) [[likely]] {
    detail::run_backend(call);
  } else {
    detail::dispatch_with_modes(call);
  }
  return outputs;
}

}  // namespace ember
