#pragma once
// A Graph with the tensors its get_attr nodes name; calling it runs the graph through dispatch
// (the graph interpreter: the reference that generated code is held against).
#include <map>
#include <string>
#include <vector>

#include "ember/fx/graph.h"

namespace ember::fx {

class GraphModule {
 public:
  GraphModule() = default;
  /// Verifies the graph; every get_attr target must be in `attrs`.
  GraphModule(Graph graph, std::map<std::string, Tensor> attrs);

  const Graph& graph() const { return graph_; }
  const std::map<std::string, Tensor>& attrs() const { return attrs_; }

  /// Runs the graph on `inputs` (one per placeholder, with the traced dtype, device, sizes and
  /// strides: the graph is specialised to them) through dispatch, so autograd, modes and
  /// profilers see every op as in eager mode.
  std::vector<Tensor> operator()(const std::vector<Tensor>& inputs) const;

 private:
  Graph graph_;
  std::map<std::string, Tensor> attrs_;
};

}  // namespace ember::fx
