// Note [Graph passes] (ember/fx/passes.h): the helpers every pass uses.
#include "compiler/passes/rewrite.h"

#include <numeric>

#include "compiler/meta.h"
#include "dispatch/primitive.h"

namespace ember::fx::detail {

GraphRebuilder::GraphRebuilder(const Graph& old) : old_(old), remap_(old.nodes().size()) {}

ValueRef GraphRebuilder::map(ValueRef old) const {
  if (old.is_none()) return old;
  const auto& values = remap_.at(old.node);
  EMBER_INTERNAL_ASSERT(static_cast<size_t>(old.output) < values.size(),
                        "[passes] a value used before its node was copied or replaced");
  return values[old.output];
}

void GraphRebuilder::replace(size_t i, std::vector<ValueRef> values) {
  remap_.at(i) = std::move(values);
}

int GraphRebuilder::copy(size_t i) {
  const Node& n = old_.nodes().at(i);
  int index = -1;
  switch (n.kind) {
    case NodeKind::Placeholder:
      index = new_.placeholder(n.name, n.outputs[0]).node;
      break;
    case NodeKind::GetAttr:
      index = new_.get_attr(n.name, n.target, n.outputs[0]).node;
      break;
    case NodeKind::Call: {
      std::vector<ValueRef> args;
      args.reserve(n.args.size());
      for (ValueRef a : n.args) args.push_back(map(a));
      std::optional<ValueRef> target;
      if (n.inplace_target) target = map(*n.inplace_target);
      index = new_.call(n.name, n.prim, std::move(args), target, n.alloc_outputs, n.outputs);
      new_.mutable_nodes()[index].subgraphs = n.subgraphs;
      break;
    }
    case NodeKind::Output: {
      std::vector<ValueRef> results;
      for (ValueRef a : n.args) results.push_back(map(a));
      new_.output(std::move(results));
      index = static_cast<int>(new_.nodes().size()) - 1;
      break;
    }
  }
  std::vector<ValueRef> values;
  for (size_t k = 0; k < n.outputs.size(); ++k) values.push_back({index, static_cast<int>(k)});
  remap_[i] = std::move(values);
  return index;
}

Graph GraphRebuilder::finish() {
  new_.verify();
  return std::move(new_);
}

WrittenValues::WrittenValues(const Graph& g) {
  const auto& nodes = g.nodes();
  std::vector<size_t> first(nodes.size() + 1, 0);
  for (size_t i = 0; i < nodes.size(); ++i) first[i + 1] = first[i] + nodes[i].outputs.size();
  std::vector<size_t> parent(first.back());
  std::iota(parent.begin(), parent.end(), size_t{0});
  auto find = [&](size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  auto id = [&](ValueRef v) { return first[v.node] + v.output; };
  std::vector<size_t> targets;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    if (n.kind != NodeKind::Call) continue;
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      const auto in = n.prim->aliased_input(k);
      if (in && *in < n.args.size() && !n.args[*in].is_none()) {
        parent[find(id({static_cast<int>(i), static_cast<int>(k)}))] = find(id(n.args[*in]));
      }
    }
    if (n.inplace_target) {
      parent[find(id({static_cast<int>(i), 0}))] = find(id(*n.inplace_target));
      targets.push_back(id(*n.inplace_target));
    }
  }
  std::vector<bool> root_written(parent.size(), false);
  for (size_t t : targets) root_written[find(t)] = true;
  written_.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (size_t k = 0; k < nodes[i].outputs.size(); ++k) {
      written_[i].push_back(root_written[find(first[i] + k)]);
    }
  }
}

bool WrittenValues::any(size_t i) const {
  for (bool w : written_.at(i)) {
    if (w) return true;
  }
  return false;
}

bool has_effects(const Node& n) {
  if (n.kind != NodeKind::Call) return false;
  if (n.prim->inplace() || n.inplace_target || !n.subgraphs.empty()) return true;
  const PrimitiveKind k = n.prim->kind();
  return k == PrimitiveKind::Random || k == PrimitiveKind::ScaledDotProductAttention ||
         k == PrimitiveKind::ScaledDotProductAttentionBackward;
}

bool same_layout(const ValueMeta& a, const ValueMeta& b) {
  return same_as(a.sizes, b.sizes) && same_as(a.strides, b.strides) && a.dtype == b.dtype &&
         a.device == b.device && a.storage_offset.same_as(b.storage_offset);
}

std::optional<MetaList> infer_on(const Primitive& prim, const Graph& g,
                                 const std::vector<ValueRef>& args) {
  if (!prim.infers()) return std::nullopt;
  std::vector<TensorMeta> in;
  for (ValueRef a : args) {
    in.push_back(a.is_none() || !g.meta(a).defined() ? TensorMeta{} : to_tensor_meta(g.meta(a)));
  }
  try {
    return prim.infer(in);
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace ember::fx::detail
