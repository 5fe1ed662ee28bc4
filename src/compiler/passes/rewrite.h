#pragma once
// What the graph passes share (Note [Graph passes] in ember/fx/passes.h): rebuilding a graph with
// nodes dropped, replaced or inserted, and the facts every pass must respect (which values some
// call writes in place, which calls have effects).
#include <vector>

#include "dispatch/primitive.h"
#include "ember/fx/graph.h"

namespace ember::fx::detail {

/// Builds a new graph from an old one, node by node: a pass copies the nodes it keeps (their
/// references follow the old values' new places), maps the values of a node it drops to other
/// values, and appends nodes of its own. Names stay as they were where they are still free.
class GraphRebuilder {
 public:
  explicit GraphRebuilder(const Graph& old);
  /// Copies old node `i` (arguments remapped); returns its index in the new graph.
  int copy(size_t i);
  /// Old node `i`'s values are `values` (new references) from now on; the node is not copied.
  void replace(size_t i, std::vector<ValueRef> values);
  /// Where an old value lies in the new graph.
  ValueRef map(ValueRef old) const;
  Graph& graph() { return new_; }
  /// The new graph, verified.
  Graph finish();

 private:
  const Graph& old_;
  Graph new_;
  std::vector<std::vector<ValueRef>> remap_;
};

/// Values that may share memory with a value some call writes in place (the target's views,
/// their bases and the in-place results), by node and output.
class WrittenValues {
 public:
  explicit WrittenValues(const Graph& g);
  bool operator()(ValueRef v) const { return !v.is_none() && written_[v.node][v.output]; }
  /// Whether any output of node `i` is written.
  bool any(size_t i) const;

 private:
  std::vector<std::vector<bool>> written_;
};

/// A call whose result depends on more than its arguments or that changes something besides
/// its fresh outputs: in-place calls, random ops (they read the generator's state), attention
/// (its dropout does). Passes never remove, merge or fold these.
bool has_effects(const Node& n);

/// Equal sizes, strides, dtype, device and storage offset (not requires_grad).
bool same_layout(const ValueMeta& a, const ValueMeta& b);

/// The metadata `prim` infers on `args` (nullopt when it does not infer or refuses them).
std::optional<MetaList> infer_on(const Primitive& prim, const Graph& g,
                                 const std::vector<ValueRef>& args);

}  // namespace ember::fx::detail
