// profile: options, PyTorch's schedule and its state machine (torch/profiler/profiler.py).
#include <unistd.h>

#include <chrono>
#include <exception>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "ember/core/error.h"
#include "profiler/flops.h"
#include "profiler/result.h"

namespace ember::profiler {

std::vector<ProfilerActivity> supported_activities() { return {ProfilerActivity::CPU}; }

std::vector<std::string> flops_formulas() { return detail::flop_ops(); }

ScheduleFn schedule(int64_t wait, int64_t warmup, int64_t active, int64_t repeat,
                    int64_t skip_first, int64_t skip_first_wait) {
  if (!(wait >= 0 && warmup >= 0 && active > 0 && repeat >= 0 && skip_first >= 0)) {
    EMBER_THROW(
        AssertionError, "[profiler.schedule] Invalid profiler schedule arguments (wait=", wait,
        ", warmup=", warmup, ", active=", active, ", repeat=", repeat, ", skip_first=", skip_first,
        "): need wait, warmup, repeat, skip_first >= 0 and "
        "active > 0");
  }
  if (warmup == 0)
    detail::print_warning("Profiler won't be using warmup, this can skew profiler results");
  return [=](int64_t step) {
    EMBER_CHECK_T(AssertionError, step >= 0, "[profiler.schedule] step must be >= 0, got ", step);
    if (step < skip_first) return ProfilerAction::NONE;
    step -= skip_first;
    // With skip_first_wait the first cycle starts without its wait steps.
    if (skip_first_wait != 0) step += wait;
    int64_t num_steps = wait + warmup + active;
    if (repeat > 0 && step >= repeat * num_steps) return ProfilerAction::NONE;
    int64_t mod_step = step % num_steps;
    if (mod_step < wait) return ProfilerAction::NONE;
    if (mod_step < wait + warmup) return ProfilerAction::WARMUP;
    return mod_step < num_steps - 1 ? ProfilerAction::RECORD : ProfilerAction::RECORD_AND_SAVE;
  };
}

namespace {

const char* activity_name(ProfilerActivity a) {
  switch (a) {
    case ProfilerActivity::CPU:
      return "CPU";
    case ProfilerActivity::CUDA:
      return "CUDA";
    case ProfilerActivity::XPU:
      return "XPU";
    case ProfilerActivity::MTIA:
      return "MTIA";
    case ProfilerActivity::HPU:
      return "HPU";
    case ProfilerActivity::PrivateUse1:
      return "PrivateUse1";
  }
  return "?";
}

const char* action_name(ProfilerAction a) {
  switch (a) {
    case ProfilerAction::NONE:
      return "NONE";
    case ProfilerAction::WARMUP:
      return "WARMUP";
    case ProfilerAction::RECORD:
      return "RECORD";
    case ProfilerAction::RECORD_AND_SAVE:
      return "RECORD_AND_SAVE";
  }
  return "?";
}

int64_t unix_time_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

enum class Step { Prepare, Start, Stop, Ready, WarnIncorrect };

}  // namespace

struct profile::Impl {
  profile* owner = nullptr;
  ProfileOptions opts;
  detail::Config config;
  ScheduleFn schedule;
  bool record_steps = false;
  int64_t step_num = 0;
  ProfilerAction current = ProfilerAction::RECORD;
  bool running = false;
  uint64_t session = 0;  // nonzero while this profile records
  std::shared_ptr<detail::Result> result;
  detail::ScopeHandle step_scope;
  std::map<std::string, std::string> metadata;  // values are JSON texts
  std::vector<std::string> warnings;

  void warn(const std::string& msg) {
    warnings.push_back(msg);
    detail::print_warning(msg);
  }

  void prepare_trace() {
    result = std::make_shared<detail::Result>();
    result->config = config;
  }

  void start_trace() {
    if (!result || result->finished) prepare_trace();
    result->base_time_ns = unix_time_ns();
    result->start_ns = detail::now_ns();
    session = detail::start_recording(config);
  }

  void stop_trace() {
    if (session == 0) return;
    auto records = detail::stop_recording(session);
    session = 0;
    result->end_ns = detail::now_ns();
    detail::build_result(std::move(records), *result);
    result->finished = true;
  }

  void trace_ready() {
    if (opts.on_trace_ready()) opts.on_trace_ready()(*owner);
  }

