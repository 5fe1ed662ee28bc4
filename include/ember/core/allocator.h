#pragma once
// The caching CPU allocator (64-byte aligned, size-bucketed). Note [Caching allocator]: a first
// touch of a fresh page costs about 11 us here, so freed blocks are kept and reused by size
// bucket instead of being returned to the OS on every op.
#include <cstddef>
#include <cstdint>

#include "ember/core/device.h"

namespace ember {

/// Note [Allocators]: where a device's memory comes from. A storage takes its memory from the
/// allocator registered for its device type and gives it back there (c10's GetAllocator /
/// SetAllocator); each backend registers its device's allocator, and Backend::allocator()
/// (dispatch/backend.h) returns it. The CPU's is the caching allocator below, registered from
/// the start; the meta device has none (its storages hold no memory).
class Allocator {
 public:
  virtual ~Allocator() = default;
  /// A block of at least nbytes (nbytes may be 0); OutOfMemoryError when there is none.
  virtual void* allocate(size_t nbytes) = 0;
  /// Returns a block from allocate(nbytes), with the same nbytes.
  virtual void deallocate(void* ptr, size_t nbytes) = 0;
};

/// The allocator registered for `type`; null where there is none (meta, or a device this build
/// has no backend for).
Allocator* get_allocator(DeviceType type);
/// Registers `allocator` for `type` (not owned: it must outlive every storage it allocated).
void set_allocator(DeviceType type, Allocator* allocator);

struct MemoryStats {
  int64_t allocated = 0;       // bytes in live tensors (requested sizes rounded to the bucket)
  int64_t reserved = 0;        // bytes held from the OS: live + cached
  int64_t peak_allocated = 0;  // high-water mark of `allocated` since the last reset
  int64_t num_allocs = 0;      // allocation calls served (from cache or OS)
  int64_t num_os_allocs = 0;   // allocation calls that went to the OS
};

/// Current statistics of the CPU allocator.
MemoryStats memory_stats();
/// Sets peak_allocated to the current allocated bytes.
void reset_peak_memory_stats();
/// Returns every cached (unused) block to the OS.
void empty_cache();

namespace detail {
/// Called on every allocation and free (profiler hook); null when nobody listens.
using AllocObserver = void (*)(void* ptr, int64_t delta_bytes, int64_t allocated, int64_t reserved);
void set_alloc_observer(AllocObserver obs);
}  // namespace detail

}  // namespace ember
