#pragma once
// The single choke point every op passes through. Note [Dispatch modes]: the compiler's tracer,
// the profiler and the flight recorder hook in here as modes.
//  - A mode is pushed on the current thread's stack (DispatchModeGuard) and sees only the ops
//    that thread runs: a tracer on the main thread does not record a DataLoader worker. The
//    innermost mode handles an op first; while its handler runs, it and every mode pushed after
//    it are switched off on that thread, so ops the handler itself calls, and next(call), go to
//    the modes below it (PyTorch's TorchDispatchMode semantics).
//  - An observer (the profiler) sees every thread's ops; it runs below the thread's modes, next
//    to the backend.
// With no mode and no observer anywhere the cost is one predictable branch on one atomic
// counter. Autograd is the one built-in layer: it wraps the modes and the backend whenever a
// tensor with autograd state (or a view) is involved, which costs a pointer test per input
// otherwise.
#include <atomic>
#include <memory>
#include <vector>

#include "dispatch/primitive.h"

namespace ember {

struct OpCall {
  const Primitive& prim;
  const std::vector<Tensor>& inputs;
  std::vector<Tensor>& outputs;
  /// prim.inplace(): outputs[0] is the caller's target, written in place (add_, copy_, ...).
  bool inplace;
  /// Whether dispatch allocated the outputs from prim.infer() (Note [Inference]).
  bool outputs_inferred = false;
};

/// The rest of the dispatch below the mode (or observer) that received it: the modes and
/// observers under it, then the backend.
class DispatchNext {
 public:
  void operator()(OpCall& call) const;

 private:
  friend struct DispatchAccess;
  explicit DispatchNext(int observer) : observer_(observer) {}
  int observer_;  // the next observer slot to run; -1 while thread modes remain
};

class DispatchMode {
 public:
  virtual ~DispatchMode() = default;
  /// Handles one op: call next(call) to run it (through the modes below and then the backend),
  /// or replace it by writing call.outputs.
  virtual void handle(OpCall& call, const DispatchNext& next) = 0;
};

/// Pushes `mode` on this thread's mode stack for the guard's lifetime (guards nest).
class DispatchModeGuard {
 public:
  explicit DispatchModeGuard(DispatchMode& mode);
  ~DispatchModeGuard();
  DispatchModeGuard(const DispatchModeGuard&) = delete;
  DispatchModeGuard& operator=(const DispatchModeGuard&) = delete;

 private:
  DispatchMode* mode_;
};

/// Registers a process-wide observer (at most kMaxDispatchObservers at once); it must stay alive
/// until some time after remove_dispatch_observer (other threads may still be inside it).
inline constexpr int kMaxDispatchObservers = 4;
void add_dispatch_observer(DispatchMode* observer);
void remove_dispatch_observer(DispatchMode* observer);

namespace detail {
/// The outputs of prim.infer(), allocated on the inputs' device (Note [Inference]).
std::vector<Tensor> allocate_outputs(const Primitive& prim, const std::vector<Tensor>& inputs);
/// A meta tensor with `m`'s geometry, symbolic or not (Note [Symbolic tensors]), starting
/// `storage_offset` elements into its storage.
Tensor allocate_meta(const TensorMeta& m, const char* op, int64_t storage_offset = 0);
/// Threads with an active mode, plus registered observers: zero means dispatch goes straight to
/// autograd or the backend.
extern std::atomic<int> g_mode_users;
void dispatch_with_modes(OpCall& call);
/// Whether this thread has a dispatch mode active (a trace records its ops); observers (the
/// profiler) do not count.
bool thread_has_mode();
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

/// `prim` in its in-place form (Note [Mutation and aliasing] in dispatch/primitive.h).
template <typename P>
P in_place(P prim) {
  prim.set_inplace();
  return prim;
}

/// Runs `prim` on `inputs`, writing `outputs` (Note [Backend]); returns the outputs.
/// Without outputs, a primitive that infers gets them allocated from its inference. The in-place
/// form (Primitive::inplace) takes its target as outputs[0].
inline std::vector<Tensor> dispatch(const Primitive& prim, const std::vector<Tensor>& inputs,
                                    std::vector<Tensor> outputs = {}) {
  const bool inferred = outputs.empty() && prim.infers() && !prim.is_view();
  if (inferred) outputs = detail::allocate_outputs(prim, inputs);
  OpCall call{prim, inputs, outputs, prim.inplace(), inferred};
  if (detail::autograd_involved(call)) {
    detail::dispatch_autograd(call);
  } else if (detail::g_mode_users.load(std::memory_order_relaxed) == 0) [[likely]] {
    detail::run_backend(call);
  } else {
    detail::dispatch_with_modes(call);
  }
  return outputs;
}

}  // namespace ember
