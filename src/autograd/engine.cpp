// The backward engine: runs nodes in reverse creation order with an explicit queue (no recursion,
// so deep graphs cannot overflow the stack), summing the gradients that meet at a node.
#include <algorithm>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd/functions.h"
#include "ember/autograd.h"
#include "ember/ops/factory.h"
#include "ember/profiler.h"
#include "ops/util.h"

namespace ember::autograd {
namespace {

struct NodeTask {
  std::vector<Tensor> buffer;  // gradient per forward output of the node
  int dependencies = 0;
};

struct Later {
  bool operator()(Node* a, Node* b) const { return a->sequence_nr() < b->sequence_nr(); }
};

void add_grad(Tensor& slot, const Tensor& g) { slot = slot.defined() ? slot + g : g; }

}  // namespace

std::vector<Tensor> run_backward(const std::vector<Edge>& roots,
                                 const std::vector<Tensor>& root_grads, bool keep_graph,
                                 bool create_graph, const std::vector<Edge>& capture,
                                 bool accumulate_into_captured) {
  std::unordered_map<Node*, NodeTask> tasks;
  std::unordered_map<Node*, std::shared_ptr<Node>> owners;  // keeps nodes alive while running
  // Dependencies: how many edges of the reachable graph point at each node.
  std::vector<Node*> stack;
  for (const auto& r : roots) {
    if (!r.is_valid() || owners.count(r.function.get())) continue;
    owners[r.function.get()] = r.function;
    stack.push_back(r.function.get());
  }
  std::vector<Node*> order;  // discovery order, for the "needed" pass
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    order.push_back(n);
    tasks[n];
    for (const auto& e : n->next_edges()) {
      if (!e.is_valid()) continue;
      Node* next = e.function.get();
      tasks[next].dependencies++;
      if (!owners.count(next)) {
        owners[next] = e.function;
        stack.push_back(next);
      }
    }
  }
  // With captured edges, only nodes on a path to one of them run.
  std::unordered_set<Node*> needed;
  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>> captured_at;
  for (size_t i = 0; i < capture.size(); ++i) {
    if (capture[i].is_valid()) {
      captured_at[capture[i].function.get()].emplace_back(capture[i].input_nr, i);
    }
  }
  if (!capture.empty()) {
    // Nodes were discovered parents-first; iterate to a fixed point (cheap: graphs are DAGs).
    bool changed = true;
    while (changed) {
      changed = false;
      for (auto it = order.rbegin(); it != order.rend(); ++it) {
        Node* n = *it;
        if (needed.count(n)) continue;
        bool need = accumulate_into_captured && captured_at.count(n);
        for (const auto& e : n->next_edges()) {
          need |=
              e.is_valid() && (needed.count(e.function.get()) ||
                               (!accumulate_into_captured && captured_at.count(e.function.get())));
        }
        if (need) needed.insert(n), changed = true;
      }
    }
  }

  std::priority_queue<Node*, std::vector<Node*>, Later> ready;
  for (size_t i = 0; i < roots.size(); ++i) {
    if (!roots[i].is_valid()) continue;
    auto& task = tasks[roots[i].function.get()];
    task.buffer.resize(roots[i].function->num_outputs());
    add_grad(task.buffer[roots[i].input_nr], root_grads[i]);
  }
  for (const auto& [n, _] : owners) {
    if (tasks[n].dependencies == 0) ready.push(n);
  }
  std::vector<Tensor> captured(capture.size());
  AutoGradMode mode(create_graph);
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    std::vector<Tensor> grads = std::move(tasks[n].buffer);
    grads.resize(n->num_outputs());
    for (uint32_t i = 0; i < grads.size(); ++i) grads[i] = n->run_tensor_hooks(i, grads[i]);
    for (const auto& [nr, weak] : n->retained) {
      auto impl = weak.lock();
      if (!impl || nr >= grads.size() || !grads[nr].defined()) continue;
      Tensor t(impl);
      auto& m = meta(t);
      std::lock_guard<std::mutex> lock(m.mutex);  // other threads' backward may retain it too
      auto& g = m.grad;
      g = g.defined() ? g + grads[nr] : (create_graph ? grads[nr] : grads[nr].detach().clone());
    }
    if (auto it = captured_at.find(n); it != captured_at.end()) {
      for (const auto& [nr, idx] : it->second) {
        if (nr < grads.size() && grads[nr].defined()) add_grad(captured[idx], grads[nr]);
      }
    }
    const bool run = capture.empty() || needed.count(n);
    bool any = false;
    for (const auto& g : grads) any |= g.defined();
    std::vector<Tensor> outs;
    if (run && any) {
      auto profile = profiler::record_function::backward_node(n->name());
      outs = n->apply(std::move(grads));
      if (!keep_graph) n->release_variables();
    }
    const auto& edges = n->next_edges();
    for (size_t i = 0; i < edges.size(); ++i) {
      if (!edges[i].is_valid()) continue;
      Node* next = edges[i].function.get();
      auto& task = tasks[next];
      if (i < outs.size() && outs[i].defined()) {
        task.buffer.resize(next->num_outputs());
        add_grad(task.buffer[edges[i].input_nr], outs[i]);
      }
      if (--task.dependencies == 0) ready.push(next);
    }
  }
  return captured;
}

