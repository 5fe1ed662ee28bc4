// Note [Compile]: ember::compile is torch.compile's front (Dynamo's role, without bytecode):
//  - A compiled function keeps a list of entries: a captured graph, what the backend made of it,
//    and its guards (Note [Compile guards]). A call runs the first entry whose guards hold;
//    when none does, it captures anew (a recompile, with the failed guards as its reason), up to
//    recompile_limit recompiles, after which calls that match no entry run the function eagerly.
//  - Capture is make_fx with fake tensors, so the function's kernels do not run and its side
//    effects (a module's running statistics) happen once, when the entry runs. What fake tensors
//    cannot trace (a read of values such as item(), a size that depends on values, a random op's
//    generator state) fails the capture, as a graph break would: the function runs eagerly for
//    such inputs (with a warning), or raises with fullgraph.
//  - Dynamic dims: those the spec declares are symbolic from the first capture; other dims that
//    change size between calls become dynamic on the next capture (automatic dynamic; dims of
//    equal size share one symbol, as PyTorch's duck sizing); when the program specialises them
//    (reads the size as an integer), that capture is static and later sizes recompile static.
//    Sizes 0 and 1 specialise while tracing, so a declared dim whose size is 0 or 1 is traced at
//    2 and still runs at 0 or 1.
//  - Training: with grad mode on and anything requiring grad, a static capture is also traced
//    with its backward (Note [Joint graph]), partitioned, and both graphs built by the backend
//    in one lower() call (one cold compile for both): a call runs the forward and records one
//    autograd node that runs the backward (aot_function); a dynamic capture's joint graph is traced
//    with the same dynamic dims (Note [Symbolic autograd]). A capture whose joint graph cannot be
//    traced (fake tensors meet a random op, a backward that specialises a dynamic dim), or a call
//    whose inputs require grad otherwise than traced runs the captured graph through the
//    interpreter, so autograd records op by op.
#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "compiler/codecache.h"
#include "compiler/compile_stats.h"
#include "compiler/guards.h"
#include "compiler/logs.h"
#include "compiler/lowering.h"
#include "compiler/symbolic.h"
#include "ember/autograd.h"
#include "ember/compiler.h"
#include "ember/fx/joint.h"
#include "ember/nn/module.h"
#include "ember/ops/factory.h"

