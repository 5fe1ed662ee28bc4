// The code cache (Note [Code cache]). An entry is three files under <cache_dir>/kernels, all named
// <unit>-<key>: the source (.cpp), the shared object (.so) and a record (.ok) of the object's
// size and checksum. Each is written under a unique temporary name and renamed into place, the
// record last, so a reader trusts an object only through a record that matches it; anything else
// (no record, a mismatch, a failing dlopen) is rebuilt. Processes racing on one entry each rename
// complete files of equal content (the compiler's output depends only on the source path, the
// source and the command, not on the temporary output name), so every order of renames leaves a
// valid entry.
#include "compiler/codecache.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <thread>
#include <unordered_map>

#include "compiler/toolchain.h"

namespace ember::compiler {
namespace fs = std::filesystem;

namespace {

using LibraryPtr = std::shared_ptr<const KernelLibrary>;

class Library final : public KernelLibrary {
 public:
  Library(void* handle, std::string unit, std::string library_path, std::string source_path)
      : handle_(handle),
        unit_(std::move(unit)),
        library_path_(std::move(library_path)),
        source_path_(std::move(source_path)) {}
  ~Library() override { ::dlclose(handle_); }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  void* symbol(const std::string& name) const override {
    void* p = ::dlsym(handle_, name.c_str());
    if (!p)
      EMBER_THROW(RuntimeError, "[compile] generated unit '", unit_, "' has no symbol '", name,
                  "' (", library_path_, ")");
    return p;
  }
  const std::string& library_path() const override { return library_path_; }
  const std::string& source_path() const override { return source_path_; }

 private:
  void* handle_;
  std::string unit_, library_path_, source_path_;
};

// Loaded (or being loaded) libraries by cache key: a second caller waits for the first's result.
struct Cache {
  std::mutex mu;
  std::unordered_map<std::string, std::shared_future<LibraryPtr>> loaded;
  CodeCacheStats stats;
};

Cache& cache() {
  static Cache c;
  return c;
}

void count(int64_t CodeCacheStats::*field) {
  std::lock_guard<std::mutex> lock(cache().mu);
  ++(cache().stats.*field);
}

std::string file_name_part(const std::string& name) {
  std::string out;
  for (char c : name.substr(0, 64))
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return out.empty() ? "unit" : out;
}

// A name no other process or thread uses: pid, a per-process random value and a counter.
std::string unique_suffix() {
  static const uint64_t salt =
      std::random_device{}() * 0x9e3779b97f4a7c15ull ^ static_cast<uint64_t>(::getpid());
  static std::atomic<uint64_t> counter{0};
  char buf[64];
  std::snprintf(buf, sizeof buf, ".tmp-%d-%llx-%llu", static_cast<int>(::getpid()),
                static_cast<unsigned long long>(salt), static_cast<unsigned long long>(counter++));
  return buf;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) {
    ::unlink(path.c_str());
    EMBER_THROW(RuntimeError, "[compile] cannot write ", path, " in the code cache");
  }
}

// Writes under a temporary name, then renames into place (never a partial file under `path`).
void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + unique_suffix();
  write_file(tmp, text);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    EMBER_THROW(RuntimeError, "[compile] cannot rename ", tmp, " to ", path, ": ",
                std::strerror(errno));
  }
}

std::string record_of(const std::string& object_bytes) {
  return "ember code cache entry 1\nsize " + std::to_string(object_bytes.size()) + "\nchecksum " +
         toolchain::hash128(object_bytes) + "\n";
}

// One unit's files in the cache.
struct Entry {
  const SourceUnit* unit = nullptr;
  std::string key, base;
  std::string source_path() const { return base + ".cpp"; }
  std::string object_path() const { return base + ".so"; }
  std::string record_path() const { return base + ".ok"; }
};

// True when the record exists and matches the object's size and checksum.
bool verified(const Entry& e) {
  const std::string record = read_file(e.record_path());
  if (record.empty()) return false;
  struct stat st {};
  if (::stat(e.object_path().c_str(), &st) != 0) return false;
  if (record.find("\nsize " + std::to_string(st.st_size) + "\n") == std::string::npos) return false;
  return record == record_of(read_file(e.object_path()));
}

