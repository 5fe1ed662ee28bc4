#pragma once
// Graph passes (Note [Graph IR]). Each rewrites a graph in place and leaves it verified.
//
// Note [Graph passes]: the compiler's passes, each a file of src/compiler/ with its own tests,
// run in this order by the default pipeline (default_passes(); ember::compile runs it on every
// captured graph before lowering, make_fx when TraceOptions::passes says so):
//   decompose            calls of non-core primitives become their decompositions
//                        (Note [Decompositions] in src/compiler/decompose.h)
//   canonicalize_views   chains of reshape/permute/expand/squeeze/unsqueeze collapse into one
//                        view; views that change nothing are dropped
//   fold_constants       calls computed from constants alone run once, at compile time
//   eliminate_common_subexpressions   equal calls on equal arguments are computed once
//   eliminate_dead_code  calls whose values nothing uses are dropped
// Passes never remove, merge or fold a call with effects (in place, random, attention with its
// dropout), nor move a read across a write: a value that shares memory with any in-place call's
// target is left alone by CSE and constant folding.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ember/fx/graph.h"
#include "ember/fx/graph_module.h"

namespace ember::fx {

/// Note [Functionalization]: rewrites in-place calls into their out-of-place forms where no
/// other value can observe the write: the written tensor shares memory with no view, no graph
/// input and no attribute (values in `also_aliased` count as shared too), and nothing reads its
/// previous value afterwards. Writes to graph inputs, attributes and views stay in place
/// (PyTorch's functionalization replays views and copies back into inputs; that needs view
/// primitives that can scatter into their base, which Ember does not have yet). Returns the
/// number of calls rewritten.
int functionalize(Graph& graph, const std::vector<ValueRef>& also_aliased = {});

/// The tensors a graph's get_attr nodes read, by target (GraphModule::attrs()).
using Attrs = std::map<std::string, Tensor>;

/// Note [Decompositions]: replaces each call of a primitive outside the core opset
/// (core_opset_table()) that has a decomposition by the calls of its decomposition, traced on
/// meta tensors with the call's inputs' metadata (symbolic sizes included). Constants the
/// decompositions make join `attrs`. Returns the number of calls decomposed.
int decompose(Graph& graph, Attrs& attrs);

/// Whether `op` of a call node is in the core opset (never decomposed); see
/// core_opset_table().
bool is_core(const Node& call);
/// The core opset as a table, one row per primitive kind: its name, "core", "decomposed" or
/// "core except ..." (the op families that decompose some of their ops), and why.
struct OpsetEntry {
  std::string kind, role, why;
};
std::vector<OpsetEntry> core_opset_table();

/// Drops calls whose values nothing uses (and get_attr nodes nothing reads). Calls with effects
/// stay. Returns the number of nodes removed.
int eliminate_dead_code(Graph& graph);

/// Computes equal calls (equal primitive and parameters, same arguments, same outputs) once;
/// calls with effects and values that an in-place call may write are never merged. Returns the
/// number of calls merged away.
int eliminate_common_subexpressions(Graph& graph);

struct ConstantFoldingOptions {
  /// A folded value with more elements stays a computation (it would enlarge the module); a
  /// value whose elements are all equal becomes a fill of any size.
  int64_t max_numel = 1 << 16;
  /// Constants above this many elements are not computed at compile time at all.
  int64_t max_eval_numel = 1 << 22;
};
/// Runs once, at compile time, the calls whose inputs are all constants (fills and other
/// factories, and the constants make_fx captured: get_attr "_tensor_constant*"), and replaces
/// those that a non-constant call or the output reads by a fill (a value whose elements are all
/// equal) or a new get_attr ("_folded_constant*", added to `attrs`). Random ops, calls with
/// effects and values written in place are never folded; neither are module attributes
/// (parameters and buffers may change between calls). Returns the number of values replaced.
int fold_constants(Graph& graph, Attrs& attrs, const ConstantFoldingOptions& options = {});

/// Collapses chains of views (reshape/view/squeeze/unsqueeze/alias into one reshape, permute of
/// a permute into one permute, expand of an expand into one expand) where the single view has
/// the same sizes, strides and offset, and drops views that change nothing (except where the
/// graph returns them). Returns the number of views rewritten or dropped.
int canonicalize_views(Graph& graph);

/// One pass: a name and a function of the graph and its attributes returning how many things it
/// changed.
struct Pass {
  std::string name;
  std::function<int(Graph&, Attrs&)> run;
};

/// What one pass did.
struct PassRecord {
  std::string name;
  int changed = 0;
  size_t nodes_before = 0, nodes_after = 0;
};

/// Runs passes in order. Under EMBER_LOGS=graph it prints the graph after each pass with the
/// pass's name and the node counts.
class PassManager {
 public:
  PassManager& add(Pass pass);
  /// The module after every pass (attributes no node reads any more are dropped).
  GraphModule run(const GraphModule& gm, std::vector<PassRecord>* records = nullptr) const;
  const std::vector<Pass>& passes() const { return passes_; }

 private:
  std::vector<Pass> passes_;
};

/// The default pipeline, Note [Graph passes]'s order.
PassManager default_passes();
/// default_passes().run(gm).
GraphModule run_passes(const GraphModule& gm, std::vector<PassRecord>* records = nullptr);

}  // namespace ember::fx
