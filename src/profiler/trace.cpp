// export_chrome_trace: Trace Event Format JSON in Kineto's layout, which chrome://tracing and
// Perfetto open. Ops and scopes are complete events ("ph": "X", ts/dur in microseconds relative
// to baseTimeNanoseconds); allocations are Kineto's "[memory]" instant events plus a "CPU Memory"
// counter track ("ph": "C").
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "ember/core/error.h"
#include "profiler/result.h"

namespace ember::profiler::detail {
namespace {

using Json = nlohmann::ordered_json;

Json event_json(const FunctionEvent& e, int64_t pid) {
  Json j;
  j["ph"] = "X";
  j["cat"] = e.is_user_annotation ? "user_annotation" : "cpu_op";
  j["name"] = e.trace_name;
  j["pid"] = pid;
  j["tid"] = e.thread;
  j["ts"] = e.start_us;
  j["dur"] = e.cpu_time_total;  // from integer nanoseconds: no rounding noise
  Json args = Json::object();
  args["External id"] = e.id;
  if (e.parent >= 0) args["Parent id"] = e.parent;
  if (!e.input_shapes.empty()) {
    args["Input Dims"] = e.input_shapes;
    args["Input type"] = e.input_dtypes;
  }
  if (!e.op_args.empty()) args["Concrete Inputs"] = e.op_args;
  if (e.flops > 0) args["flops"] = e.flops;
  if (!e.stack.empty()) args["Call stack"] = e.stack;
  j["args"] = std::move(args);
  return j;
}

void write_all(int fd, const std::string& data, const std::string& tmp) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      EMBER_THROW(RuntimeError, "[profiler] export_chrome_trace: cannot write '", tmp,
                  "': ", std::strerror(err));
    }
    off += static_cast<size_t>(n);
  }
}

}  // namespace

void write_chrome_trace(const Result& result, const std::map<std::string, std::string>& metadata,
                        const std::string& path) {
  EMBER_CHECK_VALUE(!path.empty(), "[profiler] export_chrome_trace: the path is empty");
  EMBER_CHECK_NOT_IMPL(path.size() < 3 || path.compare(path.size() - 3, 3, ".gz") != 0,
                       "[profiler] export_chrome_trace: gzip output ('", path,
                       "') is not supported yet; write a .json file");
  const int64_t pid = static_cast<int64_t>(::getpid());
  Json trace;
  trace["schemaVersion"] = 1;
  trace["deviceProperties"] = Json::array();
  // As Kineto: the options that shaped the trace, then the user's metadata.
  if (result.config.profile_memory) trace["profile_memory"] = 1;
  if (result.config.with_stack) trace["with_stack"] = 1;
  if (result.config.record_shapes) trace["record_shapes"] = 1;
  if (result.config.with_flops) trace["with_flops"] = 1;
  for (const auto& [key, value] : metadata) trace[key] = Json::parse(value);
  trace["baseTimeNanoseconds"] = result.base_time_ns;
  trace["displayTimeUnit"] = "ms";
  Json events = Json::array();
  events.push_back({{"ph", "M"},
                    {"name", "process_name"},
                    {"pid", pid},
                    {"tid", 0},
                    {"args", {{"name", "ember"}}}});
  std::set<int64_t> threads;
  for (const auto& e : result.events) threads.insert(e.thread);
  for (const auto& m : result.memory) threads.insert(m.thread);
  for (int64_t tid : threads) {
    events.push_back({{"ph", "M"},
                      {"name", "thread_name"},
                      {"pid", pid},
                      {"tid", tid},
                      {"args", {{"name", std::string("thread ").append(std::to_string(tid))}}}});
  }
  for (const auto& e : result.events) events.push_back(event_json(e, pid));
  for (const auto& m : result.memory) {
    events.push_back({{"ph", "i"},
                      {"cat", "cpu_instant_event"},
                      {"s", "t"},
                      {"name", "[memory]"},
                      {"pid", pid},
                      {"tid", m.thread},
                      {"ts", m.ts_us},
                      {"args",
                       {{"Device Type", 0},
                        {"Device Id", -1},
                        {"Addr", m.addr},
                        {"Bytes", m.bytes},
                        {"Total Allocated", m.total_allocated},
                        {"Total Reserved", m.total_reserved}}}});
    events.push_back(
        {{"ph", "C"},
         {"cat", "cpu_memory"},
         {"name", "CPU Memory"},
         {"pid", pid},
         {"tid", 0},
         {"ts", m.ts_us},
         {"args", {{"Allocated", m.total_allocated}, {"Reserved", m.total_reserved}}}});
  }
  trace["traceEvents"] = std::move(events);
  trace["traceName"] = path;
  std::string text = trace.dump();
  text += "\n";

  // Written beside the target, then renamed over it: readers never see a partial trace.
  static std::atomic<uint64_t> counter{0};
  std::string tmp = path + ".tmp." + std::to_string(pid) + "." + std::to_string(++counter);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    int err = errno;
    EMBER_THROW(RuntimeError, "[profiler] export_chrome_trace: cannot create '", tmp,
                "': ", std::strerror(err));
  }
  write_all(fd, text, tmp);
  int synced = ::fsync(fd);
  int err = errno;
  if (::close(fd) != 0 && synced == 0) {
    synced = -1;
    err = errno;
  }
  if (synced != 0) {
    ::unlink(tmp.c_str());
    EMBER_THROW(RuntimeError, "[profiler] export_chrome_trace: cannot write '", tmp,
                "': ", std::strerror(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    EMBER_THROW(RuntimeError, "[profiler] export_chrome_trace: cannot rename '", tmp, "' to '",
                path, "': ", std::strerror(err));
  }
}

}  // namespace ember::profiler::detail
