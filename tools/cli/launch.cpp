// `ember run`: see launch.h. One poll loop watches every worker's stdout and stderr pipes and a
// signalfd (SIGCHLD for exits, SIGINT/SIGTERM/SIGHUP to forward). Each worker leads its own
// process group, so that stopping it also stops whatever it started.
#include "cli/launch.h"

#include <arpa/inet.h>
#include <ember/core/error.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

extern char** environ;

namespace ember::cli {
namespace {

constexpr const char* kCtx = "[ember run]";

int64_t parse_count(const std::string& flag, const std::string& v) {
  if (flag == "--nproc-per-node" && (v == "auto" || v == "cpu"))
    return static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  EMBER_CHECK_VALUE(v.find(':') == std::string::npos, kCtx, " ", flag,
                    " takes one number; elastic MIN:MAX ranges are not supported (got '", v, "')");
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(v.c_str(), &end, 10);
  EMBER_CHECK_VALUE(!v.empty() && *end == '\0' && errno == 0 && n >= 1 && n <= 4096, kCtx, " ",
                    flag, " must be an integer in [1, 4096] (got '", v, "')");
  return n;
}

// HOST[:PORT] with IPv6 hosts in brackets.
void parse_endpoint(const std::string& ep, std::string& host, int64_t& port) {
  std::string h = ep, p;
  if (!ep.empty() && ep.front() == '[') {
    auto close = ep.find(']');
    EMBER_CHECK_VALUE(close != std::string::npos, kCtx,
                      " --rdzv-endpoint has an unclosed '[' (got '", ep, "')");
    h = ep.substr(1, close - 1);
    if (close + 1 < ep.size()) {
      EMBER_CHECK_VALUE(ep[close + 1] == ':', kCtx, " --rdzv-endpoint must be HOST[:PORT] (got '",
                        ep, "')");
      p = ep.substr(close + 2);
    }
  } else if (auto colon = ep.rfind(':'); colon != std::string::npos) {
    h = ep.substr(0, colon);
    p = ep.substr(colon + 1);
  }
  EMBER_CHECK_VALUE(!h.empty(), kCtx, " --rdzv-endpoint must be HOST[:PORT] (got '", ep, "')");
  host = h;
  port = 29400;  // torchrun's default rendezvous port
  if (ep.find(':') != std::string::npos && (ep.front() != '[' || !p.empty())) {
    char* end = nullptr;
    long long n = std::strtoll(p.c_str(), &end, 10);
    EMBER_CHECK_VALUE(!p.empty() && *end == '\0' && n >= 1 && n <= 65535, kCtx,
                      " --rdzv-endpoint's port must be in [1, 65535] (got '", ep, "')");
    port = n;
  }
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// The program as execvp would find it, or "" when it would not.
std::string resolve_program(const std::string& prog) {
  if (prog.find('/') != std::string::npos) return is_executable_file(prog) ? prog : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string full = (dir.empty() ? "." : dir) + "/" + prog;
    if (is_executable_file(full)) return full;
    start = end + 1;
  }
  return "";
}

// A port nothing listens on now: bind port 0 and give it back.
int64_t free_port(const std::string& host) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  EMBER_CHECK_VALUE(::getaddrinfo(host.c_str(), "0", &hints, &res) == 0 && res, kCtx,
                    " cannot resolve --master-addr '", host, "'");
  int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int ok = fd >= 0 && ::bind(fd, res->ai_addr, res->ai_addrlen) == 0;
  ::freeaddrinfo(res);
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  ok = ok && ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0;
  if (fd >= 0) ::close(fd);
  EMBER_CHECK_VALUE(ok, kCtx, " cannot find a free port on '", host, "': ", std::strerror(errno));
  return ntohs(a.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&a)->sin6_port
                                       : reinterpret_cast<sockaddr_in*>(&a)->sin_port);
}

}  // namespace