  // The action lists of PyTorch's action_map, keyed by (previous, current); `current` empty is
  // the exit action of stop().
  std::vector<Step> steps(ProfilerAction prev, std::optional<ProfilerAction> cur) const {
    using A = ProfilerAction;
    if (!cur) {
      switch (prev) {
        case A::WARMUP:
          return {Step::Start, Step::Stop};
        case A::RECORD:
        case A::RECORD_AND_SAVE:
          return {Step::Stop, Step::Ready};
        case A::NONE:
          return {};
      }
    }
    switch (prev) {
      case A::NONE:
        if (*cur == A::WARMUP) return {Step::Prepare};
        if (*cur == A::RECORD || *cur == A::RECORD_AND_SAVE) return {Step::Prepare, Step::Start};
        return {};
      case A::WARMUP:
        if (*cur == A::NONE) return {Step::WarnIncorrect, Step::Start, Step::Stop};
        if (*cur == A::RECORD || *cur == A::RECORD_AND_SAVE) return {Step::Start};
        return {};
      case A::RECORD:
        if (*cur == A::NONE || *cur == A::WARMUP) return {Step::WarnIncorrect, Step::Stop};
        return {};
      case A::RECORD_AND_SAVE:
        if (*cur == A::NONE) return {Step::Stop, Step::Ready};
        if (*cur == A::WARMUP) return {Step::Stop, Step::Ready, Step::Prepare};
        return {Step::Stop, Step::Ready, Step::Prepare, Step::Start};
    }
    return {};
  }

  // Runs every action even if one throws (an on_trace_ready callback, say), so that the
  // profiler's state follows the schedule; the first exception is rethrown at the end.
  void transit(ProfilerAction prev, std::optional<ProfilerAction> cur) {
    std::exception_ptr error;
    for (Step s : steps(prev, cur)) {
      try {
        switch (s) {
          case Step::Prepare:
            prepare_trace();
            break;
          case Step::Start:
            start_trace();
            break;
          case Step::Stop:
            stop_trace();
            break;
          case Step::Ready:
            trace_ready();
            break;
          case Step::WarnIncorrect:
            warn(std::string("Incorrect schedule: ") + action_name(prev) + " followed by " +
                 action_name(*cur));
            break;
        }
      } catch (...) {
        if (!error) error = std::current_exception();
      }
    }
    if (error) std::rethrow_exception(error);
  }

  void begin_step_scope() {
    if (record_steps && session != 0)
      step_scope = detail::begin_scope("ProfilerStep#", std::to_string(step_num), {},
                                       EventCategory::UserAnnotation, {});
  }
  void end_step_scope() {
    if (step_scope.session != 0) detail::end_scope(step_scope);
    step_scope = {};
  }

