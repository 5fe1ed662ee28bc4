#pragma once
// Note [Compile guards]: what a compiled entry assumed about its call (Dynamo's guards). A graph
// is specialised to its inputs' dtype, device, rank, static sizes, strides and storage offset,
// requires_grad and the grad mode; a dynamic dim only to its Dim's range (sizes down to the
// Dim's own min; Note [Symbolic shapes]), and dims sharing a Dim to equal sizes. A module's
// entry also assumes its (and its submodules') training flags and the tensors it lifted: the same
// parameters and buffers by identity, with the same metadata. check() names the first guard that
// fails, in words ("input 0: dtype changed from float32 to float64"), for recompile reasons.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/fx/graph_module.h"

namespace ember::nn {
class Module;
}

namespace ember::compiler {

struct Guards {
  struct Input {
    fx::ValueMeta meta;  // as traced: a dynamic dim's size is an expression over a symbol
    bool requires_grad = false;
  };
  struct Held {  // a tensor the graph holds (get_attr)
    std::string name;
    Tensor tensor;
    fx::ValueMeta meta;  // requires_grad included
  };
  std::vector<Input> inputs;
  bool grad_enabled = true;
  std::vector<std::pair<std::shared_ptr<const nn::Module>, bool>> training;  // kept alive
  std::vector<Held> held;
  /// A compiled module's parameters and buffers, by name, as they were lifted.
  const nn::Module* module = nullptr;
  std::vector<std::pair<std::string, Tensor>> module_tensors;

  /// Guards for a graph captured from `inputs` (placeholders give the traced metadata).
  static Guards for_graph(const fx::GraphModule& gm, const std::vector<Tensor>& inputs,
                          const nn::Module* module);
  /// Guards for an entry that runs the function eagerly: the inputs exactly as given.
  static Guards for_inputs(const std::vector<Tensor>& inputs);
  /// The first guard that fails for this call, in words; nullopt when every guard holds.
  std::optional<std::string> check(const std::vector<Tensor>& inputs) const;
};

/// Every parameter and buffer of `module`, by dotted name.
std::vector<std::pair<std::string, Tensor>> lifted_tensors(const nn::Module& module);

}  // namespace ember::compiler
