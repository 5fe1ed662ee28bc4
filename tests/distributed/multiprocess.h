#pragma once
// Forked worker processes for the distributed tests: each child runs a function and exits with
// its status (never returning into GoogleTest); the parent reaps them all within a deadline and
// kills (SIGKILL, by pid) whatever is still running then.
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
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

/// A loopback port with nothing listening (bound, then released).
inline uint16_t unused_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
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