namespace ember {

namespace {

std::atomic<uint64_t> g_generation{0};
std::atomic<int64_t> g_next_id{0};

struct GlobalStats {
  std::mutex mu;
  compiler::Stats stats;
};
GlobalStats& global_stats() {
  static GlobalStats s;
  return s;
}
template <typename F>
void update_stats(F&& f) {
  GlobalStats& g = global_stats();
  std::lock_guard<std::mutex> lock(g.mu);
  f(g.stats);
}

const std::vector<std::string>& modes() {
  static const std::vector<std::string> m = {"default", "reduce-overhead", "max-autotune",
                                             "max-autotune-no-cudagraphs"};
  return m;
}
const std::vector<std::string>& backends() {
  static const std::vector<std::string> b = {"eager", "inductor"};
  return b;
}
std::string join(const std::vector<std::string>& xs) {
  std::string s;
  for (const std::string& x : xs) s += (s.empty() ? "" : ", ") + x;
  return s;
}

void check_options(const CompileOptions& o) {
  EMBER_CHECK_VALUE(std::find(modes().begin(), modes().end(), o.mode) != modes().end(),
                    "[compile] Unrecognized mode=", o.mode, ", should be one of: ", join(modes()));
  EMBER_CHECK_VALUE(std::find(backends().begin(), backends().end(), o.backend) != backends().end(),
                    "[compile] Invalid backend: '", o.backend,
                    "', available backends: ", join(backends()));
  EMBER_CHECK_VALUE(o.recompile_limit >= 0, "[compile] recompile_limit must be >= 0, got ",
                    o.recompile_limit);
}

// Root Dims of `spec` whose size in this call is 0 or 1: traced at 2 (fake tensors need no
// data), so that the graph is general and still runs at the call's size.
std::vector<Tensor> with_traceable_sizes(const std::vector<Tensor>& inputs,
                                         const DynamicSpec& spec) {
  std::set<std::string> small;
  for (size_t i = 0; i < spec.inputs.size() && i < inputs.size(); ++i) {
    for (const auto& [dim, d] : spec.inputs[i]) {
      if (d.value || !inputs[i].defined() || dim < 0 || dim >= inputs[i].dim()) continue;
      const int64_t size = inputs[i].size(dim);
      const int64_t root_max = d.is_derived() ? d.root_max : d.max;
      if ((size - d.offset) % d.scale == 0 && (size - d.offset) / d.scale < 2 && root_max >= 2) {
        small.insert(d.is_derived() ? d.root : d.name);
      }
    }
  }
  if (small.empty()) return inputs;
  std::vector<Tensor> out = inputs;
  for (size_t i = 0; i < spec.inputs.size() && i < inputs.size(); ++i) {
    std::vector<int64_t> sizes;
    for (const auto& [dim, d] : spec.inputs[i]) {
      if (d.value || !inputs[i].defined() || dim < 0 || dim >= inputs[i].dim()) continue;
      if (!small.count(d.is_derived() ? d.root : d.name)) continue;
      if (sizes.empty()) sizes = inputs[i].sizes();
      sizes[dim] = d.scale * 2 + d.offset;
    }
    if (!sizes.empty()) {
      out[i] = ember::empty(sizes, TensorOptions().dtype(inputs[i].dtype()));
      if (inputs[i].requires_grad()) out[i].requires_grad_();  // for the joint graph
    }
  }
  return out;
}

size_t dims_in(const DynamicSpec& spec) {
  size_t n = 0;
  for (const auto& dims : spec.inputs) n += dims.size();
  return n;
}

}  // namespace

namespace detail {

struct CompiledEntry {
  compiler::Guards guards;
  std::shared_ptr<const fx::GraphModule> gm;                // null: runs the function eagerly
  std::shared_ptr<const compiler::CompiledGraph> compiled;  // null: the interpreter runs gm
  bool held_require_grad = false;
  // Training (Note [Joint graph]): the forward and backward graphs as one autograd node, for
  // inputs requiring grad as `train_requires_grad` says; empty: the interpreter runs gm.
  JointFn train;
  std::vector<bool> train_requires_grad;
};

class CompileState {
 public:
  CompileState(TracedFn fn, std::shared_ptr<nn::Module> module, CompileOptions options)
      : fn_(std::move(fn)), module_(std::move(module)), options_(std::move(options)) {
    check_options(options_);
    EMBER_CHECK_VALUE(static_cast<bool>(fn_), "[compile] the function is empty");
    const int64_t id = g_next_id++;
    name_ = module_
                ? "module " + module_->name() + " (compiled function " + std::to_string(id) + ")"
                : "compiled function " + std::to_string(id);
  }

  std::vector<Tensor> call(const std::vector<Tensor>& inputs) {
    std::shared_ptr<const CompiledEntry> entry;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (generation_ != g_generation.load()) forget();
      std::string reason;
      for (const auto& e : entries_) {
        auto failed = e->guards.check(inputs);
        if (!failed) {
          entry = e;
          break;
        }
        // Every entry's failure, newest first (each entry failed for its own reason).
        if (reason.find(*failed) == std::string::npos) {
          reason = reason.empty() ? *failed : *failed + "; " + reason;
        }
      }
      if (!entry) entry = miss(inputs, reason);
    }
    if (!entry) return eager(inputs);
    return run(*entry, inputs);
  }

  int64_t num_entries() {
    std::lock_guard<std::mutex> lock(mu_);
    if (generation_ != g_generation.load()) forget();
    return static_cast<int64_t>(entries_.size());
  }

