// Note [Code cache]: compiling, loading and caching generated units, in one process and across
// processes. Every test uses a fresh EMBER_CACHE_DIR of its own and removes it.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "backend/cpu/vec.h"
#include "compiler/codecache.h"
#include "compiler/toolchain.h"
#include "distributed/multiprocess.h"
#include "ember/ember.h"

namespace ember::test {
namespace {

namespace fs = std::filesystem;
using compiler::CodeCacheStats;
using compiler::CompileError;
using compiler::KernelLibrary;
using compiler::SourceUnit;
namespace td = ember::testing_dist;

// Sets an environment variable for a scope and restores the previous value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::string make_temp_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/ember-codecache-XXXXXX";
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

int random_value() {
  static std::mt19937 rng(std::random_device{}());
  return static_cast<int>(rng() % 1000000);
}

// `extern "C" int answer()` returning `value`, written so that the compiler computes it.
SourceUnit answer_unit(int value, const std::string& name = "answer") {
  return {name, "extern \"C\" int answer() { return " + std::to_string(value - 1) + " + 1; }\n"};
}

int call_answer(const std::shared_ptr<const KernelLibrary>& lib) {
  return reinterpret_cast<int (*)()>(lib->symbol("answer"))();
}

void expect_stats(int64_t compiles, int64_t disk_hits, int64_t memory_hits) {
  const CodeCacheStats s = compiler::code_cache_stats();
  EXPECT_EQ(s.compiles, compiles);
  EXPECT_EQ(s.disk_hits, disk_hits);
  EXPECT_EQ(s.memory_hits, memory_hits);
}

// Names of the files in the cache's kernels directory.
std::set<std::string> cache_files(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& f : fs::directory_iterator(dir + "/kernels")) out.insert(f.path().filename());
  return out;
}

bool any_temporary(const std::set<std::string>& files) {
  for (const auto& f : files)
    if (f.find(".tmp-") != std::string::npos) return true;
  return false;
}

std::string record_path(const std::shared_ptr<const KernelLibrary>& lib) {
  std::string p = lib->library_path();
  return p.substr(0, p.size() - 3) + ".ok";
}

// A unit compiled into the cache, then forgotten and unloaded (no reference remains), so that a
// test can damage its files before loading it again.
struct CachedUnit {
  int value = random_value();
  SourceUnit unit = answer_unit(value);
  std::string object, record;
  CachedUnit() {
    auto lib = compiler::load_source(unit);
    object = lib->library_path();
    record = record_path(lib);
    lib.reset();
    compiler::reset_code_cache();
  }
};

class CodeCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir();
    env_.emplace("EMBER_CACHE_DIR", dir_);
    compiler::reset_code_cache();
  }
  void TearDown() override {
    compiler::reset_code_cache();
    env_.reset();
    fs::remove_all(dir_);
  }
  std::string dir_;
  std::optional<ScopedEnv> env_;
};

TEST_F(CodeCache, LoadsThenHitsMemoryThenDisk) {
  const int value = random_value();
  const SourceUnit unit = answer_unit(value);
  auto lib = compiler::load_source(unit);
  EXPECT_EQ(call_answer(lib), value);
  expect_stats(1, 0, 0);
  EXPECT_EQ(compiler::cache_dir(), dir_);

  // The entry: source, object and record under final names, no temporaries.
  EXPECT_EQ(fs::path(lib->source_path()).parent_path(), fs::path(dir_) / "kernels");
  std::ifstream src(lib->source_path());
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(src), {}), unit.source);
  EXPECT_TRUE(fs::is_regular_file(lib->library_path()));
  EXPECT_TRUE(fs::is_regular_file(record_path(lib)));
  const auto files = cache_files(dir_);
  EXPECT_EQ(files.size(), 3u);
  EXPECT_FALSE(any_temporary(files));
  EXPECT_EQ(fs::path(lib->library_path()).filename().string().rfind("answer-", 0), 0u);

  auto again = compiler::load_source(unit);
  EXPECT_EQ(again.get(), lib.get());
  expect_stats(1, 0, 1);

  compiler::reset_code_cache();
  expect_stats(0, 0, 0);
  lib.reset();
  again.reset();
  auto from_disk = compiler::load_source(unit);
  EXPECT_EQ(call_answer(from_disk), value);
  expect_stats(0, 1, 0);
}

