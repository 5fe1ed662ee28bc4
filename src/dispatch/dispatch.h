#pragma once
// The single choke point every op passes through. Note [Dispatch modes]: autograd recording,
// the compiler's tracer, the profiler and the flight recorder hook in here as modes. With no mode
// active the cost is one predictable branch on an atomic counter.
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
}  // namespace detail

/// Runs `prim` on `inputs`, writing `outputs` (see Primitive::eval_cpu); returns the outputs.
inline std::vector<Tensor> dispatch(const Primitive& prim, const std::vector<Tensor>& inputs,
                                    std::vector<Tensor> outputs = {}, bool inplace = false) {
  OpCall call{prim, inputs, outputs, inplace};
  if (detail::g_num_modes.load(std::memory_order_relaxed) == 0) [[likely]] {
    detail::run_backend(call);
  } else {
    detail::dispatch_with_modes(call);
  }
  return outputs;
}

}  // namespace ember