CLI::App* add_run_command(CLI::App& app, RunRequest& r) {
  auto* cmd = app.add_subcommand(
      "run", "start N worker processes with the rendezvous variables set (torchrun's role)");
  cmd->footer(
      "Example: ember run --nproc-per-node 2 -- PROGRAM ARGS...\n"
      "Each worker gets RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR "
      "and MASTER_PORT (and OMP_NUM_THREADS=1 with several workers, unless set); its output lines "
      "are prefixed [RANK]:. When a worker fails the others are stopped (SIGTERM, then SIGKILL "
      "after 5 s) and ember run exits with its status.");
  cmd->add_option("--nproc-per-node,--nproc_per_node", r.nproc_per_node,
                  "workers on this node: a number, or auto/cpu for one per core (default 1)");
  cmd->add_option("--nnodes", r.nnodes, "nodes in the job (default 1)");
  cmd->add_option("--node-rank,--node_rank", r.node_rank, "this node's index (default 0)");
  cmd->add_option("--rdzv-endpoint,--rdzv_endpoint", r.rdzv_endpoint,
                  "HOST[:PORT] of the rendezvous store (rank 0's node; default port 29400)");
  cmd->add_option("--master-addr,--master_addr", r.master_addr,
                  "address of rank 0's node (default 127.0.0.1)");
  cmd->add_option("--master-port,--master_port", r.master_port,
                  "port of rank 0's store (default: a free port on one node, else 29500)");
  cmd->add_option("command", r.command, "the program and its arguments, after --")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->required();
  return cmd;
}

RunPlan plan_run(const RunRequest& r) {
  RunPlan p;
  p.nproc_per_node = parse_count("--nproc-per-node", r.nproc_per_node);
  p.nnodes = parse_count("--nnodes", r.nnodes);
  EMBER_CHECK_VALUE(r.node_rank >= 0 && r.node_rank < p.nnodes, kCtx,
                    " --node-rank must be in [0, ", p.nnodes - 1, "] for --nnodes ", p.nnodes,
                    " (got ", r.node_rank, ")");
  p.node_rank = r.node_rank;
  EMBER_CHECK_VALUE(r.rdzv_endpoint.empty() || (r.master_addr.empty() && r.master_port < 0), kCtx,
                    " give either --rdzv-endpoint or --master-addr/--master-port, not both");
  EMBER_CHECK_VALUE(r.master_port == -1 || (r.master_port >= 1 && r.master_port <= 65535), kCtx,
                    " --master-port must be in [1, 65535] (got ", r.master_port, ")");
  p.master_addr = r.master_addr.empty() ? "127.0.0.1" : r.master_addr;
  p.master_port = r.master_port;
  if (!r.rdzv_endpoint.empty()) parse_endpoint(r.rdzv_endpoint, p.master_addr, p.master_port);
  EMBER_CHECK_VALUE(p.nnodes == 1 || p.master_port > 0 || !r.master_addr.empty(), kCtx,
                    " --nnodes ", p.nnodes,
                    " needs rank 0's address: give --rdzv-endpoint or --master-addr");
  EMBER_CHECK_VALUE(!r.command.empty(), kCtx, " expected a program to run after --");
  std::string prog = resolve_program(r.command[0]);
  EMBER_CHECK_VALUE(!prog.empty(), kCtx, " program '", r.command[0],
                    "' not found or not executable");
  p.command = r.command;
  p.program = prog;
  if (p.master_port < 0) p.master_port = p.nnodes == 1 ? free_port(p.master_addr) : 29500;
  return p;
}

namespace {

struct Worker {
  int64_t rank = 0;
  pid_t pid = -1;
  int fds[2] = {-1, -1};   // read ends of its stdout and stderr pipes
  std::string pending[2];  // a partial last line per stream
  bool exited = false;
  int status = 0;  // exit status, or 128 + signal
};

void write_all(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // our own output is gone; keep supervising regardless
    done += static_cast<size_t>(n);
  }
}

// Prints the complete lines of `buf` with the worker's prefix (one write per line, so lines of
// different workers never interleave); with `all`, the unterminated rest too.
void emit_lines(const Worker& w, int stream, std::string& buf, bool all) {
  const std::string prefix = "[" + std::to_string(w.rank) + "]:";
  size_t start = 0;
  for (size_t nl; (nl = buf.find('\n', start)) != std::string::npos; start = nl + 1)
    write_all(stream + 1, prefix + buf.substr(start, nl + 1 - start));
  buf.erase(0, start);
  if ((all || buf.size() > (1 << 16)) && !buf.empty()) {
    write_all(stream + 1, prefix + buf + "\n");
    buf.clear();
  }
}