TEST_F(CodeCache, GeneratedCodeSharesTheEagerKernelHeaders) {
  // exp through the eager kernels' Vec and functor, compiled at run time, against eager exp
  // (the same SIMD code path when the length is a multiple of the vector width).
  const SourceUnit unit{"exp_vec", R"(#include "backend/cpu/vec.h"
#include "backend/cpu/unary_functors.h"
#include "backend/cpu/binary_functors.h"
using V = ember::cpu::Vec<float>;
extern "C" int width() { return V::size; }
extern "C" void exp_vec(const float* in, float* out, long n) {
  for (long i = 0; i + V::size <= n; i += V::size)
    ember::cpu::ExpF<float>{}.vec(V::load(in + i)).store(out + i);
}
)"};
  auto lib = compiler::load_source(unit);
  const int width = reinterpret_cast<int (*)()>(lib->symbol("width"))();
  // Compiled for the capability the eager kernels run with (Note [CPU capability]).
  EXPECT_EQ(width, cpu::vec_bytes(cpu::capability()) / static_cast<int>(sizeof(float)));
  std::vector<float> x;
  for (int i = 0; i < 8 * width; ++i) x.push_back(-20.0f + 0.37f * static_cast<float>(i));
  std::vector<float> got(x.size());
  reinterpret_cast<void (*)(const float*, float*, long)>(lib->symbol("exp_vec"))(
      x.data(), got.data(), static_cast<long>(x.size()));
  const Tensor eager = ember::tensor(x).exp().contiguous();
  const float* want = eager.data_ptr<float>();
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(got[i], want[i]) << "x = " << x[i];
    EXPECT_NEAR(got[i], std::exp(static_cast<double>(x[i])), 2e-7 * std::exp(double(x[i])));
  }
}

TEST_F(CodeCache, TruncatedObjectIsRebuilt) {
  const CachedUnit c;
  fs::resize_file(c.object, fs::file_size(c.object) / 2);
  auto lib = compiler::load_source(c.unit);
  EXPECT_EQ(call_answer(lib), c.value);
  expect_stats(1, 0, 0);
  EXPECT_EQ(lib->library_path(), c.object);
}

TEST_F(CodeCache, CorruptRecordOrObjectIsRebuilt) {
  const CachedUnit c;
  const auto& [value, unit, object, record] = c;
  // A record that does not describe the object.
  std::ofstream(record, std::ios::trunc) << "ember code cache entry 1\nsize 12\nchecksum 00\n";
  EXPECT_EQ(call_answer(compiler::load_source(unit)), value);
  expect_stats(1, 0, 0);

  // One flipped byte, same size: the checksum catches it.
  compiler::reset_code_cache();
  {
    std::fstream f(object, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(100);
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x5a);
    f.seekp(100);
    f.write(&c, 1);
  }
  EXPECT_EQ(call_answer(compiler::load_source(unit)), value);
  expect_stats(1, 0, 0);

  // No record at all (a writer that died before its last rename).
  compiler::reset_code_cache();
  fs::remove(record);
  EXPECT_EQ(call_answer(compiler::load_source(unit)), value);
  expect_stats(1, 0, 0);
  EXPECT_TRUE(fs::is_regular_file(record));
  EXPECT_FALSE(any_temporary(cache_files(dir_)));
}

TEST_F(CodeCache, ObjectThatDoesNotLoadIsRebuilt) {
  // A record that matches an object dlopen rejects: discarded and rebuilt, not an error.
  const CachedUnit c;
  const auto& [value, unit, object, record] = c;
  const std::string bytes = "not an ELF file";
  std::ofstream(object, std::ios::trunc | std::ios::binary) << bytes;
  std::ofstream(record, std::ios::trunc)
      << "ember code cache entry 1\nsize " << bytes.size() << "\nchecksum "
      << compiler::toolchain::hash128(bytes) << "\n";
  EXPECT_EQ(call_answer(compiler::load_source(unit)), value);
  expect_stats(1, 0, 0);
}

