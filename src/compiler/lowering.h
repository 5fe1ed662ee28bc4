#pragma once
// Note [Lowering]: a captured graph becomes a few generated C++ kernels plus calls of eager
// primitives. The scheduler groups nodes into kernels (pointwise chains, pointwise ops feeding a
// reduction and those after it; views and broadcasts folded into indexing); ops with their own
// library kernels (GEMM, convolution, attention, linalg, sort, scatter, ...) stay calls of their
// primitives through dispatch. The kernels are emitted as C++ that uses the eager kernels' Vec<T>
// and functors (backend/cpu/vec.h, unary_functors.h, binary_functors.h), so results agree,
// compiled and loaded through the code cache (Note [Code cache]), and run by a wrapper that
// allocates buffers and calls kernels and primitives in order. Calls of non-core primitives
// (fused eager kernels such as layer_norm's) are first replaced by their decompositions (Note
// [Decompositions]), so their pieces fuse with their neighbours.
//
// The rules that keep this correct (src/compiler/scheduler.cpp): a value stays in a kernel's
// registers until something outside the kernel reads it (a call, another kernel, the output);
// then it is stored and the kernel is sealed, so it runs before that reader. An in-place call
// seals every open kernel, and constants (fills) that anything writes are not folded. Views of a
// buffer become strides of the kernels' indexing (their recorded geometry); a view needed as a
// tensor runs as its primitive, so outputs alias inputs as the interpreter's do. What the
// generator does not know (src/compiler/lowering_ops.h) is a call of its primitive, run as the
// interpreter runs it (src/compiler/interpret.h). Intermediates are released after their last
// reader. Note [Kernel IR] describes the kernels; codegen.cpp how they become C++.
//
// Note [In-place stores]: an in-place pointwise call that writes a whole input or attribute
// (an optimizer's p.mul_(...), a module's running statistics, a functionalised copy_ back into
// an input) is fused like its out-of-place form, and its kernel stores the value straight into
// the input instead of a fresh buffer that a later call copies back: one pass over the memory.
// Chained writes of one input in one kernel store once, the last value. It is safe because the
// kernel reads every element of that input where it writes it (at the store's own indexing;
// otherwise the call runs through dispatch as before) and the emitter computes all stored values
// before it stores any; groups that read the input's old values are sealed first, and readers of
// its memory afterwards (views, calls, other kernels) seal the writing kernel before them. At run
// time the call's value is the input itself, its version counter is bumped as eager's in-place
// calls bump it, and a call whose inputs share memory with a written one runs in the graph
// interpreter instead (the kernel assumes distinct memory).
#include <memory>
#include <string>
#include <vector>

#include "ember/fx/graph_module.h"

namespace ember::compiler {

/// A graph lowered to generated kernels (Note [Lowering]). Symbolic dims of the graph are bound
/// from the inputs at each call (one compiled kernel serves every size in a Dim's range).
class CompiledGraph {
 public:
  virtual ~CompiledGraph() = default;
  /// Inputs as the GraphModule takes them; outputs as the graph interpreter returns them.
  virtual std::vector<Tensor> operator()(const std::vector<Tensor>& inputs) const = 0;
  /// The generated kernels, named after the ops they fuse ("fused_mul_add_relu_exp_sum").
  virtual std::vector<std::string> kernel_names() const = 0;
  /// The generated C++ and where it lies in the code cache (EMBER_LOGS=output_code prints
  /// both); empty when the graph needed no generated kernel.
  virtual std::string source() const = 0;
  virtual std::string source_path() const = 0;
};

/// Schedules, generates, compiles (through the code cache) and loads `gm`'s kernels. Raises
/// CompileError when the system compiler fails.
std::shared_ptr<const CompiledGraph> lower(const fx::GraphModule& gm);
/// Several graphs at once, their kernels compiled in one go (a few units compiled in parallel,
/// Note [Lowering units], instead of one compiler run per graph): a training step's forward and
/// backward, or a test sweeping many graphs.
std::vector<std::shared_ptr<const CompiledGraph>> lower(
    const std::vector<const fx::GraphModule*>& gms);

}  // namespace ember::compiler