  const detail::Result& finished_result(const char* what) const {
    EMBER_CHECK(result != nullptr, "[profiler] ", what,
                ": nothing recorded yet (start() and stop() the profiler first)");
    EMBER_CHECK(result->finished, "[profiler] ", what,
                ": Profiler didn't finish running (the recording window is still open; read "
                "results after stop() or in on_trace_ready)");
    return *result;
  }
};

profile::profile(ProfileOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.owner = this;
  for (ProfilerActivity a : options.activities()) {
    EMBER_CHECK_NOT_IMPL(a == ProfilerActivity::CPU,
                         "[profiler] ProfilerActivity::", activity_name(a),
                         " is not available: this build of Ember has no ", activity_name(a),
                         " backend (supported activities: CPU)");
  }
  const std::string& dev = options.use_device();
  if (!dev.empty()) {
    bool known = dev == "cuda" || dev == "xpu" || dev == "mtia" || dev == "hpu";
    EMBER_CHECK_VALUE(known, "[profiler] The ", dev,
                      " is not a valid device option (use_device names an accelerator: cuda, "
                      "xpu, mtia or hpu; CPU activity needs no use_device)");
    EMBER_CHECK_NOT_IMPL(false, "[profiler] use_device=\"", dev,
                         "\" is not available: this build of Ember has no ", dev, " backend");
  }
  m.config.record_shapes = options.record_shapes();
  m.config.profile_memory = options.profile_memory();
  m.config.with_flops = options.with_flops();
  m.config.with_stack = options.with_stack();
  if (options.schedule()) {
    m.schedule = options.schedule();
    m.record_steps = true;  // step markers in the trace and the table
  } else {
    m.schedule = [](int64_t) { return ProfilerAction::RECORD; };
  }
  m.opts = std::move(options);
  m.current = m.schedule(0);
}

profile::~profile() {
  if (impl_ && impl_->session != 0) {
    try {
      impl_->end_step_scope();
      detail::stop_recording(impl_->session);
    } catch (...) {
    }
  }
}

void profile::start() {
  Impl& m = *impl_;
  EMBER_CHECK(!m.running, "[profiler] start() called on a profiler that is already running");
  try {
    m.transit(ProfilerAction::NONE, m.current);
  } catch (...) {
    if (m.session != 0) detail::stop_recording(m.session);
    m.session = 0;
    throw;
  }
  m.running = true;
  m.begin_step_scope();
}

void profile::stop() {
  Impl& m = *impl_;
  EMBER_CHECK(m.running,
              "[profiler] stop() called on a profiler that is not running (call "
              "start() first)");
  m.end_step_scope();
  m.running = false;
  m.transit(m.current, std::nullopt);
}

void profile::step() {
  Impl& m = *impl_;
  EMBER_CHECK(m.running,
              "[profiler] step() called on a profiler that is not running (call "
              "start() first)");
  m.end_step_scope();
  ProfilerAction prev = m.current;
  m.step_num += 1;
  m.current = m.schedule(m.step_num);
  std::exception_ptr error;
  try {
    m.transit(prev, m.current);
  } catch (...) {
    error = std::current_exception();
  }
  m.begin_step_scope();
  if (error) std::rethrow_exception(error);
}

int64_t profile::step_num() const { return impl_->step_num; }
ProfilerAction profile::current_action() const { return impl_->current; }
bool profile::is_running() const { return impl_->running; }
const ProfileOptions& profile::options() const { return impl_->opts; }
const std::vector<std::string>& profile::warnings() const { return impl_->warnings; }

EventList profile::key_averages(bool group_by_input_shape, int group_by_stack_n) const {
  return detail::average_events(impl_->finished_result("key_averages"), group_by_input_shape,
                                group_by_stack_n);
}

const std::vector<FunctionEvent>& profile::events() const {
  return impl_->finished_result("events").events;
}

const std::vector<MemoryRecord>& profile::memory_records() const {
  return impl_->finished_result("memory_records").memory;
}

void profile::export_chrome_trace(const std::string& path) const {
  detail::write_chrome_trace(impl_->finished_result("export_chrome_trace"), impl_->metadata, path);
}

void profile::add_metadata(const std::string& key, const std::string& value) {
  impl_->metadata[key] = nlohmann::json(value).dump();
}

void profile::add_metadata_json(const std::string& key, const std::string& value) {
  EMBER_CHECK_VALUE(nlohmann::json::accept(value), "[profiler] add_metadata_json: the value for '",
                    key, "' is not valid JSON: ", value);
  impl_->metadata[key] = value;
}

ProfileGuard::~ProfileGuard() {
  if (!p_.is_running()) return;
  try {
    p_.stop();
  } catch (const std::exception& e) {
    detail::print_warning(std::string("ProfileGuard: stop() failed: ") + e.what());
  }
}

TraceReadyFn tensorboard_trace_handler(const std::string& dir_name, const std::string& worker_name,
                                       bool use_gzip) {
  EMBER_CHECK_NOT_IMPL(!use_gzip,
                       "[profiler] tensorboard_trace_handler: use_gzip is not "
                       "supported yet (no zlib dependency); write plain .json traces");
  EMBER_CHECK_VALUE(!dir_name.empty(), "[profiler] tensorboard_trace_handler: dir_name is empty");
  return [dir_name, worker_name](profile& p) {
    std::error_code ec;
    std::filesystem::create_directories(dir_name, ec);
    EMBER_CHECK(!ec && std::filesystem::is_directory(dir_name),
                "[profiler] Can't create directory: ", dir_name);
    std::string worker = worker_name;
    if (worker.empty()) {
      char host[256] = {0};
      ::gethostname(host, sizeof(host) - 1);
      worker = std::string(host) + "_" + std::to_string(::getpid());
    }
    std::string file = worker + "." + std::to_string(unix_time_ns()) + ".pt.trace.json";
    p.export_chrome_trace((std::filesystem::path(dir_name) / file).string());
  };
}

}  // namespace ember::profiler
