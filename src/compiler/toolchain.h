#pragma once
// The system C++ compiler as the code cache uses it (Note [Code cache]): which compiler, its
// identity (part of every cache key), the flags and include directories generated code needs, and
// running several compiler processes at once with a time bound.
#include <cstdint>
#include <string>
#include <vector>

namespace ember::compiler::toolchain {

/// The compiler and everything that decides what it produces from a source.
struct Toolchain {
  std::string compiler;                    // absolute path
  std::string identity;                    // path and `--version` line
  std::vector<std::string> include_dirs;   // searched for the kernel headers
  std::vector<std::string> compile_flags;  // before the source: -std, -O3, -I...
  std::vector<std::string> link_flags;     // after the source: SLEEF
};

/// EMBER_CXX, else the compiler Ember was built with, else `c++` on PATH; the identity is
/// computed once per compiler and process. Raises CompileError when no compiler is found.
/// `scratch_dir` holds the temporary output of `--version`.
const Toolchain& current(const std::string& scratch_dir);

/// A digest of the headers `source` includes with quotes, transitively, as found in the
/// toolchain's include directories: a changed kernel header makes a new cache key. Each header
/// is read once per process.
std::string headers_digest(const Toolchain& tc, const std::string& source);

/// The command that compiles `source` into the shared object `output`.
std::vector<std::string> command(const Toolchain& tc, const std::string& source,
                                 const std::string& output);

/// One compiler run: its status and its merged stdout/stderr.
struct RunResult {
  int exit_status = -1;  // 0 on success; 128+signal when killed
  bool timed_out = false;
  std::string output;
};

/// Runs every command, at most `max_parallel` at once, each bounded by compile_timeout() and
/// killed (with its process group) beyond it. `log_paths[i]` receives command i's output and is
/// removed afterwards. Never throws for a failing command; a process that cannot start reports
/// exit status 127.
std::vector<RunResult> run_all(const std::vector<std::vector<std::string>>& commands,
                               const std::vector<std::string>& log_paths, int max_parallel);

/// EMBER_COMPILE_TIMEOUT (seconds), else 300.
int64_t compile_timeout_seconds();

/// A command as a shell would show it (for messages).
std::string join_command(const std::vector<std::string>& argv);

/// 128-bit hash (two independent 64-bit hashes) as 32 hex digits.
std::string hash128(const std::string& data);

}  // namespace ember::compiler::toolchain