TEST_F(CodeCache, StaleTemporariesAreSwept) {
  // Left by processes killed mid-compile: removed when more than an hour old, others kept.
  fs::create_directories(dir_ + "/kernels");
  const std::string stale = dir_ + "/kernels/k-00.tmp-1-2-3.so";
  const std::string recent = dir_ + "/kernels/k-00.tmp-4-5-6.so";
  std::ofstream(stale) << "partial";
  std::ofstream(recent) << "partial";
  fs::last_write_time(stale, fs::file_time_type::clock::now() - std::chrono::hours(2));
  EXPECT_EQ(call_answer(compiler::load_source(answer_unit(7))), 7);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(recent));
}

// The entries' base paths (no extension) in the cache, the files of a complete entry present.
std::set<std::string> complete_entries(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& f : cache_files(dir)) {
    if (f.size() < 3 || f.substr(f.size() - 3) != ".ok") continue;
    const std::string base = f.substr(0, f.size() - 3);
    const std::string k = dir + "/kernels/" + base;
    if (fs::exists(k + ".so") && fs::exists(k + ".cpp")) out.insert(base);
  }
  return out;
}

std::string base_name(const std::shared_ptr<const KernelLibrary>& lib) {
  const std::string name = fs::path(lib->library_path()).filename();
  return name.substr(0, name.size() - 3);
}

TEST_F(CodeCache, LeastRecentlyUsedEntriesAreEvictedBeyondTheSizeLimit) {
  // Three entries compiled one after the other; the oldest is then loaded from disk, which makes
  // it the most recently used. A limit of three entries, exceeded by a fourth, evicts down to
  // three quarters of it (two entries): the least recently used first, never the one just compiled.
  std::vector<std::string> bases;
  std::vector<int> values;
  const auto t0 = fs::file_time_type::clock::now();
  for (int i = 0; i < 3; ++i) {
    values.push_back(random_value());
    auto lib = compiler::load_source(answer_unit(values.back(), "lru" + std::to_string(i)));
    bases.push_back(base_name(lib));
    // Distinct, ordered use times regardless of the file system's time resolution.
    fs::last_write_time(record_path(lib), t0 - std::chrono::minutes(10 - i));
  }
  compiler::reset_code_cache();
  EXPECT_EQ(call_answer(compiler::load_source(answer_unit(values[0], "lru0"))), values[0]);
  expect_stats(0, 1, 0);
  int64_t entry_bytes = 0;
  for (const auto& f : fs::directory_iterator(dir_ + "/kernels"))
    if (f.path().filename().string().rfind(bases[1], 0) == 0) entry_bytes += f.file_size();
  ASSERT_GT(entry_bytes, 0);
  {
    ScopedEnv limit("EMBER_CACHE_SIZE_LIMIT", std::to_string(entry_bytes * 3));
    auto lib = compiler::load_source(answer_unit(random_value(), "lru3"));
    const auto left = complete_entries(dir_);
    EXPECT_TRUE(left.count(base_name(lib)));  // just compiled: kept
    EXPECT_TRUE(left.count(bases[0]));        // used last: kept
    EXPECT_FALSE(left.count(bases[1]));       // least recently used: evicted first
    EXPECT_EQ(left.size(), 2u);
    EXPECT_EQ(cache_files(dir_).size(), 6u);  // nothing half-removed: whole entries only
  }
  // An evicted entry is simply compiled again.
  compiler::reset_code_cache();
  EXPECT_EQ(call_answer(compiler::load_source(answer_unit(values[1], "lru1"))), values[1]);
  expect_stats(1, 0, 0);
}