 private:
  // compiler::reset() happened since this function last ran.
  void forget() {
    entries_.clear();
    recompiles_ = 0;
    first_sizes_.clear();
    auto_dims_.clear();
    auto_failed_ = false;
    warned_limit_ = warned_capture_ = warned_build_ = false;
    generation_ = g_generation.load();
  }

  void warn_once(bool& warned, const std::string& text) {
    if (warned) return;
    warned = true;
    compiler::warn(text);
  }

  // No entry matched: a new one, or null to run eagerly (the recompile limit is reached).
  std::shared_ptr<const CompiledEntry> miss(const std::vector<Tensor>& inputs,
                                            const std::string& reason) {
    const bool recompile = !entries_.empty();
    if (recompile) update_stats([](compiler::Stats& s) { ++s.guard_failures; });
    check_declared_dims(inputs);
    if (recompile && recompiles_ >= options_.recompile_limit) {
      warn_once(warned_limit_, "[compile] " + name_ + " hit recompile_limit (" +
                                   std::to_string(options_.recompile_limit) +
                                   "); last reason: " + reason +
                                   ". Inputs that match none of its compiled entries now run "
                                   "eagerly. To log all recompilation reasons, use "
                                   "EMBER_LOGS=recompiles.");
      return nullptr;
    }
    if (recompile) {
      ++recompiles_;
      update_stats([&](compiler::Stats& s) {
        ++s.recompiles;
        s.recompile_reasons.push_back(reason);
      });
      if (compiler::log_enabled("recompiles")) {
        compiler::log("recompiles", "Recompiling " + name_ +
                                        "\n    triggered by the guard failure(s): " + reason);
      }
    }
    auto entry = std::make_shared<CompiledEntry>(make_entry(inputs));
    entries_.push_back(entry);
    return entry;
  }

  // A call outside a declared Dim's range is the spec's error, not a recompile.
  void check_declared_dims(const std::vector<Tensor>& inputs) const {
    const DynamicSpec& spec = options_.dynamic;
    if (spec.empty() || spec.inputs.size() != inputs.size()) return;
    for (size_t i = 0; i < inputs.size(); ++i) {
      for (const auto& [dim, d] : spec.inputs[i]) {
        if (!inputs[i].defined() || dim < 0 || dim >= inputs[i].dim()) continue;
        const int64_t size = inputs[i].size(dim);
        if (d.value && size != *d.value) {
          EMBER_THROW(ConstraintViolationError, "[compile] Constraints violated! input ", i,
                      " dim ", dim, " is pinned to the static size ", *d.value,
                      ", but the call has size ", size);
        }
        if (!d.value && (size < d.min || size > d.max)) {
          EMBER_THROW(ConstraintViolationError, "[compile] Constraints violated (", d.name,
                      ")! input ", i, " has size ", size, " in dim ", dim,
                      ", outside the range of ", d.name, " [", d.min, ", ", d.max,
                      "]. Suggested fix: ", d.name, " = Dim(\"", d.name,
                      "\", min=", std::min(d.min, size), ", max=", std::max(d.max, size), ")");
        }
      }
    }
  }

  // Automatic dynamic: dims whose size differs from the first call's become dynamic.
  DynamicSpec spec_for(const std::vector<Tensor>& inputs) {
    if (first_sizes_.empty()) {
      for (const Tensor& t : inputs) {
        first_sizes_.push_back(t.defined() ? t.sizes() : std::vector<int64_t>{});
      }
      auto_dims_.resize(inputs.size());
    } else {
      for (size_t i = 0; i < inputs.size() && i < first_sizes_.size(); ++i) {
        if (!inputs[i].defined() || inputs[i].dim() != static_cast<int64_t>(first_sizes_[i].size()))
          continue;
        for (int64_t d = 0; d < inputs[i].dim(); ++d) {
          if (inputs[i].size(d) != first_sizes_[i][d]) auto_dims_[i].insert(d);
        }
      }
    }
    DynamicSpec spec = options_.dynamic;
    if (!options_.automatic_dynamic || auto_failed_) return spec;
    if (spec.inputs.empty()) spec.inputs.resize(inputs.size());
    if (spec.inputs.size() != inputs.size()) return spec;
    std::map<int64_t, Dim> by_size;  // duck sizing: equal sizes share a symbol
    for (size_t i = 0; i < inputs.size() && i < auto_dims_.size(); ++i) {
      const Tensor& t = inputs[i];
      if (!t.defined() || !t.is_contiguous() || t.storage_offset() != 0) continue;
      for (int64_t d : auto_dims_[i]) {
        if (d >= t.dim() || spec.inputs[i].count(d) || t.size(d) < 2) continue;
        auto it = by_size.find(t.size(d));
        if (it == by_size.end()) {
          it = by_size
                   .emplace(t.size(d),
                            Dim("arg" + std::to_string(i) + "_dim" + std::to_string(d), 2))
                   .first;
        }
        spec.inputs[i].emplace(d, it->second);
      }
    }
    return spec;
  }

