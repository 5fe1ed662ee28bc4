#pragma once
// Reverse-mode automatic differentiation (PyTorch's torch.autograd): grad modes, the engine's
// entry points, gradcheck and custom functions. Tensor methods (requires_grad_, backward, grad,
// register_hook, ...) are declared in ember/core/tensor.h.
#include <functional>
#include <optional>
#include <vector>

#include "ember/autograd/node.h"
#include "ember/core/tensor.h"

namespace ember {

/// Whether ops record gradients on this thread (default true).
bool is_grad_enabled();
void set_grad_enabled(bool enabled);
/// Whether an InferenceMode guard is active on this thread.
bool is_inference_mode_enabled();

/// Sets the grad mode for its scope (libtorch's AutoGradMode).
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(is_grad_enabled()) { set_grad_enabled(enabled); }
  ~AutoGradMode() { set_grad_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

/// Disables gradient recording for its scope.
class NoGradGuard : public AutoGradMode {
 public:
  NoGradGuard() : AutoGradMode(false) {}
};

/// Disables recording; tensors created inside are inference tensors, which cannot later be
/// saved for backward.
class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true);
  ~InferenceMode();
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  static bool is_enabled() { return is_inference_mode_enabled(); }

 private:
  bool prev_grad_, prev_inference_;
};

namespace autograd {

/// Computes the gradients of `outputs` and accumulates them into the leaves' .grad (or, with
/// `inputs`, only into those). `grad_tensors` may be empty for scalar outputs.
void backward(const std::vector<Tensor>& tensors, const std::vector<Tensor>& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
              const std::vector<Tensor>& inputs = {});

/// Returns d(outputs)/d(inputs) weighted by grad_outputs, without touching .grad.
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {},
                         std::optional<bool> retain_graph = std::nullopt,
                         bool create_graph = false, bool allow_unused = false);

}  // namespace autograd
}  // namespace ember
