#include "profiler/collector.h"

#include <execinfo.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <mutex>

#include "dispatch/dispatch.h"
#include "ember/core/allocator.h"
#include "ember/core/error.h"
#include "profiler/flops.h"

namespace ember::profiler::detail {

std::atomic<uint64_t> g_recording{0};

namespace {

// The window's options, read by recording threads (atomics: a later window may change them).
std::atomic<bool> g_record_shapes{false};
std::atomic<bool> g_with_flops{false};
std::atomic<bool> g_with_stack{false};

constexpr int kMaxFrames = 32;

struct SharedBuffer {
  std::mutex mu;
  uint64_t session = 0;  // the window the contents belong to
  int64_t tid = 0;
  EventChunks events;
  std::vector<RawMemory> memory;
  std::atomic<bool> alive{true};
};

struct Registry {
  std::mutex mu;
  std::vector<std::shared_ptr<SharedBuffer>> buffers;
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: threads may exit after main
  return *r;
}

struct OpenScope {
  uint64_t session = 0;
  RawEvent ev;
};

std::atomic<uint64_t> g_num_threads{0};

// Set once the thread's ThreadState is destroyed (trivially destructible, so still readable
// while other thread-locals are torn down, e.g. a thread-local tensor freed at thread exit).
thread_local bool t_state_destroyed = false;

struct ThreadState {
  std::shared_ptr<SharedBuffer> buf;
  std::vector<OpenScope> stack;
  uint64_t id_base = 0;
  uint64_t next_id = 0;

