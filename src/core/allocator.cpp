#include "ember/core/allocator.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "ember/core/error.h"

namespace ember {
namespace {

constexpr size_t kAlignment = 64;

// Size classes: multiples of 64 up to 1 KiB, then four classes per power of two (<= 25% waste).
size_t bucket_size(size_t n) {
  if (n <= 1024) return std::max<size_t>(kAlignment, (n + kAlignment - 1) & ~(kAlignment - 1));
  size_t p = size_t{1} << (63 - __builtin_clzll(n - 1));  // largest power of two below n
  size_t step = p / 4;
  return (n + step - 1) / step * step;
}

struct CachingAllocator final : Allocator {
  std::mutex mu;
  // Cached blocks by size class: the 16 classes up to 1 KiB (tiny tensors: one per op) in an
  // array, larger ones in a map.
  static constexpr size_t kSmallClasses = 1024 / kAlignment;
  std::vector<void*> small_blocks[kSmallClasses];
  std::unordered_map<size_t, std::vector<void*>> large_blocks;
  MemoryStats stats;
  detail::AllocObserver observer = nullptr;

  std::vector<void*>& blocks(size_t b) {
    return b <= 1024 ? small_blocks[b / kAlignment - 1] : large_blocks[b];
  }

  void* allocate(size_t n) override {
    size_t b = bucket_size(n);
    std::lock_guard<std::mutex> lock(mu);
    void* p = nullptr;
    auto& cached = blocks(b);
    if (!cached.empty()) {
      p = cached.back();
      cached.pop_back();
    } else {
      p = std::aligned_alloc(kAlignment, b);
      if (!p) {
        release_cache_locked();
        p = std::aligned_alloc(kAlignment, b);
      }
      EMBER_CHECK_T(OutOfMemoryError, p != nullptr,
                    "[allocator] CPU out of memory: tried to allocate ", b, " bytes (",
                    stats.allocated, " bytes already allocated)");
      stats.reserved += static_cast<int64_t>(b);
      ++stats.num_os_allocs;
    }
    stats.allocated += static_cast<int64_t>(b);
    stats.peak_allocated = std::max(stats.peak_allocated, stats.allocated);
    ++stats.num_allocs;
    if (observer) observer(p, static_cast<int64_t>(b), stats.allocated, stats.reserved);
    return p;
  }

  void deallocate(void* p, size_t n) override {
    if (!p) return;
    size_t b = bucket_size(n);
    std::lock_guard<std::mutex> lock(mu);
    stats.allocated -= static_cast<int64_t>(b);
    blocks(b).push_back(p);
    if (observer) observer(p, -static_cast<int64_t>(b), stats.allocated, stats.reserved);
  }

  void release_cache_locked() {
    auto release = [&](size_t b, std::vector<void*>& cached) {
      for (void* p : cached) std::free(p);
      stats.reserved -= static_cast<int64_t>(b * cached.size());
      cached.clear();
    };
    for (size_t c = 0; c < kSmallClasses; ++c) release((c + 1) * kAlignment, small_blocks[c]);
    for (auto& [b, cached] : large_blocks) release(b, cached);
  }
};

CachingAllocator& allocator() {
  static CachingAllocator* a = new CachingAllocator();  // never destroyed: frees may run at exit
  return *a;
}

constexpr size_t kDeviceTypes = 3;  // DeviceType's values
std::atomic<Allocator*>* registry() {
  static std::atomic<Allocator*> table[kDeviceTypes] = {&allocator(), nullptr, nullptr};
  return table;
}
size_t slot(DeviceType type) {
  static_assert(static_cast<size_t>(DeviceType::Meta) + 1 == kDeviceTypes);
  return static_cast<size_t>(type);
}

}  // namespace

MemoryStats memory_stats() {
  auto& a = allocator();
  std::lock_guard<std::mutex> lock(a.mu);
  return a.stats;
}

void reset_peak_memory_stats() {
  auto& a = allocator();
  std::lock_guard<std::mutex> lock(a.mu);
  a.stats.peak_allocated = a.stats.allocated;
}

void empty_cache() {
  auto& a = allocator();
  std::lock_guard<std::mutex> lock(a.mu);
  a.release_cache_locked();
}

Allocator* get_allocator(DeviceType type) {
  return registry()[slot(type)].load(std::memory_order_acquire);
}

void set_allocator(DeviceType type, Allocator* allocator) {
  registry()[slot(type)].store(allocator, std::memory_order_release);
}

namespace detail {
void set_alloc_observer(AllocObserver obs) {
  auto& a = allocator();
  std::lock_guard<std::mutex> lock(a.mu);
  a.observer = obs;
}
}  // namespace detail

}  // namespace ember
