// EventList::table: PyTorch's key-averages table (torch/autograd/profiler_util.py _build_table),
// column for column: the same headers, widths, alignment, number formats and sort keys.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "ember/core/error.h"
#include "profiler/result.h"

namespace ember::profiler {
namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), f, v);
  return buf;
}

// _format_time: microseconds as "1.234us", "1.234ms" or "1.234s".
std::string format_time(double us, const std::string& unit) {
  if (unit == "s" || (unit.empty() && us >= 1e6)) return fmt("%.3fs", us / 1e6);
  if (unit == "ms" || (unit.empty() && us >= 1e3)) return fmt("%.3fms", us / 1e3);
  return fmt("%.3fus", us);
}

std::string format_time_share(double us, double total_us) {
  if (total_us == 0) return "NaN";
  return fmt("%.2f%%", us * 100.0 / total_us);
}

// _format_memory: "1.50 MB", "-512 B".
std::string format_memory(int64_t nbytes) {
  constexpr double kKB = 1024.0, kMB = kKB * 1024, kGB = kMB * 1024;
  double b = static_cast<double>(nbytes);
  if (std::fabs(b) >= kGB) return fmt("%.2f GB", b / kGB);
  if (std::fabs(b) >= kMB) return fmt("%.2f MB", b / kMB);
  if (std::fabs(b) >= kKB) return fmt("%.2f KB", b / kKB);
  return std::to_string(nbytes) + " B";
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
  return s;
}

using Getter = std::function<double(const FunctionEventAvg&)>;

// The sort keys PyTorch accepts (cuda/xpu/privateuse1 spellings map to device ones, as there).
const std::vector<std::pair<std::string, Getter>>& sort_keys() {
  static const std::vector<std::pair<std::string, Getter>> keys = {
      {"cpu_time", [](const FunctionEventAvg& e) { return e.cpu_time(); }},
      {"cpu_time_total", [](const FunctionEventAvg& e) { return e.cpu_time_total; }},
      {"self_cpu_time_total", [](const FunctionEventAvg& e) { return e.self_cpu_time_total; }},
      {"cpu_memory_usage",
       [](const FunctionEventAvg& e) { return static_cast<double>(e.cpu_memory_usage); }},
      {"self_cpu_memory_usage",
       [](const FunctionEventAvg& e) { return static_cast<double>(e.self_cpu_memory_usage); }},
      {"count", [](const FunctionEventAvg& e) { return static_cast<double>(e.count); }},
      {"flops", [](const FunctionEventAvg& e) { return static_cast<double>(e.flops); }},
      // No device backend yet: every device figure is zero.
      {"device_time", [](const FunctionEventAvg&) { return 0.0; }},
      {"device_time_total", [](const FunctionEventAvg&) { return 0.0; }},
      {"self_device_time_total", [](const FunctionEventAvg&) { return 0.0; }},
      {"device_memory_usage", [](const FunctionEventAvg&) { return 0.0; }},
      {"self_device_memory_usage", [](const FunctionEventAvg&) { return 0.0; }},
  };
  return keys;
}

const Getter& sort_getter(const std::string& sort_by) {
  std::string k = replace_all(replace_all(replace_all(sort_by, "cuda", "device"), "xpu", "device"),
                              "privateuse1", "device");
  for (const auto& [name, getter] : sort_keys()) {
    if (name == k) return getter;
  }
  std::string valid;
  for (const auto& [name, getter] : sort_keys()) {
    if (!valid.empty()) valid += ", ";
    valid += name;
  }
  EMBER_THROW(ValueError, "[profiler] table: unknown sort_by key '", sort_by,
              "'; valid keys: ", valid, " (and their cuda_/xpu_ spellings)");
}

struct Column {
  size_t width;
  bool left;  // text_dir "<"
};

class Formatter {
 public:
  void add(size_t width, bool left = false) { cols_.push_back({width, left}); }
  std::string row(const std::vector<std::string>& cells) const {
    std::string s;
    for (size_t i = 0; i < cols_.size(); ++i) {
      const std::string& c = i < cells.size() ? cells[i] : empty_;
      size_t pad = c.size() < cols_[i].width ? cols_[i].width - c.size() : 0;
      if (cols_[i].left)
        s += c + std::string(pad, ' ');
      else
        s += std::string(pad, ' ') + c;
      s += "  ";
    }
    return s;
  }
  std::string separator() const {
    std::string s;
    for (const auto& c : cols_) s += std::string(c.width, '-') + "  ";
    return s;
  }
  size_t line_length() const {
    size_t n = 0;
    for (const auto& c : cols_) n += c.width + 2;
    return n >= 2 ? n - 2 : 0;
  }
  size_t size() const { return cols_.size(); }

 private:
  std::vector<Column> cols_;
  std::string empty_;
};

std::string trim_path(std::string path, size_t width) {
  if (path.size() > width) {
    path = path.substr(path.size() - width);
    if (path.size() > 3) path.replace(0, 3, "...");
  }
  return path;
}

}  // namespace

double EventList::self_cpu_time_total() const {
  double s = 0;
  for (const auto& e : items_) s += e.self_cpu_time_total;
  return s;
}