TEST_F(CodeCache, SizeLimitZeroKeepsEverythingAndMalformedLimitsAreValueErrors) {
  {
    ScopedEnv limit("EMBER_CACHE_SIZE_LIMIT", "0");
    for (int i = 0; i < 3; ++i) compiler::load_source(answer_unit(random_value()));
    EXPECT_EQ(complete_entries(dir_).size(), 3u);
  }
  for (const char* bad : {"lots", "10X", "-1G", "1e30", "5M5"}) {
    ScopedEnv limit("EMBER_CACHE_SIZE_LIMIT", bad);
    try {
      compiler::cache_size_limit();
      ADD_FAILURE() << bad << " was accepted";
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("EMBER_CACHE_SIZE_LIMIT"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos);
    }
  }
  for (const auto& [text, bytes] : std::vector<std::pair<const char*, int64_t>>{
           {"4096", 4096}, {"2k", 2048}, {"1.5M", 1572864}, {"3G", int64_t(3) << 30}}) {
    ScopedEnv limit("EMBER_CACHE_SIZE_LIMIT", text);
    EXPECT_EQ(compiler::cache_size_limit(), bytes) << text;
  }
  ::unsetenv("EMBER_CACHE_SIZE_LIMIT");
  EXPECT_EQ(compiler::cache_size_limit(), int64_t(1) << 30);
}

TEST_F(CodeCache, CompileErrorNamesTheUnitAndCarriesTheDiagnostic) {
  const SourceUnit unit{"broken_kernel", "extern \"C\" int broken() { return undefined_name_" +
                                             std::to_string(random_value()) + "; }\n"};
  for (int attempt = 1; attempt <= 2; ++attempt) {  // a failure is not remembered as a success
    try {
      compiler::load_source(unit);
      ADD_FAILURE() << "no CompileError";
    } catch (const CompileError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind("[compile]", 0), 0u) << msg;
      EXPECT_NE(msg.find("'broken_kernel'"), std::string::npos) << msg;
      EXPECT_NE(msg.find("undefined_name_"), std::string::npos) << msg;  // g++'s diagnostic
      EXPECT_NE(msg.find("command: "), std::string::npos) << msg;
      EXPECT_NE(msg.find("-std=c++20"), std::string::npos) << msg;
    }
    expect_stats(attempt, 0, 0);
  }
  // Only the source stays (for reading); no object, record or temporary.
  const auto files = cache_files(dir_);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(fs::path(*files.begin()).extension(), ".cpp");
  static_assert(std::is_base_of_v<RuntimeError, CompileError>);
}

TEST_F(CodeCache, MissingCompilerIsACompileError) {
  ScopedEnv cxx("EMBER_CXX", "/nonexistent/c++");
  try {
    compiler::load_source(answer_unit(random_value()));
    ADD_FAILURE() << "no CompileError";
  } catch (const CompileError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("[compile] no C++ compiler found"), std::string::npos) << msg;
    EXPECT_NE(msg.find("/nonexistent/c++"), std::string::npos) << msg;
    EXPECT_NE(msg.find("EMBER_CXX"), std::string::npos) << msg;
  }
  expect_stats(0, 0, 0);
}

TEST_F(CodeCache, TheCompilerIsPartOfTheKey) {
  // EMBER_CXX by name (looked up on PATH): another compiler identity, so another entry.
  const int value = random_value();
  const SourceUnit unit = answer_unit(value);
  const std::string first = compiler::load_source(unit)->library_path();
  ScopedEnv cxx("EMBER_CXX", "g++");
  auto lib = compiler::load_source(unit);
  EXPECT_EQ(call_answer(lib), value);
  EXPECT_NE(lib->library_path(), first);
  expect_stats(2, 0, 0);
}

TEST_F(CodeCache, MissingSymbolIsARuntimeErrorNamingIt) {
  auto lib = compiler::load_source(answer_unit(random_value(), "symbols"));
  try {
    lib->symbol("no_such_symbol");
    ADD_FAILURE() << "no RuntimeError";
  } catch (const RuntimeError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'no_such_symbol'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'symbols'"), std::string::npos) << msg;
  }
}

