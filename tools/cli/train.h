#pragma once
// `ember train`: the training loop with progress, metrics, loss chart, periodic and final
// checkpoints, evaluation, Ctrl-C handling and exact resumption, in one process or as one rank of
// a data-parallel job (Note [Data-parallel ember train] in train.cpp).
#include <cstdint>
#include <functional>
#include <set>
#include <string>

#include "cli/config.h"

namespace ember::cli {

/// The most ranks a data-parallel `ember train` may have.
inline constexpr int64_t kMaxTrainProcesses = 1024;

struct TrainRequest {
  TrainConfig config;
  /// JSON names of the settings given on the command line (for --resume: they override the
  /// checkpoint's, and architecture settings must agree with it).
  std::set<std::string> given;
  bool resume = false;
  bool overwrite = false;  // start afresh even if --out holds a checkpoint
  bool quiet = false;      // no progress output (tests)
  /// --profile N: after up to 5 skipped steps (fewer in a short run) and one profiler warm-up
  /// step, record N steps and write trace.json (Chrome/Perfetto) and profile.txt (key-averages
  /// table) beside the checkpoint. 0: off; a run with fewer than N + 1 steps left is a
  /// ValueError before anything is written.
  int64_t profile_steps = 0;
  /// --compile: the training forward and loss run through ember::compile (generated kernels;
  /// forward and backward from one joint graph), and the AdamW step through
  /// ember::compile(optimizer). float32 and one process only for now.
  bool compile = false;
  /// --distributed: this process is one rank of a data-parallel job whose launcher (`ember run`,
  /// or `ember train --nproc`) set RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT; it joins the
  /// default process group ("gloo", env://) once everything is checked.
  bool distributed = false;
  /// Check everything as for a job of `nproc` ranks, then return without writing or training
  /// (what `ember train --nproc N` does before it starts its workers).
  bool check_only = false;
  int64_t nproc = 1;
  /// Called after each finished step with the number of steps done; returning true stops the
  /// run there as Ctrl-C would (save, then return). For tests.
  std::function<bool(int64_t)> stop_after;
};

struct TrainResult {
  int64_t steps_done = 0;
  bool interrupted = false;
  double val_loss = 0;
  std::string out_dir;
  std::string model;  // the model trained (the checkpoint's for --resume)
  int64_t rank = 0;   // this process's rank in a data-parallel job; only rank 0 reports
};

/// Validates everything (flags, data, the checkpoint to resume, --batch-size divisible by the
/// number of ranks) before writing anything; bad input is a ValueError and leaves --out untouched.
TrainResult train(TrainRequest request);

}  // namespace ember::cli
