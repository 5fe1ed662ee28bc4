#include "ember/autograd/node.h"

#include <algorithm>
#include <atomic>

#include "autograd/meta.h"

namespace ember::autograd {
namespace {
std::atomic<uint64_t> g_sequence_nr{0};
std::atomic<unsigned> g_hook_id{0};
}  // namespace

unsigned next_hook_id() { return ++g_hook_id; }

SymShape shape_of(const Tensor& t) {
  const TensorImpl* impl = t.unsafeGetTensorImpl();
  if (const SymGeometry* g = impl->sym_geometry()) [[unlikely]]
    return SymShape(g->sizes.begin(), g->sizes.end());
  return SymShape(impl->sizes().begin(), impl->sizes().end());
}

OutputMeta OutputMeta::of(const Tensor& t) { return {shape_of(t), t.dtype()}; }

Node::Node() : sequence_nr_(g_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

Node::~Node() {
  // No edge holds the last reference to its node (a shared accumulator, a node another output
  // still uses): releasing the edges destroys nothing, so the drain below is not needed.
  if (std::none_of(next_edges_.begin(), next_edges_.end(),
                   [](const Edge& e) { return e.function && e.function.use_count() == 1; })) {
    return;
  }
  thread_local bool deleting = false;
  thread_local std::vector<std::shared_ptr<Node>> pending;
  for (auto& e : next_edges_) {
    if (e.function) pending.push_back(std::move(e.function));
  }
  next_edges_.clear();
  if (deleting) return;  // an outer destructor drains the list
  deleting = true;
  while (!pending.empty()) {
    std::shared_ptr<Node> n = std::move(pending.back());
    pending.pop_back();
    n.reset();  // may destroy n, whose destructor appends its own edges
  }
  deleting = false;
}

unsigned Node::add_tensor_hook(uint32_t output_nr, TensorHook hook) {
  unsigned id = next_hook_id();
  hooks_.push_back({id, output_nr, std::move(hook)});
  return id;
}

void Node::remove_tensor_hook(unsigned id) {
  std::erase_if(hooks_, [id](const Hook& h) { return h.id == id; });
}

Tensor Node::run_tensor_hooks(uint32_t output_nr, Tensor grad) const {
  for (const auto& h : hooks_) {
    if (h.output_nr != output_nr || !grad.defined()) continue;
    Tensor replaced = h.fn(grad);
    if (replaced.defined()) grad = replaced;
  }
  return grad;
}

}  // namespace ember::autograd