namespace {

std::vector<Edge> root_edges(const std::vector<Tensor>& tensors, const char* op) {
  std::vector<Edge> roots;
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].defined(), "[", op, "] output ", i, " is undefined");
    EMBER_CHECK(tensors[i].requires_grad(), "[", op, "] element ", i,
                " of tensors does not require grad and does not have a grad_fn");
    roots.push_back(gradient_edge(tensors[i]));
  }
  return roots;
}

std::vector<Tensor> make_root_grads(const std::vector<Tensor>& outputs,
                                    const std::vector<Tensor>& grads, const char* op) {
  EMBER_CHECK(grads.empty() || grads.size() == outputs.size(), "[", op, "] got ", grads.size(),
              " gradients for ", outputs.size(), " outputs");
  std::vector<Tensor> out;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& o = outputs[i];
    if (i < grads.size() && grads[i].defined()) {
      // Symbolic while a joint graph traces (Note [Symbolic autograd]): equal expressions need
      // no guard.
      const SymShape gs = shape_of(grads[i]), os = shape_of(o);
      const bool same =
          std::equal(gs.begin(), gs.end(), os.begin(), os.end(),
                     [](const SymInt& a, const SymInt& b) { return a.same_as(b) || a == b; });
      EMBER_CHECK(same, "[", op, "] Mismatch in shape: grad_output[", i, "] has a shape of ",
                  ops::shape_str(gs), " and output[", i, "] has a shape of ", ops::shape_str(os),
                  ".");
      out.push_back(grads[i].dtype() == o.dtype() ? grads[i] : grads[i].to(o.dtype()));
    } else {
      EMBER_CHECK(o.numel() == 1, "[", op,
                  "] grad can be implicitly created only for scalar "
                  "outputs");
      out.push_back(ones_like(o));
    }
  }
  return out;
}

}  // namespace

void backward(const std::vector<Tensor>& tensors, const std::vector<Tensor>& grad_tensors,
              std::optional<bool> retain_graph, bool create_graph,
              const std::vector<Tensor>& inputs) {
  auto roots = root_edges(tensors, "backward");
  auto grads = make_root_grads(tensors, grad_tensors, "backward");
  std::vector<Edge> capture;
  for (const auto& t : inputs) {
    EMBER_CHECK(t.defined() && t.requires_grad(),
                "[backward] One of the differentiated Tensors "
                "does not require grad");
    capture.push_back(gradient_edge(t));
  }
  auto captured = run_backward(roots, grads, retain_graph.value_or(create_graph), create_graph,
                               capture, /*accumulate_into_captured=*/true);
  // Non-leaf inputs accumulate what flowed into them.
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].is_leaf() || !captured[i].defined()) continue;
    auto& m = meta(inputs[i]);
    std::lock_guard<std::mutex> lock(m.mutex);  // as AccumulateGrad: shared by other threads
    m.grad = m.grad.defined() ? m.grad + captured[i] : captured[i].detach();
  }
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, std::optional<bool> retain_graph,
                         bool create_graph, bool allow_unused) {
  auto roots = root_edges(outputs, "grad");
  auto grads = make_root_grads(outputs, grad_outputs, "grad");
  std::vector<Edge> capture;
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(inputs[i].defined() && inputs[i].requires_grad(),
                "[grad] One of the "
                "differentiated Tensors does not require grad");
    capture.push_back(gradient_edge(inputs[i]));
  }
  auto captured = run_backward(roots, grads, retain_graph.value_or(create_graph), create_graph,
                               capture, /*accumulate_into_captured=*/false);
  for (size_t i = 0; i < captured.size(); ++i) {
    EMBER_CHECK(captured[i].defined() || allow_unused,
                "[grad] One of the differentiated Tensors "
                "appears to not have been used in the graph. Set allow_unused=True if this is "
                "the desired behavior.");
    if (captured[i].defined() && !create_graph) captured[i] = captured[i].detach();
  }
  return captured;
}

}  // namespace ember::autograd
