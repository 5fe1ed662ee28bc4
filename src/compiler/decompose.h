#pragma once
// Note [Decompositions]: the compiler lowers a small core opset (PyTorch's core ATen opset is the
// model) and decomposes the rest. A primitive that exists for eager speed (a fused kernel for
// lerp, addcmul, isclose, clamp between tensors, the fused normalisations) writes itself with
// core ops in Primitive::decompose; the decomposition pass (fx::decompose, decompose.cpp) traces
// that function on meta tensors with a call's inputs' metadata (symbolic sizes included, so no
// kernel runs) and splices the recorded calls in place of the call, so the lowering fuses the
// pieces with their neighbours instead of calling one opaque kernel. The spliced outputs must
// have exactly the call's recorded sizes, strides, dtype and offset (the verifier's rule for
// every node); a decomposition that does not (a layout that differs for some strided input) is
// skipped for that call and logged under EMBER_LOGS=graph.
//
// Which primitives are core is one table (core_opset_table() in ember/fx/passes.h, role_of()
// in decompose.cpp): a kind is core, decomposed, or core except some ops of its family (clamp
// with scalar bounds is core, clamp with tensor bounds decomposes). A non-core op without a
// decomposition stays a call of its primitive (core_opset_table() says which are missing).
#include <vector>

#include "ember/compiler.h"
#include "ember/fx/graph_module.h"

namespace ember::fx::detail {

/// Traces `fn` with the tracer in fake mode on meta tensors with `inputs`' metadata (no kernel
/// runs, nothing records autograd); the graph's placeholders are the inputs, in order.
GraphModule trace_on_meta(const TracedFn& fn, const std::vector<ValueMeta>& inputs);

}  // namespace ember::fx::detail
