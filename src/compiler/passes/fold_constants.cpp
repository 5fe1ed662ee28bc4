// Constant folding (Note [Graph passes]). Constants are the calls with no tensor arguments
// (fills, aranges: factories other than random ops), the tensors make_fx captured
// ("_tensor_constant*" attributes, copies taken when traced), and calls of constants alone.
// They run once here, through dispatch (the interpreter's run_call), and those that something
// non-constant reads become a fill when all their elements are equal (the lowering folds fills
// into its kernels as literals) or a new attribute. Factories themselves and views stay as they
// are (nothing to save), and so does anything larger than the options allow.
#include <cstring>

#include "compiler/interpret.h"
#include "compiler/meta.h"
#include "compiler/passes/rewrite.h"
#include "ember/autograd.h"
#include "ember/fx/passes.h"
#include "primitives/copy.h"

namespace ember::fx {

namespace {

int64_t numel_of(const ValueMeta& m) {
  int64_t n = 1;
  for (const SymInt& s : m.sizes) n *= s.hint();
  return n;
}

// The value every element of `t` has, when they are all equal bit for bit.
std::optional<Scalar> splat_value(const Tensor& t) {
  if (t.numel() == 0 || t.dtype() == kComplexFloat || !t.device().is_cpu()) return std::nullopt;
  const Tensor c = t.contiguous();
  const size_t size = element_size(c.dtype());
  const char* data = static_cast<const char*>(c.data_ptr());
  for (int64_t k = 1; k < c.numel(); ++k) {
    if (std::memcmp(data, data + k * size, size) != 0) return std::nullopt;
  }
  return c.reshape({-1})[0].item();
}

bool folded_attr_name_free(const Attrs& attrs, const std::string& name) {
  return attrs.find(name) == attrs.end();
}

}  // namespace

int fold_constants(Graph& graph, Attrs& attrs, const ConstantFoldingOptions& options) {
  const auto& nodes = graph.nodes();
  const detail::WrittenValues written(graph);
  std::vector<std::vector<Tensor>> value(nodes.size());
  std::vector<bool> constant(nodes.size(), false);
  auto value_of = [&](ValueRef v) { return v.is_none() ? Tensor() : value[v.node][v.output]; };
  NoGradGuard no_grad;  // the folded values are data, not part of any autograd graph
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    if (written.any(i)) continue;
    if (n.kind == NodeKind::GetAttr) {
      // Captured copies only: a captured tensor that requires grad is held by reference.
      auto it = attrs.find(n.target);
      if (n.target.rfind("_tensor_constant", 0) == 0 && it != attrs.end() &&
          !it->second.requires_grad()) {
        constant[i] = true;
        value[i] = {it->second};
      }
      continue;
    }
    if (n.kind != NodeKind::Call || detail::has_effects(n) ||
        fx::detail::has_symbolic_params(*n.prim)) {
      continue;
    }
    bool ok = true;
    for (ValueRef a : n.args) ok = ok && (a.is_none() || constant[a.node]);
    for (const ValueMeta& m : n.outputs) {
      ok = ok && !detail::is_symbolic(m) && numel_of(m) <= options.max_eval_numel;
    }
    if (!ok) continue;
    std::vector<Tensor> args;
    for (ValueRef a : n.args) args.push_back(value_of(a));
    try {
      SymbolValues none;  // constants have static shapes
      value[i] = fx::detail::run_call(n, args, value_of, none);
    } catch (const Error&) {
      continue;  // not computable here (a data-dependent check): left to run time
    }
    constant[i] = true;
  }
  // Constants read by something that is not constant.
  std::vector<bool> frontier(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    if (constant[i]) continue;
    for (ValueRef a : n.args) {
      if (!a.is_none()) frontier[a.node] = true;
    }
    if (n.inplace_target) frontier[n.inplace_target->node] = true;
  }
  detail::GraphRebuilder b(graph);
  int replaced = 0, next_name = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    if (!constant[i] || !frontier[i] || n.kind != NodeKind::Call || n.args.empty() ||
        n.prim->is_view()) {
      b.copy(i);
      continue;
    }
    // Every output as a fill or an attribute, or the call stays.
    std::vector<std::pair<std::optional<Scalar>, bool>> how;  // (fill value, as attribute)
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      const Tensor& t = value[i][k];
      auto splat = splat_value(t);
      const bool attr = !splat && numel_of(n.outputs[k]) <= options.max_numel &&
                        detail::same_layout(ValueMeta::of(t), n.outputs[k]);
      if (!splat && !attr) break;
      how.emplace_back(splat, attr);
    }
    if (how.size() != n.outputs.size()) {
      b.copy(i);
      continue;
    }
    std::vector<ValueRef> values;
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      ValueMeta m = n.outputs[k];
      m.requires_grad = false;
      if (how[k].first) {
        auto fill = std::make_shared<Fill>(*how[k].first,
                                           std::vector<SymInt>(m.sizes.begin(), m.sizes.end()),
                                           m.dtype, m.device.type());
        values.push_back(
            {b.graph().call(n.name, std::move(fill), {}, std::nullopt, /*alloc_outputs=*/true, {m}),
             0});
        continue;
      }
      std::string name;
      do {
        name = "_folded_constant" + std::to_string(next_name++);
      } while (!folded_attr_name_free(attrs, name));
      attrs[name] = value[i][k];
      values.push_back(b.graph().get_attr(name, name, m));
    }
    b.replace(i, std::move(values));
    ++replaced;
  }
  if (replaced == 0) return 0;
  graph = b.finish();
  return replaced;
}

}  // namespace ember::fx
