#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "ember/core/device.h"

namespace ember {

class Allocator;

/// Counts in-place modifications; shared by a tensor and all its views. Each storage holds one
/// that the tensors made on it share by default (Note [Version counters] in tensor_impl.h).
struct VersionCounter {
  std::atomic<uint32_t> version{0};
};

/// A flat buffer shared by a tensor and its views. Owned memory comes from its device's allocator
/// (Note [Allocators], ember/core/allocator.h) and goes back there; external memory (from_blob)
/// carries the user's deleter, or none.
class StorageImpl {
 public:
  using Deleter = std::function<void(void*)>;
  /// Allocates nbytes from the device's allocator; on the meta device nothing is allocated and
  /// data() is null (Note [Meta device]).
  explicit StorageImpl(size_t nbytes, Device device = kCPU);
  /// Wraps external memory; the deleter (if any) runs when the last user releases it.
  StorageImpl(void* data, size_t nbytes, Deleter deleter);
  ~StorageImpl();
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  bool owned() const { return allocator_ != nullptr; }
  Device device() const { return device_; }
  /// The allocator the memory came from; null for external memory and on the meta device.
  Allocator* allocator() const { return allocator_; }
  /// The version counter of the tensors made on this storage (Note [Version counters]).
  VersionCounter& version_counter() { return version_; }

 private:
  void* data_ = nullptr;
  size_t nbytes_;
  Allocator* allocator_ = nullptr;
  Device device_ = kCPU;
  Deleter deleter_;
  VersionCounter version_;
};
using Storage = std::shared_ptr<StorageImpl>;

}  // namespace ember
