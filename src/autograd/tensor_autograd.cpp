// Tensor's autograd methods (declared in ember/core/tensor.h).
#include "autograd/functions.h"
#include "autograd/meta.h"
#include "dispatch/dispatch.h"
#include "ember/autograd.h"
#include "primitives/view.h"

namespace ember {
namespace autograd {

AutogradMeta& meta(const Tensor& t) {
  EMBER_CHECK(t.defined(), "[autograd] the tensor is undefined (default-constructed)");
  auto& m = t.unsafeGetTensorImpl()->autograd_meta;
  if (!m) {
    // A tensor whose only handle is `t` (an op's fresh output) is reached by no other thread:
    // no lock. (The one weak reference to a TensorImpl, a node's retained gradient, is to a
    // tensor that has its meta already.)
    if (t.impl().use_count() == 1) {
      m = std::make_shared<AutogradMeta>();
      return *m;
    }
    // Two threads materialising one shared tensor's meta must make one of them (the other's
    // writes would be lost with the object). Reading a tensor's autograd state while another
    // thread changes it (requires_grad_, hooks) is the caller's to order, as in PyTorch.
    static std::mutex creation;
    std::lock_guard<std::mutex> lock(creation);
    if (!m) m = std::make_shared<AutogradMeta>();
  }
  return *m;
}

}  // namespace autograd

namespace {
const Tensor& undefined_tensor() {
  static const Tensor t;
  return t;
}
const std::shared_ptr<autograd::Node>& null_node() {
  static const std::shared_ptr<autograd::Node> n;
  return n;
}
}  // namespace

bool Tensor::requires_grad() const {
  auto* m = autograd::meta_or_null(*this);
  return m && (m->requires_grad || autograd::grad_fn_of(*this));
}

const Tensor& Tensor::requires_grad_(bool requires_grad) const {
  EMBER_CHECK(defined(), "[requires_grad_] the tensor is undefined");
  EMBER_CHECK(is_leaf(),
              "[requires_grad_] you can only change requires_grad flags of leaf "
              "variables. If you want to use a computed variable in a subgraph that doesn't "
              "require differentiation use var_no_grad = var.detach().");
  EMBER_CHECK(!requires_grad || is_floating_point(),
              "[requires_grad_] only Tensors of floating point and complex dtype can require "
              "gradients (got ",
              scalar_type_name(dtype()), ")");
  EMBER_CHECK(!requires_grad || !is_inference(),
              "[requires_grad_] setting requires_grad=True on inference tensor outside "
              "InferenceMode is not allowed.");
  if (requires_grad || autograd::meta_or_null(mutable_self()))
    autograd::meta(mutable_self()).requires_grad = requires_grad;
  return *this;
}

const Tensor& Tensor::grad() const {
  auto* m = autograd::meta_or_null(*this);
  return m ? m->grad : undefined_tensor();
}

Tensor& Tensor::mutable_grad() { return autograd::meta(*this).grad; }

const std::shared_ptr<autograd::Node>& Tensor::grad_fn() const {
  return autograd::meta_or_null(*this) ? autograd::grad_fn_of(*this) : null_node();
}

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

uint32_t Tensor::output_nr() const {
  auto* m = autograd::meta_or_null(*this);
  return m ? m->output_nr : 0;
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph,
                      const std::vector<Tensor>& inputs) const {
  std::vector<Tensor> grads;
  if (gradient.defined()) grads.push_back(gradient);
  autograd::backward({*this}, grads, retain_graph, create_graph, inputs);
}

Tensor Tensor::detach() const {
  NoGradGuard no_grad;
  return dispatch(Alias({}, "detach"), {*this})[0];
}

const Tensor& Tensor::detach_() const {
  auto* m = autograd::meta_or_null(mutable_self());
  EMBER_CHECK(!m || !m->view_base.defined(),
              "[detach_] Can't detach views in-place. Use detach() "
              "instead.");
  if (m) {
    m->grad_fn.reset();
    m->requires_grad = false;
    m->output_nr = 0;
  }
  return *this;
}

void Tensor::retain_grad() const {
  EMBER_CHECK(requires_grad(),
              "[retain_grad] can't retain_grad on Tensor that has "
              "requires_grad=False");
  if (is_leaf()) return;  // leaves always keep .grad
  auto& m = autograd::meta(*this);
  if (m.retains_grad) return;
  m.retains_grad = true;
  grad_fn()->retained.emplace_back(output_nr(), impl());
}

bool Tensor::retains_grad() const {
  auto* m = autograd::meta_or_null(*this);
  return m && m->retains_grad;
}

unsigned Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  EMBER_CHECK(requires_grad(),
              "[register_hook] cannot register a hook on a tensor that doesn't "
              "require gradient");
  if (const auto& fn = grad_fn()) return fn->add_tensor_hook(output_nr(), std::move(hook));
  unsigned id = autograd::next_hook_id();
  autograd::meta(*this).leaf_hooks.emplace_back(id, std::move(hook));
  return id;
}

void Tensor::remove_hook(unsigned id) const {
  auto* m = autograd::meta_or_null(*this);
  if (!m) return;
  std::erase_if(m->leaf_hooks, [id](const auto& h) { return h.first == id; });
  std::erase_if(m->post_accumulate_hooks, [id](const auto& h) { return h.first == id; });
  if (const auto& fn = grad_fn()) fn->remove_tensor_hook(id);
}

unsigned Tensor::register_post_accumulate_grad_hook(std::function<void(const Tensor&)> hook) const {
  EMBER_CHECK(requires_grad() && is_leaf(),
              "[register_post_accumulate_grad_hook] post accumulate "
              "grad hooks cannot be registered on non-leaf tensors or tensors that do not "
              "require grad");
  unsigned id = autograd::next_hook_id();
  autograd::meta(*this).post_accumulate_hooks.emplace_back(id, std::move(hook));
  return id;
}

bool Tensor::is_inference() const { return defined() && impl()->is_inference(); }

}  // namespace ember
