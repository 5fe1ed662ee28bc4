// The system C++ compiler for generated code (Note [Code cache]). The build's facts arrive as
// compile definitions of this file (cmake/codecache.cmake): the compiler Ember was built with,
// whether it was built for the host CPU, the source tree's include directories and SLEEF's.
#include "compiler/toolchain.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "backend/cpu/capability.h"
#include "compiler/codecache.h"

#ifndef EMBER_BUILD_CXX
#define EMBER_BUILD_CXX ""
#endif
#ifndef EMBER_BUILD_INCLUDE_DIRS
#define EMBER_BUILD_INCLUDE_DIRS ""
#endif
#ifndef EMBER_LIBDIR_TO_INCLUDEDIR
#define EMBER_LIBDIR_TO_INCLUDEDIR "../include"
#endif
#ifndef EMBER_SLEEF_INCLUDE_DIR
#define EMBER_SLEEF_INCLUDE_DIR ""
#endif
#ifndef EMBER_SLEEF_LIBRARY
#define EMBER_SLEEF_LIBRARY ""
#endif

extern char** environ;

namespace ember::compiler::toolchain {
namespace fs = std::filesystem;

namespace {

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::vector<std::string> split_paths(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ':'))
    if (!item.empty()) out.push_back(item);
  return out;
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// An absolute path for a compiler named by path or looked up on PATH; empty when none.
std::string resolve_program(const std::string& name) {
  if (name.empty()) return {};
  if (name.find('/') != std::string::npos)
    return is_executable_file(name) ? fs::absolute(name).lexically_normal().string()
                                    : std::string();
  for (const auto& dir : split_paths(env_or_empty("PATH"))) {
    const std::string candidate = dir + "/" + name;
    if (is_executable_file(candidate)) return fs::absolute(candidate).lexically_normal().string();
  }
  return {};
}

std::string find_compiler() {
  const std::string from_env = env_or_empty("EMBER_CXX");
  if (!from_env.empty()) {
    std::string path = resolve_program(from_env);
    if (path.empty())
      throw CompileError("[compile] no C++ compiler found: EMBER_CXX=" + from_env +
                         " is not an executable file (set EMBER_CXX to a C++ compiler)");
    return path;
  }
  for (const std::string& name : {std::string(EMBER_BUILD_CXX), std::string("c++")})
    if (std::string path = resolve_program(name); !path.empty()) return path;
  throw CompileError(
      std::string("[compile] no C++ compiler found: neither Ember's build compiler (") +
      EMBER_BUILD_CXX +
      ") nor c++ on PATH exists; generated kernels need one at run time "
      "(install g++ or set EMBER_CXX)");
}

// The kernel headers generated code includes (Note [Code cache]): EMBER_KERNEL_INCLUDE_DIR, else
// the installed copy next to the loaded libember, else the source tree of this build.
std::vector<std::string> kernel_include_dirs() {
  std::vector<std::string> dirs = split_paths(env_or_empty("EMBER_KERNEL_INCLUDE_DIR"));
  if (!dirs.empty()) return dirs;
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&find_compiler), &info) != 0 && info.dli_fname) {
    const fs::path includedir = fs::path(info.dli_fname).parent_path() / EMBER_LIBDIR_TO_INCLUDEDIR;
    const fs::path kernels = includedir / "ember" / "kernels";
    std::error_code ec;
    if (fs::is_regular_file(kernels / "backend" / "cpu" / "vec.h", ec))
      return {kernels.lexically_normal().string(), includedir.lexically_normal().string()};
  }
  return split_paths(EMBER_BUILD_INCLUDE_DIRS);
}

// Compiler search paths of its own: naming them with -I would reorder them (#include_next).
bool is_system_include_dir(const std::string& dir) {
  return dir.empty() || dir == "/usr/include" || dir == "/usr/local/include";
}

