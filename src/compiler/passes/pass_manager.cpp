// The pass manager and the default pipeline (Note [Graph passes] in ember/fx/passes.h).
#include <set>

#include "compiler/logs.h"
#include "ember/fx/passes.h"

namespace ember::fx {

PassManager& PassManager::add(Pass pass) {
  EMBER_CHECK_VALUE(static_cast<bool>(pass.run), "[PassManager] pass '", pass.name,
                    "' has no function");
  passes_.push_back(std::move(pass));
  return *this;
}

GraphModule PassManager::run(const GraphModule& gm, std::vector<PassRecord>* records) const {
  Graph graph = gm.graph();
  Attrs attrs = gm.attrs();
  const bool log = compiler::log_enabled("graph");
  for (const Pass& pass : passes_) {
    PassRecord r{pass.name, 0, graph.nodes().size(), 0};
    r.changed = pass.run(graph, attrs);
    r.nodes_after = graph.nodes().size();
    if (log) {
      compiler::log("graph", "After pass " + pass.name + " (" + std::to_string(r.changed) +
                                 " changed, " + std::to_string(r.nodes_before) + " -> " +
                                 std::to_string(r.nodes_after) + " nodes):\n" + graph.to_string());
    }
    if (records) records->push_back(std::move(r));
  }
  std::set<std::string> read;
  for (const Node& n : graph.nodes()) {
    if (n.kind == NodeKind::GetAttr) read.insert(n.target);
  }
  for (auto it = attrs.begin(); it != attrs.end();) {
    it = read.count(it->first) ? std::next(it) : attrs.erase(it);
  }
  return GraphModule(std::move(graph), std::move(attrs));
}

PassManager default_passes() {
  PassManager pm;
  pm.add({"decompose", [](Graph& g, Attrs& a) { return decompose(g, a); }})
      .add({"canonicalize_views", [](Graph& g, Attrs&) { return canonicalize_views(g); }})
      .add({"fold_constants", [](Graph& g, Attrs& a) { return fold_constants(g, a); }})
      .add({"eliminate_common_subexpressions",
            [](Graph& g, Attrs&) { return eliminate_common_subexpressions(g); }})
      .add({"eliminate_dead_code", [](Graph& g, Attrs&) { return eliminate_dead_code(g); }});
  return pm;
}

GraphModule run_passes(const GraphModule& gm, std::vector<PassRecord>* records) {
  return default_passes().run(gm, records);
}

}  // namespace ember::fx
