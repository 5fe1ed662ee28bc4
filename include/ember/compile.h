#pragma once
// ember::compile (torch.compile's role; DESIGN.md §4, Note [Compile] in src/compiler/compile.cpp):
// wraps a function or a module so that each call runs a captured, lowered graph, chosen by guards
// on its inputs and recaptured when they fail.
//
//   auto f = ember::compile([](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
//     return {(xs[0] * 2 + 1).relu()};
//   });
//   std::vector<Tensor> out = f({x});
//   auto model = ember::compile(nn::Linear(4, 8));   // model->forward(x), model(x)
//   auto step = ember::compile(optimizer);          // step() as optimizer.step()
//   ember::compiler::Stats s = ember::compiler::stats();
//
// Current limitations:
//  - Training: when grad mode is on and an input or a lifted tensor (a parameter) requires grad,
//    the captured graph runs through the graph interpreter (every op dispatched, so autograd
//    records it and gradients land in .grad exactly as in eager mode) instead of generated code,
//    until joint forward/backward graphs are lowered.
//  - mode "reduce-overhead" and "max-autotune" are accepted and behave as "default" (there are
//    no CUDA graphs, and GEMM autotuning arrives with the GEMM templates).
//  - Capture traces with fake tensors; what they cannot trace (item() and other reads of values,
//    sizes that depend on values, random ops, whose generator state would be frozen into the
//    graph) makes the function run eagerly for such inputs with one warning (fullgraph=false) or
//    raise (fullgraph=true). Dynamo would break the graph there and compile the pieces.
//  - Tensors a function captures by value (not its inputs, not a compiled module's parameters
//    and buffers, not tensors that require grad) are copied into the graph when it is captured,
//    so later in-place changes to them are not seen; pass them as inputs instead.
#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/compiler.h"
#include "ember/core/tensor.h"

namespace ember {

namespace optim {
class Optimizer;
}

/// torch.compile's arguments.
struct CompileOptions {
  /// Dims declared dynamic from the first call (see DynamicSpec in ember/compiler.h). A call with
  /// a size outside a Dim's range raises ConstraintViolationError. Without it (and for dims it
  /// does not name), automatic dynamic applies: the first call compiles static, and a later call
  /// whose sizes differ recompiles once with the dims that changed dynamic.
  DynamicSpec dynamic = {};
  /// "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs" (all behave as
  /// "default" for now); anything else raises ValueError.
  std::string mode = "default";
  /// Ember always captures a whole graph; with fullgraph a capture that fails (a data-dependent
  /// op, a dynamic dim the program specialises) raises, without it the function runs eagerly
  /// and a warning says so once.
  bool fullgraph = false;
  /// "inductor" (generated kernels, compiler::lower) or "eager" (the graph interpreter).
  std::string backend = "inductor";
  /// When lowering raises CompileError (no C++ compiler, a failed build): run eagerly with one
  /// warning instead of raising.
  bool fallback_to_eager = false;
  /// Recaptures of one compiled function before new inputs run eagerly (torch._dynamo's
  /// config.recompile_limit).
  int64_t recompile_limit = 8;
  /// torch._dynamo.config.automatic_dynamic_shapes; false recompiles static for every new size.
  bool automatic_dynamic = true;
};

namespace compiler {

/// What ember::compile did since the start or the last reset() (counts over all compiled
/// functions of the process).
struct Stats {
  int64_t captures = 0;    // graphs captured (make_fx runs)
  int64_t compiles = 0;    // graphs lowered by the backend (compiler::lower calls)
  int64_t cache_hits = 0;  // generated units found in the code cache instead of compiled
  int64_t recompiles = 0;  // captures after a function's first, each for a failed guard
  std::vector<std::string> recompile_reasons;
  int64_t guard_failures = 0;   // calls that matched no cached entry
  int64_t eager_fallbacks = 0;  // calls run eagerly (capture or build failed, recompile limit)
};
Stats stats();
/// Forgets every compiled function's entries (they recapture on their next call), the code
/// cache's loaded libraries, and zeroes the stats (torch._dynamo.reset()).
void reset();

}  // namespace compiler

namespace detail {
class CompileState;
class OptimizerStepState;
}  // namespace detail

/// A compiled function: copies share one cache of entries. Safe to call from several threads.
class CompiledFunction {
 public:
  explicit CompiledFunction(std::shared_ptr<detail::CompileState> state);
  std::vector<Tensor> operator()(const std::vector<Tensor>& inputs) const;
  /// Cached entries (captured graphs with their guards) of this function.
  int64_t num_entries() const;

