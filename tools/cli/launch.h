#pragma once
// `ember run`: torchrun's role. Starts --nproc-per-node workers of one command with the
// rendezvous variables set (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK,
// MASTER_ADDR, MASTER_PORT), streams their output line by line prefixed "[RANK]:", forwards
// SIGINT/SIGTERM/SIGHUP, and when one worker fails stops the rest and exits with its status.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace ember::cli {

struct RunRequest {
  std::string nproc_per_node = "1";  ///< a count, or "auto"/"cpu" (one per core)
  std::string nnodes = "1";
  int64_t node_rank = 0;
  std::string rdzv_endpoint;              ///< HOST[:PORT] (port 29400 when left out, as torchrun)
  std::string master_addr;                ///< default 127.0.0.1
  int64_t master_port = -1;               ///< default: a free port (single node) or 29500
  std::chrono::milliseconds grace{5000};  ///< SIGTERM to SIGKILL when stopping workers
  std::vector<std::string> command;
};

/// What the workers get, after validation: every flag checked before anything starts.
struct RunPlan {
  int64_t nproc_per_node = 1, nnodes = 1, node_rank = 0;
  std::string master_addr;
  int64_t master_port = 0;
  std::string program;  // command[0] as found on PATH
  std::vector<std::string> command;
};

/// Adds the `run` subcommand, bound to `request`.
CLI::App* add_run_command(CLI::App& app, RunRequest& request);
/// Checks every flag and the program (ValueError naming the flag); picks a free port if needed.
RunPlan plan_run(const RunRequest& request);
/// Runs the workers to the end; returns the exit status for `ember run`.
int run_workers(const RunPlan& plan, std::chrono::milliseconds grace);
/// Runs `nproc` copies of this executable (/proc/self/exe) with `args` on this node, meeting on
/// a free loopback port, as `ember run --nproc-per-node nproc -- ember ARGS...` would; returns
/// the exit status (`ember train --nproc`).
int run_self(int64_t nproc, const std::vector<std::string>& args);

}  // namespace ember::cli
