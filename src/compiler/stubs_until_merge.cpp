// TEMPORARY (deleted when branches `codegen` and `cache` merge): stand-ins for compiler::lower and
// the code cache's stats, so that ember::compile builds and runs on its own branch. lower() gives
// a CompiledGraph that runs the GraphModule with the graph interpreter.
#include "compiler/codecache.h"
#include "compiler/lowering.h"

namespace ember::compiler {

namespace {

class InterpretedGraph final : public CompiledGraph {
 public:
  explicit InterpretedGraph(const fx::GraphModule& gm) : gm_(gm) {}
  std::vector<Tensor> operator()(const std::vector<Tensor>& inputs) const override {
    return gm_(inputs);
  }
  std::vector<std::string> kernel_names() const override { return {}; }
  std::string source() const override { return ""; }
  std::string source_path() const override { return ""; }

 private:
  fx::GraphModule gm_;
};

}  // namespace

std::shared_ptr<const CompiledGraph> lower(const fx::GraphModule& gm) {
  return std::make_shared<InterpretedGraph>(gm);
}

std::vector<std::shared_ptr<const CompiledGraph>> lower(
    const std::vector<const fx::GraphModule*>& gms) {
  std::vector<std::shared_ptr<const CompiledGraph>> out;
  for (const fx::GraphModule* gm : gms) out.push_back(lower(*gm));
  return out;
}

}  // namespace ember::compiler
