// Note [Compiler logs] (logs.h).
#include "compiler/logs.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>

namespace ember::compiler {

namespace {

struct LogState {
  std::mutex mu;
  bool loaded = false;
  std::set<std::string, std::less<>> enabled;
};

LogState& state() {
  static LogState s;
  return s;
}

std::mutex& stderr_mutex() {
  static std::mutex mu;
  return mu;
}

// Called with the state's mutex held. An unknown name is reported once per read, as TORCH_LOGS
// does (it raises there; a bad environment variable should not stop a program here).
void load(LogState& s) {
  s.enabled.clear();
  s.loaded = true;
  const char* env = std::getenv("EMBER_LOGS");
  if (!env) return;
  std::stringstream in(env);
  std::string item;
  const auto& known = log_artifacts();
  while (std::getline(in, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) continue;
    if (item == "all") {
      s.enabled.insert(known.begin(), known.end());
    } else if (std::find(known.begin(), known.end(), item) != known.end()) {
      s.enabled.insert(item);
    } else {
      std::string names;
      for (const std::string& k : known) names += (names.empty() ? "" : ", ") + k;
      warn("EMBER_LOGS names an unknown artifact '" + item + "'; valid ones: all, " + names);
    }
  }
}

}  // namespace

const std::vector<std::string>& log_artifacts() {
  static const std::vector<std::string> names = {"graph", "recompiles", "output_code"};
  return names;
}

bool log_enabled(std::string_view artifact) {
  LogState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.loaded) load(s);
  return s.enabled.find(artifact) != s.enabled.end();
}

void reload_logs() {
  LogState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  load(s);
}

void log(std::string_view artifact, const std::string& text) {
  std::lock_guard<std::mutex> lock(stderr_mutex());
  std::cerr << "[ember:" << artifact << "] " << text << (text.ends_with('\n') ? "" : "\n");
  std::cerr.flush();
}

void warn(const std::string& text) {
  std::lock_guard<std::mutex> lock(stderr_mutex());
  std::cerr << "[ember] warning: " << text << "\n";
  std::cerr.flush();
}

}  // namespace ember::compiler
