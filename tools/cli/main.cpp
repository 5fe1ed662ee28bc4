// The `ember` command: train, generate, eval, info, run. Bad input prints one line
// ("ember: error: ...") and exits with status 2; Ctrl-C during training saves and exits 130.
#include <ember/core/error.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "cli/commands.h"
#include "cli/launch.h"
#include "cli/report.h"
#include "cli/train.h"

namespace {

using ember::cli::TrainConfig;

// The train flags, bound to `c`; `names` maps each option to its JSON setting name.
void add_train_flags(CLI::App& cmd, TrainConfig& c,
                     std::vector<std::pair<CLI::Option*, std::string>>& names) {
  auto add = [&](const char* flag, auto& value, const char* help, const char* key) {
    names.emplace_back(cmd.add_option(flag, value, help), key);
  };
  add("--model", c.model, "gpt (default), mlp or cnn", "model");
  add("--data", c.data, "a text file or folder of .txt (gpt), a folder of IDX files (mlp, cnn)",
      "data");
  add("--steps", c.steps, "optimizer steps (default: gpt 1000, cnn 300, mlp 1000)", "steps");
  add("--batch-size", c.batch_size,
      "sequences or images per step, over all ranks (default: gpt 32, else 128)", "batch_size");
  add("--context", c.context, "gpt: characters per sequence (default 64)", "context");
  add("--layers", c.layers, "gpt: transformer blocks (default 4)", "layers");
  add("--heads", c.heads, "gpt: attention heads (default 4)", "heads");
  add("--dim", c.dim, "gpt: embedding width (default 128)", "dim");
  add("--lr", c.lr, "peak learning rate (default: mlp 2e-3, else 3e-3)", "lr");
  add("--warmup", c.warmup, "linear warm-up steps before cosine decay (default 50)", "warmup");
  add("--weight-decay", c.weight_decay, "AdamW weight decay on matrices", "weight_decay");
  add("--seed", c.seed, "seed for initialisation and batch order (default 1337)", "seed");
  add("--threads", c.threads, "threads (default: all cores)", "threads");
  add("--out", c.out, "output folder (default runs/<model>)", "out");
  add("--eval-every", c.eval_every, "steps between evaluations", "eval_every");
  add("--save-every", c.save_every, "steps between checkpoints", "save_every");
  add("--dtype", c.dtype, "float32 or bfloat16 (mixed precision, float32 master weights)", "dtype");
}

// An integer flag of `ember train` read as text (CLI11 saturates out-of-range integers) and
// checked to lie in [lo, hi] before anything runs or is written.
int64_t parse_train_int(const char* flag, const std::string& arg, int64_t lo, int64_t hi) {
  int64_t n = lo - 1;
  const char* end = arg.data() + arg.size();
  const auto [ptr, ec] = std::from_chars(arg.data(), end, n);
  EMBER_CHECK_VALUE(ec == std::errc() && ptr == end && n >= lo && n <= hi, "[ember train] ", flag,
                    " must be an integer in [", lo, ", ", hi, "] (got '", arg, "')");
  return n;
}
constexpr int64_t kMaxSampleTokens = 1000000;

// The arguments of each rank that `ember train --nproc N` starts: its own, without --nproc,
// with --distributed.
std::vector<std::string> worker_args(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--nproc") {
      ++i;  // and its value
    } else if (a.rfind("--nproc=", 0) != 0) {
      args.push_back(a);
    }
  }
  args.push_back("--distributed");
  return args;
}

// Note [OpenMP wait policy]: libgomp's default lets an idle thread spin for about 300000 pause
// instructions (milliseconds here) before it sleeps. Next to another busy process, or with
// several ranks per host, those spinning threads take the cores the working threads need: a
// 15-step `ember train` took 69 s (19 s of CPU) instead of 7 s on a loaded 2-core machine. The
// command therefore runs with a short spin (GOMP_SPINCOUNT=1000, tens of microseconds) unless the
// user set OMP_WAIT_POLICY or GOMP_SPINCOUNT. libgomp reads its environment once, in its own
// constructor, before main (and before any constructor of libember, which needs libgomp), so the
// command sets the variable and executes itself again; ranks it launches inherit the setting.
void apply_default_omp_wait_policy(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr) {
    return;
  }
  if (setenv("GOMP_SPINCOUNT", "1000", 0) != 0) return;
  execv("/proc/self/exe", argv);  // returns only on failure: carry on with libgomp's default
}

}  // namespace

