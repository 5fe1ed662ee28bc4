#pragma once
// The caching CPU allocator (64-byte aligned, size-bucketed). Note [Caching allocator]: a first
// touch of a fresh page costs about 11 us here, so freed blocks are kept and reused by size
// bucket instead of being returned to the OS on every op.
#include <cstddef>
#include <cstdint>

namespace ember {

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
/// Raw entry points used by Storage. Throws OutOfMemoryError on failure. nbytes may be 0.
void* cpu_alloc(size_t nbytes);
/// Returns a block from cpu_alloc(nbytes), with the same nbytes (its size class follows from it).
void cpu_free(void* p, size_t nbytes);
/// Called on every allocation and free (profiler hook); null when nobody listens.
using AllocObserver = void (*)(void* ptr, int64_t delta_bytes, int64_t allocated, int64_t reserved);
void set_alloc_observer(AllocObserver obs);
}  // namespace detail

}  // namespace ember
