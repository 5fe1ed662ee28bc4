// The graph interpreter: runs each node through dispatch, exactly as the traced program did
// (the same primitives, the same in-place writes, the same output allocation), so autograd and
// every dispatch mode see what they saw in eager mode. It is the reference the compiler's
// generated code is held against.
#include "compiler/interpret.h"
#include "compiler/meta.h"
#include "compiler/symbolic.h"
#include "dispatch/dispatch.h"
#include "ember/fx/graph_module.h"

namespace ember::fx {

namespace {

// Note [Symbolic shapes]: a dim recorded as a symbol takes the input's size, which must lie in
// the symbol's range and agree with the other inputs giving the same symbol.
void bind_symbols(const Node& p, size_t i, const Tensor& t, SymbolValues& values,
                  std::map<std::string, size_t>& bound_by) {
  const ValueMeta& want = p.outputs[0];
  if (!t.defined() || !detail::is_symbolic(want) ||
      t.dim() != static_cast<int64_t>(want.sizes.size())) {
    return;  // check_input reports the mismatch
  }
  for (size_t d = 0; d < want.sizes.size(); ++d) {
    // A dim that is a*s + b (a symbol, or a derived dim of one) gives the symbol's value.
    const auto affine = as_affine(want.sizes[d]);
    if (!affine) continue;
    const std::string& name = affine->symbol;
    const int64_t size = t.size(static_cast<int64_t>(d));
    const SymbolInfo* si = env_of(want.sizes[d])->find(name);
    EMBER_CHECK_VALUE((size - affine->b) % affine->a == 0, "[GraphModule] input ", i, " ('", p.name,
                      "') has size ", size, " in dim ", d, ", which is not of the form ",
                      want.sizes[d].str(), " (", si->dim, " = ", name,
                      ") the graph was traced for");
    const int64_t value = (size - affine->b) / affine->a;
    // Sizes below the traced range down to the Dim's own min run too (Note [Symbolic shapes]).
    EMBER_CHECK_VALUE(value >= si->runtime_min && value <= si->max, "[GraphModule] input ", i,
                      " ('", p.name, "') has size ", size, " in dim ", d, ", so ", si->dim, " (",
                      name, ") is ", value, ", outside the range [", si->runtime_min, ", ", si->max,
                      "] the graph was traced for");
    auto [it, fresh] = values.try_emplace(name, value);
    EMBER_CHECK_VALUE(fresh || it->second == value, "[GraphModule] input ", i, " ('", p.name,
                      "') has size ", size, " in dim ", d, ", so ", si->dim, " (", name, ") is ",
                      value, ", but it is ", it->second, " in input ", bound_by[name],
                      ": the graph was traced with equal sizes there");
    bound_by.try_emplace(name, i);
  }
}

void check_input(const Node& p, size_t i, const Tensor& t, const SymbolValues& values) {
  ValueMeta got = ValueMeta::of(t), want = p.outputs[0];
  got.requires_grad = want.requires_grad = false;
  if (detail::is_symbolic(want) && got.defined() && got.sizes.size() == want.sizes.size()) {
    for (size_t d = 0; d < want.sizes.size(); ++d) {
      want.sizes[d] = evaluate(want.sizes[d], values, "GraphModule");
      want.strides[d] = evaluate(want.strides[d], values, "GraphModule");
    }
  }
  // Views are recorded with their geometry, so the graph holds for the traced layout only.
  EMBER_CHECK_VALUE(got == want, "[GraphModule] input ", i, " ('", p.name, "') expected ",
                    p.outputs[0].str(), " as traced (the graph is specialised to its inputs' ",
                    "dtype, device, sizes, strides and storage offset, except for dynamic dims), ",
                    "got ", got.str());
}

// A call's primitive with the symbols in its parameters replaced by this run's values (a traced
// reshape to [s0, 8] runs as a reshape to [5, 8]); the primitive itself when it has none.
class Substitute final : public ParamVisitor {
 public:
  explicit Substitute(const SymbolValues& values) : values_(values) {}
  bool symbolic = false;
  void i64(const char*, int64_t&) override {}
  void u64(const char*, uint64_t&) override {}
  void f64(const char*, double&) override {}
  void boolean(const char*, bool&) override {}
  void scalar(const char*, Scalar&) override {}
  void enumeration(const char*, int&, const EnumInfo&) override {}
  void text(const char*, std::string&) override {}
  void i64_list(const char*, std::vector<int64_t>&) override {}
  void sym_list(const char*, std::vector<SymInt>& v) override {
    for (SymInt& s : v) {
      if (!s.is_symbolic()) continue;
      symbolic = true;
      if (!values_.empty()) s = evaluate(s, values_, "GraphModule");
    }
  }
  bool optional(const char*, bool present) override { return present; }

