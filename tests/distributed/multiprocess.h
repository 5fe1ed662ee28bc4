#pragma once
// Worker processes for the distributed tests. Each child is a fresh copy of the test binary
// (fork, then exec at once) that runs only the current test, replaying it up to the same
// run_children call, where it runs fn(i) and exits with its status (never returning into
// GoogleTest). Forking the test process itself is not safe: under AddressSanitizer a thread of
// the parent (a store server answering earlier children, a pool) can hold the sanitizer
// allocator's lock at fork time, and the child then hangs in its first allocation; exec leaves
// nothing of the parent behind. Values the parent chose before the call and the children need
// (ports, paths) go through share(), so that the replay sees the parent's. The parent reaps all
// children within a deadline and kills (SIGKILL, by pid) whatever is still running then.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ember/core/parallel.h"

extern char** environ;

namespace ember::testing_dist {

/// Exit status of a child that timed out, threw, or failed a check.
constexpr int kChildTimedOut = 124;
constexpr int kChildThrew = 99;
/// A child whose replay of the test never reached its run_children call.
constexpr int kChildLost = 97;

namespace detail {

constexpr const char* kChildVar = "EMBER_DIST_CHILD";    // "CALL:INDEX"
constexpr const char* kSharedVar = "EMBER_DIST_SHARED";  // hex values, comma-separated

// This process's part in the current test: the parent's counts restart with every test.
struct Replay {
  bool child = false;
  int call = 0, index = 0;          // in a child: the run_children call to run, and its i
  int calls_seen = 0;               // run_children calls so far in this test
  std::vector<std::string> shared;  // in order of share() calls
  size_t shared_used = 0;
  std::string test;  // the parent's current test
};

inline std::string hex(const std::string& v) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : v) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

inline std::string unhex(const std::string& h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) out += char(std::stoi(h.substr(i, 2), nullptr, 16));
  return out;
}

inline std::string current_test() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info ? std::string(info->test_suite_name()) + "." + info->name() : "";
}

inline Replay& replay() {
  static Replay r = [] {
    Replay r;
    if (const char* v = std::getenv(kChildVar)) {
      r.child = std::sscanf(v, "%d:%d", &r.call, &r.index) == 2;
      if (const char* sh = std::getenv(kSharedVar)) {
        std::string all = sh;
        for (size_t at = 0; at < all.size();) {
          size_t comma = all.find(',', at);
          if (comma == std::string::npos) comma = all.size();
          r.shared.push_back(unhex(all.substr(at, comma - at)));
          at = comma + 1;
        }
      }
      // A replay that ends without reaching its call must not pass for a successful rank.
      std::atexit([] { std::_Exit(kChildLost); });
    }
    return r;
  }();
  if (!r.child) {
    std::string t = current_test();
    if (t != r.test) {
      r.test = t;
      r.calls_seen = 0;
      r.shared.clear();
    }
  }
  return r;
}

// Registered at start-up so that a child's exit hook is in place before the test runs.
inline const bool kReplayReady = (replay(), true);

}  // namespace detail

/// True in a child started by run_children (replaying the parent's test).
inline bool in_child() { return detail::replay().child; }

/// A value the parent chose and its children need: returned as given in the parent (and kept
/// for the children), and in a child as the parent gave it, in the same order of calls.
inline std::string share(const std::string& value) {
  auto& r = detail::replay();
  if (!r.child) {
    r.shared.push_back(value);
    return value;
  }
  if (r.shared_used >= r.shared.size()) {
    std::fprintf(stderr, "share(): the replay asked for more values than the parent shared\n");
    std::_Exit(kChildLost);
  }
  return r.shared[r.shared_used++];
}

inline uint16_t share_port(uint16_t port) {
  return static_cast<uint16_t>(std::stoi(share(std::to_string(port))));
}

