// Note [Partitioner]: splits a joint graph (Note [Joint graph]) into a forward and a backward
// graph, as functorch's partitioners do.
//  1. A node is backward when it depends on a tangent; every other node is forward.
//  2. The forward values that backward nodes (or the gradient outputs) read are the boundary:
//     SaveAll saves exactly them (default_partition).
//  3. Recompute (the default) then walks the saved values from the last: a value computed by a
//     cheap call (pointwise, a view, a fill, an attribute read) is recomputed in the backward
//     from that call's inputs when saving those inputs costs no more bytes than saving the value
//     itself (the inputs are saved anyway, or no larger), repeating until nothing changes. This
//     is the greedy core of min_cut_rematerialization_partition: a chain of pointwise ops whose
//     intermediates eager autograd keeps (GELU's, LayerNorm's) is saved as its one input.
// The forward graph returns its outputs then the saved values; the backward graph takes the
// saved values then the tangents and returns the gradients.
#include <algorithm>
#include <map>
#include <set>

#include "dispatch/dispatch.h"
#include "ember/fx/joint.h"

namespace ember::fx {

namespace {

// A call that makes a new tensor from attributes and scalars alone: a factory, or an in-place
// fill of the op builder's own allocation (Note [Graph IR]).
bool fresh(const Node& n, const std::vector<Node>& nodes) {
  if (n.kind != NodeKind::Call || n.inplace_target || n.prim->kind() == PrimitiveKind::Random) {
    return false;
  }
  for (ValueRef a : n.args) {
    if (!a.is_none() && nodes[a.node].kind != NodeKind::GetAttr) return false;
  }
  return true;
}

bool cheap(const Node& n) {
  if (n.kind == NodeKind::GetAttr) return true;
  if (n.kind != NodeKind::Call || n.outputs.size() != 1) return false;
  // An in-place call is cheap only when it writes a fresh tensor (no target: a scalar's fill).
  if (n.inplace() && n.inplace_target) return false;
  switch (n.prim->kind()) {
    case PrimitiveKind::Unary:
    case PrimitiveKind::Binary:
    case PrimitiveKind::Where:
    case PrimitiveKind::Clamp:
    case PrimitiveKind::Lerp:
    case PrimitiveKind::Addc:
    case PrimitiveKind::MaskedFill:
    case PrimitiveKind::Copy:
    case PrimitiveKind::Fill:
    case PrimitiveKind::Range:
      return true;
    default:
      return n.prim->is_view();
  }
}

// The bytes a value's geometry spans (an expanded value spans its input's memory only).
int64_t bytes_of(const ValueMeta& m) {
  int64_t extent = 1;
  for (size_t d = 0; d < m.sizes.size(); ++d) {
    const int64_t size = m.sizes[d].hint();
    if (size == 0) return 0;
    extent += (size - 1) * std::max<int64_t>(m.strides[d].hint(), 0);
  }
  return extent * element_size(m.dtype);
}

struct RefLess {
  bool operator()(ValueRef a, ValueRef b) const {
    return a.node != b.node ? a.node < b.node : a.output < b.output;
  }
};
using ValueSet = std::set<ValueRef, RefLess>;

std::vector<ValueRef> inputs_of(const Node& n) {
  std::vector<ValueRef> in;
  if (n.kind != NodeKind::Call) return in;
  for (ValueRef a : n.args) {
    if (!a.is_none()) in.push_back(a);
  }
  if (n.inplace_target && !n.inplace_target->is_none()) in.push_back(*n.inplace_target);
  return in;
}

// Nodes that `roots` need (roots included).
std::vector<bool> needed_by(const Graph& g, const std::vector<int>& roots) {
  std::vector<bool> need(g.nodes().size());
  for (int r : roots) need[r] = true;
  for (size_t i = g.nodes().size(); i-- > 0;) {
    if (!need[i]) continue;
    for (ValueRef a : inputs_of(g.nodes()[i])) need[a.node] = true;
  }
  return need;
}

// Copies the nodes in `keep` (in order) into `out`; `ref` gives an argument's value in `out`
// (from `env`, the copied nodes, or a placeholder standing for it).
template <class Ref>
void copy_nodes(const Graph& g, const std::vector<bool>& keep, std::map<int, int>& env,
                const Ref& ref, Graph& out) {
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.nodes()[i];
    if (!keep[i] || env.count(static_cast<int>(i))) continue;
    if (n.kind == NodeKind::GetAttr) {
      env[static_cast<int>(i)] = out.get_attr(n.name, n.target, n.outputs[0]).node;
    } else if (n.kind == NodeKind::Call) {
      std::vector<ValueRef> args;
      for (ValueRef a : n.args) args.push_back(ref(a));
      std::optional<ValueRef> target;
      if (n.inplace_target) target = ref(*n.inplace_target);
      env[static_cast<int>(i)] =
          out.call(n.name, n.prim, std::move(args), target, n.alloc_outputs, n.outputs);
    }
  }
}

std::string saved_name(const Graph& g, ValueRef v) {
  const std::string& base = g.nodes()[v.node].name;
  return v.output == 0 ? base : base + "_" + std::to_string(v.output);
}

}  // namespace

