// lower(): schedule each graph (scheduler.cpp), emit its kernels (codegen.cpp) into one source
// unit, compile and load it through the code cache, and run it (Note [Lowering]).
#include "compiler/lowering.h"

#include <algorithm>
#include <map>
#include <thread>

#include "compiler/codecache.h"
#include "compiler/interpret.h"
#include "compiler/kernel_ir.h"
#include "compiler/meta.h"
#include "ember/fx/passes.h"
#include "ember/profiler.h"

namespace ember::compiler {
namespace {

using KernelFn = void (*)(char* const*, const int64_t*);

struct LoweredKernel {
  std::string symbol;
  std::vector<SymInt> size_args;
  KernelFn fn = nullptr;
};

class Lowered final : public CompiledGraph {
 public:
  Lowered(fx::GraphModule gm, Schedule s) : gm_(std::move(gm)), schedule_(std::move(s)) {
    for (const fx::Node& n : gm_.graph().nodes()) {
      first_.push_back(slots_);
      slots_ += n.outputs.size();
    }
    plan_releases();
    written_.assign(gm_.graph().nodes().size(), false);
    for (const Kernel& k : schedule_.kernels) {
      for (fx::ValueRef r : k.inplace_writes) written_[r.node] = true;
    }
    writes_inputs_ = !schedule_.aliases.empty();
  }

