// `ember train` in-process: exact resumption, Ctrl-C, outputs, the learning-rate schedule, and
// bad input that must fail with a ValueError before anything in --out is written.
#include <ember/data/readers.h>
#include <ember/ember.h>
#include <ember/compile.h>
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>
#include <optional>
#include <set>

#include "cli/checkpoint.h"
#include "cli/commands.h"
#include "cli/train.h"
#include "cli/vision.h"
#include "data/data_test_util.h"

namespace ember::cli {
namespace {

using test::TempDir;
namespace fs = std::filesystem;

std::string write_text(const TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.file(name)) << text;
  return dir.file(name);
}

std::string austen_like(size_t n) {
  const std::string words =
      "It is a truth universally acknowledged, that a single man in possession of a good "
      "fortune, must be in want of a wife. ";
  std::string s;
  while (s.size() < n) s += words;
  return s.substr(0, n);
}

// A tiny gpt run writing to dir/out.
TrainRequest tiny_gpt(const std::string& data, const std::string& out, int64_t steps) {
  TrainRequest r;
  TrainConfig& c = r.config;
  c.model = "gpt";
  c.data = data;
  c.out = out;
  c.steps = steps;
  c.batch_size = 4;
  c.context = 16;
  c.layers = 1;
  c.heads = 2;
  c.dim = 16;
  c.warmup = 5;
  c.eval_every = 7;
  c.save_every = 1000;
  c.eval_windows = 8;
  r.quiet = true;
  return r;
}

void expect_same_state(const StateDict& a, const StateDict& b) {
  ASSERT_EQ(a.size(), b.size());
  for (const auto& item : a) {
    ASSERT_TRUE(b.contains(item.key())) << item.key();
    EXPECT_TRUE(item.value().equal(b[item.key()])) << item.key() << " differs";
  }
}

// A folder of MNIST-style IDX files: n random images with labels i % 10 (train and t10k).
void write_images(const std::string& dir, int64_t n) {
  fs::create_directories(dir);
  for (const char* split : {"train", "t10k"}) {
    data::write_idx(randint(0, 256, {n, 28, 28}, kInt64).to(kUInt8),
                    dir + "/" + split + "-images-idx3-ubyte");
    data::write_idx(arange(n, kInt64).remainder(10).to(kUInt8),
                    dir + "/" + split + "-labels-idx1-ubyte");
  }
}

std::vector<nlohmann::json> read_jsonl(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST(CliTrain, ResumeIsBitIdentical) {
  TempDir dir;
  const std::string text = write_text(dir, "a.txt", austen_like(4000));
  train(tiny_gpt(text, dir.file("full"), 20));

  TrainRequest first = tiny_gpt(text, dir.file("split"), 20);
  first.stop_after = [](int64_t step) { return step == 10; };
  const TrainResult r1 = train(first);
  EXPECT_TRUE(r1.interrupted);
  EXPECT_EQ(r1.steps_done, 10);
  EXPECT_EQ(read_checkpoint(dir.file("split")).step, 10);

  TrainRequest second = tiny_gpt(text, dir.file("split"), 20);
  second.resume = true;
  const TrainResult r2 = train(second);
  EXPECT_FALSE(r2.interrupted);
  EXPECT_EQ(r2.steps_done, 20);

  const Checkpoint full = read_checkpoint(dir.file("full"));
  const Checkpoint split = read_checkpoint(dir.file("split"));
  EXPECT_EQ(split.step, 20);
  expect_same_state(full.model, split.model);
  expect_same_state(full.optimizer, split.optimizer);

  // The resumed run's metrics continue the first run's: one record per step, then the summary.
  const auto records = read_jsonl(dir.file("split/metrics.jsonl"));
  ASSERT_EQ(records.size(), 21u);
  for (int64_t s = 0; s < 20; ++s) EXPECT_EQ(records[s]["step"].get<int64_t>(), s + 1);
  EXPECT_TRUE(records[20]["final"].get<bool>());
  const auto full_records = read_jsonl(dir.file("full/metrics.jsonl"));
  for (int64_t s = 0; s < 20; ++s)
    EXPECT_EQ(records[s]["loss"].get<double>(), full_records[s]["loss"].get<double>()) << s;
}

TEST(CliTrain, OutputsAndSchedule) {
  TempDir dir;
  const std::string text = write_text(dir, "a.txt", austen_like(3000));
  TrainRequest r = tiny_gpt(text, dir.file("run"), 15);
  const TrainResult result = train(r);
  EXPECT_TRUE(std::isfinite(result.val_loss));
  EXPECT_TRUE(fs::exists(dir.file("run/checkpoint.safetensors")));
  EXPECT_TRUE(fs::exists(dir.file("run/loss.svg")));
  const auto records = read_jsonl(dir.file("run/metrics.jsonl"));
  ASSERT_EQ(records.size(), 16u);
  // nanoGPT's schedule: linear warm-up over 5 steps to 3e-3, cosine to 3e-4 at step 15.
  for (int64_t s = 0; s < 15; ++s) {
    const double expected =
        s < 5 ? 3e-3 * (s + 1) / 5
              : 3e-4 + 0.5 * (3e-3 - 3e-4) * (1 + std::cos(std::numbers::pi * (s - 5) / 10.0));
    EXPECT_NEAR(records[s]["lr"].get<double>(), expected, 1e-15) << s;
    // Validation every 7 steps and at the last.
    EXPECT_EQ(records[s].contains("val_loss"), (s + 1) % 7 == 0 || s + 1 == 15) << s;
  }
  // The checkpoint records the configuration and vocabulary; the model loss went down.
  const Checkpoint c = read_checkpoint(dir.file("run"));
  EXPECT_EQ(c.config.dim, 16);
  EXPECT_EQ(c.vocab.numel(), c.config.vocab_size);
  EXPECT_LT(records[14]["loss"].get<double>(), records[0]["loss"].get<double>());
}

TEST(CliTrain, SigintFinishesTheStepAndSaves) {
  TempDir dir;
  const std::string text = write_text(dir, "a.txt", austen_like(3000));
  TrainRequest r = tiny_gpt(text, dir.file("run"), 50);
  r.stop_after = [](int64_t step) {
    if (step == 3) std::raise(SIGINT);  // what Ctrl-C delivers
    return false;
  };
  const TrainResult result = train(r);
  EXPECT_TRUE(result.interrupted);
  EXPECT_EQ(result.steps_done, 3);
  EXPECT_EQ(read_checkpoint(dir.file("run")).step, 3);
}

TEST(CliTrain, GenerateIsSeededAndStreams) {
  TempDir dir;
  const std::string text = write_text(dir, "a.txt", austen_like(3000));
  train(tiny_gpt(text, dir.file("run"), 5));
  GenerateRequest g;
  g.checkpoint = dir.file("run");
  g.prompt = "It is";
  g.tokens = 40;
  std::FILE* sink = std::tmpfile();
  const std::string a = generate_text(g, sink);
  const std::string b = generate_text(g, sink);
  EXPECT_EQ(a.size(), 40u);
  EXPECT_EQ(a, b);
  std::rewind(sink);
  std::string streamed(200, '\0');
  streamed.resize(std::fread(streamed.data(), 1, streamed.size(), sink));
  std::fclose(sink);
  EXPECT_EQ(streamed, "It is" + a + "\nIt is" + b + "\n");
  g.prompt = "Zebra~";  // '~' never occurs in the training text
  EXPECT_THROW(generate_text(g, nullptr), ValueError);
  EXPECT_NE(evaluate_checkpoint(dir.file("run"), "").find("validation loss"), std::string::npos);
}

// The profiler steps a trace records; `backward` counts its backward-pass events.
std::set<std::string> recorded_steps(const std::string& trace_path, int64_t& backward) {
  std::ifstream in(trace_path);
  const nlohmann::json trace = nlohmann::json::parse(in);
  std::set<std::string> steps;
  for (const auto& e : trace["traceEvents"]) {
    const std::string name = e.value("name", "");
    if (name.rfind("ProfilerStep#", 0) == 0) steps.insert(name);
    backward += name.find("evaluate_function") != std::string::npos;
  }
  return steps;
}

TEST(CliTrain, ProfileWritesTraceBesideCheckpoint) {
  TempDir dir;
  const std::string text = write_text(dir, "a.txt", austen_like(3000));
  TrainRequest r = tiny_gpt(text, dir.file("run"), 12);
  r.profile_steps = 3;
  train(r);
  int64_t backward = 0;
  // Steps 0-4 skipped, step 5 warms up, steps 6, 7 and 8 are recorded.
  EXPECT_EQ(recorded_steps(dir.file("run/trace.json"), backward),
            (std::set<std::string>{"ProfilerStep#6", "ProfilerStep#7", "ProfilerStep#8"}));
  EXPECT_GT(backward, 0);
  std::ifstream table(dir.file("run/profile.txt"));
  const std::string text_table((std::istreambuf_iterator<char>(table)), {});
  EXPECT_NE(text_table.find("Self CPU"), std::string::npos);
  r.profile_steps = -1;
  r.overwrite = true;
  EXPECT_THROW(train(r), ValueError);
}

// A short run shrinks the skipped steps so that the recorded steps are training steps; a run too
// short for the warm-up and the recorded steps is an error before anything is written.
TEST(CliTrain, ProfileFitsShortRuns) {
  TempDir dir;
  const std::string text = write_text(dir, "a.txt", austen_like(3000));
  TrainRequest r = tiny_gpt(text, dir.file("run"), 6);
  r.profile_steps = 2;
  train(r);
  int64_t backward = 0;
  // 6 steps: 3 skipped, step 3 warms up, steps 4 and 5 are recorded (both train).
  EXPECT_EQ(recorded_steps(dir.file("run/trace.json"), backward),
            (std::set<std::string>{"ProfilerStep#4", "ProfilerStep#5"}));
  EXPECT_GT(backward, 0);

  TrainRequest short_run = tiny_gpt(text, dir.file("short"), 2);
  short_run.profile_steps = 2;
  try {
    train(short_run);
    ADD_FAILURE() << "no error";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("--profile 2 needs 3 training steps"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("short")));
}

// train(r) raises a ValueError whose message contains `needle`, and `out` does not exist.
void expect_rejected_before_writing(TrainRequest r, const std::string& needle,
                                    const std::string& out) {
  try {
    train(std::move(r));
    ADD_FAILURE() << "no error for " << needle;
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(out)) << needle;
}

// Every bad input is a ValueError and leaves --out exactly as it was.
// ember train --compile (issue "Compiler, part 2"): the loss and the gradients come from one
// captured joint graph run as generated kernels; every step's loss equals eager's within 1e-4
// relative (float32), and so do the trained weights. bfloat16 is rejected before anything is
// written.
TEST(CliTrain, CompileMatchesEager) {
  TempDir dir;
  const std::string text = write_text(dir, "a.txt", austen_like(4000));
  train(tiny_gpt(text, dir.file("eager"), 12));
  TrainRequest r = tiny_gpt(text, dir.file("compiled"), 12);
  r.compile = true;
  compiler::reset();
  train(r);
  // Lowered (forward and backward graphs of the training step, and the evaluation forward), not
  // run eagerly.
  EXPECT_GE(compiler::stats().compiles, 1);
  EXPECT_EQ(compiler::stats().eager_fallbacks, 0);
  const auto eager = read_jsonl(dir.file("eager/metrics.jsonl"));
  const auto compiled = read_jsonl(dir.file("compiled/metrics.jsonl"));
  ASSERT_EQ(eager.size(), compiled.size());
  for (size_t s = 0; s + 1 < eager.size(); ++s) {
    const double a = eager[s]["loss"].get<double>(), b = compiled[s]["loss"].get<double>();
    EXPECT_NEAR(b, a, 1e-4 * std::abs(a)) << "step " << s + 1;
  }
  const StateDict a = read_checkpoint(dir.file("eager")).model;
  const StateDict b = read_checkpoint(dir.file("compiled")).model;
  for (const auto& item : a) {
    EXPECT_TRUE(item.value().allclose(b[item.key()], 1e-4, 1e-5)) << item.key();
  }
  TrainRequest low = tiny_gpt(text, dir.file("low"), 5);
  low.compile = true;
  low.config.dtype = "bfloat16";
  expect_rejected_before_writing(low, "--compile", dir.file("low"));
}

TEST(CliTrain, BadInputWritesNothing) {
  TempDir dir;
  const std::string text = write_text(dir, "a.txt", austen_like(3000));
  const std::string out = dir.file("run");
  auto expect_rejected = [&](TrainRequest r, const std::string& needle) {
    expect_rejected_before_writing(std::move(r), needle, out);
  };
  expect_rejected(tiny_gpt(dir.file("missing.txt"), out, 5), "not found");
  expect_rejected(tiny_gpt(write_text(dir, "empty.txt", ""), out, 5), "empty");
  expect_rejected(tiny_gpt(write_text(dir, "short.txt", austen_like(100)), out, 5), "too short");
  TrainRequest r = tiny_gpt(text, out, 5);
  r.config.heads = 3;
  expect_rejected(r, "--heads must divide --dim");
  r = tiny_gpt(text, out, 5);
  r.config.lr = -1;
  expect_rejected(r, "--lr");
  r = tiny_gpt(text, out, 5);
  r.config.dtype = "float16";
  expect_rejected(r, "--dtype");
  r = tiny_gpt(text, out, 5);
  r.resume = true;
  expect_rejected(r, "no checkpoint");

  // Image folders: missing files and a bad IDX header.
  fs::create_directories(dir.file("img"));
  r = tiny_gpt(dir.file("img"), out, 5);
  r.config.model = "mlp";
  expect_rejected(r, "not found");
  write_images(dir.file("img"), 8);
  std::ofstream(dir.file("img/t10k-labels-idx1-ubyte"), std::ios::trunc) << "not an idx file";
  expect_rejected(r, "bad IDX file");
}

// Data-parallel settings are checked with everything else, before any rank starts or anything is
// written: --nproc's range, a global batch the ranks cannot share evenly, a --distributed rank
// without (or with impossible) launcher variables. check_only (what `ember train --nproc N` runs
// before starting its ranks) checks and writes nothing.
TEST(CliTrain, DataParallelChecksWriteNothing) {
  TempDir dir;
  const std::string text = write_text(dir, "a.txt", austen_like(3000));
  const std::string out = dir.file("run");
  auto expect_rejected = [&](TrainRequest r, const std::string& needle) {
    expect_rejected_before_writing(std::move(r), needle, out);
  };
  TrainRequest r = tiny_gpt(text, out, 5);  // --batch-size 4
  r.nproc = 2;
  r.check_only = true;
  const TrainResult checked = train(r);
  EXPECT_EQ(checked.steps_done, 0);
  EXPECT_FALSE(fs::exists(out));
  r.nproc = 3;
  expect_rejected(r,
                  "--batch-size 4 is the global batch, split evenly over the 3 processes: it "
                  "must be divisible by --nproc 3");
  r.nproc = 0;
  expect_rejected(r, "--nproc must be in [1, 1024] (got 0)");

  // A --distributed rank reads RANK and WORLD_SIZE as the launcher sets them.
  const char* names[] = {"RANK", "WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"};
  std::vector<std::optional<std::string>> saved;
  for (const char* name : names) {
    const char* v = std::getenv(name);
    saved.push_back(v ? std::optional<std::string>(v) : std::nullopt);
    unsetenv(name);
  }
  r = tiny_gpt(text, out, 5);
  r.distributed = true;
  expect_rejected(r, "--distributed needs RANK in the environment");
  setenv("RANK", "2", 1);
  setenv("WORLD_SIZE", "2", 1);
  expect_rejected(r, "RANK 2 and WORLD_SIZE 2 must satisfy");
  setenv("RANK", "1", 1);
  setenv("WORLD_SIZE", "3", 1);
  expect_rejected(r, "must be divisible by WORLD_SIZE 3");
  setenv("WORLD_SIZE", "two", 1);
  expect_rejected(r, "WORLD_SIZE must be an integer (got 'two')");
  for (size_t i = 0; i < saved.size(); ++i) {
    if (saved[i]) {
      setenv(names[i], saved[i]->c_str(), 1);
    } else {
      unsetenv(names[i]);
    }
  }
}

// --dtype bfloat16 on an image model: the step runs in bfloat16, the master weights (and what
// the checkpoint stores) stay float32 and follow the float32 run closely.
TEST(CliTrain, ImageMixedPrecisionKeepsFloat32Masters) {
  TempDir dir;
  write_images(dir.file("img"), 64);
  auto run = [&](const std::string& dtype) {
    TrainRequest r = tiny_gpt(dir.file("img"), dir.file(dtype), 6);
    r.config.model = "mlp";
    r.config.batch_size = 16;
    r.config.dtype = dtype;
    train(r);
    return read_checkpoint(dir.file(dtype));
  };
  const Checkpoint full = run("float32"), mixed = run("bfloat16");
  const Tensor init = [&] {  // the same seed's initial weights
    manual_seed(1337);
    return make_image_model("mlp")->named_parameters()["1.weight"];
  }();
  for (const auto& item : mixed.model) {
    EXPECT_EQ(item.value().scalar_type(), kFloat32) << item.key();
    const Tensor& f = full.model[item.key()];
    EXPECT_LT((item.value() - f).abs().max().item<double>(), 0.02) << item.key();
  }
  EXPECT_GT((mixed.model["1.weight"] - init).abs().max().item<double>(), 1e-3);
  EXPECT_FALSE(mixed.model["1.weight"].equal(full.model["1.weight"]));
}

TEST(CliTrain, CheckpointsAreNeverClobbered) {
  TempDir dir;
  const std::string text = write_text(dir, "a.txt", austen_like(3000));
  const std::string out = dir.file("run");
  train(tiny_gpt(text, out, 4));
  const std::string ckpt = out + "/checkpoint.safetensors";
  auto bytes = [&] {
    std::ifstream in(ckpt, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string before = bytes();
  // A second fresh run into the same folder, and a resume with another architecture.
  EXPECT_THROW(train(tiny_gpt(text, out, 4)), ValueError);
  TrainRequest other = tiny_gpt(text, out, 8);
  other.resume = true;
  other.config.dim = 32;
  other.given = {"dim"};
  try {
    train(other);
    ADD_FAILURE() << "resumed a checkpoint of another configuration";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("another configuration"), std::string::npos);
  }
  // Resuming on text with another character set.
  TrainRequest text2 = tiny_gpt(write_text(dir, "b.txt", austen_like(3000) + "~~~"), out, 8);
  text2.resume = true;
  text2.given = {"data"};
  EXPECT_THROW(train(text2), ValueError);
  EXPECT_EQ(bytes(), before);
  // A corrupt checkpoint is an error naming it, for train --resume, generate and eval.
  std::ofstream(ckpt, std::ios::binary | std::ios::trunc) << "garbage";
  TrainRequest resume = tiny_gpt(text, out, 8);
  resume.resume = true;
  EXPECT_THROW(train(resume), ValueError);
  GenerateRequest g;
  g.checkpoint = out;
  EXPECT_THROW(generate_text(g, nullptr), ValueError);
  EXPECT_THROW(evaluate_checkpoint(out, ""), ValueError);
}

}  // namespace
}  // namespace ember::cli
