#include "profiler/result.h"

#include <cxxabi.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <unordered_map>

#include "ember/core/dtype.h"

namespace ember::profiler::detail {
namespace {

std::string demangle(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || d == nullptr) return name;
  std::string s(d);
  std::free(d);
  return s;
}

std::string module_offset(const char* module, uintptr_t offset) {
  std::string m = module ? module : "?";
  auto slash = m.rfind('/');
  if (slash != std::string::npos) m = m.substr(slash + 1);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "+0x%zx", static_cast<size_t>(offset));
  return m + buf;
}

// Symbolises return addresses with dladdr. Functions of an executable have names only when it
// exports them (-rdynamic); otherwise the frame reads "module+0xoffset", which addr2line
// resolves.
class Symbolizer {
 public:
  struct Frame {
    bool in_ember;  // inside libember (the profiler, dispatch, the op): not a caller
    std::string text;
  };
  Symbolizer() {
    Dl_info self{};
    if (dladdr(reinterpret_cast<void*>(&demangle), &self)) self_base_ = self.dli_fbase;
  }
  const Frame& frame(void* addr) {
    auto it = cache_.find(addr);
    if (it != cache_.end()) return it->second;
    Frame f{false, {}};
    // A return address points after the call: look up the byte before it.
    void* lookup = static_cast<char*>(addr) - 1;
    Dl_info info{};
    if (dladdr(lookup, &info) == 0) {
      f.text = module_offset("?", reinterpret_cast<uintptr_t>(addr));
    } else if (info.dli_fbase == self_base_) {
      f.in_ember = true;
    } else {
      f.text = info.dli_sname
                   ? demangle(info.dli_sname)
                   : module_offset(info.dli_fname, reinterpret_cast<uintptr_t>(lookup) -
                                                       reinterpret_cast<uintptr_t>(info.dli_fbase));
      // dispatch() is inline: without optimisation a copy of it lives in the caller's module.
      f.in_ember = f.text.rfind("ember::dispatch(", 0) == 0;
    }
    return cache_.emplace(addr, std::move(f)).first->second;
  }

  /// The callers of an event: the frames after the first run of libember frames (frames before
  /// it are the unwinder's, e.g. a sanitizer's backtrace interceptor), without libember's own.
  std::vector<std::string> callers(const std::vector<void*>& frames, size_t max_frames) {
    std::vector<std::string> out;
    bool seen_ember = false;
    for (void* a : frames) {
      const Frame& f = frame(a);
      seen_ember = seen_ember || f.in_ember;
      if (!seen_ember || f.in_ember) continue;
      if (out.size() == max_frames) break;
      out.push_back(f.text);
    }
    return out;
  }

 private:
  const void* self_base_ = nullptr;
  std::unordered_map<void*, Frame> cache_;
};

constexpr size_t kMaxUserFrames = 16;

std::string event_name(const std::string& trace_name) {
  // As PyTorch's _rewrite_name(with_wildcard=True): every step shares one key.
  if (trace_name.rfind("ProfilerStep#", 0) == 0) return "ProfilerStep*";
  return trace_name;
}

}  // namespace

std::string shapes_str(const std::vector<std::vector<int64_t>>& shapes) {
  std::string s = "[";
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (i) s += ", ";
    s += "[";
    for (size_t j = 0; j < shapes[i].size(); ++j) {
      if (j) s += ", ";
      s += std::to_string(shapes[i][j]);
    }
    s += "]";
  }
  return s + "]";
}

void print_warning(const std::string& msg) { std::cerr << "[W profiler] " << msg << std::endl; }

