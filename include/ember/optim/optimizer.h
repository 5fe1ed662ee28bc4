#pragma once
// The optimizer base (libtorch's torch::optim::Optimizer): parameter groups with their own
// options, per-parameter state, step(closure), zero_grad, and state dicts.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/arg.h"
#include "ember/serialize.h"

namespace ember::optim {

/// Sees an options object's hyper-parameters by name. state_dict() stores them as
/// param_groups.<g>.<name>; LR schedulers use it to find "momentum" or "betas".
class OptionsVisitor {
 public:
  virtual ~OptionsVisitor() = default;
  virtual void field(const char* name, double& value) = 0;
  virtual void field(const char* name, bool& value) = 0;
  virtual void field(const char* name, std::tuple<double, double>& value) = 0;
};

/// Hyper-parameters of one parameter group.
class OptimizerOptions {
 public:
  OptimizerOptions() = default;
  OptimizerOptions(const OptimizerOptions&) = default;
  OptimizerOptions& operator=(const OptimizerOptions&) = default;
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;
  virtual double get_lr() const = 0;
  virtual void set_lr(double lr) = 0;
  /// Calls v.field(name, member) for every hyper-parameter, "lr" first.
  virtual void visit(OptionsVisitor& v) = 0;
  /// ValueError with PyTorch's message for out-of-range values ("Invalid learning rate: -1").
  virtual void validate() const {}
};

template <typename Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

/// Sees a parameter state's fields by name (state.<param>.<name> in state_dict()).
class StateVisitor {
 public:
  virtual ~StateVisitor() = default;
  virtual void field(const char* name, Tensor& value) = 0;
  virtual void field(const char* name, int64_t& value) = 0;
};

/// An optimizer's state for one parameter (momentum buffers, moment estimates, step counts).
class OptimizerParamState {
 public:
  OptimizerParamState() = default;
  OptimizerParamState(const OptimizerParamState&) = default;
  OptimizerParamState& operator=(const OptimizerParamState&) = default;
  virtual ~OptimizerParamState() = default;
  virtual std::unique_ptr<OptimizerParamState> clone() const = 0;
  virtual void visit(StateVisitor& v) = 0;
};

template <typename Derived>
class OptimizerCloneableParamState : public OptimizerParamState {
 public:
  std::unique_ptr<OptimizerParamState> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

/// Parameters that share options (PyTorch's param_groups entries). Without options, the
/// optimizer's defaults apply when the group is added.
class OptimizerParamGroup {
 public:
  OptimizerParamGroup(const OptimizerParamGroup& other);
  OptimizerParamGroup(OptimizerParamGroup&&) noexcept = default;
  OptimizerParamGroup& operator=(const OptimizerParamGroup& other);
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) noexcept = default;
  OptimizerParamGroup(std::vector<Tensor> params);  // NOLINT: {{p1, p2}, {p3}}
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options);

  bool has_options() const { return options_ != nullptr; }
  /// RuntimeError when the group has no options.
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options);
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }
  /// PyTorch's group["initial_lr"]: the lr when the first LR scheduler was attached.
  std::optional<double>& initial_lr() { return initial_lr_; }
  const std::optional<double>& initial_lr() const { return initial_lr_; }

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
  std::optional<double> initial_lr_;
};

/// Base of every optimizer. Subclasses implement step() and name the state type they keep.
///
/// state_dict() layout (flat, so it saves as one safetensors file). Parameters are numbered
/// 0, 1, ... across the groups in order, as in PyTorch:
///   param_groups.<g>.params        1-d int64: the numbers of the group's parameters
///   param_groups.<g>.<option>      0-d float64 per hyper-parameter (bools as 0/1);
///                                  "betas" is 1-d float64 of 2
///   param_groups.<g>.initial_lr    0-d float64, once an LR scheduler has set it
///   state.<i>.<field>              parameter i's state: tensors (copies, e.g. exp_avg) and
///                                  counters as 0-d float64 (e.g. step)
/// load_state_dict() accepts exactly this layout (state tensors are converted to their
/// parameter's dtype) and raises ValueError naming the key for anything missing, unexpected or
/// of the wrong shape; on error the optimizer is unchanged.
class Optimizer {
 public:
  using LossClosure = std::function<Tensor()>;

  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  virtual ~Optimizer() = default;

  /// One optimization step; the closure (if any) runs with gradients enabled and its result is
  /// returned (an undefined tensor without a closure).
  virtual Tensor step(LossClosure closure = nullptr) = 0;
  /// PyTorch's optimizer name ("SGD", "Adam", ...), used in messages.
  const char* name() const { return name_; }

  /// Adds a group (options cloned, or the defaults). ValueError if a parameter is already in a
  /// group, is not a leaf, or the options are invalid.
  void add_param_group(const OptimizerParamGroup& param_group);
  /// Appends parameters to the first group (libtorch).
  void add_parameters(const std::vector<Tensor>& parameters);
  /// Resets every parameter's gradient: to an undefined tensor (set_to_none) or to zeros.
  void zero_grad(bool set_to_none = true);

  /// Every parameter, group after group.
  std::vector<Tensor> parameters() const;
  /// Number of parameters in all groups.
  size_t size() const;
  OptimizerOptions& defaults() { return *defaults_; }
  const OptimizerOptions& defaults() const { return *defaults_; }
  std::vector<OptimizerParamGroup>& param_groups() { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const { return param_groups_; }
  /// Per-parameter state, keyed by p.unsafeGetTensorImpl() (libtorch's layout).
  std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& state() { return state_; }
  const std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& state() const {
    return state_;
  }

  /// See the class comment for the layout. Tensors are copies: later steps do not change them.
  StateDict state_dict() const;
  void load_state_dict(const StateDict& state_dict);
  /// The gradient of `p` if it has one, checked against the parameter (shape and dtype);
  /// undefined when p has no gradient (the step skips it). Public for compiled steps.
  Tensor grad_of(const Tensor& p) const;

 protected:
  /// Validates the defaults, then adds each group. `name` must be a string literal.
  Optimizer(std::vector<OptimizerParamGroup> param_groups,
            std::unique_ptr<OptimizerOptions> defaults, const char* name);
  /// An empty state of the subclass's type (for load_state_dict).
  virtual std::unique_ptr<OptimizerParamState> make_state() const = 0;
  /// Runs the closure with gradients enabled.
  static Tensor run_closure(const LossClosure& closure);

  std::vector<OptimizerParamGroup> param_groups_;
  std::unordered_map<void*, std::unique_ptr<OptimizerParamState>> state_;
  std::unique_ptr<OptimizerOptions> defaults_;

 private:
  const char* name_;
};

namespace detail {
/// Shortest decimal that reads back as `v` ("-1", "0.001", "1e-10"): PyTorch's messages print
/// the Python value.
std::string fmt(double v);
}  // namespace detail

}  // namespace ember::optim
