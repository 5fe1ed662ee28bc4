#pragma once
// Graph passes (Note [Graph IR]). Each rewrites a graph in place and leaves it verified.
#include <vector>

#include "ember/fx/graph.h"

namespace ember::fx {

/// Note [Functionalization]: rewrites in-place calls into their out-of-place forms where no
/// other value can observe the write: the written tensor shares memory with no view, no graph
/// input and no attribute (values in `also_aliased` count as shared too), and nothing reads its
/// previous value afterwards. Writes to graph inputs, attributes and views stay in place
/// (PyTorch's functionalization replays views and copies back into inputs; that needs view
/// primitives that can scatter into their base, which Ember does not have yet). Returns the
/// number of calls rewritten.
int functionalize(Graph& graph, const std::vector<ValueRef>& also_aliased = {});

}  // namespace ember::fx
