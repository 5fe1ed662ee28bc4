#pragma once
// Note [Backend]: what dispatch needs from a device. Dispatch is the only place that knows about
// devices: it picks the call's device (call_device) and hands the call to that device's backend,
// after the outputs were allocated there (from inference, Note [Inference], or by the op
// builder). A backend keeps its kernels in a table by PrimitiveKind (a kind without one is
// unsupported there) and registers its device's allocator (Note [Allocators]), from which
// StorageImpl(nbytes, device) takes memory. A new device (CUDA) is a new Backend and a kernel
// table, not an edit to every primitive.
//  - CPU: the kernel table of backend/cpu/kernels.h (every kind has one); the caching allocator.
//  - Meta (Note [Meta device]): runs nothing but views (metadata only); outputs allocated on the
//    meta device by inference are the whole result. No allocator.
#include <vector>

#include "dispatch/primitive.h"
#include "ember/core/allocator.h"

namespace ember {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual Device device() const = 0;
  /// Whether this backend can run `prim` (a CUDA backend will have kernels for some kinds only).
  virtual bool supports(const Primitive& prim) const = 0;
  /// Runs `prim` on `inputs`, writing `outputs`; all are on this backend's device (0-d CPU tensors
  /// excepted, as PyTorch's CPU scalars).
  virtual void run(const Primitive& prim, const std::vector<Tensor>& inputs,
                   std::vector<Tensor>& outputs) const = 0;
  /// Waits until the work queued on the device is done (kernels that run synchronously: nothing).
  virtual void synchronize() const {}
  /// Where this device's storages take their memory (null: the device holds none, as meta).
  virtual Allocator* allocator() const { return get_allocator(device().type()); }
};

/// The backend of `device`; NotImplementedError naming `op` when this build has none.
const Backend& backend_for(Device device, const char* op);

/// The device a call runs on: that of its tensors, where a 0-d CPU tensor may join any device.
/// RuntimeError naming `op` when the tensors are on two devices.
Device call_device(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                   const char* op);

}  // namespace ember