TEST_F(CodeCache, LoadSourcesCompilesNewUnitsTogether) {
  const int base = random_value();
  std::vector<SourceUnit> units;
  for (int i = 0; i < 3; ++i) units.push_back(answer_unit(base + i, "unit" + std::to_string(i)));
  const auto libs = compiler::load_sources(units);
  ASSERT_EQ(libs.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(call_answer(libs[i]), base + i);
  expect_stats(3, 0, 0);

  // Loaded ones are memory hits; a unit named twice in one call is compiled once.
  const SourceUnit fresh = answer_unit(base + 10, "fresh");
  const auto more = compiler::load_sources({units[2], fresh, fresh, units[0]});
  EXPECT_EQ(more[0].get(), libs[2].get());
  EXPECT_EQ(more[3].get(), libs[0].get());
  EXPECT_EQ(more[1].get(), more[2].get());
  EXPECT_EQ(call_answer(more[1]), base + 10);
  expect_stats(4, 0, 3);
  EXPECT_TRUE(compiler::load_sources({}).empty());
}

TEST_F(CodeCache, ThreadsLoadingOneUnitShareOneCompile) {
  const int value = random_value();
  const SourceUnit unit = answer_unit(value);
  std::vector<std::shared_ptr<const KernelLibrary>> libs(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < libs.size(); ++t)
    threads.emplace_back([&, t] { libs[t] = compiler::load_source(unit); });
  for (auto& th : threads) th.join();
  for (const auto& lib : libs) {
    ASSERT_NE(lib, nullptr);
    EXPECT_EQ(lib.get(), libs[0].get());
  }
  EXPECT_EQ(call_answer(libs[0]), value);
  expect_stats(1, 0, 3);
}

TEST_F(CodeCache, UnusableCacheDirectoryIsARuntimeError) {
  // A directory below a regular file cannot be created, also for root.
  const std::string file = dir_ + "/plain-file";
  std::ofstream(file) << "x";
  ScopedEnv cache("EMBER_CACHE_DIR", file + "/cache");
  EXPECT_EQ(compiler::cache_dir(), file + "/cache");
  try {
    compiler::load_source(answer_unit(random_value()));
    ADD_FAILURE() << "no RuntimeError";
  } catch (const RuntimeError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("[compile] cannot use the code cache directory " + file + "/cache"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("EMBER_CACHE_DIR"), std::string::npos) << msg;
  }
}

TEST_F(CodeCache, CacheDirDefaultsToHome) {
  ScopedEnv unset_cache("EMBER_CACHE_DIR", "");
  ScopedEnv home("HOME", "/some/home");
  EXPECT_EQ(compiler::cache_dir(), "/some/home/.cache/ember");
}

TEST_F(CodeCache, CompilerRunningTooLongIsKilled) {
  // Constant evaluation of ~4e10 steps: minutes of compiler time, killed after 1 s.
  ScopedEnv timeout("EMBER_COMPILE_TIMEOUT", "1");
  const SourceUnit unit{"slow_kernel", R"(constexpr long spin() {
  long s = 0;
  for (long i = 0; i < 200000; ++i)
    for (long j = 0; j < 200000; ++j) s += i ^ j;
  return s;
}
extern "C" long slow() { constexpr long v = spin(); return v + )" +
                                           std::to_string(random_value()) + "; }\n"};
  const auto start = std::chrono::steady_clock::now();
  try {
    compiler::load_source(unit);
    ADD_FAILURE() << "no CompileError";
  } catch (const CompileError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("ran longer than 1 s on generated unit 'slow_kernel'"), std::string::npos)
        << msg;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_FALSE(any_temporary(cache_files(dir_)));
}