Toolchain make_toolchain(const std::string& compiler, const std::string& scratch_dir) {
  Toolchain tc;
  tc.compiler = compiler;
  std::mt19937_64 rng(std::random_device{}());
  const std::string log = scratch_dir + "/compiler-version.tmp-" + std::to_string(::getpid()) +
                          "-" + std::to_string(rng()) + ".log";
  const RunResult r = run_all({{compiler, "--version"}}, {log}, 1)[0];
  const std::string first_line = r.output.substr(0, r.output.find('\n'));
  if (r.exit_status != 0 || first_line.empty())
    throw CompileError("[compile] the C++ compiler " + compiler +
                       " does not run: `--version` exited with status " +
                       std::to_string(r.exit_status) + ": " + r.output.substr(0, 2000) +
                       " (set EMBER_CXX)");
  tc.identity = compiler + "\n" + first_line;
  tc.include_dirs = kernel_include_dirs();
  tc.compile_flags = {"-std=c++20", "-O3", "-fPIC", "-shared", "-fopenmp"};
  // The chosen CPU capability's instruction set (Note [CPU capability]): the same Vec width as
  // the eager kernels; a cache shared between machines keeps each capability's kernels apart.
  for (std::string& f : cpu::compile_flags(cpu::capability()))
    tc.compile_flags.push_back(std::move(f));
  // GCC marks some inline statics STB_GNU_UNIQUE, which makes a library impossible to unload;
  // a rebuilt cache entry must replace the old one when reloaded.
  if (first_line.find("clang") == std::string::npos) tc.compile_flags.push_back("-fno-gnu-unique");
  for (const auto& dir : tc.include_dirs) tc.compile_flags.push_back("-I" + dir);
  if (!is_system_include_dir(EMBER_SLEEF_INCLUDE_DIR))
    tc.compile_flags.push_back(std::string("-I") + EMBER_SLEEF_INCLUDE_DIR);
  const std::string sleef = EMBER_SLEEF_LIBRARY;
  tc.link_flags = {!sleef.empty() && fs::exists(sleef) ? sleef : std::string("-lsleef")};
  return tc;
}

std::string read_file_prefix(const std::string& path, size_t limit) {
  std::ifstream in(path, std::ios::binary);
  std::string out;
  char buf[1 << 16];
  while (in && out.size() < limit) {
    in.read(buf, static_cast<std::streamsize>(std::min(sizeof buf, limit - out.size())));
    out.append(buf, static_cast<size_t>(in.gcount()));
  }
  return out;
}

// A started compiler process.
struct Child {
  pid_t pid = -1;
  size_t index = 0;
  std::chrono::steady_clock::time_point started;
};

// Kills (with its process group: the driver's cc1plus, as and ld) and reaps a child.
void kill_child(pid_t pid) {
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

pid_t spawn(const std::vector<std::string>& argv, const std::string& log_path) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  // Its own process group, so that a timeout kills the whole compiler pipeline; default signal
  // dispositions and an empty mask, whatever the calling thread has.
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, argv[0].c_str(), &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return rc == 0 ? pid : -1;
}

// The targets of `#include "..."` lines.
std::vector<std::string> quoted_includes(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t at = line.find_first_not_of(" \t");
    if (at == std::string::npos || line[at] != '#') continue;
    at = line.find_first_not_of(" \t", at + 1);
    if (at == std::string::npos || line.compare(at, 7, "include") != 0) continue;
    const size_t open = line.find_first_not_of(" \t", at + 7);
    if (open == std::string::npos || line[open] != '"') continue;
    const size_t close = line.find('"', open + 1);
    if (close != std::string::npos) out.push_back(line.substr(open + 1, close - open - 1));
  }
  return out;
}

struct HeaderDigests {
  std::mutex mu;
  std::map<std::string, std::string> by_path;  // absolute path -> digest of it and its includes
};

// Digest of the file at `path` and of what it includes (a Merkle hash); `visiting` breaks cycles.
std::string file_digest(HeaderDigests& memo, const std::string& path,
                        const std::vector<std::string>& dirs, std::vector<std::string>& visiting);

std::string includes_digest(HeaderDigests& memo, const std::string& text, const fs::path& own_dir,
                            const std::vector<std::string>& dirs,
                            std::vector<std::string>& visiting) {
  std::string acc;
  for (const auto& inc : quoted_includes(text)) {
    std::vector<fs::path> candidates;
    if (!own_dir.empty()) candidates.push_back(own_dir / inc);
    for (const auto& d : dirs) candidates.push_back(fs::path(d) / inc);
    for (const auto& c : candidates) {
      std::error_code ec;
      if (!fs::is_regular_file(c, ec)) continue;
      acc += inc + "=" + file_digest(memo, c.lexically_normal().string(), dirs, visiting) + ";";
      break;
    }
  }
  return acc;
}

std::string file_digest(HeaderDigests& memo, const std::string& path,
                        const std::vector<std::string>& dirs, std::vector<std::string>& visiting) {
  if (auto it = memo.by_path.find(path); it != memo.by_path.end()) return it->second;
  if (std::find(visiting.begin(), visiting.end(), path) != visiting.end()) return "cycle";
  visiting.push_back(path);
  const std::string text = read_file_prefix(path, size_t(1) << 24);
  const std::string digest = hash128(
      text + "\n" + includes_digest(memo, text, fs::path(path).parent_path(), dirs, visiting));
  visiting.pop_back();
  memo.by_path[path] = digest;
  return digest;
}

}  // namespace

