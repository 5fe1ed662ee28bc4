#pragma once
// One closed recording window, in the form the public API reports it.
#include <map>
#include <string>
#include <vector>

#include "ember/profiler.h"
#include "profiler/collector.h"

namespace ember::profiler::detail {

struct Result {
  bool finished = false;  // false between prepare and the end of the window (not readable)
  std::vector<FunctionEvent> events;
  std::vector<MemoryRecord> memory;
  int64_t start_ns = 0, end_ns = 0;  // steady clock
  int64_t base_time_ns = 0;          // Unix time (ns) of start_ns: the trace's time origin
  Config config;
};

/// Turns the raw per-thread records into events (ids in start order, parents, children,
/// depths, self times, memory totals) and memory records.
void build_result(std::vector<ThreadRecords> records, Result& result);

EventList average_events(const Result& result, bool group_by_input_shape, int group_by_stack_n);

/// Writes the trace to `path` through a temporary file in the same directory and a rename.
/// `metadata` values are JSON texts.
void write_chrome_trace(const Result& result, const std::map<std::string, std::string>& metadata,
                        const std::string& path);

/// Python's str() of a list of shapes: "[[2, 3], []]".
std::string shapes_str(const std::vector<std::vector<int64_t>>& shapes);

/// Prints "[W profiler] msg" to stderr.
void print_warning(const std::string& msg);

}  // namespace ember::profiler::detail