 private:
  std::shared_ptr<detail::CompileState> state_;
};

namespace detail {

template <typename T>
concept ModulePointer =
    std::derived_from<typename std::remove_cvref_t<T>::element_type, nn::Module> &&
    std::convertible_to<T, std::shared_ptr<nn::Module>>;
// A ModuleHolder (nn::Linear, nn::Sequential, EMBER_MODULE types).
template <typename T>
concept ModuleHolderLike = requires(const T& h) {
  typename T::ContainedType;
  { h.ptr() } -> ModulePointer;
};
template <typename T>
concept ModuleLike = ModulePointer<std::decay_t<T>> || ModuleHolderLike<std::decay_t<T>>;
// Checked after ModuleLike: asking whether a ModuleHolder converts to a std::function would
// instantiate its forward with a vector of tensors.
template <typename F>
concept TensorFunction = !ModuleLike<F> && std::is_constructible_v<TracedFn, F>;

CompiledFunction compile_function(TracedFn fn, const CompileOptions& options);
/// `forward` calls the module; its parameters and buffers are lifted into the graphs.
CompiledFunction compile_module(std::shared_ptr<nn::Module> module, TracedFn forward,
                                const CompileOptions& options);

}  // namespace detail

/// The result of compile(module): callable as the module (model(x), model->forward(x)).
template <typename M>
class CompiledModule {
 public:
  CompiledModule(std::shared_ptr<M> module, CompiledFunction fn)
      : module_(std::move(module)), fn_(std::move(fn)) {}
  Tensor forward(const Tensor& x) const { return fn_({x}).at(0); }
  Tensor operator()(const Tensor& x) const { return forward(x); }
  const CompiledModule* operator->() const { return this; }
  CompiledModule* operator->() { return this; }
  /// The original module (torch.compile's _orig_mod).
  const std::shared_ptr<M>& module() const { return module_; }
  const CompiledFunction& function() const { return fn_; }
  /// The original module's, as OptimizedModule forwards attributes to it.
  std::vector<Tensor> parameters(bool recurse = true) const { return module_->parameters(recurse); }
  auto named_parameters(bool recurse = true) const { return module_->named_parameters(recurse); }
  void train(bool on = true) { module_->train(on); }
  void eval() { module_->eval(); }
  bool is_training() const { return module_->is_training(); }
  void zero_grad(bool set_to_none = true) { module_->zero_grad(set_to_none); }

 private:
  std::shared_ptr<M> module_;
  CompiledFunction fn_;
};

/// Compiles a function of tensors (torch.compile(fn)).
template <detail::TensorFunction F>
CompiledFunction compile(F&& fn, const CompileOptions& options = {}) {
  return detail::compile_function(TracedFn(std::forward<F>(fn)), options);
}

namespace detail {
// The module a holder (nn::Linear) or a shared_ptr refers to.
template <ModuleLike H>
auto module_ptr(const H& module) {
  if constexpr (ModulePointer<H>) {
    return module;
  } else {
    return module.ptr();
  }
}
}  // namespace detail

/// Compiles a module's forward (torch.compile(module)), given as a holder (nn::Linear) or a
/// shared_ptr; its parameters and buffers are read at each call, so optimizer steps are seen
/// without recompiling.
template <detail::ModuleLike H>
auto compile(const H& module, const CompileOptions& options = {}) {
  auto ptr = detail::module_ptr(module);
  using M = typename decltype(ptr)::element_type;
  auto* raw = ptr.get();
  TracedFn forward = [raw](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {raw->forward(xs.at(0))};
  };
  return CompiledModule<M>(ptr, detail::compile_module(ptr, std::move(forward), options));
}

/// Compiles `fn`, a function of tensors that calls `module` (a forward with more arguments, a
/// loss after it), with the module's parameters and buffers lifted as compile(module) lifts them.
template <detail::ModuleLike H, detail::TensorFunction F>
CompiledFunction compile(const H& module, F&& fn, const CompileOptions& options = {}) {
  return detail::compile_module(detail::module_ptr(module), TracedFn(std::forward<F>(fn)), options);
}

/// The result of compile(optimizer) (torch.compile(optimizer.step)): step() does what the
/// optimizer's step() does, as generated kernels (Note [Compiled optimizer step] in
/// src/compiler/compile_optimizer.cpp). The optimizer keeps its state exactly as its eager step
/// keeps it, so state_dict(), load_state_dict() and eager steps mix freely with compiled ones.
/// Copies share one cache; the optimizer must outlive them.
///
///   optim::AdamW opt(model->parameters(), optim::AdamWOptions(1e-3));
///   auto step = ember::compile(opt);
///   loss.backward();
///   step.step();  // or step()
class CompiledOptimizer {
 public:
  using LossClosure = std::function<Tensor()>;
  explicit CompiledOptimizer(std::shared_ptr<detail::OptimizerStepState> state);
  /// One step (the closure, if any, runs with gradients enabled first; its result is returned).
  Tensor step(const LossClosure& closure = nullptr) const;
  Tensor operator()(const LossClosure& closure = nullptr) const { return step(closure); }
  /// The optimizer (torch.compile's _orig_mod).
  optim::Optimizer& optimizer() const;

 private:
  std::shared_ptr<detail::OptimizerStepState> state_;
};

/// Compiles `optimizer`'s step: Adam, AdamW and SGD, with every option of theirs, for float32
/// and float64 parameters (other optimizers and dtypes raise NotImplementedError; the options
/// are read at each step). The learning rate, the step counts and the other hyper-parameters
/// enter the graph as tensor inputs, so an LR scheduler or a changed beta does not recompile;
/// the set of parameters with gradients, their shapes and the options that change the
/// algorithm (amsgrad, maximize, nesterov, whether weight decay or momentum is on) are guarded.
/// `options` as for functions (mode, backend, fullgraph, recompile_limit, fallback_to_eager);
/// a dynamic spec raises ValueError.
CompiledOptimizer compile(optim::Optimizer& optimizer, const CompileOptions& options = {});

}  // namespace ember
