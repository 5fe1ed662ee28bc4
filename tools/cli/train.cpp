#include "cli/train.h"

#include <ember/compile.h>
#include <ember/core/error.h>
#include <ember/core/parallel.h>
#include <ember/distributed.h>
#include <ember/ember.h>
#include <ember/optim.h>
#include <ember/profiler.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>
#include <optional>

#include "cli/checkpoint.h"
#include "cli/report.h"
#include "cli/tasks.h"

// Note [Data-parallel ember train]: `ember train --nproc N` checks everything, then starts N
// copies of itself with --distributed through `ember run`'s launcher (launch.h); `ember run
// --nproc-per-node N -- ember train --distributed` does the same by hand. Every rank builds the
// same model from the same seed, loads the same checkpoint, and draws the same global batch of
// --batch-size rows (the batch order depends on seed and step only); rank r trains on rows
// [r B/N, (r+1) B/N) of it, and DistributedDataParallel averages the gradients, so N ranks take
// the steps one process takes on the whole batch, up to float rounding. The loss and a stop flag
// (Ctrl-C on any rank) are all-reduced after every step, so every rank reports the global batch's
// loss and all stop at the same step. Rank 0 alone writes (metrics, chart, checkpoint, profile),
// evaluates and prints. The checkpoint does not depend on N: it resumes with any number of ranks
// that divides --batch-size. BatchNorm (cnn) normalises with each rank's own statistics, as
// PyTorch's DDP without SyncBatchNorm does, so a cnn's losses differ slightly with N.

namespace ember::cli {
namespace fs = std::filesystem;
using json = nlohmann::json;
namespace dist = ember::distributed;

namespace {

struct Placement {
  int64_t rank = 0, world = 1;
};

// This process's rank and the job's size: for --distributed from the launcher's environment
// (RANK and WORLD_SIZE, or Open MPI's own under mpirun), else rank 0 of --nproc.
Placement placement(const TrainRequest& r) {
  const char* ctx = "[ember train]";
  if (!r.distributed) {
    EMBER_CHECK_VALUE(r.nproc >= 1 && r.nproc <= kMaxTrainProcesses, ctx,
                      " --nproc must be in [1, ", kMaxTrainProcesses, "] (got ", r.nproc, ")");
    return {0, r.nproc};
  }
  auto read = [&](const char* name, const char* mpi_name) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') v = std::getenv(mpi_name);
    EMBER_CHECK_VALUE(v != nullptr && *v != '\0', ctx, " --distributed needs ", name,
                      " in the environment, as a launcher sets it (ember run --nproc-per-node N "
                      "-- ember train --distributed ...); to start the ranks here, use --nproc N");
    char* end = nullptr;
    const long long n = std::strtoll(v, &end, 10);
    EMBER_CHECK_VALUE(*end == '\0' && end != v, ctx, " environment variable ", name,
                      " must be an integer (got '", v, "')");
    return static_cast<int64_t>(n);
  };
  const Placement p{read("RANK", "OMPI_COMM_WORLD_RANK"),
                    read("WORLD_SIZE", "OMPI_COMM_WORLD_SIZE")};
  EMBER_CHECK_VALUE(
      p.world >= 1 && p.world <= kMaxTrainProcesses && p.rank >= 0 && p.rank < p.world, ctx,
      " --distributed: RANK ", p.rank, " and WORLD_SIZE ", p.world,
      " must satisfy 0 <= RANK < WORLD_SIZE <= ", kMaxTrainProcesses);
  return p;
}

// The default process group of a --distributed run, destroyed when the run ends.
class ProcessGroupScope {
 public:
  ProcessGroupScope() { dist::init_process_group("gloo"); }
  ~ProcessGroupScope() {
    try {
      dist::destroy_process_group();
    } catch (const std::exception&) {  // the process is ending with another error
    }
  }
  ProcessGroupScope(const ProcessGroupScope&) = delete;
  ProcessGroupScope& operator=(const ProcessGroupScope&) = delete;
};

std::atomic<bool> g_stop{false};

void on_sigint(int) {
  g_stop.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

// Installs the Ctrl-C handler for the scope of a training run.
class SigintScope {
 public:
  SigintScope() : previous_(std::signal(SIGINT, on_sigint)) { g_stop.store(false); }
  ~SigintScope() { std::signal(SIGINT, previous_); }

 private:
  void (*previous_)(int);
};

// Linear warm-up to `lr`, then cosine decay to lr/10 at the last step (nanoGPT's schedule).
double lr_at(const TrainConfig& c, int64_t step) {
  if (step < c.warmup) return c.lr * static_cast<double>(step + 1) / static_cast<double>(c.warmup);
  const double min_lr = c.lr / 10;
  const double progress = static_cast<double>(step - c.warmup) /
                          static_cast<double>(std::max<int64_t>(1, c.steps - c.warmup));
  return min_lr +
         0.5 * (c.lr - min_lr) * (1 + std::cos(std::numbers::pi * std::min(1.0, progress)));
}

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// The configuration a run uses: the command line's, or for --resume the checkpoint's with the
// given settings laid over it (architecture settings must agree).
TrainConfig resolve_config(const TrainRequest& r, const std::optional<Checkpoint>& ckpt) {
  if (!ckpt) {
    TrainConfig c = r.config;
    c.apply_defaults();
    c.validate();
    return c;
  }
  json base = to_json(ckpt->config);
  const json given = to_json(r.config);
  const json arch = ckpt->config.architecture();
  for (const auto& key : r.given) {
    if (!given.contains(key)) continue;
    EMBER_CHECK_VALUE(!arch.contains(key) || arch[key] == given[key],
                      "[ember train] the checkpoint in ", r.config.out,
                      " is from another configuration: it was trained with ", key, " = ",
                      arch.contains(key) ? arch[key].dump() : "", ", not ", given[key].dump());
    base[key] = given[key];
  }
  TrainConfig c = config_from_json(base);
  c.validate();
  return c;
}

// Optimizer groups: weight decay on matrices (embeddings, Linear/conv weights), none on biases
// and normalisation parameters.
std::unique_ptr<optim::AdamW> make_optimizer(nn::Module& m, const TrainConfig& c) {
  std::vector<Tensor> decay, no_decay;
  for (const auto& p : m.parameters()) (p.dim() >= 2 ? decay : no_decay).push_back(p);
  auto opts = [&](double wd) {
    return std::make_unique<optim::AdamWOptions>(
        optim::AdamWOptions(c.lr).betas({0.9, c.model == "gpt" ? 0.95 : 0.999}).weight_decay(wd));
  };
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, opts(c.weight_decay));
  groups.emplace_back(no_decay, opts(0.0));
  return std::make_unique<optim::AdamW>(groups, optim::AdamWOptions(c.lr));
}

// Reads metrics.jsonl records of steps <= `upto` (a resumed run drops anything logged after its
// checkpoint) into the chart's series.
std::vector<json> read_metrics(const std::string& path, int64_t upto) {
  std::vector<json> records;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && !j.contains("final") && j.value("step", int64_t{0}) <= upto)
      records.push_back(std::move(j));
  }
  return records;
}

