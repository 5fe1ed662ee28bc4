#include "cli/tasks.h"

#include <ember/autograd.h>
#include <ember/compile.h>
#include <ember/core/error.h>
#include <ember/data/readers.h>
#include <ember/ember.h>
#include <ember/nn/parallel/distributed.h>

#include <cmath>
#include <filesystem>
#include <optional>
#include <sstream>

#include "cli/evaluating.h"
#include "cli/gpt.h"
#include "cli/report.h"
#include "cli/text_data.h"
#include "cli/vision.h"

namespace ember::cli {
namespace {

// This process's contiguous share of every global batch: all of it for a single process.
struct Shard {
  int64_t rank = 0, world = 1;
  Tensor of(const Tensor& rows) const {
    if (world == 1) return rows;
    const int64_t n = rows.size(0) / world;
    return rows.narrow(0, rank * n, n);
  }
};

class GptTask : public Task {
 public:
  explicit GptTask(TrainConfig& c) : config_(c), corpus_(load_corpus(c.data, c.context)) {
    c.vocab_size = corpus_.vocab_size();
    manual_seed(c.seed);
    model_ = GPT(GPTConfig{c.vocab_size, c.context, c.layers, c.heads, c.dim});
    compute_ = c.dtype == "bfloat16" ? kBFloat16 : kFloat32;
  }
  nn::Module& module() override { return *model_; }
  void make_data_parallel(int64_t rank, int64_t world) override {
    shard_ = {rank, world};
    ddp_ = std::make_unique<nn::parallel::DistributedDataParallel<GPTImpl>>(model_);
  }
  void compile() override {
    compiled_ =
        ember::compile(model_, [this](const std::vector<Tensor>& xy) -> std::vector<Tensor> {
          return {cross_entropy_of(model_->forward(xy[0], compute_), xy[1])};
        });
  }
  Tensor loss(int64_t step) override {
    const Tensor offsets =
        train_offsets(corpus_, config_.seed, step, config_.batch_size, config_.context);
    auto [x, y] = windows(corpus_.train, shard_.of(offsets), config_.context);
    if (compiled_) return (*compiled_)({x, y})[0];
    return cross_entropy_of(ddp_ ? (*ddp_)(x, compute_) : model_->forward(x, compute_), y);
  }
  double evaluate() override {
    Evaluating guard(*model_);
    const Tensor offsets = val_offsets(corpus_, config_.eval_windows, config_.context);
    double total = 0;
    for (int64_t b = 0; b < offsets.numel(); b += config_.batch_size) {
      const int64_t e = std::min(offsets.numel(), b + config_.batch_size);
      auto [x, y] = windows(corpus_.val, offsets.slice(0, b, e), config_.context);
      total += cross_entropy_of(model_->forward(x, compute_), y).item<double>() *
               static_cast<double>(e - b);
    }
    return total / static_cast<double>(offsets.numel());
  }
  int64_t items_per_step() const override { return config_.batch_size * config_.context; }
  const char* unit() const override { return "tok"; }
  Tensor vocab() const override {
    Tensor v = empty({corpus_.vocab_size()}, kUInt8);
    std::copy(corpus_.vocab.begin(), corpus_.vocab.end(), v.data_ptr<uint8_t>());
    return v;
  }
  std::string report() override {
    const double loss = evaluate();
    std::ostringstream s;
    s << "validation loss " << loss << " (perplexity " << std::exp(loss) << ") over "
      << config_.eval_windows << " windows of " << config_.context << " characters of "
      << config_.data << "\n";
    return s.str();
  }

 private:
  static Tensor cross_entropy_of(const Tensor& logits, const Tensor& y) {
    return nn::functional::cross_entropy(logits.reshape({-1, logits.size(-1)}), y.reshape({-1}));
  }

