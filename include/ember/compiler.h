#pragma once
// The compiler's public surface (DESIGN.md §4): capture a function into a graph with make_fx,
// inspect, print, serialise and run the graph.
//
//   auto fn = [](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
//     return {xs[0].matmul(xs[1]).relu().sum(-1)};
//   };
//   ember::fx::GraphModule gm = ember::make_fx(fn, {x, w});
//   std::cout << gm.graph().to_string();
//   std::vector<Tensor> out = gm({x, w});
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/tensor.h"
#include "ember/fx/graph.h"
#include "ember/fx/graph_module.h"
#include "ember/fx/passes.h"

namespace ember {

namespace nn {
class Module;
}

/// A dynamic-shape specification was violated (torch._dynamo.exc.ConstraintViolationError):
/// an example input outside a dim's range, or a traced program that specialises a dynamic dim.
class ConstraintViolationError : public Error {
 public:
  explicit ConstraintViolationError(const std::string& msg) : Error(msg) {}
};

/// A named dynamic dimension with an inclusive range (torch.export.Dim): Dim("batch", 1, 1024).
/// The same Dim in two places means the two sizes are equal. Increasing integer affine maps of a
/// Dim are derived dims (`2 * seq`, `seq + 1`): their sizes are that function of the root's
/// symbol. An integer in a spec ({0, 8}) pins a dim statically: the example must have that size.
struct Dim {
  std::string name;  // a derived dim's is its expression, "2*seq + 1"
  int64_t min = 0;
  int64_t max = std::numeric_limits<int64_t>::max() - 1;
  /// A derived dim: scale * root + offset, with the root Dim's name and range.
  std::string root;
  int64_t root_min = 0, root_max = 0, scale = 1, offset = 0;
  /// A static pin's size.
  std::optional<int64_t> value;
  /// Raises ValueError unless `name` is an identifier and 0 <= min <= max.
  explicit Dim(std::string name, std::optional<int64_t> min = std::nullopt,
               std::optional<int64_t> max = std::nullopt);
  /// A static pin: `DynamicSpec spec = {{{0, 8}}}` requires dim 0 of input 0 to be 8.
  Dim(int64_t static_size);  // NOLINT: implicit, as an int in PyTorch's dynamic_shapes
  bool is_derived() const { return !root.empty(); }
};
/// Derived dims; anything but an increasing integer affine map raises NotImplementedError with
/// PyTorch's message ("Only increasing linear operations with integer coefficients are
/// supported").
Dim operator+(const Dim& d, int64_t k);
Dim operator+(int64_t k, const Dim& d);
Dim operator-(const Dim& d, int64_t k);
Dim operator-(int64_t k, const Dim& d);
Dim operator*(const Dim& d, int64_t k);
Dim operator*(int64_t k, const Dim& d);

/// A relation between dims the traced program may rely on (DynamicSpec's `assumptions`; in
/// PyTorch, torch._check on sizes): a fact while tracing, so that `x.sym_size(0) >
/// y.sym_size(0)` resolves without a guard, and one on a single dim narrows its range. Examples
/// that break it raise ConstraintViolationError; a run of the graph whose inputs break it raises
/// RuntimeError ("Runtime assertion failed for expression batch > seq (batch = 3, seq = 5)").
/// Built with comparisons of Dims (or a Dim and an integer): `batch > seq`, `seq <= 512`,
/// `2 * half == width` (Note [Assumptions] in src/compiler/symbolic.h).
struct Assumption {
  Dim lhs;
  std::string op;  // ">", ">=", "<", "<=", "=="
  Dim rhs;
  std::string str() const;  // "batch > seq"
};
Assumption operator>(const Dim& a, const Dim& b);
Assumption operator>=(const Dim& a, const Dim& b);
Assumption operator<(const Dim& a, const Dim& b);
Assumption operator<=(const Dim& a, const Dim& b);
Assumption operator==(const Dim& a, const Dim& b);

/// Per input position, the dynamic dims of that input: {dim index -> Dim}. An input without
/// entries is static. `DynamicSpec spec = {{{0, batch}}, {}};` makes dim 0 of input 0 dynamic;
/// `spec.assumptions = {batch > seq};` adds facts (see Assumption).
struct DynamicSpec {
  std::vector<std::map<int64_t, Dim>> inputs;
  std::vector<Assumption> assumptions;
  DynamicSpec() = default;
  DynamicSpec(std::initializer_list<std::map<int64_t, Dim>> per_input) : inputs(per_input) {}
  bool empty() const;
};

/// How make_fx runs the function (proxy_tensor's tracing_mode): Real runs every kernel while
/// recording; Fake gives the function meta tensors (Note [Meta device]) with the inputs'
/// sizes, strides and dtypes, so that only shape inference runs.
enum class TracingMode : uint8_t { Real, Fake };

struct TraceOptions {
  /// Dynamic dimensions (Note [Symbolic shapes] in src/compiler/symbolic.h). A non-empty spec
  /// traces with fake tensors whose dynamic dims are symbols s0, s1, ... (one per Dim), so the
  /// graph's sizes are expressions and the GraphModule runs on any size in each Dim's range
  /// (sizes 0 and 1 specialise, as in PyTorch: ranges start at 2). A program that needs a
  /// dynamic size as a concrete value (Tensor::sizes(), a branch on a size that the range does
  /// not decide) raises ConstraintViolationError naming the dim, the op and a suggested fix;
  /// code that handles dynamic shapes reads Tensor::sym_size()/sym_sizes().
  DynamicSpec dynamic = {};
  /// Rewrite in-place calls whose writes nothing else observes into out-of-place ones
  /// (fx::functionalize); writes to inputs, attributes and views stay in place.
  bool functionalize = true;
  TracingMode mode = TracingMode::Real;
  /// Replace calls of primitives outside the core opset by their decompositions
  /// (Note [Decompositions], fx::decompose).
  bool decompose = false;
  /// Run the default pass pipeline (Note [Graph passes], fx::default_passes(): decompositions,
  /// view canonicalisation, constant folding, CSE, DCE) on the traced graph. Off by default, so
  /// that the graph records exactly what the function ran; ember::compile turns it on.
  bool passes = false;
};

using TracedFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
using TracedTensorFn = std::function<Tensor(const std::vector<Tensor>&)>;

/// Runs `fn` once on `example_inputs` and records every primitive that dispatch sees into a
/// graph (torch.fx.experimental.proxy_tensor.make_fx with tracing_mode="real": kernels run
/// while recording). Inputs become placeholders; tensors the function did not create
/// (constants, the generator state of random ops) become get_attr nodes held by the module.
fx::GraphModule make_fx(const TracedFn& fn, const std::vector<Tensor>& example_inputs,
                        const TraceOptions& options = {});
fx::GraphModule make_fx(const TracedTensorFn& fn, const std::vector<Tensor>& example_inputs,
                        const TraceOptions& options = {});
/// Traces `fn` (typically a call of the module's forward) with the module's parameters and
/// buffers lifted as get_attr nodes named by their path ("fc.weight").
fx::GraphModule make_fx(const nn::Module& module, const TracedFn& fn,
                        const std::vector<Tensor>& example_inputs,
                        const TraceOptions& options = {});

}  // namespace ember

// ember::compile, compiler::stats() (they use the DynamicSpec above).
#include "ember/compile.h"  // IWYU pragma: export
