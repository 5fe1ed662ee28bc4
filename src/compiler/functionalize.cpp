// Note [Functionalization] (ember/fx/passes.h): in-place calls whose write nobody else can see
// become out-of-place calls.
#include <mutex>
#include <numeric>
#include <set>

#include "compiler/meta.h"
#include "ember/fx/passes.h"

namespace ember::fx {

namespace {

// Values that may share memory, as union-find classes over (node, output).
class AliasClasses {
 public:
  explicit AliasClasses(const Graph& g) : first_(g.nodes().size() + 1, 0) {
    const auto& nodes = g.nodes();
    for (size_t i = 0; i < nodes.size(); ++i) first_[i + 1] = first_[i] + nodes[i].outputs.size();
    parent_.resize(first_.back());
    std::iota(parent_.begin(), parent_.end(), size_t{0});
    shared_.assign(first_.back(), false);
    for (size_t i = 0; i < nodes.size(); ++i) {
      const Node& n = nodes[i];
      const bool external = n.kind == NodeKind::Placeholder || n.kind == NodeKind::GetAttr;
      if (external) shared_[id({static_cast<int>(i), 0})] = true;
      if (n.kind != NodeKind::Call) continue;
      for (size_t k = 0; k < n.outputs.size(); ++k) {
        const ValueRef out{static_cast<int>(i), static_cast<int>(k)};
        if (auto in = n.prim->aliased_input(k);
            in && *in < n.args.size() && !n.args[*in].is_none()) {
          // A view: both sides now share memory with something else.
          shared_[id(out)] = shared_[id(n.args[*in])] = true;
          unite(out, n.args[*in]);
        }
      }
      if (n.inplace_target) unite({static_cast<int>(i), 0}, *n.inplace_target);
    }
  }
  void mark_shared(ValueRef v) { shared_[id(v)] = true; }
  // Whether any value of v's class is a view, a view's base, an input or an attribute.
  bool shared(ValueRef v) {
    const size_t root = find(id(v));
    for (size_t i = 0; i < parent_.size(); ++i) {
      if (shared_[i] && find(i) == root) return true;
    }
    return false;
  }

 private:
  size_t id(ValueRef v) const { return first_[v.node] + v.output; }
  size_t find(size_t i) {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  void unite(ValueRef a, ValueRef b) { parent_[find(id(a))] = find(id(b)); }

  std::vector<size_t> first_, parent_;
  std::vector<bool> shared_;
};

// Names outlive the graph (primitives hold const char*).
const char* intern(const std::string& s) {
  static std::mutex mu;
  static auto* names = new std::set<std::string>();
  std::lock_guard<std::mutex> lock(mu);
  return names->insert(s).first->c_str();
}

bool read_after(const Graph& g, ValueRef v, size_t from) {
  const auto& nodes = g.nodes();
  for (size_t i = from + 1; i < nodes.size(); ++i) {
    for (ValueRef a : nodes[i].args) {
      if (a == v) return true;
    }
    if (nodes[i].inplace_target == v) return true;
  }
  return false;
}

}  // namespace

int functionalize(Graph& graph, const std::vector<ValueRef>& also_aliased) {
  AliasClasses aliases(graph);
  for (ValueRef v : also_aliased) aliases.mark_shared(v);
  int rewritten = 0;
  auto& nodes = graph.mutable_nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    Node& n = nodes[i];
    if (n.kind != NodeKind::Call || !n.prim->inplace()) continue;
    if (n.inplace_target &&
        (aliases.shared(*n.inplace_target) || read_after(graph, *n.inplace_target, i))) {
      continue;
    }
    auto prim = std::const_pointer_cast<Primitive>(n.prim->clone());  // our own copy
    prim->set_inplace(false);
    // The out-of-place form must give the tensor the in-place call wrote, or the graph would
    // change (an in-place target keeps its dtype and strides).
    bool alloc = true;
    if (prim->infers()) {
      std::vector<TensorMeta> in;
      for (ValueRef a : n.args) {
        in.push_back(a.is_none() ? TensorMeta{} : detail::to_tensor_meta(graph.meta(a)));
      }
      MetaList out;
      try {
        out = prim->infer(in);
      } catch (const Error&) {
        continue;  // the out-of-place form does not take these inputs
      }
      // Outputs that differ from the inference in their strides alone (a fill_ of an
      // empty_strided tensor) keep them: the node allocates its outputs as recorded.
      bool same = out.size() == n.outputs.size(), same_strides = same;
      for (size_t k = 0; same && k < out.size(); ++k) {
        TensorMeta got = detail::to_tensor_meta(n.outputs[k]);
        same_strides = same_strides && got.strides == out[k].strides;
        got.strides = out[k].strides;
        same = out[k] == got;
      }
      if (!same) continue;
      alloc = !same_strides;
    }
    const std::string name = prim->name();
    if (name.size() > 1 && name.back() == '_') {
      prim->set_display_name(intern(name.substr(0, name.size() - 1)));
    }
    n.prim = std::move(prim);
    n.inplace_target.reset();
    n.alloc_outputs = alloc;
    ++rewritten;
  }
  graph.verify();
  return rewritten;
}

}  // namespace ember::fx
