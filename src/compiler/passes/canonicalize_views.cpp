// View canonicalisation (Note [Graph passes]): a view of a view becomes one view of the first
// view's input when one primitive gives exactly the same sizes, strides and offset, and a view
// that changes nothing is dropped. Fewer views mean fewer nodes for the other passes and equal
// chains that CSE can merge. Static shapes only: composing symbolic views would ask the shape
// environment new questions (guards) after tracing.
#include <set>

#include "compiler/meta.h"
#include "compiler/passes/rewrite.h"
#include "ember/fx/passes.h"
#include "primitives/view.h"

namespace ember::fx {

namespace {

bool shape_only(PrimitiveKind k) {
  return k == PrimitiveKind::Reshape || k == PrimitiveKind::Squeeze ||
         k == PrimitiveKind::Unsqueeze || k == PrimitiveKind::Alias;
}

bool canonical_kind(PrimitiveKind k) {
  return shape_only(k) || k == PrimitiveKind::Permute || k == PrimitiveKind::Expand;
}

// The one view that does what `outer` applied to `inner`'s result does, or null.
std::shared_ptr<const Primitive> compose(const Node& outer, const Node& inner) {
  const PrimitiveKind o = outer.prim->kind(), i = inner.prim->kind();
  if (shape_only(o) && shape_only(i)) {
    const SmallVector<SymInt, 6>& sizes = outer.outputs[0].sizes;
    ShapeParams p{std::vector<SymInt>(sizes.begin(), sizes.end())};
    auto r = std::make_shared<Reshape>(p);
    if (o == PrimitiveKind::Reshape) r->set_display_name(outer.prim->name());  // reshape, flatten
    return r;
  }
  if (o == PrimitiveKind::Permute && i == PrimitiveKind::Permute) {
    const auto& od = static_cast<const Permute&>(*outer.prim).params().dims;
    const auto& id = static_cast<const Permute&>(*inner.prim).params().dims;
    DimsParams p;
    for (int64_t d : od) p.dims.push_back(id.at(static_cast<size_t>(d)));
    auto r = std::make_shared<Permute>(p);
    r->set_display_name(outer.prim->name());
    return r;
  }
  if (o == PrimitiveKind::Expand && i == PrimitiveKind::Expand) return outer.prim;
  return nullptr;
}

}  // namespace

int canonicalize_views(Graph& graph) {
  const auto& nodes = graph.nodes();
  const detail::WrittenValues written(graph);
  std::set<int> returned;
  for (ValueRef a : nodes.back().args) returned.insert(a.node);
  detail::GraphRebuilder b(graph);
  int changed = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    if (n.kind != NodeKind::Call || !n.prim->is_view() || n.args.size() != 1 ||
        n.args[0].is_none() || detail::has_effects(n) || written.any(i) ||
        detail::is_symbolic(n.outputs[0]) || !canonical_kind(n.prim->kind())) {
      b.copy(i);
      continue;
    }
    const Graph& g = b.graph();
    ValueRef src = b.map(n.args[0]);
    std::shared_ptr<const Primitive> prim = n.prim;
    const Node& inner = g.nodes()[src.node];
    if (inner.kind == NodeKind::Call && inner.prim->is_view() && inner.args.size() == 1 &&
        !inner.args[0].is_none() && !detail::has_effects(inner) &&
        canonical_kind(inner.prim->kind())) {
      if (auto c = compose(n, inner)) {
        const ValueRef root = inner.args[0];
        const auto metas = detail::infer_on(*c, g, {root});
        if (metas && metas->size() == 1 &&
            g.meta(root).storage_offset.same_as(n.outputs[0].storage_offset)) {
          ValueMeta m = n.outputs[0];
          const TensorMeta& t = (*metas)[0];
          if (same_as(t.sizes, m.sizes) && same_as(t.strides, m.strides) && t.dtype == m.dtype) {
            src = root;
            prim = c;
            ++changed;
          }
        }
      }
    }
    if (!returned.count(static_cast<int>(i)) && detail::same_layout(g.meta(src), n.outputs[0])) {
      b.replace(i, {src});  // a view that changes nothing
      changed += prim == n.prim;
      continue;
    }
    if (prim == n.prim && src == b.map(n.args[0])) {
      b.copy(i);
      continue;
    }
    const int index = b.graph().call(n.name, prim, {src}, std::nullopt, n.alloc_outputs, n.outputs);
    b.replace(i, {{index, 0}});
  }
  if (changed == 0) return 0;
  graph = b.finish();
  return changed;
}

}  // namespace ember::fx
