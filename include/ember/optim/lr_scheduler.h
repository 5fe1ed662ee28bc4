#pragma once
// Learning-rate schedulers with torch.optim.lr_scheduler's formulas, defaults and stepping
// rules: the constructor performs the initial step (epoch 0), each step() advances one epoch with
// the chainable form (which reads the group's current lr, so schedulers compose), and the
// deprecated step(epoch) uses the closed form where PyTorch has one.
//   ember::optim::SGD opt(params, ember::optim::SGDOptions(0.1));
//   ember::optim::StepLR sched(opt, /*step_size=*/30, /*gamma=*/0.1);
//   for (int epoch = 0; epoch < 100; ++epoch) { train(); opt.step(); sched.step(); }
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

/// Base of the epoch-driven schedulers (PyTorch's LRScheduler).
class LRScheduler {
 public:
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;
  virtual ~LRScheduler() = default;

  /// Advances one epoch and writes the new learning rates into the optimizer's groups.
  virtual void step();
  /// Deprecated in PyTorch: jumps to `epoch`, using the closed form where there is one.
  void step(int64_t epoch);
  /// The learning rates the last step set, one per parameter group.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  Optimizer& optimizer() const { return optimizer_; }

  /// last_epoch, step count, base and last learning rates (as float64 tensors); enough to resume
  /// any scheduler whose other settings come from its constructor.
  virtual StateDict state_dict() const;
  virtual void load_state_dict(const StateDict& state_dict);

 protected:
  /// With last_epoch == -1 records each group's lr as its initial_lr (unless a scheduler already
  /// did); otherwise every group must have an initial_lr (KeyError's role: ValueError).
  LRScheduler(Optimizer& optimizer, int64_t last_epoch, const char* name);
  /// PyTorch's _initial_step: derived constructors call it last.
  void initial_step();
  /// The chainable form.
  virtual std::vector<double> get_lr() = 0;
  /// The closed form, where the schedule has one.
  virtual std::optional<std::vector<double>> closed_form_lr() { return std::nullopt; }
  void update_lr(std::optional<int64_t> epoch);
  /// The groups' current learning rates.
  std::vector<double> group_lrs() const;

  Optimizer& optimizer_;
  const char* name_;
  int64_t last_epoch_;
  int64_t step_count_ = 0;
  bool is_initial_ = false;
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;

  friend class SequentialLR;
};

/// lr = base_lr * gamma^(epoch // step_size).
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;

 private:
  int64_t step_size_;
  double gamma_;
};

/// lr = base_lr * gamma^(number of milestones <= epoch); milestones may repeat.
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1,
              int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;

 private:
  std::vector<int64_t> milestones_;  // sorted
  double gamma_;
};

/// lr = base_lr * gamma^epoch.
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;

 private:
  double gamma_;
};

/// lr = eta_min + (base_lr - eta_min) (1 + cos(pi epoch / T_max)) / 2, computed recursively as
/// PyTorch does (so it continues past T_max the same way).
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0.0,
                    int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;

 private:
  int64_t T_max_;
  double eta_min_;
};

/// lr = base_lr * (start + (end - start) * min(epoch, total_iters) / total_iters).
class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
           int64_t total_iters = 5, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;

 private:
  double start_factor_, end_factor_;
  int64_t total_iters_;
};

/// lr = base_lr * lr_lambda(epoch), one function for all groups or one per group.
class LambdaLR : public LRScheduler {
 public:
  using Lambda = std::function<double(int64_t)>;
  LambdaLR(Optimizer& optimizer, Lambda lr_lambda, int64_t last_epoch = -1);
  LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;

 private:
  std::vector<Lambda> lr_lambdas_;
};

