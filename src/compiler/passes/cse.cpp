// Common subexpression elimination (Note [Graph passes]): a call equal to an earlier one (the
// same primitive and parameters, the same argument values, the same recorded outputs) reuses
// the earlier one's values. Calls with effects are never merged, nor calls that read or produce
// memory an in-place call writes (the same argument value may hold other contents then).
#include <unordered_map>

#include "compiler/passes/rewrite.h"
#include "dispatch/primitive.h"
#include "ember/fx/passes.h"

namespace ember::fx {

namespace {

size_t key_of(const Node& n, const detail::GraphRebuilder& b) {
  size_t h = n.prim->hash();
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (ValueRef a : n.args) {
    const ValueRef m = b.map(a);
    mix(static_cast<size_t>(m.node + 1) * 131 + static_cast<size_t>(m.output));
  }
  mix(n.alloc_outputs);
  return h;
}

bool same_call(const Node& a, const Node& b, const detail::GraphRebuilder& rb) {
  if (a.args.size() != b.args.size() || a.alloc_outputs != b.alloc_outputs ||
      a.outputs.size() != b.outputs.size() || !a.prim->equals(*b.prim)) {
    return false;
  }
  for (size_t k = 0; k < a.args.size(); ++k) {
    if (!(rb.map(a.args[k]) == rb.map(b.args[k]))) return false;
  }
  for (size_t k = 0; k < a.outputs.size(); ++k) {
    if (!detail::same_layout(a.outputs[k], b.outputs[k])) return false;
  }
  return true;
}

}  // namespace

int eliminate_common_subexpressions(Graph& graph) {
  const auto& nodes = graph.nodes();
  const detail::WrittenValues written(graph);
  detail::GraphRebuilder b(graph);
  std::unordered_map<size_t, std::vector<size_t>> seen;  // key -> old node indices kept
  int merged = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    bool candidate = n.kind == NodeKind::Call && !detail::has_effects(n) && !written.any(i);
    for (size_t k = 0; candidate && k < n.args.size(); ++k) candidate = !written(n.args[k]);
    if (!candidate) {
      b.copy(i);
      continue;
    }
    auto& bucket = seen[key_of(n, b)];
    bool found = false;
    for (size_t j : bucket) {
      if (!same_call(nodes[j], n, b)) continue;
      std::vector<ValueRef> values;
      for (size_t k = 0; k < n.outputs.size(); ++k) {
        values.push_back(b.map({static_cast<int>(j), static_cast<int>(k)}));
      }
      b.replace(i, std::move(values));
      found = true;
      ++merged;
      break;
    }
    if (found) continue;
    b.copy(i);
    bucket.push_back(i);
  }
  if (merged == 0) return 0;
  graph = b.finish();
  return merged;
}

}  // namespace ember::fx