int main(int argc, char** argv) {
  apply_default_omp_wait_policy(argv);
  CLI::App app{
      "Ember: PyTorch's feature set as a native C++ library. Train, sample and "
      "evaluate models on the embedded data."};
  app.require_subcommand(1);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);

  ember::cli::TrainRequest train;
  std::vector<std::pair<CLI::Option*, std::string>> train_names;
  auto* train_cmd = app.add_subcommand("train",
                                       "train a model (default: a character GPT on "
                                       "Jane Austen's novels)");
  add_train_flags(*train_cmd, train.config, train_names);
  train_cmd->add_flag("--resume", train.resume, "continue the checkpoint in --out exactly");
  train_cmd->add_flag("--overwrite", train.overwrite,
                      "start afresh even if --out holds a checkpoint");
  train_cmd->add_option("--profile", train.profile_steps,
                        "record N steps after a warm-up; writes trace.json and profile.txt");
  train_cmd->add_flag("--compile", train.compile,
                      "run the training forward and loss, and the optimizer step, through "
                      "ember::compile (float32, one process)");
  // Read as text and checked before training starts (CLI11 saturates out-of-range integers).
  std::string sample_arg = "200";
  train_cmd->add_option("--sample", sample_arg,
                        "gpt: characters to sample after training (0: none; default 200)");
  std::string nproc_arg = "1";
  auto* nproc_opt = train_cmd->add_option(
      "--nproc", nproc_arg,
      "train data-parallel in N processes here, each on 1/N of every batch (default 1)");
  nproc_opt->type_name("INT");
  train_cmd->add_flag("--distributed", train.distributed,
                      "be one rank of a data-parallel job started by `ember run` or mpirun (reads "
                      "RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT)");
  train_cmd->footer(
      "Data-parallel: `ember train --nproc 2 ...` starts 2 ranks on loopback (as `ember run "
      "--nproc-per-node 2 -- ember train --distributed ...` does). --batch-size is the global "
      "batch, divided evenly among the ranks, so the losses match one process's on the same "
      "batch; gradients are averaged by DistributedDataParallel over Gloo. Rank 0 alone prints, "
      "evaluates and writes --out (once, atomically); --resume works with any number of ranks "
      "that divides --batch-size. Each rank uses OMP_NUM_THREADS (set to 1 by the launcher "
      "unless given) or --threads.");

  ember::cli::GenerateRequest gen;
  auto* gen_cmd = app.add_subcommand("generate", "sample text from a trained gpt, streaming");
  gen_cmd->add_option("--checkpoint", gen.checkpoint, "folder (or file) written by ember train")
      ->required();
  gen_cmd->add_option("--prompt", gen.prompt, "text to continue (default \"It is a truth\")");
  gen_cmd->add_option("--tokens", gen.tokens, "characters to generate (default 300)");
  gen_cmd->add_option("--temperature", gen.temperature, "sampling temperature (default 0.8)");
  gen_cmd->add_option("--top-k", gen.top_k, "sample among the k likeliest (0: all; default 40)");
  gen_cmd->add_option("--seed", gen.seed, "sampling seed (default 1)");

  std::string eval_checkpoint, eval_data;
  auto* eval_cmd = app.add_subcommand("eval",
                                      "validation loss (gpt) or accuracy and confusion "
                                      "matrix (mlp, cnn) of a checkpoint");
  eval_cmd->add_option("--checkpoint", eval_checkpoint, "folder (or file) written by ember train")
      ->required();
  eval_cmd->add_option("--data", eval_data, "data to evaluate on (default: the training data)");

  auto* info_cmd = app.add_subcommand("info", "version, build, instruction sets, threads, BLAS");

  ember::cli::RunRequest run_request;
  auto* run_cmd = ember::cli::add_run_command(app, run_request);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, like every other error (CLI11's own report adds a second "Run with --help").
    std::fprintf(stderr, "ember: error: %s (see ember --help)\n", e.what());
    return 2;
  }
  try {
    if (*train_cmd) {
      const int64_t sample_tokens = parse_train_int("--sample", sample_arg, 0, kMaxSampleTokens);
      train.nproc = parse_train_int("--nproc", nproc_arg, 1, ember::cli::kMaxTrainProcesses);
      EMBER_CHECK_VALUE(!(nproc_opt->count() && train.distributed),
                        "[ember train] give --nproc N (start N ranks here) or --distributed (be a "
                        "rank a launcher started), not both");
      for (const auto& [opt, key] : train_names)
        if (opt->count()) train.given.insert(key);
      if (train.nproc > 1) {  // check everything here, once, then start the ranks
        train.check_only = true;
        ember::cli::train(train);
        return ember::cli::run_self(train.nproc, worker_args(argc, argv));
      }
      const auto result = ember::cli::train(train);
      if (result.rank != 0) return result.interrupted ? 130 : 0;
      char val[64] = "no validation yet";
      if (!std::isnan(result.val_loss))
        std::snprintf(val, sizeof val, "validation loss %.4f", result.val_loss);
      std::printf(
          "%s: %lld steps, %s; outputs in %s/ (checkpoint.safetensors, metrics.jsonl, "
          "loss.svg)\n",
          result.interrupted ? "interrupted" : "done", static_cast<long long>(result.steps_done),
          val, result.out_dir.c_str());
      if (result.interrupted) return 130;
      if (result.model != "gpt") {
        std::printf("\n%s", ember::cli::evaluate_checkpoint(result.out_dir, "").c_str());
      } else if (sample_tokens > 0) {
        std::printf("\nsample:\n");
        gen.checkpoint = result.out_dir;
        gen.tokens = sample_tokens;
        gen.lenient_prompt = true;
        ember::cli::generate_text(gen, stdout);
      }
    } else if (*gen_cmd) {
      ember::cli::generate_text(gen, stdout);
    } else if (*eval_cmd) {
      std::fputs(ember::cli::evaluate_checkpoint(eval_checkpoint, eval_data).c_str(), stdout);
    } else if (*info_cmd) {
      std::fputs(ember::cli::build_info().c_str(), stdout);
    } else if (*run_cmd) {
      return ember::cli::run_workers(ember::cli::plan_run(run_request), run_request.grace);
    }
  } catch (const ember::Error& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "\nember: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "\nember: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