  fx::GraphModule trace(const std::vector<Tensor>& inputs, const TraceOptions& options) const {
    return module_ ? make_fx(*module_, fn_, inputs, options) : make_fx(fn_, inputs, options);
  }

  // Always with fake tensors: the function's kernels do not run, so its side effects happen
  // once (when the entry runs), and what fake tensors cannot trace (a read of values, a size that
  // depends on them) fails the capture instead of being frozen into the graph.
  fx::GraphModule capture(const std::vector<Tensor>& inputs, const DynamicSpec& spec) const {
    TraceOptions options;
    options.dynamic = spec;
    options.mode = TracingMode::Fake;
    return trace(spec.empty() ? inputs : with_traceable_sizes(inputs, spec), options);
  }

  CompiledEntry make_entry(const std::vector<Tensor>& inputs) {
    // The declared spec's own errors (unequal sizes of one Dim, ...) are the caller's.
    fx::symbolic_sizes(options_.dynamic, with_traceable_sizes(inputs, options_.dynamic));
    const DynamicSpec spec = spec_for(inputs);
    std::optional<fx::GraphModule> gm;
    const DynamicSpec* captured = nullptr;  // the spec the graph was traced with
    std::exception_ptr failure;
    for (const DynamicSpec* s :
         std::initializer_list<const DynamicSpec*>{&spec, &options_.dynamic}) {
      try {
        gm = capture(inputs, *s);
        captured = s;
        // The program specialises the automatic dims: later sizes recompile static.
        if (s != &spec) auto_failed_ = true;
        break;
      } catch (const Error&) {
        failure = std::current_exception();
      }
      if (dims_in(spec) == dims_in(options_.dynamic)) break;  // no automatic dims to drop
    }
    CompiledEntry entry;
    if (!gm) {
      if (options_.fullgraph) std::rethrow_exception(failure);
      try {
        std::rethrow_exception(failure);
      } catch (const Error& e) {
        warn_once(warned_capture_, "[compile] " + name_ +
                                       " could not be captured as one graph, so it runs eagerly "
                                       "for such inputs (fullgraph=true raises instead): " +
                                       e.what());
      }
      entry.guards = compiler::Guards::for_inputs(inputs);
      return entry;
    }
    update_stats([](compiler::Stats& s) { ++s.captures; });
    if (compiler::log_enabled("graph")) {
      compiler::log("graph", "Captured graph of " + name_ + ":\n" + gm->graph().to_string());
    }
    // Note [Graph passes]: the inductor backend lowers the graph after the default pipeline.
    if (options_.backend == "inductor") gm = fx::run_passes(*gm);
    entry.guards = compiler::Guards::for_graph(*gm, inputs, module_.get());
    for (const auto& h : entry.guards.held) entry.held_require_grad |= h.meta.requires_grad;
    entry.gm = std::make_shared<const fx::GraphModule>(std::move(*gm));
    if (options_.backend == "inductor" && !records_grad(entry, inputs)) build(entry, inputs);
    if (records_grad(entry, inputs)) build_train(entry, inputs, *captured);
    return entry;
  }