/// OneCycleLR's arguments (torch.optim.lr_scheduler.OneCycleLR): give total_steps, or epochs and
/// steps_per_epoch.
struct OneCycleLROptions {
  OneCycleLROptions(double max_lr) : max_lrs_{max_lr} {}  // NOLINT
  /// One max_lr per parameter group.
  OneCycleLROptions(std::vector<double> max_lrs) : max_lrs_(std::move(max_lrs)) {}  // NOLINT
  EMBER_ARG(std::vector<double>, max_lrs);
  EMBER_ARG(std::optional<int64_t>, total_steps);
  EMBER_ARG(std::optional<int64_t>, epochs);
  EMBER_ARG(std::optional<int64_t>, steps_per_epoch);
  EMBER_ARG(double, pct_start) = 0.3;
  EMBER_ARG(std::string, anneal_strategy) = "cos";
  EMBER_ARG(bool, cycle_momentum) = true;
  EMBER_ARG(double, base_momentum) = 0.85;
  EMBER_ARG(double, max_momentum) = 0.95;
  EMBER_ARG(double, div_factor) = 25.0;
  EMBER_ARG(double, final_div_factor) = 1e4;
  EMBER_ARG(bool, three_phase) = false;
  EMBER_ARG(int64_t, last_epoch) = -1;
};

/// The 1cycle policy: lr rises from max_lr / div_factor to max_lr over pct_start of the steps,
/// then falls to initial_lr / final_div_factor (three_phase: back to initial_lr first), cosine or
/// linear; momentum (or Adam's beta1) moves the opposite way between max and base momentum.
class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& options);
  int64_t total_steps() const { return total_steps_; }

 protected:
  std::vector<double> get_lr() override;

 private:
  struct Phase {
    double end_step;
    int start_lr, end_lr, start_momentum, end_momentum;  // indexes into GroupValues
  };
  // initial_lr, max_lr, min_lr, max_momentum, base_momentum of one group.
  using GroupValues = std::array<double, 5>;
  double anneal(double start, double end, double pct) const;

  int64_t total_steps_;
  bool cos_;
  bool cycle_momentum_;
  bool use_beta1_ = false;
  std::vector<Phase> phases_;
  std::vector<GroupValues> values_;
};

/// Runs `schedulers` one after the other, switching at the milestones (restarting each one at
/// epoch 0 with its closed form).
class SequentialLR : public LRScheduler {
 public:
  SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
               std::vector<int64_t> milestones, int64_t last_epoch = -1);
  void step() override;
  StateDict state_dict() const override;
  void load_state_dict(const StateDict& state_dict) override;

 protected:
  std::vector<double> get_lr() override { return group_lrs(); }

 private:
  // PyTorch's recursive_undo: takes back the initial step each sub-scheduler made.
  static void recursive_undo(LRScheduler& s);
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
  std::vector<int64_t> milestones_;
};

/// ReduceLROnPlateau's arguments.
struct ReduceLROnPlateauOptions {
  EMBER_ARG(std::string, mode) = "min";
  EMBER_ARG(double, factor) = 0.1;
  EMBER_ARG(int64_t, patience) = 10;
  EMBER_ARG(double, threshold) = 1e-4;
  EMBER_ARG(std::string, threshold_mode) = "rel";
  EMBER_ARG(int64_t, cooldown) = 0;
  EMBER_ARG(double, min_lr) = 0;
  /// One lower bound per parameter group (overrides min_lr when not empty).
  EMBER_ARG(std::vector<double>, min_lrs);
  EMBER_ARG(double, eps) = 1e-8;
};

/// Divides the learning rates by 1/factor when a metric stops improving for `patience` epochs.
class ReduceLROnPlateau {
 public:
  explicit ReduceLROnPlateau(Optimizer& optimizer, const ReduceLROnPlateauOptions& options = {});
  void step(double metrics);
  /// A 0-d (or one-element) tensor metric, as PyTorch's float(metrics).
  void step(const Tensor& metrics) { step(metrics.item<double>()); }
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  double best() const { return best_; }
  int64_t num_bad_epochs() const { return num_bad_epochs_; }
  bool in_cooldown() const { return cooldown_counter_ > 0; }
  StateDict state_dict() const;
  void load_state_dict(const StateDict& state_dict);

 private:
  bool is_better(double a, double best) const;
  void reduce_lr();

  Optimizer& optimizer_;
  ReduceLROnPlateauOptions options_;
  std::vector<double> min_lrs_;
  bool default_min_lr_;
  int64_t last_epoch_ = 0;
  double best_;
  int64_t num_bad_epochs_ = 0;
  int64_t cooldown_counter_ = 0;
  std::vector<double> last_lr_;
};

}  // namespace ember::optim
