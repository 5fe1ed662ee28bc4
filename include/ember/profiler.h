#pragma once
// The profiler: PyTorch's torch.profiler in C++. Note [Profiler]: it hooks into dispatch as a
// mode (src/dispatch/dispatch.h) and into the allocator's observer, and only while a recording
// window is open; with no window open the cost per op is dispatch's one branch on an atomic
// counter and the cost of a record_function scope is one relaxed atomic load.
//
//   namespace prof = ember::profiler;
//   prof::profile p(prof::ProfileOptions().record_shapes(true).profile_memory(true));
//   {
//     prof::ProfileGuard guard(p);            // `with profile(...) as p:` (or p.start()/p.stop())
//     prof::record_function scope("model_inference");
//     y = model(x);
//   }
//   std::cout << p.key_averages().table("self_cpu_time_total", 10);
//   p.export_chrome_trace("trace.json");       // chrome://tracing, ui.perfetto.dev
//
// Events are kept from every thread. Other subsystems hook in through record_function: the
// autograd engine (record_function::backward_node), optimizers (record_function::optimizer_step)
// and data loaders (record_function::data_loader_next).
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ember::profiler {

/// torch.profiler.ProfilerActivity. Only CPU exists in this build; asking for a device activity
/// is a NotImplementedError until that backend lands.
enum class ProfilerActivity { CPU, CUDA, XPU, MTIA, HPU, PrivateUse1 };

/// The activities this build can trace ({CPU}).
std::vector<ProfilerActivity> supported_activities();

/// torch.profiler.ProfilerAction: what the profiler does during one step.
enum class ProfilerAction { NONE, WARMUP, RECORD, RECORD_AND_SAVE };

/// A schedule maps a step number (0, 1, ...) to an action.
using ScheduleFn = std::function<ProfilerAction(int64_t step)>;

/// torch.profiler.schedule: skip `skip_first` steps, then cycles of `wait` NONE steps, `warmup`
/// WARMUP steps and `active` RECORD steps (the last one RECORD_AND_SAVE); `repeat` cycles, or
/// forever when 0. With `skip_first_wait` != 0 the first cycle starts without its wait steps.
/// AssertionError "Invalid profiler schedule arguments" unless wait, warmup, repeat, skip_first
/// >= 0 and active > 0.
ScheduleFn schedule(int64_t wait, int64_t warmup, int64_t active, int64_t repeat = 0,
                    int64_t skip_first = 0, int64_t skip_first_wait = 0);

class profile;
using TraceReadyFn = std::function<void(profile&)>;

/// Options of profile (torch.profiler.profile's keyword arguments), libtorch-style setters:
/// ProfileOptions().activities({ProfilerActivity::CPU}).record_shapes(true).with_flops(true).
class ProfileOptions {
 public:
  /// Empty (the default) means supported_activities().
  ProfileOptions& activities(std::vector<ProfilerActivity> v) {
    activities_ = std::move(v);
    return *this;
  }
  /// The device whose activity is traced besides the CPU ("cuda", "xpu", ...); empty = none.
  /// There is no `use_cuda` (removed from PyTorch): use activities or use_device.
  ProfileOptions& use_device(std::string v) {
    use_device_ = std::move(v);
    return *this;
  }
  /// Without one, every step records and on_trace_ready runs once, at stop().
  ProfileOptions& schedule(ScheduleFn v) {
    schedule_ = std::move(v);
    return *this;
  }
  /// Called with the profile when a recording window closes (after RECORD_AND_SAVE, or at stop()).
  ProfileOptions& on_trace_ready(TraceReadyFn v) {
    on_trace_ready_ = std::move(v);
    return *this;
  }
  /// Record the shapes and dtypes of each op's tensor inputs.
  ProfileOptions& record_shapes(bool v) {
    record_shapes_ = v;
    return *this;
  }
  /// Record allocations and frees of the CPU allocator.
  ProfileOptions& profile_memory(bool v) {
    profile_memory_ = v;
    return *this;
  }
  /// Record the calling functions (outside libember) of each event: a stack walk per event
  /// (several microseconds), symbolised with dladdr when the window closes.
  ProfileOptions& with_stack(bool v) {
    with_stack_ = v;
    return *this;
  }
  /// Estimate FLOPs of matrix products, convolutions, attention, add and mul (see flops_formulas).
  ProfileOptions& with_flops(bool v) {
    with_flops_ = v;
    return *this;
  }

  const std::vector<ProfilerActivity>& activities() const { return activities_; }
  const std::string& use_device() const { return use_device_; }
  const ScheduleFn& schedule() const { return schedule_; }
  const TraceReadyFn& on_trace_ready() const { return on_trace_ready_; }
  bool record_shapes() const { return record_shapes_; }
  bool profile_memory() const { return profile_memory_; }
  bool with_stack() const { return with_stack_; }
  bool with_flops() const { return with_flops_; }

 private:
  std::vector<ProfilerActivity> activities_;
  std::string use_device_;
  ScheduleFn schedule_;
  TraceReadyFn on_trace_ready_;
  bool record_shapes_ = false;
  bool profile_memory_ = false;
  bool with_stack_ = false;
  bool with_flops_ = false;
};

/// One recorded event (torch.autograd.profiler_util.FunctionEvent). Times are microseconds since
/// the start of the recording window.
struct FunctionEvent {
  int64_t id = 0;                   // 0, 1, ... in order of start time
  std::string name;                 // "aten::mm", "model_inference", "ProfilerStep*"
  std::string trace_name;           // the name in the trace ("ProfilerStep#3")
  bool is_user_annotation = false;  // record_function scopes (trace category "user_annotation")
  int64_t thread = 0;               // OS thread id
  double start_us = 0, end_us = 0;
  double cpu_time_total = 0;       // end - start
  double self_cpu_time_total = 0;  // minus the children's totals
  int64_t parent = -1;             // id of the enclosing event on the same thread, or -1
  std::vector<int64_t> children;   // ids of the directly nested events
  int depth = 0;                   // 0 at top level
  std::vector<std::vector<int64_t>> input_shapes;  // with record_shapes
  std::vector<std::string> input_dtypes;           // with record_shapes ("float32"; "" if none)
  std::string op_args;                             // non-tensor arguments ("dim=1")
  std::vector<std::string> stack;                  // with with_stack: innermost caller first
  int64_t cpu_memory_usage = 0;       // bytes allocated minus freed inside, children included
  int64_t self_cpu_memory_usage = 0;  // the same without the children
  int64_t flops = 0;                  // with with_flops, for ops with a formula
};

/// One allocation (bytes > 0) or free (bytes < 0) of the CPU allocator, with profile_memory.
struct MemoryRecord {
  uintptr_t addr = 0;
  int64_t bytes = 0;
  int64_t total_allocated = 0;  // allocator totals right after this event
  int64_t total_reserved = 0;
  double ts_us = 0;
  int64_t thread = 0;
  int64_t parent = -1;  // id of the innermost event open on that thread, or -1
};

/// Statistics of the events sharing one key (torch.autograd.profiler_util.FunctionEventAvg).
struct FunctionEventAvg {
  std::string key;  // the event name
  bool is_user_annotation = false;
  int64_t count = 0;
  double cpu_time_total = 0, self_cpu_time_total = 0;  // microseconds
  int64_t cpu_memory_usage = 0, self_cpu_memory_usage = 0;
  int64_t flops = 0;
  std::vector<std::vector<int64_t>> input_shapes;  // set when grouped by input shape
  std::vector<std::string> stack;                  // the first group_by_stack_n frames
  bool has_cpu_parent = false;                     // the first event had an enclosing event
  /// Average CPU time per call (cpu_time_total / count).
  double cpu_time() const { return count == 0 ? 0.0 : cpu_time_total / static_cast<double>(count); }
};

/// The result of key_averages(): a list of FunctionEventAvg that prints as PyTorch's table.
class EventList {
 public:
  EventList() = default;
  EventList(std::vector<FunctionEventAvg> items, bool profile_memory, bool with_flops)
      : items_(std::move(items)), profile_memory_(profile_memory), with_flops_(with_flops) {}

  /// PyTorch's table. sort_by: "" (keep order), "cpu_time", "cpu_time_total",
  /// "self_cpu_time_total", "cpu_memory_usage", "self_cpu_memory_usage", "count", "flops", or a
  /// device key ("cuda_time_total", "self_device_time_total", ..., all zero on CPU); anything
  /// else is a ValueError. row_limit < 0 prints every row. time_unit: "" (automatic), "s", "ms",
  /// "us". Columns: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg, then CPU Mem
  /// and Self CPU Mem (profile_memory), # of Calls, Input Shapes (grouped by input shape),
  /// Source Location (grouped by stack), Total FLOPs (with_flops, scaled: "Total MFLOPs").
  std::string table(const std::string& sort_by = "", int64_t row_limit = 100,
                    int64_t max_src_column_width = 75, int64_t max_name_column_width = 55,
                    int64_t max_shapes_column_width = 80, const std::string& header = "",
                    bool top_level_events_only = false, const std::string& time_unit = "") const;
  /// Sum of the self CPU times (microseconds).
  double self_cpu_time_total() const;
  /// The row for `key` (and the first matching one when grouped); nullptr when absent.
  const FunctionEventAvg* find(std::string_view key) const;

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const FunctionEventAvg& operator[](size_t i) const { return items_[i]; }
  std::vector<FunctionEventAvg>::const_iterator begin() const { return items_.begin(); }
  std::vector<FunctionEventAvg>::const_iterator end() const { return items_.end(); }

 private:
  std::vector<FunctionEventAvg> items_;
  bool profile_memory_ = false;
  bool with_flops_ = false;
};

/// torch.profiler.profile. Not started by its constructor: call start() and stop() (or use
/// ProfileGuard), and step() once per training step when a schedule is given. Only one profile
/// records at a time (RuntimeError otherwise). The methods are not thread-safe; ops and
/// record_function scopes on any thread are recorded. Results (events(), key_averages(),
/// export_chrome_trace()) describe the last recording window that closed.
class profile {
 public:
  /// NotImplementedError for a device activity or use_device (no device backend yet); ValueError
  /// for an unknown use_device string.
  explicit profile(ProfileOptions options = ProfileOptions());
  ~profile();  // ends a recording window still open, without calling on_trace_ready
  profile(const profile&) = delete;
  profile& operator=(const profile&) = delete;

  /// Starts profiling (enters step 0's action). RuntimeError if already started.
  void start();
  /// Stops profiling: closes the open recording window and calls on_trace_ready for it.
  /// RuntimeError if not started.
  void stop();
  /// Signals that the next step begins: advances the schedule, opening and closing windows
  /// (with a schedule each step is wrapped in a "ProfilerStep#N" record_function).
  void step();
  /// The current step number (0 before the first step()).
  int64_t step_num() const;
  /// The schedule's action for the current step.
  ProfilerAction current_action() const;
  bool is_running() const;

  /// Averages the events over their names (and input shapes, and the first n stack frames).
  EventList key_averages(bool group_by_input_shape = false, int group_by_stack_n = 0) const;
  /// Every event of the last window, sorted by start time.
  const std::vector<FunctionEvent>& events() const;
  /// The allocations and frees of the last window (with profile_memory), in time order.
  const std::vector<MemoryRecord>& memory_records() const;
  /// Writes the last window as Trace Event Format JSON (written to a temporary file, then renamed).
  void export_chrome_trace(const std::string& path) const;
  /// Adds a top-level "key": "value" entry to exported traces.
  void add_metadata(const std::string& key, const std::string& value);
  /// Adds a top-level entry whose value is the given JSON text. ValueError if it is not JSON.
  void add_metadata_json(const std::string& key, const std::string& value);
  /// Warnings emitted so far ("Incorrect schedule: ..."); each is also printed to stderr.
  const std::vector<std::string>& warnings() const;
  const ProfileOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// RAII for `with profile(...) as p:`: starts `p` now and stops it at the end of the scope.
class ProfileGuard {
 public:
  explicit ProfileGuard(profile& p) : p_(p) { p_.start(); }
  /// Stops the profile; an exception from stop() (from on_trace_ready) is printed, not thrown.
  ~ProfileGuard();
  ProfileGuard(const ProfileGuard&) = delete;
  ProfileGuard& operator=(const ProfileGuard&) = delete;

 private:
  profile& p_;
};

/// torch.profiler.tensorboard_trace_handler: an on_trace_ready callback that writes
/// "<dir>/<worker_name>.<time_ns>.pt.trace.json" (worker_name defaults to "<host>_<pid>").
/// use_gzip is a NotImplementedError (no zlib dependency yet).
TraceReadyFn tensorboard_trace_handler(const std::string& dir_name,
                                       const std::string& worker_name = "", bool use_gzip = false);

/// What an event is: a user annotation (trace category "user_annotation") or an operator
/// ("cpu_op", as backward nodes are in PyTorch).
enum class EventCategory { UserAnnotation, Op };

namespace detail {
/// Nonzero while a recording window is open (the id of that window).
extern std::atomic<uint64_t> g_recording;
struct ScopeHandle {
  uint64_t session = 0;
  uint64_t id = 0;
};
/// Opens a scope named prefix + name + suffix on this thread (no-op handle when not recording).
ScopeHandle begin_scope(std::string_view prefix, std::string_view name, std::string_view suffix,
                        EventCategory category, std::string_view args);
void end_scope(const ScopeHandle& h) noexcept;
}  // namespace detail

/// torch.profiler.record_function: an RAII scope recorded as an event named `name`. Costs one
/// relaxed atomic load when no window is open. Scopes nest per thread and must end on the thread
/// that began them (one that does not is dropped).
class record_function {
 public:
  explicit record_function(std::string_view name, std::string_view args = {},
                           EventCategory category = EventCategory::UserAnnotation) {
    if (detail::g_recording.load(std::memory_order_relaxed) != 0) [[unlikely]]
      h_ = detail::begin_scope({}, name, {}, category, args);
  }
  ~record_function() { end(); }
  record_function(const record_function&) = delete;
  record_function& operator=(const record_function&) = delete;
  /// Ends the scope early (like __exit__); later calls do nothing.
  void end() noexcept {
    if (h_.session != 0) [[unlikely]] {
      detail::end_scope(h_);
      h_.session = 0;
    }
  }

  /// The autograd engine's scope for one backward node: "autograd::engine::evaluate_function:
  /// MulBackward0" (an op event, as in PyTorch).
  static record_function backward_node(std::string_view node_name) {
    return record_function(Composed{}, "autograd::engine::evaluate_function: ", node_name, {},
                           EventCategory::Op);
  }
  /// An optimizer step: "Optimizer.step#SGD.step".
  static record_function optimizer_step(std::string_view optimizer_class) {
    return record_function(Composed{}, "Optimizer.step#", optimizer_class, ".step",
                           EventCategory::UserAnnotation);
  }
  /// An optimizer's zero_grad: "Optimizer.zero_grad#SGD.zero_grad".
  static record_function optimizer_zero_grad(std::string_view optimizer_class) {
    return record_function(Composed{}, "Optimizer.zero_grad#", optimizer_class, ".zero_grad",
                           EventCategory::UserAnnotation);
  }
  /// A data-loader wait: "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__". Data
  /// loaders do not exist yet.
  static record_function data_loader_next(
      std::string_view iterator_class = "_SingleProcessDataLoaderIter") {
    return record_function(Composed{}, "enumerate(DataLoader)#", iterator_class, ".__next__",
                           EventCategory::UserAnnotation);
  }

 private:
  struct Composed {};
  record_function(Composed, std::string_view prefix, std::string_view name, std::string_view suffix,
                  EventCategory category) {
    if (detail::g_recording.load(std::memory_order_relaxed) != 0) [[unlikely]]
      h_ = detail::begin_scope(prefix, name, suffix, category, {});
  }
  detail::ScopeHandle h_;
};

/// The FLOP formulas used by with_flops, keyed by op name ("mm", "addmm", "bmm", "baddbmm",
/// "matmul", "mv", "dot", "conv2d", "scaled_dot_product_attention", "add", "mul", ...).
std::vector<std::string> flops_formulas();

}  // namespace ember::profiler