  // The joint graph of a capture, traced with fake tensors and the same dynamic dims as the
  // capture itself (Note [Symbolic autograd]).
  void build_train(CompiledEntry& entry, const std::vector<Tensor>& inputs,
                   const DynamicSpec& spec) {
    AotOptions aot;
    if (options_.backend == "inductor") {
      aot.pair_compiler = [this](const fx::GraphModule& fw, const fx::GraphModule& bw) {
        return lower_train(fw, bw);
      };
    }
    try {
      const TraceOptions fake{.dynamic = spec, .mode = TracingMode::Fake};
      const std::vector<Tensor> traced = spec.empty() ? inputs : with_traceable_sizes(inputs, spec);
      const fx::JointGraph joint =
          module_ ? make_joint(*module_, fn_, traced, fake) : make_joint(fn_, traced, fake);
      std::vector<Tensor> primals = module_ ? module_->parameters() : std::vector<Tensor>{};
      primals.insert(primals.end(), inputs.begin(), inputs.end());
      entry.train = aot_compile_joint(joint, primals, aot);
      if (module_) {
        entry.train = [module = module_, f = entry.train](const std::vector<Tensor>& xs) {
          std::vector<Tensor> all = module->parameters();
          all.insert(all.end(), xs.begin(), xs.end());
          return f(all);
        };
      }
      for (const Tensor& t : inputs) {
        entry.train_requires_grad.push_back(t.defined() && t.requires_grad());
      }
    } catch (const Error& e) {
      entry.train = nullptr;
      if (compiler::log_enabled("graph")) {
        compiler::log("graph", "No joint graph for " + name_ + " (the interpreter runs the " +
                                   "captured graph for training): " + e.what());
      }
    }
  }

  // The forward and backward graphs of a training entry, lowered in one call: one cold compile
  // builds both (lower() compiles its units in parallel). When the system compiler fails, both
  // run in the interpreter.
  std::pair<JointFn, JointFn> lower_train(const fx::GraphModule& fw_graph,
                                          const fx::GraphModule& bw_graph) {
    const fx::GraphModule fw = fx::run_passes(fw_graph), bw = fx::run_passes(bw_graph);
    std::vector<std::shared_ptr<const compiler::CompiledGraph>> lowered;
    try {
      lowered = compiler::lower(std::vector<const fx::GraphModule*>{&fw, &bw});
    } catch (const compiler::CompileError& e) {
      warn_once(warned_build_, "[compile] " + name_ +
                                   " could not be built, so its training graphs run in the "
                                   "interpreter: " +
                                   e.what());
      return {[fw](const std::vector<Tensor>& xs) { return fw(xs); },
              [bw](const std::vector<Tensor>& xs) { return bw(xs); }};
    }
    update_stats([](compiler::Stats& s) { s.compiles += 2; });
    const char* which[] = {"forward", "backward"};
    for (size_t i = 0; i < 2; ++i)
      log_output_code(*lowered[i], std::string(which[i]) + " graph of ");
    auto run = [](std::shared_ptr<const compiler::CompiledGraph> l) -> JointFn {
      return [l](const std::vector<Tensor>& xs) { return (*l)(xs); };
    };
    return {run(lowered[0]), run(lowered[1])};
  }

  void log_output_code(const compiler::CompiledGraph& g, const std::string& what) const {
    if (!compiler::log_enabled("output_code") || g.source().empty()) return;
    compiler::log("output_code",
                  "Output code of " + what + name_ + " (" + g.source_path() + "):\n" + g.source());
  }

  void build(CompiledEntry& entry, const std::vector<Tensor>& inputs) {
    try {
      entry.compiled = compiler::lower(*entry.gm);
    } catch (const compiler::CompileError& e) {
      if (!options_.fallback_to_eager) throw;
      warn_once(warned_build_, "[compile] " + name_ + " could not be built, so it runs eagerly " +
                                   "(fallback_to_eager=true): " + e.what());
      entry = CompiledEntry{};
      entry.guards = compiler::Guards::for_inputs(inputs);
      return;
    }
    update_stats([](compiler::Stats& s) { ++s.compiles; });
    log_output_code(*entry.compiled, "");
  }