  // Note [In-place stores]: whether an input or attribute that a kernel writes shares memory
  // with another one of the call (the same tensor passed twice, views of one storage).
  bool shares_written_memory(const std::vector<Tensor>& env) const {
    const std::vector<fx::Node>& nodes = gm_.graph().nodes();
    std::vector<std::pair<const void*, bool>> storages;  // (storage, written)
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i].kind != fx::NodeKind::Placeholder && nodes[i].kind != fx::NodeKind::GetAttr)
        continue;
      const Tensor& t = env[first_[i]];
      if (t.defined()) storages.emplace_back(t.unsafeGetTensorImpl()->storage().get(), written_[i]);
    }
    std::sort(storages.begin(), storages.end());
    for (size_t i = 0; i + 1 < storages.size(); ++i) {
      // Sorted by storage, then unwritten before written: a shared one ends its run written.
      if (storages[i].first == storages[i + 1].first && storages[i + 1].second) return true;
    }
    return false;
  }

  // Intermediates are dropped after their last reader, so the caching allocator hands their
  // memory to the next buffers (the graph's outputs are kept).
  void plan_releases() {
    const std::vector<fx::Node>& nodes = gm_.graph().nodes();
    std::map<std::pair<int, int>, size_t> last;
    auto read = [&](fx::ValueRef v, size_t step) {
      if (!v.is_none()) last[{v.node, v.output}] = step;
    };
    for (size_t s = 0; s < schedule_.steps.size(); ++s) {
      const Step& st = schedule_.steps[s];
      if (st.is_kernel) {
        for (fx::ValueRef b : schedule_.kernels[st.index].buffers) read(b, s);
      } else {
        for (fx::ValueRef a : nodes[st.index].args) read(a, s);
        if (nodes[st.index].inplace_target) read(*nodes[st.index].inplace_target, s);
      }
    }
    for (fx::ValueRef a : nodes.back().args) last.erase({a.node, a.output});
    release_.resize(schedule_.steps.size());
    for (const auto& [v, s] : last) release_[s].push_back({v.first, v.second});
  }

  std::vector<Tensor> operator()(const std::vector<Tensor>& inputs) const override {
    const fx::Graph& g = gm_.graph();
    const std::vector<fx::Node>& nodes = g.nodes();
    fx::SymbolValues values = fx::detail::bind_inputs(g, inputs);
    std::vector<Tensor> env(slots_);  // one slot per value (first_[node] + output)
    auto value = [&](fx::ValueRef v) { return v.is_none() ? Tensor() : at(env, v); };
    size_t next_input = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i].kind == fx::NodeKind::Placeholder) env[first_[i]] = inputs[next_input++];
      if (nodes[i].kind == fx::NodeKind::GetAttr) env[first_[i]] = gm_.attrs().at(nodes[i].target);
    }
    if (writes_inputs_) {
      if (shares_written_memory(env)) return gm_(inputs);
      for (const auto& [v, input] : schedule_.aliases) at(env, v) = value(input);
    }
    std::vector<char*> bufs;
    std::vector<int64_t> sizes;
    for (size_t s = 0; s < schedule_.steps.size(); ++s) {
      const Step& st = schedule_.steps[s];
      run_step(st, env, value, values, bufs, sizes);
      for (fx::ValueRef v : release_[s]) at(env, v) = Tensor();
    }
    std::vector<Tensor> results;
    for (fx::ValueRef a : nodes.back().args) results.push_back(value(a));
    return results;
  }

  Tensor& at(std::vector<Tensor>& env, fx::ValueRef v) const {
    return env[first_[v.node] + v.output];
  }

  void run_step(const Step& st, std::vector<Tensor>& env,
                const std::function<Tensor(fx::ValueRef)>& value, fx::SymbolValues& values,
                std::vector<char*>& bufs, std::vector<int64_t>& sizes) const {
    const fx::Graph& g = gm_.graph();
    if (!st.is_kernel) {
      const fx::Node& n = g.nodes()[st.index];
      std::vector<Tensor> args;
      args.reserve(n.args.size());
      for (fx::ValueRef a : n.args) args.push_back(value(a));
      std::vector<Tensor> out = fx::detail::run_call(n, args, value, values);
      for (size_t k = 0; k < out.size(); ++k) env[first_[st.index] + k] = std::move(out[k]);
      return;
    }
    const Kernel& k = schedule_.kernels[st.index];
    const LoweredKernel& lk = kernels_[st.index];
    bufs.clear();
    for (size_t b = 0; b < k.buffers.size(); ++b) {
      Tensor& t = at(env, k.buffers[b]);
      if (!t.defined()) t = fx::detail::allocate(g.meta(k.buffers[b]), lk.symbol.c_str(), values);
      bufs.push_back(static_cast<char*>(t.data_ptr()));
    }
    sizes.clear();
    for (const SymInt& s : lk.size_args) sizes.push_back(fx::evaluate(s, values, lk.symbol));
    profiler::record_function scope(lk.symbol);
    lk.fn(bufs.data(), sizes.data());
    for (fx::ValueRef r : k.inplace_writes) at(env, r).unsafeGetTensorImpl()->bump_version();
  }

  std::vector<std::string> kernel_names() const override {
    std::vector<std::string> r;
    for (const LoweredKernel& k : kernels_) r.push_back(k.symbol);
    return r;
  }
  std::string source() const override { return source_; }
  std::string source_path() const override {
    std::string paths;
    for (const auto& lib : libraries_) paths += (paths.empty() ? "" : ", ") + lib->source_path();
    return paths;
  }

  const fx::GraphModule gm_;
  const Schedule schedule_;
  std::vector<size_t> first_;  // by node: its first output's slot in a call's values
  size_t slots_ = 0;
  std::vector<std::vector<fx::ValueRef>> release_;  // by step: values no later step reads
  std::vector<bool> written_;  // by node: an input or attribute a kernel writes in place
  bool writes_inputs_ = false;
  std::vector<LoweredKernel> kernels_;
  std::string source_;
  std::vector<std::shared_ptr<const KernelLibrary>> libraries_;  // the units holding its kernels
};

// "fused_mul_add_relu": the ops a kernel computes, in order (at most eight).
std::string base_name(const Kernel& k, const fx::Graph& g) {
  std::string name = "fused";
  int count = 0;
  int last = -1;
  for (const Temp& t : k.temps) {
    if (t.node < 0 || t.node == last) continue;
    last = t.node;
    std::string op = g.nodes()[t.node].op();
    while (!op.empty() && op.back() == '_') op.pop_back();
    if (++count > 8) return name + "_etc";
    name += "_" + op;
  }
  return name;
}

// Note [Lowering units]: the kernels of one lower() call are split into up to one source unit
// per hardware thread, each of at least kKernelsPerUnit kernels, in order and of about equal
// source size, and the code cache compiles the units in parallel: a training step's forward and
// backward graphs, lowered together, build in one cold compile that takes about half as long on
// two cores as one unit would. The split depends only on the kernels and the thread count, so
// a warm start finds the same units in the cache.
constexpr size_t kKernelsPerUnit = 16;

