#pragma once
// The graph interpreter's steps (src/compiler/interpreter.cpp), shared with the code generator's
// runner (Note [Lowering]), which runs the calls it does not generate code for exactly as the
// interpreter does.
#include <functional>
#include <vector>

#include "compiler/symbolic.h"
#include "ember/fx/graph.h"

namespace ember::fx::detail {

/// Binds the symbols of `graph`'s dynamic dims from `inputs` and checks every input against its
/// placeholder (Note [Symbolic shapes]); ValueError naming the input on a mismatch.
SymbolValues bind_inputs(const Graph& graph, const std::vector<Tensor>& inputs);

/// Runs call node `n` on `args` through dispatch: its primitive with the symbols in its
/// parameters replaced by `values`, its outputs allocated as the traced program allocated them
/// (an in-place call writes `value(*n.inplace_target)`). Unbacked symbols among its outputs'
/// sizes (Note [Unbacked symbols]) are added to `values` from the results.
std::vector<Tensor> run_call(const Node& n, const std::vector<Tensor>& args,
                             const std::function<Tensor(ValueRef)>& value, SymbolValues& values);

}  // namespace ember::fx::detail
