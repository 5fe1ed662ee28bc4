#include "dispatch/backend.h"

#include "backend/cpu/kernels.h"

namespace ember {

namespace {

class CpuBackend final : public Backend {
 public:
  Device device() const override { return kCPU; }
  bool supports(const Primitive& prim) const override {
    return cpu::kernel_for(prim.kind()) != nullptr;
  }
  void run(const Primitive& prim, const std::vector<Tensor>& inputs,
           std::vector<Tensor>& outputs) const override {
    cpu::run_kernel(prim, inputs, outputs);
  }
};

class MetaBackend final : public Backend {
 public:
  Device device() const override { return kMeta; }
  bool supports(const Primitive&) const override { return true; }
  void run(const Primitive& prim, const std::vector<Tensor>& inputs,
           std::vector<Tensor>& outputs) const override {
    // A view's kernel only makes metadata over the input's storage: it runs as on the CPU.
    if (prim.is_view()) return cpu::run_kernel(prim, inputs, outputs);
    // Only a kernel that sizes its outputs from the data (nonzero, unique) receives none.
    EMBER_CHECK_NOT_IMPL(!outputs.empty(), "[", prim.name(),
                         "] cannot run on the meta device: its output's size depends on the "
                         "input's values");
    // The outputs are the result; one the builder allocated elsewhere would hold no values.
    for (const Tensor& out : outputs) {
      EMBER_CHECK_NOT_IMPL(!out.defined() || out.device().is_meta(), "[", prim.name(),
                           "] cannot run on the meta device: its output is allocated on ",
                           out.device().str(), " (the op does not infer its outputs yet)");
    }
  }
};

}  // namespace

const Backend& backend_for(Device device, const char* op) {
  static const CpuBackend cpu;
  static const MetaBackend meta;
  switch (device.type()) {
    case DeviceType::CPU:
      return cpu;
    case DeviceType::Meta:
      return meta;
    case DeviceType::CUDA:
      break;
  }
  EMBER_THROW(NotImplementedError, "[", op, "] device '", device.str(),
              "' has no backend in this build of Ember");
}

Device call_device(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                   const char* op) {
  const TensorImpl* first = nullptr;  // the first tensor not on the CPU
  auto find = [&](const std::vector<Tensor>& ts) {
    for (const Tensor& t : ts) {
      if (!first && t.defined() && !t.unsafeGetTensorImpl()->device().is_cpu()) {
        first = t.unsafeGetTensorImpl();
      }
    }
  };
  find(inputs);
  find(outputs);
  if (!first) return kCPU;
  const Device device = first->device();
  auto check = [&](const std::vector<Tensor>& ts) {
    for (const Tensor& t : ts) {
      if (!t.defined()) continue;
      const TensorImpl* impl = t.unsafeGetTensorImpl();
      const Device d = impl->device();
      EMBER_CHECK(d == device || (d.is_cpu() && impl->dim() == 0), "[", op,
                  "] Expected all tensors to be on the same device, but found at least two "
                  "devices, ",
                  device.str(), " and ", d.str(), "!");
    }
  };
  check(inputs);
  check(outputs);
  return device;
}

}  // namespace ember
