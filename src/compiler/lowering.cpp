// lower(): schedule each graph (scheduler.cpp), emit its kernels (codegen.cpp) into one source
// unit, compile and load it through the code cache, and run it (Note [Lowering]).
#include "compiler/lowering.h"

#include <algorithm>
#include <map>

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
    plan_releases();
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
    std::vector<std::vector<Tensor>> env(nodes.size());
    auto value = [&](fx::ValueRef v) { return v.is_none() ? Tensor() : env[v.node][v.output]; };
    size_t next_input = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      env[i].resize(nodes[i].outputs.size());
      if (nodes[i].kind == fx::NodeKind::Placeholder) env[i] = {inputs[next_input++]};
      if (nodes[i].kind == fx::NodeKind::GetAttr) env[i] = {gm_.attrs().at(nodes[i].target)};
    }
    std::vector<char*> bufs;
    std::vector<int64_t> sizes;
    for (size_t s = 0; s < schedule_.steps.size(); ++s) {
      const Step& st = schedule_.steps[s];
      run_step(st, env, value, values, bufs, sizes);
      for (fx::ValueRef v : release_[s]) env[v.node][v.output] = Tensor();
    }
    std::vector<Tensor> results;
    for (fx::ValueRef a : nodes.back().args) results.push_back(value(a));
    return results;
  }

  void run_step(const Step& st, std::vector<std::vector<Tensor>>& env,
                const std::function<Tensor(fx::ValueRef)>& value, fx::SymbolValues& values,
                std::vector<char*>& bufs, std::vector<int64_t>& sizes) const {
    const fx::Graph& g = gm_.graph();
    if (!st.is_kernel) {
      const fx::Node& n = g.nodes()[st.index];
      std::vector<Tensor> args;
      args.reserve(n.args.size());
      for (fx::ValueRef a : n.args) args.push_back(value(a));
      env[st.index] = fx::detail::run_call(n, args, value, values);
      return;
    }
    const Kernel& k = schedule_.kernels[st.index];
    const LoweredKernel& lk = kernels_[st.index];
    bufs.clear();
    for (size_t b = 0; b < k.buffers.size(); ++b) {
      Tensor& t = env[k.buffers[b].node][k.buffers[b].output];
      if (!t.defined()) t = fx::detail::allocate(g.meta(k.buffers[b]), lk.symbol.c_str(), values);
      bufs.push_back(static_cast<char*>(t.data_ptr()));
    }
    sizes.clear();
    for (const SymInt& s : lk.size_args) sizes.push_back(fx::evaluate(s, values, lk.symbol));
    profiler::record_function scope(lk.symbol);
    lk.fn(bufs.data(), sizes.data());
  }

  std::vector<std::string> kernel_names() const override {
    std::vector<std::string> r;
    for (const LoweredKernel& k : kernels_) r.push_back(k.symbol);
    return r;
  }
  std::string source() const override { return source_; }
  std::string source_path() const override { return library_ ? library_->source_path() : ""; }

  const fx::GraphModule gm_;
  const Schedule schedule_;
  std::vector<std::vector<fx::ValueRef>> release_;  // by step: values no later step reads
  std::vector<LoweredKernel> kernels_;
  std::string source_;
  std::shared_ptr<const KernelLibrary> library_;
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

}  // namespace

std::vector<std::shared_ptr<const CompiledGraph>> lower(
    const std::vector<const fx::GraphModule*>& gms) {
  std::vector<std::shared_ptr<Lowered>> lowered;
  std::string unit = emit_preamble();
  std::map<std::string, std::string> symbol_of_body;  // identical kernels are emitted once
  std::map<std::string, int> used;
  std::map<std::string, std::string> text_of;  // by symbol
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
    std::vector<std::string> shown;  // the kernels this graph's source() lists
    for (const Kernel& k : l->schedule_.kernels) {
      LoweredKernel lk;
      const std::string body = emit_kernel(k, gm->graph(), "@", lk.size_args);
      const std::string base = base_name(k, gm->graph());
      auto key = base + "\n" + body;
      if (auto it = symbol_of_body.find(key); it != symbol_of_body.end()) {
        lk.symbol = it->second;
      } else {
        const int n = used[base]++;
        lk.symbol = n ? base + "_" + std::to_string(n) : base;
        std::vector<SymInt> ignored;
        text_of[lk.symbol] = emit_kernel(k, gm->graph(), lk.symbol, ignored) + "\n";
        unit += text_of[lk.symbol];
        symbol_of_body[key] = lk.symbol;
      }
      if (std::find(shown.begin(), shown.end(), lk.symbol) == shown.end()) {
        shown.push_back(lk.symbol);
        l->source_ += text_of[lk.symbol];
      }
      l->kernels_.push_back(std::move(lk));
    }
    lowered.push_back(std::move(l));
  }
  std::shared_ptr<const KernelLibrary> lib;
  if (!text_of.empty()) {
    lib = load_source({"ember_kernels", unit});
  }
  std::vector<std::shared_ptr<const CompiledGraph>> r;
  for (auto& l : lowered) {
    if (lib && !l->kernels_.empty()) {
      l->library_ = lib;
      l->source_ = emit_preamble() + l->source_;
      for (LoweredKernel& lk : l->kernels_)
        lk.fn = reinterpret_cast<KernelFn>(lib->symbol(lk.symbol));
    }
    r.push_back(std::move(l));
  }
  return r;
}

std::shared_ptr<const CompiledGraph> lower(const fx::GraphModule& gm) {
  return lower(std::vector<const fx::GraphModule*>{&gm})[0];
}

}  // namespace ember::compiler