std::vector<std::string> worker_env(const RunPlan& p, int64_t local_rank) {
  static const char* const kOurs[] = {
      "RANK=",       "LOCAL_RANK=",  "WORLD_SIZE=", "LOCAL_WORLD_SIZE=",
      "GROUP_RANK=", "MASTER_ADDR=", "MASTER_PORT="};
  std::vector<std::string> env;
  bool has_omp = false;
  for (char** e = environ; *e; ++e) {
    std::string v = *e;
    bool ours = false;
    for (const char* k : kOurs) ours |= v.rfind(k, 0) == 0;
    has_omp |= v.rfind("OMP_NUM_THREADS=", 0) == 0;
    if (!ours) env.push_back(v);
  }
  const int64_t rank = p.node_rank * p.nproc_per_node + local_rank;
  env.push_back("RANK=" + std::to_string(rank));
  env.push_back("LOCAL_RANK=" + std::to_string(local_rank));
  env.push_back("WORLD_SIZE=" + std::to_string(p.nnodes * p.nproc_per_node));
  env.push_back("LOCAL_WORLD_SIZE=" + std::to_string(p.nproc_per_node));
  env.push_back("GROUP_RANK=" + std::to_string(p.node_rank));
  env.push_back("MASTER_ADDR=" + p.master_addr);
  env.push_back("MASTER_PORT=" + std::to_string(p.master_port));
  // As torchrun: several workers on one node would oversubscribe the cores with a full pool each.
  if (!has_omp && p.nproc_per_node > 1) env.push_back("OMP_NUM_THREADS=1");
  return env;
}

// Forks one worker: its own process group, stdout/stderr into pipes, the signal mask restored.
void spawn(Worker& w, const RunPlan& p, int64_t local_rank, const sigset_t& old_mask) {
  int out[2], err[2];
  EMBER_CHECK(::pipe2(out, O_CLOEXEC) == 0 && ::pipe2(err, O_CLOEXEC) == 0, kCtx,
              " cannot create pipes: ", std::strerror(errno));
  // Everything the child needs is built before fork: the child only calls async-signal-safe code.
  std::vector<std::string> env = worker_env(p, local_rank);
  std::vector<char*> envp, argv;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = p.command;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string& program = p.program;
  const std::string fail = std::string("ember run: cannot execute ") + program + "\n";
  pid_t pid = ::fork();
  EMBER_CHECK(pid >= 0, kCtx, " fork failed: ", std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    ::signal(SIGPIPE, SIG_DFL);
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    ::execve(program.c_str(), argv.data(), envp.data());
    ssize_t ignored = ::write(2, fail.data(), fail.size());
    (void)ignored;
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so that signalling the group cannot race the child's call
  ::close(out[1]);
  ::close(err[1]);
  w.pid = pid;
  w.fds[0] = out[0];
  w.fds[1] = err[0];
}

void signal_all(std::vector<Worker>& workers, int sig) {
  for (auto& w : workers)
    if (w.pid > 0 && !w.exited) ::kill(-w.pid, sig);
}

}  // namespace

