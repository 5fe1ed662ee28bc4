#pragma once
// Note [Unbacked symbols] (symbolic.h): what a fake trace gives the calls whose output sizes depend
// on their input's values (nonzero, unique, unique_consecutive, bincount).
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "compiler/symbolic.h"
#include "dispatch/primitive.h"
#include "ember/fx/graph.h"

namespace ember::fx::detail {

/// The unbacked sizes made so far, by (input value's node, output, which count), so that asking
/// one value twice gives one symbol (PyTorch's nonzero_memo / unique_memo).
using UnbackedMemo = std::map<std::tuple<int, int, int>, SymInt>;

/// Whether calls of `kind` size their outputs from the data.
bool sizes_from_data(PrimitiveKind kind);

/// Meta outputs for such a call on `inputs` (meta tensors, or real ones whose values the trace
/// does not read), each data-dependent size an unbacked symbol of `env` (made when null) with
/// PyTorch's bounds: nonzero's count and unique's in [0, numel] (unique by dim: [0, that dim's
/// size]), bincount's length in [minlength, inf). `input` is inputs[0]'s value in the graph and
/// `node` the index the call will have, for the symbols' source.
std::vector<Tensor> unbacked_outputs(const Primitive& p, const std::vector<Tensor>& inputs,
                                     ValueRef input, size_t node, std::shared_ptr<ShapeEnv>& env,
                                     UnbackedMemo& memo);

}  // namespace ember::fx::detail
