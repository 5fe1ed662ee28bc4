// Dead-code elimination (Note [Graph passes]): one backward walk marks what the output, calls
// with effects and in-place targets need; the rest is dropped.
#include "compiler/passes/rewrite.h"
#include "ember/fx/passes.h"

namespace ember::fx {

int eliminate_dead_code(Graph& graph) {
  const auto& nodes = graph.nodes();
  std::vector<bool> live(nodes.size(), false);
  for (size_t j = nodes.size(); j-- > 0;) {
    const Node& n = nodes[j];
    const bool root =
        n.kind == NodeKind::Output || n.kind == NodeKind::Placeholder || detail::has_effects(n);
    if (!root && !live[j]) continue;
    live[j] = true;
    for (ValueRef a : n.args) {
      if (!a.is_none()) live[a.node] = true;
    }
    if (n.inplace_target) live[n.inplace_target->node] = true;
  }
  int removed = 0;
  for (bool l : live) removed += !l;
  if (removed == 0) return 0;
  detail::GraphRebuilder b(graph);
  for (size_t j = 0; j < nodes.size(); ++j) {
    if (live[j]) b.copy(j);
  }
  graph = b.finish();
  return removed;
}

}  // namespace ember::fx