const FunctionEventAvg* EventList::find(std::string_view key) const {
  for (const auto& e : items_) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

std::string EventList::table(const std::string& sort_by, int64_t row_limit,
                             int64_t max_src_column_width, int64_t max_name_column_width,
                             int64_t max_shapes_column_width, const std::string& header,
                             bool top_level_events_only, const std::string& time_unit) const {
  EMBER_CHECK_VALUE(time_unit.empty() || time_unit == "s" || time_unit == "ms" || time_unit == "us",
                    "[profiler] table: time_unit must be 's', 'ms' or 'us', got '", time_unit, "'");
  std::vector<const FunctionEventAvg*> events;
  for (const auto& e : items_) events.push_back(&e);
  if (!sort_by.empty()) {
    const Getter& get = sort_getter(sort_by);  // validated even when there are no events
    std::stable_sort(
        events.begin(), events.end(),
        [&](const FunctionEventAvg* a, const FunctionEventAvg* b) { return get(*a) > get(*b); });
  }
  if (events.empty()) return "";

  bool has_input_shapes =
      std::any_of(events.begin(), events.end(), [](auto* e) { return !e->input_shapes.empty(); });
  bool has_stack =
      std::any_of(events.begin(), events.end(), [](auto* e) { return !e->stack.empty(); });

  size_t name_width = 0, shapes_width = 0, src_width = 0;
  for (auto* e : events) {
    name_width = std::max(name_width, e->key.size() + 4);
    if (has_input_shapes)
      shapes_width = std::max(shapes_width, detail::shapes_str(e->input_shapes).size() + 4);
    for (const auto& s : e->stack) src_width = std::max(src_width, s.size() + 4);
  }
  if (max_name_column_width > 0)
    name_width = std::min(name_width, static_cast<size_t>(max_name_column_width));
  if (max_shapes_column_width > 0)
    shapes_width = std::min(shapes_width, static_cast<size_t>(max_shapes_column_width));
  if (max_src_column_width > 0)
    src_width = std::min(src_width, static_cast<size_t>(max_src_column_width));

  constexpr size_t kDefaultWidth = 12;
  std::vector<std::string> headers = {"Name",        "Self CPU %", "Self CPU",
                                      "CPU total %", "CPU total",  "CPU time avg"};
  if (profile_memory_) {
    headers.push_back("CPU Mem");
    headers.push_back("Self CPU Mem");
  }
  headers.push_back("# of Calls");
  Formatter f;
  f.add(name_width);
  for (size_t i = 1; i < headers.size(); ++i) f.add(kDefaultWidth);
  size_t src_col = 0;
  if (has_input_shapes) {
    headers.push_back("Input Shapes");
    f.add(shapes_width);
  }
  if (has_stack) {
    headers.push_back("Source Location");
    src_col = f.size();
    f.add(src_width, /*left=*/true);
  }
  // Total FLOPs, scaled by the smallest positive count (auto_scale_flops).
  bool with_flops = with_flops_;
  double flops_scale = 1;
  if (with_flops) {
    int64_t min_flops = 0;
    for (auto* e : events) {
      if (e->flops > 0 && (min_flops == 0 || e->flops < min_flops)) min_flops = e->flops;
    }
    if (min_flops > 0) {
      static const char* kNames[] = {"FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"};
      double log_flops =
          std::max(0.0, std::min(std::log10(static_cast<double>(min_flops)) / 3.0, 5.0));
      flops_scale = std::pow(10.0, std::floor(log_flops) * -3.0);
      headers.push_back(std::string("Total ") + kNames[static_cast<int>(log_flops)]);
      f.add(kDefaultWidth);
    } else {
      with_flops = false;  // no event has a FLOP count
    }
  }

  double sum_self = 0;
  for (auto* e : events) sum_self += e->self_cpu_time_total;

  std::string out;
  auto append = [&](const std::string& s) { out += s + "\n"; };
  if (!header.empty()) {
    append(std::string(f.line_length(), '='));
    append(header);
  }
  if (top_level_events_only) {
    append(std::string(f.line_length(), '='));
    append("This report only display top-level ops statistics");
  }
  append(f.separator());
  append(f.row(headers));
  append(f.separator());

  int64_t shown = 0;
  size_t name_limit = max_name_column_width > 0 ? static_cast<size_t>(max_name_column_width) : 0;
  for (auto* e : events) {
    if (shown == row_limit) break;
    if (top_level_events_only && e->has_cpu_parent) continue;
    ++shown;
    std::string name = e->key;
    if (name_limit >= 3 && name.size() >= name_limit - 3)
      name = name.substr(0, name_limit - 3) + "...";
    std::vector<std::string> row = {name,
                                    format_time_share(e->self_cpu_time_total, sum_self),
                                    format_time(e->self_cpu_time_total, time_unit),
                                    format_time_share(e->cpu_time_total, sum_self),
                                    format_time(e->cpu_time_total, time_unit),
                                    format_time(e->cpu_time(), time_unit)};
    if (profile_memory_) {
      row.push_back(format_memory(e->cpu_memory_usage));
      row.push_back(format_memory(e->self_cpu_memory_usage));
    }
    row.push_back(std::to_string(e->count));
    if (has_input_shapes)
      row.push_back(detail::shapes_str(e->input_shapes).substr(0, shapes_width));
    if (has_stack) row.push_back(e->stack.empty() ? "" : trim_path(e->stack[0], src_width));
    if (with_flops) {
      row.push_back(e->flops <= 0 ? "--"
                                  : fmt("%8.3f", static_cast<double>(e->flops) * flops_scale));
    }
    append(f.row(row));
    if (has_stack) {
      for (size_t i = 1; i < e->stack.size(); ++i) {
        std::vector<std::string> cont(f.size());
        cont[src_col] = trim_path(e->stack[i], src_width);
        append(f.row(cont));
      }
      append(f.row(std::vector<std::string>(f.size())));
    }
  }
  append(f.separator());
  std::string footer = "Self CPU time total: ";
  footer += format_time(sum_self, time_unit);
  append(footer);
  return out;
}

}  // namespace ember::profiler