// Forgets a bad entry: the record first, so that nobody trusts the object meanwhile.
void discard(const Entry& e) {
  ::unlink(e.record_path().c_str());
  ::unlink(e.object_path().c_str());
}

std::optional<LibraryPtr> try_dlopen(const Entry& e, std::string* error) {
  void* handle = ::dlopen(e.object_path().c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    if (error) {
      const char* msg = ::dlerror();
      *error = msg ? msg : "dlopen failed";
    }
    return std::nullopt;
  }
  return std::make_shared<Library>(handle, e.unit->name, e.object_path(), e.source_path());
}

// The cached entry if it verifies and loads; a bad one is discarded.
std::optional<LibraryPtr> load_from_disk(const Entry& e) {
  std::error_code ec;
  if (!fs::exists(e.record_path(), ec)) return std::nullopt;
  if (verified(e)) {
    if (auto lib = try_dlopen(e, nullptr)) {
      // The record's time is the entry's last use: eviction removes the least recently used.
      std::error_code touch;
      fs::last_write_time(e.record_path(), fs::file_time_type::clock::now(), touch);
      return lib;
    }
  }
  discard(e);
  return std::nullopt;
}

std::string truncated(const std::string& text, size_t limit = 4096) {
  if (text.size() <= limit) return text;
  return text.substr(0, limit) + "\n... (" + std::to_string(text.size() - limit) +
         " more bytes of compiler output)";
}

// A process killed while compiling leaves its temporaries behind; each process sweeps those
// older than any compile could take, once per directory.
void remove_stale_temporaries(const std::string& dir) {
  static std::mutex mu;
  static std::set<std::string> swept;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!swept.insert(dir).second) return;
  }
  const auto age = std::max<std::chrono::seconds>(
      std::chrono::hours(1), std::chrono::seconds(2 * toolchain::compile_timeout_seconds()));
  const auto cutoff = fs::file_time_type::clock::now() - age;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().find(".tmp-") == std::string::npos) continue;
    std::error_code e;
    if (const auto t = fs::last_write_time(it->path(), e); !e && t < cutoff)
      fs::remove(it->path(), e);
  }
}

std::string kernels_dir() {
  const std::string dir = cache_dir() + "/kernels";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || ::access(dir.c_str(), W_OK | X_OK) != 0)
    EMBER_THROW(RuntimeError, "[compile] cannot use the code cache directory ", dir, ": ",
                ec ? ec.message() : std::strerror(errno),
                " (set EMBER_CACHE_DIR to a writable directory)");
  remove_stale_temporaries(dir);
  return dir;
}

// Keeps the cache under its size limit by removing the least recently used entries (by their
// record's time, refreshed on every load from disk) until it fills at most three quarters of the
// limit, never one of `keep` (the entries this call just loaded). A record goes first, so a
// process reading the entry meanwhile rebuilds it instead of trusting a half-removed one; a
// library that is loaded stays mapped after its file is removed.
void evict_to_limit(const std::string& dir, const std::set<std::string>& keep) {
  const int64_t limit = cache_size_limit();
  if (limit <= 0) return;
  struct Files {
    int64_t bytes = 0;
    fs::file_time_type used = fs::file_time_type::min();
  };
  std::unordered_map<std::string, Files> entries;  // by base path (no extension)
  int64_t total = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    const std::string ext = p.extension().string();
    if (p.filename().string().find(".tmp-") != std::string::npos ||
        (ext != ".cpp" && ext != ".so" && ext != ".ok"))
      continue;
    std::error_code e;
    const auto size = static_cast<int64_t>(fs::file_size(p, e));
    if (e) continue;
    Files& f = entries[(p.parent_path() / p.stem()).string()];
    f.bytes += size;
    total += size;
    if (ext == ".ok")
      if (const auto t = fs::last_write_time(p, e); !e) f.used = t;
  }
  if (total <= limit) return;
  std::vector<std::pair<fs::file_time_type, std::string>> order;
  for (const auto& [base, f] : entries)
    if (!keep.count(base)) order.emplace_back(f.used, base);
  std::sort(order.begin(), order.end());
  for (const auto& [used, base] : order) {
    if (total <= limit / 4 * 3) break;
    for (const char* ext : {".ok", ".so", ".cpp"}) ::unlink((base + ext).c_str());
    total -= entries[base].bytes;
  }
}