/// Runs fn(i) in n child processes, i = 0..n-1; returns each child's exit status (or
/// 128+signal). A child that is still running after `limit` is killed and reported as
/// kChildTimedOut. In a child, the call it was started for runs fn(its i) and exits; earlier
/// calls return all zeros (their children ran in the parent's run).
inline std::vector<int> run_children(int n, const std::function<int(int)>& fn,
                                     std::chrono::seconds limit = std::chrono::seconds(30)) {
  auto& r = detail::replay();
  const int call = r.calls_seen++;
  if (r.child) {
    if (call != r.call) return std::vector<int>(static_cast<size_t>(n), 0);
    ember::set_num_threads(1);  // one thread per rank: the ranks share the machine's cores
    int rc = kChildThrew;
    try {
      rc = fn(r.index);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child %d: %s\n", r.index, e.what());
    }
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(rc);
  }
  // Everything exec needs is made before forking: the child only calls async-signal-safe
  // functions until exec.
  std::string shared;
  for (const auto& v : r.shared) {
    if (!shared.empty()) shared += ',';
    shared += detail::hex(v);
  }
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    // The child runs exactly this test: no sharding, no report files of its own.
    if (kv.rfind("GTEST_", 0) == 0 || kv.rfind(detail::kChildVar, 0) == 0 ||
        kv.rfind(detail::kSharedVar, 0) == 0)
      continue;
    env_strings.push_back(kv);
  }
  env_strings.push_back(std::string(detail::kSharedVar) + "=" + shared);
  const std::string filter = "--gtest_filter=" + r.test;
  char exe[4096] = {};
  const ssize_t len = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0) throw std::runtime_error("run_children: cannot find /proc/self/exe");
  std::vector<std::string> child_vars;
  for (int i = 0; i < n; ++i)
    child_vars.push_back(std::string(detail::kChildVar) + "=" + std::to_string(call) + ":" +
                         std::to_string(i));

  std::fflush(stdout);
  std::fflush(stderr);
  std::vector<pid_t> pids;
  for (int i = 0; i < n; ++i) {
    std::vector<char*> envp;
    for (auto& kv : env_strings) envp.push_back(kv.data());
    envp.push_back(child_vars[i].data());
    envp.push_back(nullptr);
    char* argv[] = {exe, const_cast<char*>(filter.c_str()), const_cast<char*>("--gtest_brief=1"),
                    nullptr};
    pid_t pid = ::fork();
    if (pid == 0) {
      ::alarm(static_cast<unsigned>(limit.count()) + 5);  // a last resort if the parent dies
      ::execve(exe, argv, envp.data());
      ::_exit(127);
    }
    pids.push_back(pid);
  }
  std::vector<int> status(n, -1);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int left = n;
  while (left > 0) {
    for (int i = 0; i < n; ++i) {
      if (status[i] != -1 || pids[i] <= 0) continue;
      int ws = 0;
      if (::waitpid(pids[i], &ws, WNOHANG) == pids[i]) {
        status[i] = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
        --left;
      }
    }
    if (left == 0) break;
    if (std::chrono::steady_clock::now() > deadline) {
      for (int i = 0; i < n; ++i) {
        if (status[i] != -1 || pids[i] <= 0) continue;
        ::kill(pids[i], SIGKILL);
        ::waitpid(pids[i], nullptr, 0);
        status[i] = kChildTimedOut;
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return status;
}

/// A loopback port with nothing listening (bound, then released), chosen below the kernel's
/// ephemeral range: a port from that range can be taken, between this call and the server's
/// bind, as the source port of any outgoing connection on the machine (other tests' ranks), and a
/// client retrying a connection to such a port can even connect to itself.
/// In a child: the parent's (see share()).
inline uint16_t unused_port() {
  if (in_child()) return share_port(0);
  int lo = 32768;
  if (std::FILE* f = std::fopen("/proc/sys/net/ipv4/ip_local_port_range", "r")) {
    if (std::fscanf(f, "%d", &lo) != 1) lo = 32768;
    std::fclose(f);
  }
  const int first = 10000, count = std::max(lo - first, 1000);
  std::mt19937 pick(std::random_device{}() ^ static_cast<unsigned>(::getpid()));
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const auto port = static_cast<uint16_t>(first + static_cast<int>(pick() % count));
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    const bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
    if (free) return share_port(port);
  }
  throw std::runtime_error("unused_port: no free loopback port below " + std::to_string(lo));
}

/// A failed check inside a child: prints it and returns a non-zero status.
#define DIST_CHILD_CHECK(cond)                                                            \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      std::fprintf(stderr, "%s:%d: child check failed: %s\n", __FILE__, __LINE__, #cond); \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

}  // namespace ember::testing_dist