// The units' sources: `texts` (one kernel each) in order, cut into `n` runs of similar size.
std::vector<SourceUnit> split_units(const std::vector<std::string>& texts, size_t n,
                                    std::vector<size_t>& unit_of) {
  size_t total = 0;
  for (const std::string& t : texts) total += t.size();
  std::vector<SourceUnit> units;
  size_t done = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    // A new unit starts when the ones so far hold their share of the text.
    if (units.empty() || (units.size() < n && done * n >= total * units.size())) {
      const std::string name =
          n == 1 ? "ember_kernels" : "ember_kernels_" + std::to_string(units.size());
      units.push_back({name, emit_preamble()});
    }
    units.back().source += texts[i];
    unit_of.push_back(units.size() - 1);
    done += texts[i].size();
  }
  return units;
}

}  // namespace

std::vector<std::shared_ptr<const CompiledGraph>> lower(
    const std::vector<const fx::GraphModule*>& gms) {
  std::vector<std::shared_ptr<Lowered>> lowered;
  std::map<std::string, size_t> kernel_of_body;  // identical kernels are emitted once
  std::map<std::string, int> used;
  std::vector<std::string> symbols, texts;  // by unique kernel
  std::vector<std::vector<size_t>> uses;    // by graph: its kernels' indices in `symbols`
  for (const fx::GraphModule* source : gms) {
    // Calls of non-core primitives (the fused eager normalisations, ...) become their core
    // decompositions first, so that their pieces fuse with their neighbours (Note
    // [Decompositions]); the lowered graph keeps this copy.
    fx::Graph g = source->graph();
    fx::Attrs attrs = source->attrs();
    fx::decompose(g, attrs);
    Schedule sched = schedule(g);
    auto l = std::make_shared<Lowered>(fx::GraphModule(std::move(g), std::move(attrs)),
                                       std::move(sched));
    const fx::GraphModule* gm = &l->gm_;
    uses.emplace_back();
    for (const Kernel& k : l->schedule_.kernels) {
      LoweredKernel lk;
      const std::string body = emit_kernel(k, gm->graph(), "@", lk.size_args);
      const std::string base = base_name(k, gm->graph());
      auto key = base + "\n" + body;
      auto it = kernel_of_body.find(key);
      if (it == kernel_of_body.end()) {
        const int n = used[base]++;
        symbols.push_back(n ? base + "_" + std::to_string(n) : base);
        std::vector<SymInt> ignored;
        texts.push_back(emit_kernel(k, gm->graph(), symbols.back(), ignored) + "\n");
        it = kernel_of_body.emplace(key, symbols.size() - 1).first;
      }
      lk.symbol = symbols[it->second];
      uses.back().push_back(it->second);
      l->kernels_.push_back(std::move(lk));
    }
    lowered.push_back(std::move(l));
  }
  const size_t threads = std::max(1u, std::thread::hardware_concurrency());
  const size_t n = std::max<size_t>(1, std::min(threads, texts.size() / kKernelsPerUnit));
  std::vector<size_t> unit_of;
  const std::vector<std::shared_ptr<const KernelLibrary>> libs =
      load_sources(split_units(texts, n, unit_of));
  std::vector<std::shared_ptr<const CompiledGraph>> r;
  for (size_t gi = 0; gi < lowered.size(); ++gi) {
    Lowered& l = *lowered[gi];
    std::vector<size_t> shown;  // the kernels this graph's source() lists, once each
    for (size_t k = 0; k < l.kernels_.size(); ++k) {
      const size_t u = uses[gi][k];
      l.kernels_[k].fn = reinterpret_cast<KernelFn>(libs[unit_of[u]]->symbol(symbols[u]));
      if (std::find(shown.begin(), shown.end(), u) != shown.end()) continue;
      shown.push_back(u);
      l.source_ += texts[u];
      if (std::find(l.libraries_.begin(), l.libraries_.end(), libs[unit_of[u]]) ==
          l.libraries_.end()) {
        l.libraries_.push_back(libs[unit_of[u]]);
      }
    }
    if (!l.kernels_.empty()) l.source_ = emit_preamble() + l.source_;
    r.push_back(std::move(lowered[gi]));
  }
  return r;
}

std::shared_ptr<const CompiledGraph> lower(const fx::GraphModule& gm) {
  return lower(std::vector<const fx::GraphModule*>{&gm})[0];
}

}  // namespace ember::compiler
