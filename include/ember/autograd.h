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
                         std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                         bool allow_unused = false);

/// Raised by gradcheck on a mismatch (PyTorch's torch.autograd.gradcheck.GradcheckError).
class GradcheckError : public RuntimeError {
 public:
  using RuntimeError::RuntimeError;
};

/// Checks the gradients of `fn` at `inputs` (those with requires_grad) against central finite
/// differences: |analytical - numerical| <= atol + rtol * |numerical| for every Jacobian entry.
/// Inputs should be float64. Returns false (or, with raise_exception, throws GradcheckError
/// naming the output, input and entry) on a mismatch.
using DifferentiableFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
bool gradcheck(const DifferentiableFn& fn, const std::vector<Tensor>& inputs, double eps = 1e-6,
               double atol = 1e-5, double rtol = 1e-3, bool raise_exception = true);
/// gradcheck of the first derivative: checks the vjp of `fn` (with random grad_outputs) by
/// finite differences, which tests double backward.
bool gradgradcheck(const DifferentiableFn& fn, const std::vector<Tensor>& inputs, double eps = 1e-6,
                   double atol = 1e-5, double rtol = 1e-3, bool raise_exception = true);

}  // namespace autograd
}  // namespace ember
