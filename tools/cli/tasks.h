#pragma once
// What `ember train` trains: a model, its data, its loss for a given step, and its evaluation.
// A task's batches depend only on (seed, step), so a resumed run continues exactly.
#include <ember/nn.h>

#include <memory>
#include <string>

#include "cli/config.h"

namespace ember::cli {

class Task {
 public:
  virtual ~Task() = default;
  virtual nn::Module& module() = 0;
  /// The training loss of 0-based step `step` (forward only; the caller runs backward).
  virtual Tensor loss(int64_t step) = 0;
  /// Data-parallel training (ember train --nproc, --distributed), called once after
  /// init_process_group and after any checkpoint is loaded: from then on loss(step) is the loss of
  /// this rank's rows [rank * B / world, (rank + 1) * B / world) of the global batch (B =
  /// --batch-size, which `world` divides), and its backward averages the gradients over the
  /// default process group (DistributedDataParallel). Every rank sees the same batch order.
  virtual void make_data_parallel(int64_t rank, int64_t world) = 0;
  /// ember train --compile: from then on loss(step) runs the model and the loss through
  /// ember::compile (one joint forward + backward graph, generated kernels).
  virtual void compile() = 0;
  /// Called after the loss's backward, before clipping and the optimizer step (mixed precision
  /// moves the low-precision copy's gradients to the float32 master weights here).
  virtual void after_backward() {}
  /// Validation loss (gpt: the fixed validation windows; images: the test set), in eval mode
  /// without gradients.
  virtual double evaluate() = 0;
  /// Tokens or images per step, and the unit's name ("tok", "img").
  virtual int64_t items_per_step() const = 0;
  virtual const char* unit() const = 0;
  /// The text vocabulary (uint8) of a gpt task; undefined otherwise.
  virtual Tensor vocab() const { return {}; }
  /// A report for `ember eval` (validation loss and perplexity, or accuracy and the confusion
  /// matrix), several lines.
  virtual std::string report() = 0;
};

/// Loads the data (ValueError for missing, unreadable, empty or malformed data; nothing is
/// written) and builds the model with the config's seed. For gpt, sets config.vocab_size.
std::unique_ptr<Task> make_task(TrainConfig& config);

}  // namespace ember::cli
