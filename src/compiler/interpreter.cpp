// The graph interpreter: runs each node through dispatch, exactly as the traced program did
// (the same primitives, the same in-place writes, the same output allocation), so autograd and
// every dispatch mode see what they saw in eager mode. It is the reference the compiler's
// generated code is held against.
#include "compiler/meta.h"
#include "dispatch/dispatch.h"
#include "ember/fx/graph_module.h"

namespace ember::fx {

namespace {

void check_input(const Node& p, size_t i, const Tensor& t) {
  ValueMeta got = ValueMeta::of(t), want = p.outputs[0];
  got.requires_grad = want.requires_grad = false;
  // Views are recorded with their geometry, so the graph holds for the traced layout only.
  EMBER_CHECK_VALUE(got == want, "[GraphModule] input ", i, " ('", p.name, "') expected ",
                    want.str(), " as traced (the graph is specialised to its inputs' dtype, ",
                    "device, sizes, strides and storage offset), got ", got.str());
}

}  // namespace

GraphModule::GraphModule(Graph graph, std::map<std::string, Tensor> attrs)
    : graph_(std::move(graph)), attrs_(std::move(attrs)) {
  graph_.verify();
  for (const Node& n : graph_.nodes()) {
    EMBER_CHECK_VALUE(n.kind != NodeKind::GetAttr || attrs_.count(n.target), "[GraphModule] node '",
                      n.name, "' reads attribute '", n.target, "', which the module does not hold");
  }
}

std::vector<Tensor> GraphModule::operator()(const std::vector<Tensor>& inputs) const {
  const std::vector<Node>& nodes = graph_.nodes();
  EMBER_CHECK_VALUE(inputs.size() == graph_.num_placeholders(), "[GraphModule] expected ",
                    graph_.num_placeholders(), " inputs, got ", inputs.size());
  std::vector<std::vector<Tensor>> env(nodes.size());
  auto value = [&](ValueRef v) { return v.is_none() ? Tensor() : env[v.node][v.output]; };
  size_t next_input = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    switch (n.kind) {
      case NodeKind::Placeholder:
        check_input(n, next_input, inputs[next_input]);
        env[i] = {inputs[next_input++]};
        break;
      case NodeKind::GetAttr:
        env[i] = {attrs_.at(n.target)};
        break;
      case NodeKind::Call: {
        std::vector<Tensor> args;
        args.reserve(n.args.size());
        for (ValueRef a : n.args) args.push_back(value(a));
        const char* op = n.prim->name();
        std::vector<Tensor> outs;
        if (n.prim->inplace()) {
          // The target, or the fresh tensor the op builder made; other outputs are fresh too.
          outs.push_back(n.inplace_target ? value(*n.inplace_target)
                                          : detail::allocate(n.outputs[0], op));
          for (size_t k = 1; k < n.outputs.size(); ++k) {
            outs.push_back(detail::allocate(n.outputs[k], op));
          }
        } else if (n.alloc_outputs) {
          for (const ValueMeta& m : n.outputs) outs.push_back(detail::allocate(m, op));
        }
        env[i] = dispatch(*n.prim, args, std::move(outs));
        EMBER_CHECK(env[i].size() == n.outputs.size(), "[GraphModule] node '", n.name, "' (", op,
                    ") produced ", env[i].size(), " outputs, the graph records ", n.outputs.size());
        break;
      }
      case NodeKind::Output: {
        std::vector<Tensor> results;
        for (ValueRef a : n.args) results.push_back(value(a));
        return results;
      }
    }
  }
  EMBER_THROW(ValueError, "[GraphModule] the graph has no output node");
}

}  // namespace ember::fx