 private:
  const SymbolValues& values_;
};

std::shared_ptr<const Primitive> specialised(const std::shared_ptr<const Primitive>& prim,
                                             const SymbolValues& values) {
  if (values.empty() || !detail::has_symbolic_params(*prim)) return prim;
  auto copy = std::const_pointer_cast<Primitive>(prim->clone());
  Substitute sub(values);
  copy->visit_params(sub);
  return copy;
}

}  // namespace

GraphModule::GraphModule(Graph graph, std::map<std::string, Tensor> attrs)
    : graph_(std::move(graph)), attrs_(std::move(attrs)) {
  graph_.verify();
  for (const Node& n : graph_.nodes()) {
    EMBER_CHECK_VALUE(n.kind != NodeKind::GetAttr || attrs_.count(n.target), "[GraphModule] node '",
                      n.name, "' reads attribute '", n.target, "', which the module does not hold");
  }
}

namespace detail {

SymbolValues bind_inputs(const Graph& graph, const std::vector<Tensor>& inputs) {
  const std::vector<Node>& nodes = graph.nodes();
  EMBER_CHECK_VALUE(inputs.size() == graph.num_placeholders(), "[GraphModule] expected ",
                    graph.num_placeholders(), " inputs, got ", inputs.size());
  SymbolValues values;  // Note [Symbolic shapes]: the dynamic dims' sizes for this run
  std::map<std::string, size_t> bound_by;
  size_t k = 0;
  for (const Node& n : nodes) {
    if (n.kind != NodeKind::Placeholder) continue;
    bind_symbols(n, k, inputs[k], values, bound_by);
    ++k;
  }
  k = 0;
  std::shared_ptr<ShapeEnv> env;
  for (const Node& n : nodes) {
    if (n.kind != NodeKind::Placeholder) continue;
    check_input(n, k, inputs[k], values);
    for (const SymInt& s : n.outputs[0].sizes) env = env ? env : env_of(s);
    ++k;
  }
  // Note [Assumptions]: the facts the trace relied on hold for these inputs too (PyTorch's
  // runtime asserts raise RuntimeError with this wording).
  if (env) {
    if (auto broken = broken_assumption(*env, values, "GraphModule")) {
      EMBER_THROW(RuntimeError, "[GraphModule] Runtime assertion failed for expression ", *broken,
                  ": the inputs break an assumption the graph was traced with");
    }
  }
  return values;
}

std::vector<Tensor> run_call(const Node& n, const std::vector<Tensor>& args,
                             const std::function<Tensor(ValueRef)>& value, SymbolValues& values) {
  const std::shared_ptr<const Primitive> prim = specialised(n.prim, values);
  const char* op = prim->name();
  std::vector<Tensor> outs;
  if (prim->inplace()) {
    // The target, or the fresh tensor the op builder made; other outputs are fresh too.
    outs.push_back(n.inplace_target ? value(*n.inplace_target)
                                    : allocate(n.outputs[0], op, values));
    for (size_t k = 1; k < n.outputs.size(); ++k) {
      outs.push_back(allocate(n.outputs[k], op, values));
    }
  } else if (n.alloc_outputs) {
    for (const ValueMeta& m : n.outputs) outs.push_back(allocate(m, op, values));
  }
  std::vector<Tensor> result = dispatch(*prim, args, std::move(outs));
  EMBER_CHECK(result.size() == n.outputs.size(), "[GraphModule] node '", n.name, "' (", op,
              ") produced ", result.size(), " outputs, the graph records ", n.outputs.size());
  // Note [Unbacked symbols]: a size only this call's data decides binds its symbol here.
  for (size_t k = 0; k < result.size(); ++k) {
    const ValueMeta& m = n.outputs[k];
    if (!result[k].defined() || m.sizes.size() != static_cast<size_t>(result[k].dim())) continue;
    for (size_t d = 0; d < m.sizes.size(); ++d) {
      const auto name = as_symbol(m.sizes[d]);
      if (!name || values.count(*name) || !env_of(m.sizes[d])->find(*name)->unbacked) continue;
      values.emplace(*name, result[k].size(static_cast<int64_t>(d)));
    }
  }
  return result;
}

}  // namespace detail

std::vector<Tensor> GraphModule::operator()(const std::vector<Tensor>& inputs) const {
  const std::vector<Node>& nodes = graph_.nodes();
  SymbolValues values = detail::bind_inputs(graph_, inputs);
  std::vector<std::vector<Tensor>> env(nodes.size());
  auto value = [&](ValueRef v) { return v.is_none() ? Tensor() : env[v.node][v.output]; };
  size_t next_input = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    switch (n.kind) {
      case NodeKind::Placeholder:
        env[i] = {inputs[next_input++]};
        break;
      case NodeKind::GetAttr:
        env[i] = {attrs_.at(n.target)};
        break;
      case NodeKind::Call: {
        std::vector<Tensor> args;
        args.reserve(n.args.size());
        for (ValueRef a : n.args) args.push_back(value(a));
        env[i] = detail::run_call(n, args, value, values);
        break;
      }
      case NodeKind::Output: {
        std::vector<Tensor> results;
        for (ValueRef a : n.args) results.push_back(value(a));
        return results;
      }
    }
  }
  EMBER_THROW(ValueError, "[GraphModule] the graph has no output node");
}

namespace detail {

bool has_symbolic_params(const Primitive& prim) {
  static const SymbolValues none;
  Substitute probe(none);
  prim.visit_params(probe);
  return probe.symbolic;
}

}  // namespace detail

}  // namespace ember::fx