  ThreadState() {
    id_base = (g_num_threads.fetch_add(1, std::memory_order_relaxed) + 1) << 40;
    buf = std::make_shared<SharedBuffer>();
    buf->tid = current_tid();
    auto& reg = registry();
    std::lock_guard<std::mutex> lock(reg.mu);
    reg.buffers.push_back(buf);
  }
  ~ThreadState() {
    buf->alive.store(false);
    t_state_destroyed = true;
  }
  uint64_t new_id() { return id_base | ++next_id; }
};

ThreadState& thread_state() {
  thread_local ThreadState state;
  return state;
}

uint64_t open_scope(ThreadState& ts, uint64_t session, std::string_view prefix,
                    std::string_view name, std::string_view suffix, EventCategory category) {
  uint64_t parent = ts.stack.empty() ? 0 : ts.stack.back().ev.id;
  OpenScope& sc = ts.stack.emplace_back();
  sc.session = session;
  sc.ev.id = ts.new_id();
  sc.ev.parent = parent;
  sc.ev.category = category;
  sc.ev.name.reserve(prefix.size() + name.size() + suffix.size());
  sc.ev.name.append(prefix).append(name).append(suffix);
  return sc.ev.id;
}

// The open scope `id` (normally the top of the stack), or nullptr.
OpenScope* find_open(ThreadState& ts, uint64_t id) {
  for (size_t i = ts.stack.size(); i-- > 0;) {
    if (ts.stack[i].ev.id == id) return &ts.stack[i];
  }
  return nullptr;
}

void close_scope(ThreadState& ts, uint64_t id, int64_t end_ns) {
  OpenScope* open = find_open(ts, id);
  if (open == nullptr) return;  // not open on this thread: dropped
  OpenScope sc = std::move(*open);
  ts.stack.erase(ts.stack.begin() + (open - ts.stack.data()));
  if (sc.session != g_recording.load(std::memory_order_acquire)) return;  // window closed
  sc.ev.end_ns = end_ns;
  SharedBuffer& b = *ts.buf;
  std::lock_guard<std::mutex> lock(b.mu);
  if (b.session != sc.session) {
    b.events.clear();
    b.memory.clear();
    b.session = sc.session;
  }
  b.events.push_back(std::move(sc.ev));
}

void capture_stack(RawEvent& ev) {
  void* frames[kMaxFrames];
  int n = backtrace(frames, kMaxFrames);
  ev.ensure_extra().frames.assign(frames, frames + std::max(n, 0));
}

void record_tensor(RawExtra& ex, const Tensor& t) {
  if (!t.defined()) {
    ex.shapes.push_back(-1);
    ex.dtypes.push_back(-1);
    return;
  }
  const auto& s = t.sizes();
  ex.shapes.push_back(static_cast<int64_t>(s.size()));
  ex.shapes.insert(ex.shapes.end(), s.begin(), s.end());
  ex.dtypes.push_back(static_cast<int8_t>(t.dtype()));
}

// Records every op that passes through dispatch while a window is open.
class ProfilerMode final : public DispatchMode {
 public:
  void handle(OpCall& call, const DispatchNext& next) override {
    uint64_t session = g_recording.load(std::memory_order_acquire);
    if (session == 0 || t_state_destroyed) return next(call);
    ThreadState& ts = thread_state();
    const char* name = call.prim.name();
    uint64_t id = open_scope(ts, session, "aten::", name, {}, EventCategory::Op);
    RawEvent& ev = ts.stack.back().ev;
    // An in-place op's first argument (self) arrives as outputs[0].
    if (g_record_shapes.load(std::memory_order_relaxed)) {
      RawExtra& ex = ev.ensure_extra();
      if (call.inplace && !call.outputs.empty()) record_tensor(ex, call.outputs[0]);
      for (const auto& t : call.inputs) record_tensor(ex, t);
      ex.args = call.prim.describe();
    }
    bool with_flops = g_with_flops.load(std::memory_order_relaxed);
    if (g_with_stack.load(std::memory_order_relaxed)) capture_stack(ev);
    ev.start_ns = now_ns();  // after the bookkeeping: it is not the op's time
    try {
      next(call);
    } catch (...) {
      close_scope(ts, id, now_ns());
      throw;
    }
    int64_t end = now_ns();
    if (with_flops) {
      if (OpenScope* sc = find_open(ts, id)) {
        std::vector<const Tensor*> args;
        if (call.inplace && !call.outputs.empty()) args.push_back(&call.outputs[0]);
        for (const auto& t : call.inputs) args.push_back(&t);
        sc->ev.flops = compute_flops(name, args, call.outputs);
      }
    }
    close_scope(ts, id, end);
  }
};

ProfilerMode& profiler_mode() {
  static ProfilerMode* m = new ProfilerMode();  // never destroyed: other threads may hold it
  return *m;
}

// Called by the allocator (under its lock) on every allocation and free while observed.
void on_alloc(void* ptr, int64_t delta, int64_t allocated, int64_t reserved) {
  uint64_t session = g_recording.load(std::memory_order_acquire);
  if (session == 0 || t_state_destroyed) return;
  ThreadState& ts = thread_state();
  RawMemory m{ptr, delta, allocated, reserved, now_ns(), 0};
  if (!ts.stack.empty() && ts.stack.back().session == session) {
    ts.stack.back().ev.self_mem += delta;
    m.parent = ts.stack.back().ev.id;
  }
  SharedBuffer& b = *ts.buf;
  std::lock_guard<std::mutex> lock(b.mu);
  if (b.session != session) {
    b.events.clear();
    b.memory.clear();
    b.session = session;
  }
  b.memory.push_back(m);
}

std::mutex g_control_mu;
uint64_t g_last_session = 0;
bool g_observing_memory = false;

}  // namespace

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t current_tid() {
  thread_local int64_t tid = static_cast<int64_t>(syscall(SYS_gettid));
  return tid;
}

uint64_t start_recording(const Config& config) {
  std::lock_guard<std::mutex> lock(g_control_mu);
  EMBER_CHECK(g_recording.load() == 0,
              "[profiler] Profiler is already enabled: another ember::profiler::profile is "
              "recording (only one can record at a time)");
  g_record_shapes.store(config.record_shapes, std::memory_order_relaxed);
  g_with_flops.store(config.with_flops, std::memory_order_relaxed);
  g_with_stack.store(config.with_stack, std::memory_order_relaxed);
  if (config.with_stack) {
    // The first backtrace() loads the unwinder (milliseconds): not inside the window.
    void* frame[1];
    backtrace(frame, 1);
  }
  uint64_t session = ++g_last_session;
  g_recording.store(session, std::memory_order_release);
  if (config.profile_memory) {
    ember::detail::set_alloc_observer(&on_alloc);
    g_observing_memory = true;
  }
  add_dispatch_observer(&profiler_mode());
  return session;
}

std::vector<ThreadRecords> stop_recording(uint64_t session) {
  {
    std::lock_guard<std::mutex> lock(g_control_mu);
    EMBER_INTERNAL_ASSERT(session != 0 && g_recording.load() == session,
                          "[profiler] stop_recording: window ", session, " is not recording");
    remove_dispatch_observer(&profiler_mode());
    if (g_observing_memory) {
      ember::detail::set_alloc_observer(nullptr);
      g_observing_memory = false;
    }
    g_recording.store(0, std::memory_order_release);
  }
  std::vector<ThreadRecords> out;
  auto& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mu);
  for (auto& b : reg.buffers) {
    std::lock_guard<std::mutex> block(b->mu);
    if (b->session != session) continue;
    ThreadRecords r;
    r.tid = b->tid;
    r.events = std::move(b->events);
    r.memory = std::move(b->memory);
    b->events.clear();
    b->memory.clear();
    b->session = 0;
    if (!r.events.empty() || !r.memory.empty()) out.push_back(std::move(r));
  }
  // Buffers of exited threads are no longer needed once taken.
  std::erase_if(reg.buffers,
                [](const std::shared_ptr<SharedBuffer>& b) { return !b->alive.load(); });
  return out;
}

ScopeHandle begin_scope(std::string_view prefix, std::string_view name, std::string_view suffix,
                        EventCategory category, std::string_view args) {
  uint64_t session = g_recording.load(std::memory_order_acquire);
  if (session == 0 || t_state_destroyed) return {};
  ThreadState& ts = thread_state();
  uint64_t id = open_scope(ts, session, prefix, name, suffix, category);
  RawEvent& ev = ts.stack.back().ev;
  if (!args.empty()) ev.ensure_extra().args.assign(args);
  if (g_with_stack.load(std::memory_order_relaxed)) capture_stack(ev);
  ev.start_ns = now_ns();
  return {session, id};
}

void end_scope(const ScopeHandle& h) noexcept {
  if (t_state_destroyed) return;
  int64_t end = now_ns();
  try {
    close_scope(thread_state(), h.id, end);
  } catch (...) {
    // Out of memory while storing the event: the event is lost, the program goes on.
  }
}

}  // namespace ember::profiler::detail