void write_lines(const std::string& path, const std::vector<json>& records) {
  std::string text;
  for (const auto& r : records) text += r.dump() + "\n";
  write_file_atomically(path, text);
}

// --profile N: skip up to 5 steps (fewer when the run is short), warm up for one, record N; the
// trace and the key-averages table go beside the checkpoint.
void start_profiler(std::optional<profiler::profile>& prof, const fs::path& out, int64_t steps,
                    int64_t skip) {
  prof.emplace(profiler::ProfileOptions()
                   .record_shapes(true)
                   .profile_memory(true)
                   .with_flops(true)
                   .schedule(profiler::schedule(/*wait=*/0, /*warmup=*/1, steps, /*repeat=*/1,
                                                /*skip_first=*/skip))
                   .on_trace_ready([out](profiler::profile& p) {
                     p.export_chrome_trace((out / "trace.json").string());
                     write_file_atomically((out / "profile.txt").string(),
                                           p.key_averages().table("self_cpu_time_total", 40));
                   }));
  prof->start();
}

// The loss chart's series (and the last validation loss) from the metrics kept on resume.
struct Curves {
  std::vector<Point> train, val;
  std::optional<double> last_val;
  explicit Curves(const std::vector<json>& history) {
    for (const auto& h : history) {
      const double s = h.value("step", 0.0);
      if (h.contains("loss")) train.push_back({s, h["loss"].get<double>()});
      if (h.contains("val_loss")) add_val(s, h["val_loss"].get<double>());
    }
  }
  void add_val(double step, double loss) {
    val.push_back({step, loss});
    last_val = loss;
  }
};

