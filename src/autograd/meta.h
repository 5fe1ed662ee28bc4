#pragma once
// Autograd's per-tensor state (Note [Autograd graph] in ember/autograd/node.h).
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "ember/autograd/node.h"

namespace ember {

namespace autograd {
/// Where a view's elements lie inside its base, taking the base as a contiguous tensor of its
/// own shape: grad_base.as_strided(sizes, strides, offset) is the view's part of a gradient.
struct ViewGeometry {
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
};
}  // namespace autograd

struct AutogradMeta {
  /// Set on leaves by requires_grad_(); non-leaves require grad through grad_fn.
  bool requires_grad = false;
  Tensor grad;
  std::shared_ptr<autograd::Node> grad_fn;
  /// A leaf's AccumulateGrad node, shared by every op that uses the leaf while it lives.
  std::weak_ptr<autograd::Node> grad_accumulator;
  /// Guards grad_accumulator and the accumulation into grad: threads running backward through
  /// one shared leaf (as PyTorch's AutogradMeta mutex does).
  std::mutex mutex;
  uint32_t output_nr = 0;
  bool retains_grad = false;
  /// Hooks on a leaf's gradient, run before accumulation.
  std::vector<std::pair<unsigned, autograd::TensorHook>> leaf_hooks;
  std::vector<std::pair<unsigned, std::function<void(const Tensor&)>>> post_accumulate_hooks;
  /// For a differentiable view: the tensor it views (its base), so an in-place op on the view
  /// rewrites the base's history (Note [In-place on views] in src/autograd/record.cpp).
  Tensor view_base;
  /// The view's place in view_base (absent: a layout Ember cannot invert; in-place ops on such
  /// a view raise when gradients are needed).
  std::optional<autograd::ViewGeometry> view_geometry;
  /// The version at which grad_fn was last set; a view whose base changed since gets a new one.
  uint32_t attr_version = 0;
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