std::string headers_digest(const Toolchain& tc, const std::string& source) {
  static HeaderDigests memo;
  std::lock_guard<std::mutex> lock(memo.mu);
  std::vector<std::string> visiting;
  return hash128(includes_digest(memo, source, {}, tc.include_dirs, visiting));
}

int64_t compile_timeout_seconds() {
  const std::string v = env_or_empty("EMBER_COMPILE_TIMEOUT");
  char* end = nullptr;
  const long long s = v.empty() ? 0 : std::strtoll(v.c_str(), &end, 10);
  return s > 0 && end && *end == '\0' ? s : 300;
}

std::vector<RunResult> run_all(const std::vector<std::vector<std::string>>& commands,
                               const std::vector<std::string>& log_paths, int max_parallel) {
  std::vector<RunResult> results(commands.size());
  std::vector<Child> running;
  // Whatever happens, no compiler outlives this call.
  struct Reaper {
    std::vector<Child>& running;
    ~Reaper() {
      for (const auto& c : running) kill_child(c.pid);
    }
  } reaper{running};
  const auto limit = std::chrono::seconds(compile_timeout_seconds());
  const size_t parallel = static_cast<size_t>(std::max(max_parallel, 1));
  size_t next = 0;
  while (next < commands.size() || !running.empty()) {
    while (next < commands.size() && running.size() < parallel) {
      const pid_t pid = spawn(commands[next], log_paths[next]);
      if (pid < 0) {
        results[next].exit_status = 127;
        results[next].output = "cannot start " + commands[next][0] + ": " + std::strerror(errno);
      } else {
        running.push_back({pid, next, std::chrono::steady_clock::now()});
      }
      ++next;
    }
    bool finished_any = false;
    for (size_t k = 0; k < running.size();) {
      const Child c = running[k];
      RunResult& r = results[c.index];
      int ws = 0;
      const pid_t got = ::waitpid(c.pid, &ws, WNOHANG);
      const bool over = std::chrono::steady_clock::now() - c.started > limit;
      if (got == c.pid) {
        r.exit_status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
      } else if (over) {
        kill_child(c.pid);
        r.timed_out = true;
        r.exit_status = 128 + SIGKILL;
      } else {
        ++k;
        continue;
      }
      r.output = read_file_prefix(log_paths[c.index], size_t(1) << 20);
      ::unlink(log_paths[c.index].c_str());
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
      finished_any = true;
    }
    if (!finished_any && !running.empty())
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (const auto& path : log_paths) ::unlink(path.c_str());
  return results;
}

const Toolchain& current(const std::string& scratch_dir) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<Toolchain>> known;
  const std::string compiler = find_compiler();
  // The include directories are read from the environment on each call, like the compiler.
  const std::string key = compiler + "\n" + env_or_empty("EMBER_KERNEL_INCLUDE_DIR");
  std::lock_guard<std::mutex> lock(mu);
  auto it = known.find(key);
  if (it == known.end())
    it = known.emplace(key, std::make_unique<Toolchain>(make_toolchain(compiler, scratch_dir)))
             .first;
  return *it->second;
}

std::vector<std::string> command(const Toolchain& tc, const std::string& source,
                                 const std::string& output) {
  std::vector<std::string> argv{tc.compiler};
  argv.insert(argv.end(), tc.compile_flags.begin(), tc.compile_flags.end());
  argv.insert(argv.end(), {"-o", output, source});
  argv.insert(argv.end(), tc.link_flags.begin(), tc.link_flags.end());
  return argv;
}

std::string join_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    const bool plain = !a.empty() && a.find_first_of(" \t\"'\\$") == std::string::npos;
    out += plain ? a : "'" + a + "'";
  }
  return out;
}

// Two independent 64-bit hashes (FNV-1a and MurmurHash64A), so that a collision needs both.
std::string hash128(const std::string& data) {
  uint64_t fnv = 0xcbf29ce484222325ull;
  for (unsigned char c : data) fnv = (fnv ^ c) * 0x100000001b3ull;

  constexpr uint64_t m = 0xc6a4a7935bd1e995ull;
  constexpr int r = 47;
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (data.size() * m);
  const size_t blocks = data.size() / 8;
  for (size_t i = 0; i < blocks; ++i) {
    uint64_t k;
    std::memcpy(&k, data.data() + 8 * i, 8);
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  const size_t tail = data.size() % 8;
  if (tail) {
    uint64_t k = 0;
    std::memcpy(&k, data.data() + 8 * blocks, tail);
    h ^= k;
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;

  char out[33];
  std::snprintf(out, sizeof out, "%016llx%016llx", static_cast<unsigned long long>(fnv),
                static_cast<unsigned long long>(h));
  return out;
}

}  // namespace ember::compiler::toolchain