// Every rank's loss and stop wish after a step: the global batch's loss (the mean of the ranks'
// equal shards) and whether any rank wants to stop, the same on every rank.
std::pair<double, bool> agree(double loss, bool stop, bool distributed, int64_t world) {
  if (!distributed) return {loss, stop};
  Tensor both = tensor(std::vector<double>{loss, stop ? 1.0 : 0.0}, kFloat64);
  dist::all_reduce(both, dist::ReduceOp::SUM);
  return {both[0].item<double>() / static_cast<double>(world), both[1].item<double>() > 0};
}

}  // namespace

TrainResult train(TrainRequest r) {
  const Placement place = placement(r);
  const bool lead = place.rank == 0;               // writes, evaluates and reports
  std::optional<ProcessGroupScope> process_group;  // outlives the task, whose DDP uses it
  if (r.config.out.empty()) r.config.out = "runs/" + r.config.model;
  const fs::path out = r.config.out;
  const std::string ckpt_file = (out / "checkpoint.safetensors").string();
  EMBER_CHECK_VALUE(r.profile_steps >= 0 && r.profile_steps <= 100000,
                    "[ember train] --profile must be in [0, 100000] (got ", r.profile_steps, ")");
  std::error_code ec;
  EMBER_CHECK_VALUE(!fs::exists(out, ec) || fs::is_directory(out, ec), "[ember train] --out ",
                    out.string(), " exists and is not a folder");
  std::optional<Checkpoint> ckpt;
  if (r.resume) {
    EMBER_CHECK_VALUE(fs::exists(ckpt_file, ec), "[ember train] --resume: no checkpoint in ",
                      out.string());
    ckpt = read_checkpoint(ckpt_file);
  }
  TrainConfig config = resolve_config(r, ckpt);
  EMBER_CHECK_VALUE(r.resume || r.overwrite || !fs::exists(ckpt_file, ec), "[ember train] ",
                    out.string(),
                    " already holds a checkpoint: pass --resume to continue it, --overwrite to "
                    "start afresh, or choose another --out");
  EMBER_CHECK_VALUE(config.batch_size % place.world == 0, "[ember train] --batch-size ",
                    config.batch_size, " is the global batch, split evenly over the ", place.world,
                    " processes: it must be divisible by ",
                    r.distributed ? "WORLD_SIZE " : "--nproc ", place.world);
  EMBER_CHECK_VALUE(!r.compile || (config.dtype == "float32" && place.world == 1 && r.nproc == 1),
                    "[ember train] --compile supports float32 training in one process for now "
                    "(got --dtype ",
                    config.dtype, " with ", std::max(place.world, r.nproc), " processes)");
  if (config.threads > 0) set_num_threads(static_cast<int>(config.threads));

  // Everything that can fail on bad input happens before the first write.
  std::unique_ptr<Task> task = make_task(config);
  if (r.compile) task->compile();
  nn::Module& model = task->module();
  auto optimizer = make_optimizer(model, config);
  // --compile: the optimizer's step too (Note [Compiled optimizer step]); it reads the
  // optimizer's state at each step, so a checkpoint loaded below is seen.
  std::optional<CompiledOptimizer> compiled_step;
  if (r.compile) compiled_step.emplace(ember::compile(*optimizer));
  int64_t step = 0;
  if (ckpt) {
    const Tensor vocab = task->vocab();
    EMBER_CHECK_VALUE(!vocab.defined() || vocab.equal(ckpt->vocab),
                      "[ember train] the checkpoint in ", out.string(),
                      " was trained on text with another character set than ", config.data);
    try {
      model.load_state_dict(ckpt->model);
      optimizer->load_state_dict(ckpt->optimizer);
    } catch (const Error& e) {
      EMBER_CHECK_VALUE(false, "[ember train] the checkpoint in ", out.string(),
                        " does not fit the model: ", e.what());
    }
    default_generator().set_state(ckpt->rng);
    step = ckpt->step;
    EMBER_CHECK_VALUE(step <= config.steps, "[ember train] the checkpoint in ", out.string(),
                      " is at step ", step, ", past --steps ", config.steps);
  }

  // The profiler warms up for one step and records profile_steps more: the run must have room
  // for them; the skipped steps shrink to fit.
  const int64_t remaining = config.steps - step;
  EMBER_CHECK_VALUE(r.profile_steps == 0 || r.profile_steps + 1 <= remaining,
                    "[ember train] --profile ", r.profile_steps, " needs ", r.profile_steps + 1,
                    " training steps (1 warm-up + ", r.profile_steps, " recorded), but only ",
                    remaining, " remain (--steps ", config.steps, ")");
  const int64_t profile_skip = std::min<int64_t>(5, remaining - 1 - r.profile_steps);
  TrainResult result{step, false, NAN, out.string(), config.model, place.rank};
  if (r.check_only) return result;

  // Every rank has passed its checks once DDP's constructor (a collective) returns: only then
  // does rank 0 write.
  if (r.distributed) {
    process_group.emplace();
    task->make_data_parallel(place.rank, place.world);
  }
  const std::string metrics_path = (out / "metrics.jsonl").string();
  std::vector<json> history;
  if (lead) {
    fs::create_directories(out);
    if (r.resume) history = read_metrics(metrics_path, step);
    write_lines(metrics_path, history);
  }
  std::optional<MetricsLog> metrics;
  if (lead) metrics.emplace(metrics_path);
  Curves curves(history);
  const std::string title = "ember train --model " + config.model;
  auto save = [&](int64_t done) {
    write_checkpoint(ckpt_file,
                     Checkpoint{config, done, model.state_dict(), optimizer->state_dict(),
                                task->vocab(), default_generator().get_state()});
    write_loss_svg((out / "loss.svg").string(), curves.train, curves.val, title);
  };

  std::optional<profiler::profile> prof;
  if (lead && r.profile_steps > 0) start_profiler(prof, out, r.profile_steps, profile_skip);
  std::optional<Progress> progress;
  if (lead && !r.quiet) progress.emplace(config.steps, task->unit(), config.log_every);
  SigintScope sigint;
  model.train();
  result.val_loss = curves.last_val.value_or(NAN);
  const int64_t first_step = step;
  double timed_ms = 0;
  int64_t timed_steps = 0;
  while (step < config.steps) {
    const auto t0 = std::chrono::steady_clock::now();
    const double lr = lr_at(config, step);
    for (auto& group : optimizer->param_groups()) group.options().set_lr(lr);
    optimizer->zero_grad();
    Tensor loss = task->loss(step);
    loss.backward();
    task->after_backward();
    nn::utils::clip_grad_norm_(model.parameters(), config.clip);
    if (compiled_step) {
      compiled_step->step();
    } else {
      optimizer->step();
    }
    ++step;
    const bool hook_stop = r.stop_after && r.stop_after(step);
    const auto [loss_value, stop] =
        agree(loss.item<double>(), hook_stop || g_stop.load(), r.distributed, place.world);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (step - first_step > 5) timed_ms += ms, ++timed_steps;  // skip warm-up steps
    EMBER_CHECK(std::isfinite(loss_value), "[ember train] the loss became ", loss_value,
                " at step ", step, "; try a lower --lr (the last checkpoint is kept)");
    if (lead) {
      json record = {{"step", step}, {"loss", loss_value}, {"lr", lr}, {"ms", ms}};
      curves.train.push_back({static_cast<double>(step), loss_value});
      if (step % config.eval_every == 0 || step == config.steps) {
        curves.add_val(static_cast<double>(step), task->evaluate());
        record["val_loss"] = *curves.last_val;
      }
      metrics->write(record);
      if (progress) progress->update(step, loss_value, curves.last_val, task->items_per_step());
      if (prof) prof->step();
      if (stop || step % config.save_every == 0 || step == config.steps) save(step);
    }
    if (stop && step < config.steps) {
      result.interrupted = true;
      if (progress)
        progress->message("stopped at step " + std::to_string(step) + "; saved " + ckpt_file +
                          " (continue with --resume)");
      break;
    }
  }
  if (prof && prof->is_running()) prof->stop();
  if (progress) progress->finish();
  result.steps_done = step;
  result.val_loss = curves.last_val.value_or(NAN);
  const double ms_per_step = timed_steps ? timed_ms / static_cast<double>(timed_steps) : NAN;
  if (lead)
    metrics->write(
        {{"final", true},
         {"step", step},
         {"val_loss", result.val_loss},
         {"ms_per_step", ms_per_step},
         {"items_per_s", static_cast<double>(task->items_per_step()) * 1000.0 / ms_per_step},
         {"peak_rss_mb", peak_rss_mb()}});
  return result;
}

}  // namespace ember::cli