  TrainConfig& config_;
  CharCorpus corpus_;
  GPT model_{nullptr};
  ScalarType compute_ = kFloat32;
  Shard shard_;
  std::unique_ptr<nn::parallel::DistributedDataParallel<GPTImpl>> ddp_;
  std::optional<CompiledFunction> compiled_;  // --compile
};

// One IDX file of the image folder; "<name>.gz" is accepted too.
Tensor read_idx_file(const std::string& dir, const std::string& name) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string path = (fs::path(dir) / name).string();
  if (!fs::exists(path, ec) && fs::exists(path + ".gz", ec)) path += ".gz";
  EMBER_CHECK_VALUE(fs::exists(path, ec), "[ember train] image data not found: ", path,
                    " (--data must be a folder of MNIST-style IDX files)");
  try {
    return data::read_idx(path);
  } catch (const Error& e) {
    EMBER_CHECK_VALUE(false, "[ember train] bad IDX file ", path, ": ", e.what());
  }
  return {};
}

std::string shape_of(const Tensor& t) {
  std::string s = "[";
  for (int64_t i = 0; i < t.dim(); ++i) s += (i ? ", " : "") + std::to_string(t.size(i));
  return s + "]";
}

struct ImageSet {
  Tensor images, labels;  // float32 [N, 1, 28, 28] normalised; int64 [N]
};

ImageSet load_image_set(const std::string& dir, const std::string& prefix) {
  const Tensor images = read_idx_file(dir, prefix + "-images-idx3-ubyte");
  const Tensor labels = read_idx_file(dir, prefix + "-labels-idx1-ubyte");
  const char* ctx = "[ember train]";
  EMBER_CHECK_VALUE(images.scalar_type() == kUInt8 && images.dim() == 3 && images.size(1) == 28 &&
                        images.size(2) == 28 && images.size(0) > 0,
                    ctx, " ", prefix, " images in ", dir,
                    " must be uint8 [N, 28, 28] with N > 0, got ", images.scalar_type(), " ",
                    shape_of(images));
  EMBER_CHECK_VALUE(
      labels.scalar_type() == kUInt8 && labels.dim() == 1 && labels.size(0) == images.size(0), ctx,
      " ", prefix, " labels in ", dir, " must be uint8 [", images.size(0), "], got ",
      labels.scalar_type(), " ", shape_of(labels));
  const Tensor l = labels.to(kInt64);
  EMBER_CHECK_VALUE(l.max().item<int64_t>() < 10, ctx, " ", prefix, " labels in ", dir,
                    " must be classes 0..9, found ", l.max().item<int64_t>());
  return {normalize_images(images), l};
}

class ImageTask : public Task {
 public:
  explicit ImageTask(TrainConfig& c)
      : config_(c), train_(load_image_set(c.data, "train")), test_(load_image_set(c.data, "t10k")) {
    EMBER_CHECK_VALUE(train_.images.size(0) >= c.batch_size, "[ember train] --batch-size ",
                      c.batch_size, " is larger than the training set (", train_.images.size(0),
                      " images)");
    manual_seed(c.seed);
    model_ = make_image_model(c.model);
    if (c.dtype == "bfloat16") {  // master weights stay float32 in model_
      low_ = make_image_model(c.model);
      low_->to(kBFloat16);
    }
  }
  nn::Module& module() override { return *model_; }
  void make_data_parallel(int64_t rank, int64_t world) override {
    shard_ = {rank, world};
    // With mixed precision, forward and backward run on the bfloat16 copy: its gradients are the
    // ones to average (after_backward then moves them to the float32 masters).
    ddp_ = std::make_unique<nn::parallel::DistributedDataParallel<nn::SequentialImpl>>(
        low_ ? low_ : model_);
  }
  Tensor loss(int64_t step) override {
    // Epoch e visits a permutation drawn from (seed, e); step s takes its next batch.
    const int64_t per_epoch = train_.images.size(0) / config_.batch_size;
    const int64_t epoch = step / per_epoch, pos = step % per_epoch;
    if (epoch != perm_epoch_) {
      Generator gen(splitmix64(config_.seed ^ static_cast<uint64_t>(epoch)));
      perm_ = randperm(train_.images.size(0), gen);
      perm_epoch_ = epoch;
    }
    const Tensor idx =
        shard_.of(perm_.slice(0, pos * config_.batch_size, (pos + 1) * config_.batch_size));
    const Tensor x = train_.images.index({idx}), y = train_.labels.index({idx});
    if (compiled_) return (*compiled_)({x, y})[0];
    if (!low_) return nn::functional::cross_entropy(forward(model_, x), y);
    // bfloat16 mixed precision with float32 master weights: the step runs on a bfloat16 copy of
    // the weights, its gradients are applied to the masters (after_backward).
    {
      NoGradGuard no_grad;
      copy_state(*model_, *low_);
    }
    low_->train(model_->is_training());
    return nn::functional::cross_entropy(forward(low_, x.to(kBFloat16)).to(kFloat32), y);
  }
  void compile() override {
    compiled_ =
        ember::compile(model_, [this](const std::vector<Tensor>& xy) -> std::vector<Tensor> {
          return {nn::functional::cross_entropy(model_->forward(xy[0]), xy[1])};
        });
  }
  void after_backward() override {
    if (!low_) return;
    NoGradGuard no_grad;
    auto low = low_->named_parameters();
    for (const auto& item : model_->named_parameters()) {
      Tensor& g = low[item.key()].mutable_grad();
      Tensor master = item.value();  // shares the parameter
      if (g.defined()) master.mutable_grad() = g.to(kFloat32);
      g = Tensor();
    }
    auto master_buffers = model_->named_buffers();
    for (const auto& item : low_->named_buffers())  // BatchNorm's running statistics
      master_buffers[item.key()].copy_(item.value());
  }
  double evaluate() override { return test_pass().first; }
  int64_t items_per_step() const override { return config_.batch_size; }
  const char* unit() const override { return "img"; }
  std::string report() override {
    auto [loss, confusion] = test_pass();
    std::ostringstream s;
    s << "test loss " << loss << " on " << test_.images.size(0) << " images of " << config_.data
      << "\n"
      << format_confusion(confusion, fashion_mnist_classes());
    return s.str();
  }

