#pragma once
#include <cstdint>
#include <ostream>
#include <string>

namespace ember {

/// Note [Meta device]: a meta tensor has sizes, strides, dtype and no data. Every op that infers
/// its outputs (Note [Inference]) runs on meta tensors by inference alone, which is how shapes are
/// checked without computing (PyTorch's device="meta").
enum class DeviceType : int8_t { CPU, CUDA, Meta };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kMeta = DeviceType::Meta;

/// torch.device: "cpu", "cuda", "cuda:0", "meta". Parsing "cuda:0" works; creating tensors there
/// raises until a CUDA backend is built.
class Device {
 public:
  Device(DeviceType type = kCPU, int index = -1) : type_(type), index_(index) {  // NOLINT
    if (index < 0 ? index != -1 : type == kCPU && index != 0) [[unlikely]]
      bad_index(index);
  }
  Device(const std::string& spec);                         // NOLINT
  Device(const char* spec) : Device(std::string(spec)) {}  // NOLINT
  DeviceType type() const { return type_; }
  int index() const { return index_; }
  bool has_index() const { return index_ >= 0; }
  bool is_cpu() const { return type_ == kCPU; }
  bool is_cuda() const { return type_ == kCUDA; }
  bool is_meta() const { return type_ == kMeta; }
  std::string str() const;
  bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }

 private:
  [[noreturn]] static void bad_index(int index);
  DeviceType type_;
  int index_;
};
std::ostream& operator<<(std::ostream& os, const Device& d);

/// Throws NotImplementedError naming `op` unless the device has a backend in this build (CPU and
/// meta do).
void check_device_available(const Device& d, const char* op);

}  // namespace ember