PartitionedGraphs partition(const JointGraph& joint, PartitionPolicy policy) {
  const Graph& g = joint.module.graph();
  const std::vector<Node>& nodes = g.nodes();
  const std::vector<ValueRef>& results = nodes.back().args;
  EMBER_CHECK_VALUE(results.size() >= joint.num_outputs, "[partition] the joint graph returns ",
                    results.size(), " values, fewer than its ", joint.num_outputs, " outputs");
  // 1. Backward nodes: those that depend on a tangent.
  // A write through a view changes its base and the base's other views, which SSA does not
  // show: when a backward node writes in place, its target's whole alias class (a buffer the
  // backward accumulates into, as split's gradient) is backward too.
  // The value whose memory a value is (itself, or the base of a view or in-place write).
  std::vector<ValueRef> alias_root(nodes.size());
  auto root_of = [&](ValueRef v) { return v.output == 0 ? alias_root[v.node] : v; };
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    alias_root[i] = {static_cast<int>(i), 0};
    if (n.kind != NodeKind::Call) continue;
    if (n.inplace_target && !n.inplace_target->is_none()) {
      alias_root[i] = root_of(*n.inplace_target);
    } else if (auto a = n.prim->aliased_input(0);
               a && *a < n.args.size() && !n.args[*a].is_none()) {
      alias_root[i] = root_of(n.args[*a]);
    }
  }
  std::vector<bool> backward(nodes.size());
  std::vector<int> placeholders;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].kind != NodeKind::Placeholder) continue;
    backward[i] = placeholders.size() >= joint.num_primals;
    placeholders.push_back(static_cast<int>(i));
  }
  for (bool changed = true; changed;) {
    changed = false;
    ValueSet written;  // alias roots the backward writes
    for (size_t i = 0; i < nodes.size(); ++i) {
      bool b = backward[i] || written.count(alias_root[i]);
      for (ValueRef a : inputs_of(nodes[i])) b = b || backward[a.node];
      if (b && nodes[i].kind == NodeKind::Call && nodes[i].inplace_target) {
        written.insert(alias_root[i]);
      }
      changed = changed || b != backward[i];
      backward[i] = b;
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (backward[i] || !written.count(alias_root[i])) continue;
      EMBER_CHECK_NOT_IMPL(fresh(nodes[i], nodes) || nodes[i].prim->is_view(),
                           "[partition] the backward writes in place into forward value '",
                           nodes[i].name, "'");
      backward[i] = changed = true;
    }
  }
  EMBER_CHECK_VALUE(placeholders.size() == joint.num_primals + joint.num_tangents,
                    "[partition] the joint graph has ", placeholders.size(),
                    " placeholders, expected ", joint.num_primals, " primals and ",
                    joint.num_tangents, " tangents");
  // 2. The boundary: forward values the backward reads.
  std::vector<int> grad_roots;
  for (size_t k = joint.num_outputs; k < results.size(); ++k) grad_roots.push_back(results[k].node);
  // Writes through views are read through the base: keep every backward write.
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (backward[i] && nodes[i].kind == NodeKind::Call && nodes[i].inplace_target) {
      grad_roots.push_back(static_cast<int>(i));
    }
  }
  const std::vector<bool> for_grads = needed_by(g, grad_roots);
  ValueSet saved;
  std::set<int> recompute;
  // What saving a value keeps alive: its base's memory, nothing for a view of a primal (the
  // caller holds the inputs and parameters anyway, as eager autograd's saved inputs are).
  auto cost_of = [&](ValueRef v) {
    const ValueRef r = root_of(v);
    return nodes[r.node].kind == NodeKind::Placeholder ? 0 : bytes_of(g.meta(r));
  };
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!for_grads[i] || !backward[i]) continue;
    // A buffer the backward fills in place (embedding's gradient, made by zeros()) is made
    // in the backward too; the forward cannot hand over a value the backward overwrites.
    if (auto t = nodes[i].inplace_target; t && !t->is_none() && !backward[t->node]) {
      EMBER_CHECK_NOT_IMPL(fresh(nodes[t->node], nodes), "[partition] backward node '",
                           nodes[i].name, "' writes forward value '", g.value_name(*t),
                           "' in place");
      recompute.insert(t->node);
      for (ValueRef a : inputs_of(nodes[t->node])) saved.insert(a);  // attributes
    }
    for (ValueRef a : inputs_of(nodes[i])) {
      if (!backward[a.node] && !recompute.count(a.node)) saved.insert(a);
    }
  }
  for (size_t k = joint.num_outputs; k < results.size(); ++k) {
    if (!backward[results[k].node]) saved.insert(results[k]);
  }
  // 3. Recompute cheap values from their inputs where that saves no more bytes. A value whose
  // memory an in-place call writes later (an identity matrix made by filling a diagonal view of
  // zeros) is not what its own node computes: it is saved.
  ValueSet mutated;
  for (const Node& n : nodes) {
    if (n.kind == NodeKind::Call && n.inplace_target) mutated.insert(root_of(*n.inplace_target));
  }
  auto factory = [&](ValueRef a) {
    return fresh(nodes[a.node], nodes) && !mutated.count(root_of(a));
  };
  for (bool changed = policy == PartitionPolicy::Recompute; changed;) {
    changed = false;
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
      const ValueRef v = *it;
      if (!cheap(nodes[v.node]) || mutated.count(root_of(v))) continue;
      // Inputs saved or recomputed already, and factories, cost nothing more.
      auto free = [&](ValueRef a) {
        if (saved.count(a) || recompute.count(a.node) || factory(a)) return true;
        return std::any_of(saved.begin(), saved.end(),
                           [&](ValueRef s) { return root_of(s) == root_of(a); });
      };
      int64_t cost = -cost_of(v);
      for (ValueRef a : inputs_of(nodes[v.node])) {
        if (!free(a)) cost += cost_of(a);
      }
      if (cost > 0) continue;
      saved.erase(v);
      recompute.insert(v.node);
      for (ValueRef a : inputs_of(nodes[v.node])) {
        if (recompute.count(a.node)) continue;
        if (factory(a)) {
          recompute.insert(a.node);
          for (ValueRef attr : inputs_of(nodes[a.node])) saved.insert(attr);
        } else {
          saved.insert(a);
        }
      }
      changed = true;
      break;  // the set changed under the iterator
    }
  }
  for (auto it = saved.begin(); it != saved.end();) {
    it = recompute.count(it->node) ? saved.erase(it) : std::next(it);
  }
  // Attribute reads are recomputed (the backward graph holds the attributes too), not saved.
  for (auto it = saved.begin(); it != saved.end();) {
    if (nodes[it->node].kind == NodeKind::GetAttr) {
      recompute.insert(it->node);
      it = saved.erase(it);
    } else {
      ++it;
    }
  }

  PartitionedGraphs out;
  out.num_outputs = joint.num_outputs;
  out.num_saved = saved.size();
  out.num_tangents = joint.num_tangents;
  out.num_primals = joint.num_primals;
  out.tangent_of = joint.tangent_of;
  out.grad_of = joint.grad_of;
  {
    ValueSet roots;  // views of one base count once
    for (ValueRef v : saved) {
      if (roots.insert(root_of(v)).second) out.saved_bytes += cost_of(v);
    }
  }
  for (int n : recompute) out.recomputed += nodes[n].kind == NodeKind::Call;

  // The forward graph: what the outputs, the saved values and in-place writes to inputs need.
  {
    std::vector<int> roots;
    for (size_t k = 0; k < joint.num_outputs; ++k) roots.push_back(results[k].node);
    for (ValueRef v : saved) roots.push_back(v.node);
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (!backward[i] && nodes[i].kind == NodeKind::Call && nodes[i].inplace()) {
        roots.push_back(static_cast<int>(i));
      }
    }
    std::vector<bool> keep = needed_by(g, roots);
    Graph fwd;
    std::map<int, int> env;
    for (size_t k = 0; k < joint.num_primals; ++k) {
      const Node& p = nodes[placeholders[k]];
      env[placeholders[k]] = fwd.placeholder(p.name, p.outputs[0]).node;
    }
    copy_nodes(
        g, keep, env,
        [&](ValueRef v) {
          return v.is_none() ? v : ValueRef{env.at(v.node), v.output};
        },
        fwd);
    std::vector<ValueRef> res;
    for (size_t k = 0; k < joint.num_outputs; ++k) {
      res.push_back({env.at(results[k].node), results[k].output});
    }
    for (ValueRef v : saved) res.push_back({env.at(v.node), v.output});
    fwd.output(std::move(res));
    out.forward = GraphModule(std::move(fwd), joint.module.attrs());
  }
  // The backward graph: saved values and tangents in, gradients out.
  {
    Graph bwd;
    std::map<ValueRef, ValueRef, RefLess> env_values;
    std::map<int, int> env;
    // Saved values become placeholders; a multi-output node's other values are not needed.
    std::vector<bool> keep(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
      keep[i] = (for_grads[i] && backward[i]) || recompute.count(static_cast<int>(i));
    }
    for (ValueRef v : saved) {
      ValueMeta m = g.meta(v);
      m.requires_grad = false;
      env_values[v] = bwd.placeholder(saved_name(g, v), m);
    }
    for (size_t t = 0; t < joint.num_tangents; ++t) {
      const int p = placeholders[joint.num_primals + t];
      env[p] = bwd.placeholder(nodes[p].name, nodes[p].outputs[0]).node;
    }
    // Saved values are read from their placeholders; no kept node computes one.
    auto ref = [&](ValueRef v) -> ValueRef {
      if (v.is_none()) return v;
      if (saved.count(v)) return env_values.at(v);
      return {env.at(v.node), v.output};
    };
    copy_nodes(g, keep, env, ref, bwd);
    std::vector<ValueRef> res;
    for (size_t k = joint.num_outputs; k < results.size(); ++k) {
      res.push_back(ref(results[k]));
    }
    bwd.output(std::move(res));
    out.backward = GraphModule(std::move(bwd), joint.module.attrs());
  }
  return out;
}

}  // namespace ember::fx
