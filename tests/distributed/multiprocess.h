#pragma once
// Forked worker processes for the distributed tests: each child runs a function and exits with
// its status (never returning into GoogleTest); the parent reaps them all within a deadline and
// kills (SIGKILL, by pid) whatever is still running then.
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ember/core/parallel.h"

namespace ember::testing_dist {

/// Exit status of a child that timed out, threw, or failed a check.
constexpr int kChildTimedOut = 124;
constexpr int kChildThrew = 99;

/// Runs fn(i) in n forked children, i = 0..n-1; returns each child's exit status (or 128+signal).
/// A child that is still running after `limit` is killed and reported as kChildTimedOut.
inline std::vector<int> run_children(int n, const std::function<int(int)>& fn,
                                     std::chrono::seconds limit = std::chrono::seconds(30)) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::vector<pid_t> pids;
  for (int i = 0; i < n; ++i) {
    pid_t pid = ::fork();
    if (pid == 0) {
      ::alarm(static_cast<unsigned>(limit.count()) + 5);  // a last resort if the parent dies
      // The parent's OpenMP pool did not survive fork: keep this thread's regions single-threaded.
      ember::set_num_threads(1);
      int rc = kChildThrew;
      try {
        rc = fn(i);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child %d: %s\n", i, e.what());
      }
      std::fflush(stdout);
      std::fflush(stderr);
      ::_exit(rc);
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
inline uint16_t unused_port() {
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
    if (free) return port;
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
