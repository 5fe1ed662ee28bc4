#pragma once
// Note [Compiler logs]: EMBER_LOGS (TORCH_LOGS' role) is a comma-separated list of artifacts
// whose records the compiler prints to stderr:
//   graph        each captured graph (Graph::to_string), and the graph after each pass of the
//                pass manager with the pass's name and node counts (Note [Graph passes])
//   recompiles   why each recompile happened (the failed guard)
//   output_code  each lowered graph's generated source, with its path in the code cache
// EMBER_LOGS=all enables every one. The variable is read once per process, at the first query.
#include <string>
#include <string_view>
#include <vector>

namespace ember::compiler {

/// Whether EMBER_LOGS names `artifact` (or "all").
bool log_enabled(std::string_view artifact);
/// Prints one record of `artifact` to stderr ("[ember:recompiles] ..."), whole even when
/// several threads log at once.
void log(std::string_view artifact, const std::string& text);
/// Re-reads EMBER_LOGS (for tests that set it after the first query).
void reload_logs();
/// The artifacts EMBER_LOGS knows.
const std::vector<std::string>& log_artifacts();

/// Prints "[ember] warning: <text>" to stderr (the compiler's warnings; callers decide "once").
void warn(const std::string& text);

}  // namespace ember::compiler