void build_result(std::vector<ThreadRecords> records, Result& result) {
  struct Pending {
    RawEvent* raw;
    int64_t tid;
    int64_t child_ns;
    int64_t total_mem;
  };
  std::vector<Pending> all;
  std::unordered_map<uint64_t, size_t> index;  // raw id -> position in `all`
  for (auto& r : records) {
    r.events.for_each([&](RawEvent& e) {
      index.emplace(e.id, all.size());
      all.push_back({&e, r.tid, 0, 0});
    });
  }
  // Children close before their parent, so in closing order a parent has all its children's
  // totals by the time it is reached (ids are unique across threads).
  std::unordered_map<uint64_t, std::pair<int64_t, int64_t>> child_sums;  // id -> (ns, mem)
  for (auto& p : all) {
    auto it = child_sums.find(p.raw->id);
    int64_t child_mem = 0;
    if (it != child_sums.end()) {
      p.child_ns = it->second.first;
      child_mem = it->second.second;
    }
    p.total_mem = p.raw->self_mem + child_mem;
    if (p.raw->parent != 0 && index.count(p.raw->parent)) {
      auto& s = child_sums[p.raw->parent];
      s.first += p.raw->end_ns - p.raw->start_ns;
      s.second += p.total_mem;
    }
  }
  std::vector<size_t> order(all.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const RawEvent& x = *all[a].raw;
    const RawEvent& y = *all[b].raw;
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    return x.end_ns > y.end_ns;
  });
  std::unordered_map<uint64_t, int64_t> new_id;
  for (size_t k = 0; k < order.size(); ++k) new_id[all[order[k]].raw->id] = static_cast<int64_t>(k);

  Symbolizer sym;
  auto& events = result.events;
  events.clear();
  events.reserve(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    const Pending& p = all[order[k]];
    RawEvent& raw = *p.raw;
    FunctionEvent ev;
    ev.id = static_cast<int64_t>(k);
    ev.trace_name = std::move(raw.name);
    ev.name = event_name(ev.trace_name);
    ev.is_user_annotation = raw.category == EventCategory::UserAnnotation;
    ev.thread = p.tid;
    ev.start_us = static_cast<double>(raw.start_ns - result.start_ns) / 1000.0;
    ev.end_us = static_cast<double>(raw.end_ns - result.start_ns) / 1000.0;
    int64_t dur = raw.end_ns - raw.start_ns;
    ev.cpu_time_total = static_cast<double>(dur) / 1000.0;
    ev.self_cpu_time_total = static_cast<double>(dur - p.child_ns) / 1000.0;
    auto pit = raw.parent != 0 ? new_id.find(raw.parent) : new_id.end();
    if (pit != new_id.end()) ev.parent = pit->second;
    if (raw.extra) {
      const RawExtra& ex = *raw.extra;
      for (size_t i = 0, t = 0; i < ex.shapes.size(); ++t) {
        int64_t nd = ex.shapes[i++];
        std::vector<int64_t> shape;
        if (nd > 0) {
          auto first = ex.shapes.begin() + static_cast<std::ptrdiff_t>(i);
          shape.assign(first, first + nd);
          i += static_cast<size_t>(nd);
        }
        ev.input_shapes.push_back(std::move(shape));
        int8_t dt = t < ex.dtypes.size() ? ex.dtypes[t] : int8_t{-1};
        ev.input_dtypes.emplace_back(dt < 0 ? "" : dtype_name(static_cast<ScalarType>(dt)));
      }
      ev.op_args = ex.args;
      ev.stack = sym.callers(ex.frames, kMaxUserFrames);
    }
    ev.self_cpu_memory_usage = raw.self_mem;
    ev.cpu_memory_usage = p.total_mem;
    ev.flops = raw.flops;
    events.push_back(std::move(ev));
  }
  for (auto& ev : events) {
    if (ev.parent >= 0) events[static_cast<size_t>(ev.parent)].children.push_back(ev.id);
    for (int64_t p = ev.parent; p >= 0; p = events[static_cast<size_t>(p)].parent) ++ev.depth;
  }

  auto& mem = result.memory;
  mem.clear();
  for (auto& r : records) {
    for (const auto& m : r.memory) {
      MemoryRecord rec;
      rec.addr = reinterpret_cast<uintptr_t>(m.ptr);
      rec.bytes = m.bytes;
      rec.total_allocated = m.allocated;
      rec.total_reserved = m.reserved;
      rec.ts_us = static_cast<double>(m.ts_ns - result.start_ns) / 1000.0;
      rec.thread = r.tid;
      auto it = m.parent != 0 ? new_id.find(m.parent) : new_id.end();
      rec.parent = it != new_id.end() ? it->second : -1;
      mem.push_back(rec);
    }
  }
  std::stable_sort(mem.begin(), mem.end(),
                   [](const MemoryRecord& a, const MemoryRecord& b) { return a.ts_us < b.ts_us; });
}

EventList average_events(const Result& result, bool group_by_input_shape, int group_by_stack_n) {
  std::vector<FunctionEventAvg> rows;
  std::unordered_map<std::string, size_t> by_key;
  size_t n_frames = group_by_stack_n > 0 ? static_cast<size_t>(group_by_stack_n) : 0;
  for (const auto& e : result.events) {
    std::string key = e.name;
    key += e.is_user_annotation ? "\x01u" : "\x01o";
    if (group_by_input_shape) {
      key += '\x01';
      key += shapes_str(e.input_shapes);
    }
    for (size_t i = 0; i < std::min(n_frames, e.stack.size()); ++i) {
      key += '\x01';
      key += e.stack[i];
    }
    auto [it, inserted] = by_key.emplace(std::move(key), rows.size());
    if (inserted) {
      FunctionEventAvg a;
      a.key = e.name;
      a.is_user_annotation = e.is_user_annotation;
      if (group_by_input_shape) a.input_shapes = e.input_shapes;
      a.stack.assign(e.stack.begin(), e.stack.begin() + static_cast<std::ptrdiff_t>(
                                                            std::min(n_frames, e.stack.size())));
      a.has_cpu_parent = e.parent >= 0;
      rows.push_back(std::move(a));
    }
    FunctionEventAvg& a = rows[it->second];
    a.count += 1;
    a.cpu_time_total += e.cpu_time_total;
    a.self_cpu_time_total += e.self_cpu_time_total;
    a.cpu_memory_usage += e.cpu_memory_usage;
    a.self_cpu_memory_usage += e.self_cpu_memory_usage;
    a.flops += e.flops;
  }
  return EventList(std::move(rows), result.config.profile_memory, result.config.with_flops);
}

}  // namespace ember::profiler::detail