// A compile of one entry: its temporary object and command.
struct Job {
  Entry* entry;
  std::string tmp_object;
  std::vector<std::string> argv;
};

// Moves a freshly compiled object into place with its record, then loads it.
LibraryPtr install_and_load(const Job& job) {
  const Entry& e = *job.entry;
  const std::string record = record_of(read_file(job.tmp_object));
  if (::rename(job.tmp_object.c_str(), e.object_path().c_str()) != 0) {
    ::unlink(job.tmp_object.c_str());
    EMBER_THROW(RuntimeError, "[compile] cannot rename ", job.tmp_object, " to ", e.object_path(),
                ": ", std::strerror(errno));
  }
  write_file_atomically(e.record_path(), record);
  std::string error;
  if (auto lib = try_dlopen(e, &error)) return *lib;
  // Another process may have discarded the entry between our rename and dlopen: if its
  // rebuilt entry verifies, load that.
  if (auto lib = load_from_disk(e)) return *lib;
  throw CompileError("[compile] cannot load generated unit '" + e.unit->name + "': " + error +
                     " (" + e.object_path() + ")");
}

std::string failure_message(const Job& job, const toolchain::RunResult& r) {
  const std::string& name = job.entry->unit->name;
  std::string head;
  if (r.timed_out)
    head = "[compile] the C++ compiler ran longer than " +
           std::to_string(toolchain::compile_timeout_seconds()) + " s on generated unit '" + name +
           "' and was killed (EMBER_COMPILE_TIMEOUT sets the bound)";
  else
    head = "[compile] the C++ compiler failed on generated unit '" + name + "' (exit status " +
           std::to_string(r.exit_status) + ")";
  return head + "\n  command: " + toolchain::join_command(job.argv) + "\n" + truncated(r.output);
}

}  // namespace

std::string cache_dir() {
  if (const char* dir = std::getenv("EMBER_CACHE_DIR"); dir && *dir) return dir;
  const char* home = std::getenv("HOME");
  if (!home || !*home)
    EMBER_THROW(RuntimeError,
                "[compile] no code cache directory: neither EMBER_CACHE_DIR nor HOME is set");
  return std::string(home) + "/.cache/ember";
}

int64_t cache_size_limit() {
  const char* text = std::getenv("EMBER_CACHE_SIZE_LIMIT");
  if (!text || !*text) return int64_t(1) << 30;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text, &end);
  double scale = 1;
  if (*end) {
    switch (std::toupper(static_cast<unsigned char>(*end))) {
      case 'K':
        scale = 1024.0;
        break;
      case 'M':
        scale = 1024.0 * 1024;
        break;
      case 'G':
        scale = 1024.0 * 1024 * 1024;
        break;
      default:
        scale = 0;
    }
    ++end;
  }
  const double bytes = value * scale;
  EMBER_CHECK_VALUE(end != text && !*end && errno == 0 && scale > 0 && bytes >= 0 && bytes < 9e18,
                    "[compile] EMBER_CACHE_SIZE_LIMIT must be a size in bytes, optionally with a "
                    "K, M or G suffix (0: no limit), got '",
                    text, "'");
  return static_cast<int64_t>(bytes);
}

