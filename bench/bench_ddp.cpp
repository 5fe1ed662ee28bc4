// DDP MLP step (issue 15): MLP 784-512-512-10, batch 256 per rank, SGD, N forked ranks on
// loopback gloo with one thread each. Rank 0 reports the median step time of three variants,
// interleaved round by round so that machine noise hits them alike:
//   local       the step alone, no communication (the target's baseline)
//   ddp         through DistributedDataParallel: bucket all_reduces overlap backward
//   sync_after  plain backward, then one blocking all_reduce (AVG) per gradient: no overlap
// Run by bench/ddp_bench.sh; prints a table and, with --json FILE, writes the numbers.
//   bench_ddp [--ranks 2] [--steps 20] [--rounds 3] [--json FILE]
#include <ember/distributed.h>
#include <ember/ember.h>
#include <ember/nn.h>
#include <ember/optim.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace dist = ember::distributed;
using ember::Tensor;

namespace {

struct Args {
  int ranks = 2, steps = 20, rounds = 3;
  std::string json;
};

const char* const kVariants[] = {"local", "ddp", "sync_after"};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// One rank: returns 0 on success. Rank 0 prints the table.
int run_rank(int rank, const Args& a, uint16_t port) {
  ember::set_num_threads(1);
  dist::TCPStoreOptions o;
  o.port = port;
  o.timeout = std::chrono::seconds(60);
  auto store = std::make_shared<dist::TCPStore>("127.0.0.1", o);
  dist::init_process_group("gloo", store, rank, a.ranks, std::chrono::seconds(60));
  ember::manual_seed(100);
  ember::nn::Sequential mlp(ember::nn::Linear(784, 512), ember::nn::ReLU(),
                            ember::nn::Linear(512, 512), ember::nn::ReLU(),
                            ember::nn::Linear(512, 10));
  ember::nn::parallel::DistributedDataParallel ddp(mlp);
  ember::optim::SGD opt(mlp->parameters(), ember::optim::SGDOptions(1e-3));
  ember::manual_seed(1000 + static_cast<uint64_t>(rank));
  const Tensor x = ember::randn({256, 784}), y = ember::randint(0, 10, {256});
  namespace F = ember::nn::functional;
  auto step = [&](int variant) {
    opt.zero_grad();
    if (variant == 1) {
      F::cross_entropy(ddp(x), y).backward();
    } else {
      F::cross_entropy(mlp->forward(x), y).backward();
      if (variant == 2) {
        for (const Tensor& p : mlp->parameters()) dist::all_reduce(p.grad(), dist::ReduceOp::AVG);
      }
    }
    opt.step();
  };
  for (int v = 0; v < 3; ++v) step(v);  // warm-up: allocator, gloo connections
  std::vector<std::vector<double>> ms(3);
  for (int r = 0; r < a.rounds; ++r) {
    for (int v = 0; v < 3; ++v) {
      dist::barrier();
      for (int s = 0; s < a.steps; ++s) {
        const auto t0 = std::chrono::steady_clock::now();
        step(v);
        ms[v].push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
      }
    }
  }
  // Rank 0 reports the slowest rank's medians: a step is as slow as its slowest rank.
  Tensor med = ember::tensor(std::vector<double>{median(ms[0]), median(ms[1]), median(ms[2])});
  dist::all_reduce(med, dist::ReduceOp::MAX);
  if (rank == 0) {
    const auto m = med.tolist<double>();
    std::printf(
        "DDP MLP step (784-512-512-10, batch 256 per rank, %d ranks x 1 thread, gloo on "
        "loopback; median of %d steps, slowest rank)\n",
        a.ranks, a.steps * a.rounds);
    std::printf("%-12s %10s %10s\n", "variant", "step ms", "vs local");
    for (int v = 0; v < 3; ++v)
      std::printf("%-12s %10.3f %10.3f\n", kVariants[v], m[v], m[v] / m[0]);
    if (!a.json.empty()) {
      if (std::FILE* f = std::fopen(a.json.c_str(), "w")) {
        std::fprintf(f, "{\"case\": \"ddp_mlp_step\", \"ranks\": %d, \"steps\": %d", a.ranks,
                     a.steps * a.rounds);
        for (int v = 0; v < 3; ++v) std::fprintf(f, ", \"%s_ms\": %.4f", kVariants[v], m[v]);
        std::fprintf(f, "}\n");
        std::fclose(f);
      }
    }
  }
  dist::destroy_process_group();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "bench_ddp: %s needs a value\n", k.c_str());
      return 2;
    }
    const char* v = argv[++i];
    if (k == "--ranks") {
      a.ranks = std::atoi(v);
    } else if (k == "--steps") {
      a.steps = std::atoi(v);
    } else if (k == "--rounds") {
      a.rounds = std::atoi(v);
    } else if (k == "--json") {
      a.json = v;
    } else {
      std::fprintf(stderr, "bench_ddp: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  if (a.ranks < 1 || a.steps < 1 || a.rounds < 1) {
    std::fprintf(stderr, "bench_ddp: --ranks, --steps and --rounds must be positive\n");
    return 2;
  }
  // The store lives in the parent; the ranks are forked before any OpenMP pool exists.
  dist::TCPStoreServer server("127.0.0.1", 0);
  const uint16_t port = server.port();
  std::fflush(stdout);
  std::vector<pid_t> pids;
  for (int r = 0; r < a.ranks; ++r) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      int rc = 1;
      try {
        rc = run_rank(r, a, port);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "rank %d: %s\n", r, e.what());
      }
      std::fflush(stdout);
      ::_exit(rc);
    }
    pids.push_back(pid);
  }
  int failed = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(10);
  for (size_t left = pids.size(); left > 0;) {
    for (pid_t& pid : pids) {
      int ws = 0;
      if (pid > 0 && ::waitpid(pid, &ws, WNOHANG) == pid) {
        failed |= !(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
        pid = -1;
        --left;
      }
    }
    if (left > 0 && std::chrono::steady_clock::now() > deadline) {
      for (pid_t pid : pids) {
        if (pid > 0) ::kill(pid, SIGKILL), ::waitpid(pid, nullptr, 0);
      }
      std::fprintf(stderr, "bench_ddp: ranks still running after 10 minutes, killed\n");
      return 1;
    }
    if (left > 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return failed;
}
