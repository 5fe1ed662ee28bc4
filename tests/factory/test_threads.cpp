// set_num_threads / get_num_threads, and OMP_NUM_THREADS at start-up.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ember/ember.h"
#include "opdb.h"

using namespace ember;

namespace {
// Read during static initialisation, before any test can call set_num_threads.
const int g_initial_threads = get_num_threads();

struct ThreadGuard {
  ThreadGuard() : saved(get_num_threads()) {}
  ~ThreadGuard() { set_num_threads(saved); }
  int saved;
};
}  // namespace

TEST(Threads, SetAndGet) {
  ThreadGuard guard;
  EXPECT_GE(get_num_threads(), 1);
  set_num_threads(3);
  EXPECT_EQ(get_num_threads(), 3);
  set_num_threads(1);
  EXPECT_EQ(get_num_threads(), 1);
  // Work still runs (on one thread) and gives the same answer.
  Generator g(1);
  Tensor a = rand({70000}, g);
  set_num_threads(4);
  EXPECT_EQ(get_num_threads(), 4);
  Generator g2(1);
  EXPECT_EQ(test::values(a), test::values(rand({70000}, g2)));
}

TEST(Threads, InvalidCountIsValueError) {
  ThreadGuard guard;
  set_num_threads(2);
  test::expect_errors<ValueError>({
      {"zero", [] { set_num_threads(0); },
       "[set_num_threads] Number of threads must be positive, got 0"},
      {"negative", [] { set_num_threads(-3); }, "got -3"},
  });
  EXPECT_EQ(get_num_threads(), 2);  // unchanged
}

// Checks the count found at start-up against the environment; the next test runs it in a child
// process with OMP_NUM_THREADS=3.
TEST(Threads, InitialCountHonoursOmpNumThreads) {
  const char* env = std::getenv("OMP_NUM_THREADS");
  if (env != nullptr) {
    EXPECT_EQ(g_initial_threads, std::atoi(env));
  } else {
    EXPECT_GE(g_initial_threads, 1);  // OpenMP's default: one thread per available core
  }
}

TEST(Threads, OmpNumThreadsIsReadAtStartup) {
  std::array<char, 4096> exe{};
  const ssize_t len = readlink("/proc/self/exe", exe.data(), exe.size() - 1);
  ASSERT_GT(len, 0);
  // The child runs one named test: not a shard of a sharded run (Note [Sanitizer test shards]).
  const std::string cmd = "env -u GTEST_TOTAL_SHARDS -u GTEST_SHARD_INDEX OMP_NUM_THREADS=3 '" +
                          std::string(exe.data(), len) +
                          "' --gtest_filter=Threads.InitialCountHonoursOmpNumThreads 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  std::array<char, 512> buf{};
  while (fgets(buf.data(), buf.size(), pipe) != nullptr) out += buf.data();
  const int status = pclose(pipe);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("[  PASSED  ] 1 test"), std::string::npos) << out;
}
