// A minimal stand-in for the code cache (Note [Code cache]) until its branch is merged: each unit
// is written to a fresh temporary directory, compiled with the system compiler and loaded; no
// cache, no parallelism. The lead deletes this file when merging.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#include "compiler/codecache.h"

namespace ember::compiler {
namespace {

class Library final : public KernelLibrary {
 public:
  Library(void* handle, std::string so, std::string src)
      : handle_(handle), so_(std::move(so)), src_(std::move(src)) {}
  ~Library() override { dlclose(handle_); }
  void* symbol(const std::string& name) const override {
    void* p = dlsym(handle_, name.c_str());
    EMBER_CHECK(p != nullptr, "[codecache] no symbol '", name, "' in ", so_);
    return p;
  }
  const std::string& library_path() const override { return so_; }
  const std::string& source_path() const override { return src_; }

 private:
  void* handle_;
  std::string so_, src_;
};

std::mutex g_mutex;
CodeCacheStats g_stats;

}  // namespace

std::shared_ptr<const KernelLibrary> load_source(const SourceUnit& unit) {
  char dir_template[] = "/tmp/ember_kernels_XXXXXX";
  EMBER_CHECK(mkdtemp(dir_template) != nullptr, "[codecache] cannot create a temporary directory");
  const std::string dir = dir_template;
  const std::string src = dir + "/" + unit.name + ".cpp", so = dir + "/" + unit.name + ".so";
  std::ofstream(src) << unit.source;
  std::ostringstream cmd;
  cmd << "g++ -std=c++20 -O2 -fPIC -shared -fopenmp -march=native -Wall -Werror -I" EMBER_SOURCE_DIR
         "/src -I" EMBER_SOURCE_DIR "/include -I" EMBER_SLEEF_INCLUDE " -o "
      << so << " " << src << " -lsleef 2>" << dir << "/log.txt";
  const int rc = std::system(cmd.str().c_str());
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    ++g_stats.compiles;
  }
  if (rc != 0) {
    std::ifstream log(dir + "/log.txt");
    std::stringstream text;
    text << log.rdbuf();
    throw CompileError("[codecache] compiling " + unit.name + " (" + src + ") failed:\n" +
                       text.str());
  }
  void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  EMBER_CHECK(handle != nullptr, "[codecache] dlopen of ", so, " failed: ", dlerror());
  return std::make_shared<Library>(handle, so, src);
}

std::vector<std::shared_ptr<const KernelLibrary>> load_sources(
    const std::vector<SourceUnit>& units) {
  std::vector<std::shared_ptr<const KernelLibrary>> r;
  for (const SourceUnit& u : units) r.push_back(load_source(u));
  return r;
}

CodeCacheStats code_cache_stats() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_stats;
}
void reset_code_cache() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_stats = {};
}
std::string cache_dir() { return "/tmp"; }

}  // namespace ember::compiler