int run_workers(const RunPlan& p, std::chrono::milliseconds grace) {
  using Clock = std::chrono::steady_clock;
  sigset_t handled, old_mask;
  sigemptyset(&handled);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&handled, s);
  ::sigprocmask(SIG_BLOCK, &handled, &old_mask);
  int sfd = ::signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
  EMBER_CHECK(sfd >= 0, kCtx, " signalfd failed: ", std::strerror(errno));
  auto old_pipe = ::signal(SIGPIPE, SIG_IGN);
  // A shell starts background jobs with SIGINT ignored, and an ignored signal never reaches the
  // signalfd: take the default (blocked, so read from the signalfd), which workers inherit too.
  sighandler_t old_disp[3];
  const int forwarded[3] = {SIGINT, SIGTERM, SIGHUP};
  for (int i = 0; i < 3; ++i) old_disp[i] = ::signal(forwarded[i], SIG_DFL);
  auto restore = [&] {
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    ::signal(SIGPIPE, old_pipe);
    for (int i = 0; i < 3; ++i) ::signal(forwarded[i], old_disp[i]);
    ::close(sfd);
  };

  std::vector<Worker> workers(static_cast<size_t>(p.nproc_per_node));
  bool stopping = false, killed = false;
  int result = 0, interrupted = 0;
  Clock::time_point kill_at{};
  auto stop = [&](int sig) {
    signal_all(workers, sig);
    if (!stopping) kill_at = Clock::now() + grace;
    stopping = true;
  };
  try {
    for (size_t i = 0; i < workers.size(); ++i) {
      workers[i].rank = p.node_rank * p.nproc_per_node + static_cast<int64_t>(i);
      spawn(workers[i], p, static_cast<int64_t>(i), old_mask);
    }
  } catch (...) {
    signal_all(workers, SIGKILL);
    for (auto& w : workers)
      if (w.pid > 0) ::waitpid(w.pid, nullptr, 0);
    restore();
    throw;
  }

  Clock::time_point all_exited_at{};
  size_t running = workers.size();
  while (true) {
    std::vector<pollfd> fds{{sfd, POLLIN, 0}};
    std::vector<std::pair<Worker*, int>> owners{{nullptr, 0}};
    for (auto& w : workers)
      for (int s = 0; s < 2; ++s)
        if (w.fds[s] >= 0) {
          fds.push_back({w.fds[s], POLLIN, 0});
          owners.emplace_back(&w, s);
        }
    // Done when every worker is reaped and its pipes are drained (or, if something it started
    // still holds them open, a second after it exited).
    if (running == 0 && (fds.size() == 1 || Clock::now() - all_exited_at > std::chrono::seconds(1)))
      break;
    int wait_ms = 200;
    if (stopping && !killed)
      wait_ms = static_cast<int>(std::clamp<int64_t>(
          std::chrono::duration_cast<std::chrono::milliseconds>(kill_at - Clock::now()).count(), 0,
          200));
    ::poll(fds.data(), fds.size(), wait_ms);

    for (size_t i = 1; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      auto [w, s] = owners[i];
      char buf[1 << 16];
      ssize_t n = ::read(w->fds[s], buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) {
        w->pending[s].append(buf, static_cast<size_t>(n));
        emit_lines(*w, s, w->pending[s], false);
      } else {
        emit_lines(*w, s, w->pending[s], true);
        ::close(w->fds[s]);
        w->fds[s] = -1;
      }
    }

    if (fds[0].revents & POLLIN) {
      signalfd_siginfo info{};
      while (::read(sfd, &info, sizeof info) == sizeof info) {
        int sig = static_cast<int>(info.ssi_signo);
        if (sig == SIGCHLD) continue;  // reaped below
        if (!interrupted && result == 0) interrupted = sig;
        std::fprintf(stderr, "ember run: got signal %d, forwarding it to the workers\n", sig);
        stop(sig);
        break;
      }
    }

    for (auto& w : workers) {
      int ws = 0;
      if (w.exited || ::waitpid(w.pid, &ws, WNOHANG) != w.pid) continue;
      w.exited = true;
      w.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
      if (--running == 0) all_exited_at = Clock::now();
      if (w.status != 0 && !stopping) {
        result = w.status;
        std::fprintf(stderr,
                     "ember run: rank %lld (pid %d) exited with status %d; stopping the other "
                     "workers\n",
                     static_cast<long long>(w.rank), static_cast<int>(w.pid), w.status);
        stop(SIGTERM);
      }
    }
    if (stopping && !killed && Clock::now() >= kill_at) {
      signal_all(workers, SIGKILL);
      killed = true;
    }
  }
  for (auto& w : workers)
    for (int& fd : w.fds)
      if (fd >= 0) ::close(fd);
  restore();
  if (result != 0) return result;
  return interrupted ? 128 + interrupted : 0;
}

int run_self(int64_t nproc, const std::vector<std::string>& args) {
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self);
  EMBER_CHECK(n > 0 && static_cast<size_t>(n) < sizeof self, kCtx,
              " cannot find this program's path in /proc/self/exe: ", std::strerror(errno));
  RunRequest request;
  request.nproc_per_node = std::to_string(nproc);
  request.command.assign(1, std::string(self, static_cast<size_t>(n)));
  request.command.insert(request.command.end(), args.begin(), args.end());
  return run_workers(plan_run(request), request.grace);
}

}  // namespace ember::cli