TEST_F(CodeCache, CompilerProcessesRunInParallelWithinTheirBound) {
  // Three one-second commands at once take about a second, not three.
  std::vector<std::vector<std::string>> commands;
  std::vector<std::string> logs;
  for (int i = 0; i < 3; ++i) {
    commands.push_back({"/bin/sh", "-c", "sleep 1; echo done-" + std::to_string(i)});
    logs.push_back(dir_ + "/log" + std::to_string(i));
  }
  commands.push_back({"/bin/sh", "-c", "echo failing >&2; exit 3"});
  logs.push_back(dir_ + "/log3");
  commands.push_back({"/nonexistent/compiler"});
  logs.push_back(dir_ + "/log4");
  auto start = std::chrono::steady_clock::now();
  auto runs = compiler::toolchain::run_all(commands, logs, 5);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(2800));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(runs[i].exit_status, 0);
    EXPECT_EQ(runs[i].output, "done-" + std::to_string(i) + "\n");
  }
  EXPECT_EQ(runs[3].exit_status, 3);
  EXPECT_EQ(runs[3].output, "failing\n");  // stderr is captured
  EXPECT_EQ(runs[4].exit_status, 127);
  for (const auto& log : logs) EXPECT_FALSE(fs::exists(log));

  // Beyond EMBER_COMPILE_TIMEOUT the command and its process group are killed.
  ScopedEnv timeout("EMBER_COMPILE_TIMEOUT", "1");
  start = std::chrono::steady_clock::now();
  runs = compiler::toolchain::run_all({{"/bin/sh", "-c", "sleep 60 & wait"}}, {dir_ + "/log"}, 1);
  EXPECT_TRUE(runs[0].timed_out);
  EXPECT_NE(runs[0].exit_status, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

// The cross-process tests run copies of this test binary (tests/distributed/multiprocess.h); the
// parent's cache directory and unit reach them through share().
struct SharedDir {
  std::string path = td::share(td::in_child() ? std::string() : make_temp_dir());
  ~SharedDir() {
    if (!td::in_child()) fs::remove_all(path);
  }
};

TEST(CodeCacheProcess, SecondProcessFindsTheUnitOnDisk) {
  SharedDir dir;
  ScopedEnv env("EMBER_CACHE_DIR", dir.path);
  const int value = std::stoi(td::share(std::to_string(random_value())));
  const SourceUnit unit = answer_unit(value);
  if (!td::in_child()) {
    compiler::reset_code_cache();
    EXPECT_EQ(call_answer(compiler::load_source(unit)), value);
    expect_stats(1, 0, 0);
  }
  const auto status = td::run_children(
      1,
      [&](int) {
        DIST_CHILD_CHECK(call_answer(compiler::load_source(unit)) == value);
        const CodeCacheStats s = compiler::code_cache_stats();
        DIST_CHILD_CHECK(s.compiles == 0);
        DIST_CHILD_CHECK(s.disk_hits == 1);
        return 0;
      },
      std::chrono::seconds(120));
  EXPECT_EQ(status, std::vector<int>{0});
  compiler::reset_code_cache();
}

TEST(CodeCacheProcess, TwoProcessesCompilingOneUnitAtOnceBothSucceed) {
  SharedDir dir;
  ScopedEnv env("EMBER_CACHE_DIR", dir.path);
  const int value = std::stoi(td::share(std::to_string(random_value())));
  // Including the kernel headers makes a compile long enough (~1 s) for the two to overlap.
  const SourceUnit unit{"shared_unit",
                        "#include \"backend/cpu/unary_functors.h\"\n" + answer_unit(value).source};
  // 0: this child compiled the unit; 10: it found it on disk (the other finished first).
  const auto status = td::run_children(
      2,
      [&](int i) {
        // Both start compiling at about the same time: each waits (bounded) for the other.
        std::ofstream(dir.path + "/ready" + std::to_string(i)) << "1";
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (!fs::exists(dir.path + "/ready" + std::to_string(1 - i)) &&
               std::chrono::steady_clock::now() < until)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        auto lib = compiler::load_source(unit);
        DIST_CHILD_CHECK(call_answer(lib) == value);
        const CodeCacheStats s = compiler::code_cache_stats();
        DIST_CHILD_CHECK(s.compiles + s.disk_hits == 1);
        return s.compiles == 1 ? 0 : 10;
      },
      std::chrono::seconds(120));
  ASSERT_EQ(status.size(), 2u);
  for (int s : status) EXPECT_TRUE(s == 0 || s == 10) << "child status " << s;
  EXPECT_TRUE(status[0] == 0 || status[1] == 0) << "neither child compiled";
  if (status[0] != 0 || status[1] != 0)
    std::printf("note: the two compiles did not overlap (one child found the unit on disk)\n");

  // One complete entry, no temporaries; this process loads it without compiling.
  const auto files = cache_files(dir.path);
  EXPECT_EQ(files.size(), 3u);
  EXPECT_FALSE(any_temporary(files));
  compiler::reset_code_cache();
  EXPECT_EQ(call_answer(compiler::load_source(unit)), value);
  expect_stats(0, 1, 0);
  compiler::reset_code_cache();
}

}  // namespace
}  // namespace ember::test