  // Autograd must record this call (grad mode on, something requires grad).
  static bool records_grad(const CompiledEntry& e, const std::vector<Tensor>& inputs) {
    if (!is_grad_enabled()) return false;
    if (e.held_require_grad) return true;
    for (const Tensor& t : inputs) {
      if (t.defined() && t.requires_grad()) return true;
    }
    return false;
  }

  std::vector<Tensor> eager(const std::vector<Tensor>& inputs) const {
    update_stats([](compiler::Stats& s) { ++s.eager_fallbacks; });
    return fn_(inputs);
  }

  std::vector<Tensor> run(const CompiledEntry& e, const std::vector<Tensor>& inputs) const {
    if (!e.gm) return eager(inputs);
    if (e.compiled && !records_grad(e, inputs)) return (*e.compiled)(inputs);
    if (e.train && records_grad(e, inputs)) {
      bool same = true;  // the joint graph's gradients are for the inputs that required grad
      for (size_t i = 0; i < inputs.size(); ++i) {
        same = same && (inputs[i].defined() && inputs[i].requires_grad()) ==
                           static_cast<bool>(e.train_requires_grad[i]);
      }
      if (same) return e.train(inputs);
    }
    return (*e.gm)(inputs);
  }

  TracedFn fn_;
  std::shared_ptr<nn::Module> module_;
  CompileOptions options_;
  std::string name_;

  std::mutex mu_;
  uint64_t generation_ = g_generation.load();
  std::vector<std::shared_ptr<const CompiledEntry>> entries_;
  int64_t recompiles_ = 0;
  bool warned_limit_ = false, warned_capture_ = false, warned_build_ = false;
  std::vector<std::vector<int64_t>> first_sizes_;  // automatic dynamic's record
  std::vector<std::set<int64_t>> auto_dims_;
  bool auto_failed_ = false;  // a capture with automatic dims failed where a static one did not
};

CompiledFunction compile_function(TracedFn fn, const CompileOptions& options) {
  return CompiledFunction(std::make_shared<CompileState>(std::move(fn), nullptr, options));
}

CompiledFunction compile_module(std::shared_ptr<nn::Module> module, TracedFn forward,
                                const CompileOptions& options) {
  EMBER_CHECK_VALUE(module != nullptr, "[compile] the module is empty");
  return CompiledFunction(
      std::make_shared<CompileState>(std::move(forward), std::move(module), options));
}

}  // namespace detail

CompiledFunction::CompiledFunction(std::shared_ptr<detail::CompileState> state)
    : state_(std::move(state)) {}

std::vector<Tensor> CompiledFunction::operator()(const std::vector<Tensor>& inputs) const {
  return state_->call(inputs);
}

int64_t CompiledFunction::num_entries() const { return state_->num_entries(); }

namespace compiler {

Stats stats() {
  Stats s;
  update_stats([&](const Stats& g) { s = g; });
  const CodeCacheStats cache = code_cache_stats();
  s.cache_hits = cache.memory_hits + cache.disk_hits;
  return s;
}

namespace detail {

void count_recompile(const std::string& who, const std::string& reason) {
  update_stats([&](Stats& s) {
    ++s.recompiles;
    ++s.guard_failures;
    s.recompile_reasons.push_back(reason);
  });
  if (log_enabled("recompiles")) {
    log("recompiles", "Recompiling " + who + "\n    triggered by: " + reason);
  }
}

void count_eager_fallback() {
  update_stats([](Stats& s) { ++s.eager_fallbacks; });
}

}  // namespace detail

void reset() {
  ++g_generation;
  update_stats([](Stats& s) { s = Stats{}; });
  reset_code_cache();
}

}  // namespace compiler

}  // namespace ember
