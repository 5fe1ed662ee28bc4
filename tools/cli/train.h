#pragma once
// `ember train`: the training loop with progress, metrics, loss chart, periodic and final
// checkpoints, evaluation, Ctrl-C handling and exact resumption.
#include <cstdint>
#include <functional>
#include <set>
#include <string>

#include "cli/config.h"

namespace ember::cli {

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
};

/// Validates everything (flags, data, the checkpoint to resume) before writing anything; bad
/// input is a ValueError and leaves --out untouched.
TrainResult train(TrainRequest request);

}  // namespace ember::cli
