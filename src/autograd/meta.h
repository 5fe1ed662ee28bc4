#pragma once
// Autograd's per-tensor state (Note [Autograd graph] in ember/autograd/node.h).
#include <functional>
#include <memory>
#include <vector>

#include "ember/autograd/node.h"

namespace ember {

struct AutogradMeta {
  /// Set on leaves by requires_grad_(); non-leaves require grad through grad_fn.
  bool requires_grad = false;
  Tensor grad;
  std::shared_ptr<autograd::Node> grad_fn;
  /// A leaf's AccumulateGrad node, shared by every op that uses the leaf while it lives.
  std::weak_ptr<autograd::Node> grad_accumulator;
  uint32_t output_nr = 0;
  bool retains_grad = false;
  /// Hooks on a leaf's gradient, run before accumulation.
  std::vector<std::pair<unsigned, autograd::TensorHook>> leaf_hooks;
  std::vector<std::pair<unsigned, std::function<void(const Tensor&)>>> post_accumulate_hooks;
  /// For a differentiable view: the tensor it views (its base), so an in-place op on the view
  /// rewrites the base's history (Note [In-place on views] in src/autograd/record.cpp).
  Tensor view_base;
};

namespace autograd {
/// The meta of `t`, created on first use.
AutogradMeta& meta(const Tensor& t);
/// The meta of `t`, or null.
inline AutogradMeta* meta_or_null(const Tensor& t) {
  return t.defined() ? t.unsafeGetTensorImpl()->autograd_meta.get() : nullptr;
}
/// The edge a gradient for `t` flows into: its grad_fn, its leaf accumulator, or none.
Edge gradient_edge(const Tensor& t);
/// A fresh id for hooks.
unsigned next_hook_id();
}  // namespace autograd
}  // namespace ember