 private:
  // Mean test loss and the confusion matrix (rows: true class, columns: predicted).
  std::pair<double, Tensor> test_pass() {
    Evaluating guard(*model_);
    const int64_t n = test_.images.size(0);
    Tensor confusion = zeros({10, 10}, kInt64);
    double total = 0;
    for (int64_t b = 0; b < n; b += 500) {
      const int64_t e = std::min(n, b + 500);
      const Tensor logits = model_->forward(test_.images.slice(0, b, e));
      const Tensor target = test_.labels.slice(0, b, e);
      total +=
          nn::functional::cross_entropy(logits, target).item<double>() * static_cast<double>(e - b);
      confusion.view({-1}).index_add_(0, target * 10 + logits.argmax(1), ones({e - b}, kInt64));
    }
    return {total / static_cast<double>(n), confusion};
  }

  // The training forward of `m` (model_, or low_ with mixed precision): through DDP when data
  // parallel.
  Tensor forward(nn::Sequential& m, const Tensor& x) { return ddp_ ? (*ddp_)(x) : m->forward(x); }

  TrainConfig& config_;
  ImageSet train_, test_;
  // Copies parameters and buffers of `from` into the same-named tensors of `to` (any dtypes).
  static void copy_state(nn::Module& from, nn::Module& to) {
    auto params = to.named_parameters();
    for (const auto& item : from.named_parameters()) params[item.key()].copy_(item.value());
    auto buffers = to.named_buffers();
    for (const auto& item : from.named_buffers()) buffers[item.key()].copy_(item.value());
  }

  nn::Sequential model_{nullptr}, low_{nullptr};
  Shard shard_;
  std::unique_ptr<nn::parallel::DistributedDataParallel<nn::SequentialImpl>> ddp_;
  std::optional<CompiledFunction> compiled_;  // --compile
  Tensor perm_;
  int64_t perm_epoch_ = -1;
};

}  // namespace

std::unique_ptr<Task> make_task(TrainConfig& config) {
  if (config.model == "gpt") return std::make_unique<GptTask>(config);
  return std::make_unique<ImageTask>(config);
}

}  // namespace ember::cli