std::vector<LibraryPtr> load_sources(const std::vector<SourceUnit>& units) {
  if (units.empty()) return {};
  const std::string dir = kernels_dir();
  const toolchain::Toolchain& tc = toolchain::current(dir);
  const std::string flags =
      toolchain::join_command(tc.compile_flags) + "\n" + toolchain::join_command(tc.link_flags);

  std::vector<Entry> entries(units.size());
  std::vector<std::shared_future<LibraryPtr>> results(units.size());
  std::vector<std::pair<size_t, std::promise<LibraryPtr>>> owned;  // entries this call loads
  for (size_t i = 0; i < units.size(); ++i) {
    Entry& e = entries[i];
    e.unit = &units[i];
    e.key =
        toolchain::hash128("ember code cache 1\n" + tc.identity + "\n" + flags + "\n" +
                           toolchain::headers_digest(tc, units[i].source) + "\n" + units[i].source);
    e.base = dir + "/" + file_name_part(units[i].name) + "-" + e.key;
  }
  {
    std::lock_guard<std::mutex> lock(cache().mu);
    for (size_t i = 0; i < units.size(); ++i) {
      const Entry& e = entries[i];
      if (auto it = cache().loaded.find(e.key); it != cache().loaded.end()) {
        results[i] = it->second;
        ++cache().stats.memory_hits;
        continue;
      }
      owned.emplace_back(i, std::promise<LibraryPtr>());
      results[i] = owned.back().second.get_future().share();
      cache().loaded.emplace(e.key, results[i]);
    }
  }

  // Every owned promise is fulfilled, also when this call throws: others may be waiting.
  std::vector<bool> done(owned.size(), false);
  auto fail = [&](size_t k, std::exception_ptr error) {
    {
      std::lock_guard<std::mutex> lock(cache().mu);
      cache().loaded.erase(entries[owned[k].first].key);  // a later call tries again
    }
    owned[k].second.set_exception(error);
    done[k] = true;
  };
  try {
    std::vector<Job> jobs;
    std::vector<size_t> job_owner;
    for (size_t k = 0; k < owned.size(); ++k) {
      Entry& e = entries[owned[k].first];
      if (auto lib = load_from_disk(e)) {
        owned[k].second.set_value(*lib);
        done[k] = true;
        count(&CodeCacheStats::disk_hits);
        continue;
      }
      write_file_atomically(e.source_path(), e.unit->source);
      const std::string tmp_object = e.base + unique_suffix() + ".so";
      jobs.push_back({&e, tmp_object, toolchain::command(tc, e.source_path(), tmp_object)});
      job_owner.push_back(k);
    }
    std::vector<std::vector<std::string>> commands;
    std::vector<std::string> logs;
    for (const auto& job : jobs) {
      commands.push_back(job.argv);
      logs.push_back(job.tmp_object + ".log");
    }
    const int parallel = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const auto runs = toolchain::run_all(commands, logs, parallel);
    for (size_t j = 0; j < jobs.size(); ++j) {
      const size_t k = job_owner[j];
      count(&CodeCacheStats::compiles);
      try {
        if (runs[j].exit_status != 0) throw CompileError(failure_message(jobs[j], runs[j]));
        owned[k].second.set_value(install_and_load(jobs[j]));
        done[k] = true;
      } catch (...) {
        ::unlink(jobs[j].tmp_object.c_str());
        fail(k, std::current_exception());
      }
    }
  } catch (...) {
    for (size_t k = 0; k < owned.size(); ++k)
      if (!done[k]) fail(k, std::current_exception());
    throw;
  }

  if (!owned.empty()) {
    std::set<std::string> keep;
    for (const Entry& e : entries) keep.insert(e.base);
    evict_to_limit(dir, keep);
  }

  std::vector<LibraryPtr> out;
  out.reserve(units.size());
  for (auto& r : results) out.push_back(r.get());
  return out;
}

LibraryPtr load_source(const SourceUnit& unit) { return load_sources({unit})[0]; }

CodeCacheStats code_cache_stats() {
  std::lock_guard<std::mutex> lock(cache().mu);
  return cache().stats;
}

void reset_code_cache() {
  std::lock_guard<std::mutex> lock(cache().mu);
  cache().loaded.clear();
  cache().stats = CodeCacheStats{};
}

}  // namespace ember::compiler
