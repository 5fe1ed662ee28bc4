#pragma once
// Note [Code cache]: generated C++ (Note [Lowering]) becomes machine code through the system C++
// compiler, run as subprocesses (several at once, one per source unit), and is loaded with
// dlopen. An on-disk cache (EMBER_CACHE_DIR, default ~/.cache/ember) keyed by a hash of the
// source, the compiler's identity and the flags makes a second process start warm. Entries are
// written atomically (a temporary file renamed into place), so concurrent processes share the
// cache safely; an entry that is truncated or corrupt is detected, discarded and rebuilt.
// Generated sources include Ember's kernel headers (backend/cpu/vec.h and the functors) from the
// source tree in a build tree and from the installed copy after `cmake --install`.
//
// The compiler is EMBER_CXX, else the one Ember was built with, else `c++`; flags are
// -std=c++20 -O3 -fPIC -shared -fopenmp and the chosen CPU capability's instruction set flags
// (Note [CPU capability]: the eager kernels' Vec width), SLEEF is linked. The
// kernel headers come from EMBER_KERNEL_INCLUDE_DIR (colon-separated), else
// <includedir>/ember/kernels next to an installed libember, else the source tree
// (src/compiler/toolchain.cpp, cmake/codecache.cmake). A key hashes (128 bits) the source, the
// headers it includes, the compiler's path and `--version` and the flags. An entry is
// <cache_dir>/kernels/<unit>-<key>.cpp, .so and .ok (the object's size and checksum, written last);
// see src/compiler/codecache.cpp. Compiler runs are bounded by EMBER_COMPILE_TIMEOUT seconds (300)
// and killed beyond it. The cache is kept under EMBER_CACHE_SIZE_LIMIT (1 GiB) by removing the
// least recently used entries.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/core/error.h"

namespace ember::compiler {

/// The system compiler failed on a generated unit, or none was found: names the unit and
/// carries the compiler's messages.
class CompileError : public RuntimeError {
 public:
  explicit CompileError(const std::string& msg) : RuntimeError(msg) {}
};

/// One generated translation unit. `name` (an identifier: the kernel or module it holds) names
/// it in messages and in the cache's file names.
struct SourceUnit {
  std::string name;
  std::string source;
};

/// A loaded shared object; unloaded when the last reference goes.
class KernelLibrary {
 public:
  virtual ~KernelLibrary() = default;
  /// The address of an `extern "C"` symbol; RuntimeError naming it and the unit when missing.
  virtual void* symbol(const std::string& name) const = 0;
  /// Where the shared object and its source lie (EMBER_LOGS=output_code prints the source).
  virtual const std::string& library_path() const = 0;
  virtual const std::string& source_path() const = 0;
};

/// Compiles every unit that is not cached yet (in parallel, up to one compiler per hardware
/// thread) and loads them all, in order. Raises CompileError naming the first unit (in order)
/// that failed, with the command line and the compiler's output; the others still load.
/// Thread-safe: concurrent callers share one compile of a unit.
std::vector<std::shared_ptr<const KernelLibrary>> load_sources(
    const std::vector<SourceUnit>& units);
std::shared_ptr<const KernelLibrary> load_source(const SourceUnit& unit);

struct CodeCacheStats {
  int64_t compiles = 0;     // compiler runs
  int64_t disk_hits = 0;    // found on disk (another process, or an earlier one, built it)
  int64_t memory_hits = 0;  // already loaded in this process
};
CodeCacheStats code_cache_stats();
/// Forgets the loaded libraries (they stay alive while referenced) and zeroes the stats.
void reset_code_cache();
/// EMBER_CACHE_DIR, else $HOME/.cache/ember (created on first use).
std::string cache_dir();
/// EMBER_CACHE_SIZE_LIMIT in bytes (a K, M or G suffix allowed; 0: no limit), else 1 GiB. After
/// compiling, a process removes the least recently loaded entries until the cache fills at most
/// three quarters of it. ValueError for a malformed value.
int64_t cache_size_limit();

}  // namespace ember::compiler
