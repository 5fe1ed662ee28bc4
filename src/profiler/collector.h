#pragma once
// Note [Profiler collection]: while a recording window is open, detail::g_recording holds its
// id, a dispatch mode (a never-destroyed singleton) is pushed and, with profile_memory, the
// allocator observer is set. Each thread records into its own buffer: open scopes live on a
// thread-local stack (parent links and memory attribution need no lock) and a scope is moved
// into the thread's shared buffer when it closes, under that buffer's uncontended mutex. Closing
// the window unhooks everything, then takes the buffers of every thread (exited ones included).
// Events of a window that closed while they were in flight are dropped: each records the window
// id it belongs to.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/core/dtype.h"
#include "ember/profiler.h"

namespace ember::profiler::detail {

struct Config {
  bool record_shapes = false;
  bool profile_memory = false;
  bool with_flops = false;
  bool with_stack = false;
};

/// What record_shapes, with_stack and record_function's args add to an event (kept apart so
/// that a plain event stays small: storing events costs page faults on fresh memory).
struct RawExtra {
  // Input shapes, flattened: ndim, d0, d1, ..., ndim, ...; ndim -1 is an undefined tensor.
  std::vector<int64_t> shapes;
  std::vector<int8_t> dtypes;  // ScalarType, or -1 for an undefined tensor
  std::string args;
  std::vector<void*> frames;  // raw return addresses, innermost first
};

/// A closed scope as recorded (converted into FunctionEvent when the window closes).
struct RawEvent {
  uint64_t id = 0;
  uint64_t parent = 0;  // 0: none
  int64_t start_ns = 0, end_ns = 0;
  int64_t self_mem = 0;
  int64_t flops = 0;
  std::string name;
  std::unique_ptr<RawExtra> extra;  // null unless needed
  EventCategory category = EventCategory::Op;
  RawExtra& ensure_extra() {
    if (!extra) extra = std::make_unique<RawExtra>();
    return *extra;
  }
};

/// Events in fixed-capacity chunks: appending never moves the events already stored.
class EventChunks {
 public:
  void push_back(RawEvent&& e) {
    if (chunks_.empty() || chunks_.back().size() == chunks_.back().capacity()) {
      chunks_.emplace_back();
      chunks_.back().reserve(kChunk);
    }
    chunks_.back().push_back(std::move(e));
  }
  bool empty() const { return chunks_.empty(); }
  void clear() { chunks_.clear(); }
  template <typename F>
  void for_each(F&& f) {
    for (auto& c : chunks_)
      for (auto& e : c) f(e);
  }

 private:
  static constexpr size_t kChunk = 1024;
  std::vector<std::vector<RawEvent>> chunks_;
};

struct RawMemory {
  void* ptr = nullptr;
  int64_t bytes = 0, allocated = 0, reserved = 0;
  int64_t ts_ns = 0;
  uint64_t parent = 0;
};

struct ThreadRecords {
  int64_t tid = 0;
  EventChunks events;  // in closing order (children before their parent)
  std::vector<RawMemory> memory;
};

/// Monotonic nanoseconds (steady clock).
int64_t now_ns();

/// Opens a recording window. RuntimeError if one is already open.
uint64_t start_recording(const Config& config);
/// Closes window `session` and returns what every thread recorded in it.
std::vector<ThreadRecords> stop_recording(uint64_t session);

/// The calling thread's OS thread id.
int64_t current_tid();

}  // namespace ember::profiler::detail
