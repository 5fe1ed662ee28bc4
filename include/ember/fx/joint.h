#pragma once
// Note [Joint graph]: the role of PyTorch's AOTAutograd. make_joint traces a function of tensors
// that require grad and, still under the tracer, runs the autograd backward of its outputs with
// one tangent placeholder per differentiable output, so the vjps are recorded too. The joint
// graph's placeholders are the primals then the tangents; its outputs are the forward outputs
// then the gradients of the primals that have one (JointGraph::grad_of maps them back).
// partition() splits it into a forward graph (primals -> outputs + saved values) and a backward
// graph (saved values + tangents -> gradients); aot_function runs the pair as one autograd node.
// A DynamicSpec traces it with symbolic sizes (autograd records on them, Note [Symbolic autograd]).
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ember/fx/graph_module.h"

namespace ember {

struct TraceOptions;
namespace nn {
class Module;
}

namespace fx {

struct JointGraph {
  /// Placeholders: primals, then tangents; outputs: forward outputs, then gradients.
  GraphModule module;
  size_t num_primals = 0, num_outputs = 0, num_tangents = 0;
  /// Per forward output: the index of its tangent, or -1 when it has no gradient (it does not
  /// require grad, or is not floating point).
  std::vector<int> tangent_of;
  /// Per primal: the index of its gradient among the gradient outputs, or -1 when it has none
  /// (it does not require grad, or the outputs do not depend on it).
  std::vector<int> grad_of;
  /// Runs the joint graph: the forward outputs, then one gradient per primal (undefined where
  /// it has none). `tangents` has num_tangents entries.
  std::vector<Tensor> operator()(const std::vector<Tensor>& primals,
                                 const std::vector<Tensor>& tangents) const;
};

/// Which values the forward graph saves for the backward (functorch's partitioners).
enum class PartitionPolicy : uint8_t {
  /// min_cut_rematerialization_partition, simplified: a saved value that a cheap pointwise or
  /// view call computes is recomputed in the backward from that call's inputs whenever saving
  /// those inputs instead costs no more bytes (they are saved anyway, or no larger).
  Recompute,
  /// default_partition: save every forward value the backward reads.
  SaveAll,
};

struct PartitionedGraphs {
  /// primals -> forward outputs, then the saved values.
  GraphModule forward;
  /// saved values, then tangents -> the gradients (JointGraph's order, see grad_of).
  GraphModule backward;
  size_t num_outputs = 0, num_saved = 0, num_tangents = 0, num_primals = 0;
  std::vector<int> tangent_of, grad_of;  // as in JointGraph
  /// Bytes of the saved values (numel * element size each) and the calls the backward recomputes.
  int64_t saved_bytes = 0;
  size_t recomputed = 0;
};

/// Splits a joint graph (Note [Joint graph]) into its forward and backward graphs.
PartitionedGraphs partition(const JointGraph& joint,
                            PartitionPolicy policy = PartitionPolicy::Recompute);

}  // namespace fx

using JointFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

/// Traces `fn` and its backward into one graph (Note [Joint graph]) on `primals`, some of which
/// require grad. Tracing runs with grad mode on (options.dynamic as make_fx takes it).
fx::JointGraph make_joint(const JointFn& fn, const std::vector<Tensor>& primals,
                          const TraceOptions& options);
fx::JointGraph make_joint(const JointFn& fn, const std::vector<Tensor>& primals);
/// The module's parameters become the leading primals (aot_module's order: parameters, then the
/// inputs; options.dynamic names fn's inputs only); buffers are held by the graph as get_attr.
fx::JointGraph make_joint(const nn::Module& module, const JointFn& fn,
                          const std::vector<Tensor>& inputs, const TraceOptions& options);
fx::JointGraph make_joint(const nn::Module& module, const JointFn& fn,
                          const std::vector<Tensor>& inputs);

/// Turns a graph into the function that runs it (functorch's fw_compiler / bw_compiler); the
/// default runs the graph interpreter (GraphModule::operator()).
using GraphCompiler = std::function<JointFn(const fx::GraphModule&)>;

/// Turns the forward and backward graphs into the functions that run them in one call, so that a
/// backend can build both at once (ember::compile lowers them together: one cold compile).
using PairCompiler = std::function<std::pair<JointFn, JointFn>(const fx::GraphModule& forward,
                                                               const fx::GraphModule& backward)>;

struct AotOptions {
  fx::PartitionPolicy partition = fx::PartitionPolicy::Recompute;
  GraphCompiler fw_compiler = {};  // the forward graph's
  GraphCompiler bw_compiler = {};  // the backward graph's (the forward's when empty)
  PairCompiler pair_compiler =
      {};  // both graphs'; when set, fw_compiler and bw_compiler are unused
};

/// functorch's aot_function: traces `fn` with its backward once on `example_inputs`, partitions
/// it, compiles both graphs, and returns a function that runs the forward without recording and,
/// when grad mode is on and an input requires grad, records one autograd node
/// ("CompiledFunctionBackward") whose backward runs the backward graph. The result is specialised
/// to the example inputs' dtypes, sizes and which of them require grad (ValueError otherwise).
JointFn aot_function(const JointFn& fn, const std::vector<Tensor>& example_inputs,
                     const AotOptions& options = {});
/// aot_function's second half, for a joint graph already traced on `primals` (ember::compile
/// traces it with fake tensors).
JointFn aot_compile_joint(const fx::JointGraph& joint, const std::vector<Tensor>& primals,
                          const AotOptions& options = {});
/// aot_module: as aot_function with the module's parameters as leading inputs, so their .grad
/// accumulates as in eager mode. The returned function takes the inputs alone and refers to the
/// module, which must outlive it.
JointFn aot_module(const nn::Module& module, const JointFn& fn,
                   const std::vector<Tensor>& example_inputs, const AotOptions& options = {});

}  // namespace ember
