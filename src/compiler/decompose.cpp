// The decomposition pass and the core opset table (Note [Decompositions] in decompose.h).
#include "compiler/decompose.h"

#include "compiler/logs.h"
#include "compiler/passes/rewrite.h"
#include "dispatch/primitive.h"
#include "ember/fx/passes.h"

namespace ember::fx {

namespace {

enum class Role : uint8_t { Core, Decomposed, CoreExcept };

struct RoleOf {
  Role role;
  const char* why;
};

constexpr const char* kFused = "the lowering fuses it (a pointwise, reduction or view node)";
constexpr const char* kLibrary = "a library kernel (GEMM, convolution, attention, linalg, sort)";
constexpr const char* kData = "indexing, scatter or data-dependent: a call of its own";

// The core opset, one row per kind. A new kind fails to compile here until it is given a role.
RoleOf role_of(PrimitiveKind kind) {
  switch (kind) {
    case PrimitiveKind::Unary:
    case PrimitiveKind::Binary:
    case PrimitiveKind::Where:
    case PrimitiveKind::MaskedFill:
    case PrimitiveKind::Copy:
    case PrimitiveKind::Fill:
    case PrimitiveKind::Reduce:
    case PrimitiveKind::Softmax:
    case PrimitiveKind::UnaryBackward:  // with eager's functor (sigmoid, tanh, silu, gelu)
      return {Role::Core, kFused};
    case PrimitiveKind::Clamp:
      return {Role::CoreExcept,
              "clamp with scalar bounds is fused as it is; with tensor bounds it decomposes to "
              "maximum and minimum"};
    case PrimitiveKind::Lerp:
      return {Role::Decomposed, "start + weight * (end - start), two-sided as the kernel"};
    case PrimitiveKind::Addc:
      return {Role::Decomposed, "self + value * tensor1 * tensor2 (or / tensor2)"};
    case PrimitiveKind::IsClose:
      return {Role::Decomposed, "|a - b| <= atol + |rtol * b|, or a == b, as torch.isclose"};
    case PrimitiveKind::SoftmaxBackward:
      return {Role::Decomposed, "y * (g - sum(g * y)), or g - exp(y) * sum(g) after log_softmax"};
    case PrimitiveKind::LayerNorm:
    case PrimitiveKind::RmsNorm:
      return {Role::Decomposed, "the statistics (var_mean / mean of squares), rsqrt and affine"};
    case PrimitiveKind::LayerNormBackward:
    case PrimitiveKind::RmsNormBackward:
      return {Role::Decomposed, "the closed-form gradients from the saved statistics"};
    case PrimitiveKind::AsStrided:
    case PrimitiveKind::Alias:
    case PrimitiveKind::Reshape:
    case PrimitiveKind::Squeeze:
    case PrimitiveKind::Unsqueeze:
    case PrimitiveKind::Permute:
    case PrimitiveKind::Expand:
    case PrimitiveKind::StridedSlice:
    case PrimitiveKind::Select:
    case PrimitiveKind::Diagonal:
    case PrimitiveKind::ViewDtype:
      return {Role::Core, "a view: strides of the kernels' indexing"};
    case PrimitiveKind::Range:
    case PrimitiveKind::Random:
      return {Role::Core, "a factory"};
    case PrimitiveKind::Scan:
    case PrimitiveKind::Cat:
    case PrimitiveKind::Flip:
    case PrimitiveKind::Roll:
    case PrimitiveKind::Repeat:
    case PrimitiveKind::Triangle:
    case PrimitiveKind::Pad:
      return {Role::Core, "a data movement or scan kernel of its own (as aten's core opset)"};
    case PrimitiveKind::Matmul:
    case PrimitiveKind::Convolution:
    case PrimitiveKind::SlidingWindow:
    case PrimitiveKind::Pooling:
    case PrimitiveKind::Upsample:
    case PrimitiveKind::ScaledDotProductAttention:
    case PrimitiveKind::ScaledDotProductAttentionBackward:
    case PrimitiveKind::SortSelect:
    case PrimitiveKind::LinalgCholesky:
    case PrimitiveKind::LinalgLuFactor:
    case PrimitiveKind::LinalgLuSolve:
    case PrimitiveKind::LinalgSolve:
    case PrimitiveKind::LinalgSolveTriangular:
    case PrimitiveKind::LinalgEigh:
    case PrimitiveKind::LinalgSvd:
    case PrimitiveKind::LinalgQr:
    case PrimitiveKind::LinalgHouseholderProduct:
    case PrimitiveKind::LinalgDet:
      return {Role::Core, kLibrary};
    case PrimitiveKind::Index:
    case PrimitiveKind::IndexPut:
    case PrimitiveKind::Nonzero:
    case PrimitiveKind::IndexSelect:
    case PrimitiveKind::Gather:
    case PrimitiveKind::Scatter:
    case PrimitiveKind::IndexUpdate:
    case PrimitiveKind::Take:
    case PrimitiveKind::MaskedScatter:
    case PrimitiveKind::Bincount:
    case PrimitiveKind::Histc:
    case PrimitiveKind::Unique:
    case PrimitiveKind::SearchSorted:
    case PrimitiveKind::EmbeddingBag:
      return {Role::Core, kData};
    case PrimitiveKind::FusedAdam:
    case PrimitiveKind::FusedSgd:
    case PrimitiveKind::FusedAdagrad:
      return {Role::Core,
              "eager only: a trace records the optimizer's elementwise ops instead (Note [Fused "
              "Adam])"};
  }
  return {Role::Core, ""};
}

const char* role_name(Role r) {
  switch (r) {
    case Role::Core:
      return "core";
    case Role::Decomposed:
      return "decomposed";
    case Role::CoreExcept:
      return "core except some ops";
  }
  return "?";
}

// Node `n`'s decomposition spliced into `b` in place of old node `i`, or false (nothing added)
// when it cannot be: `why` says why.
bool splice(const Graph& graph, size_t i, detail::GraphRebuilder& b, Attrs& attrs,
            std::string& why) {
  const Node& n = graph.nodes()[i];
  std::vector<ValueMeta> metas;
  for (ValueRef a : n.args) metas.push_back(a.is_none() ? ValueMeta::of(Tensor()) : graph.meta(a));
  GraphModule sub;
  try {
    const std::shared_ptr<const Primitive> prim = n.prim;
    sub = detail::trace_on_meta(
        [prim](const std::vector<Tensor>& xs) { return prim->decompose(xs); }, metas);
  } catch (const Error& e) {
    why = std::string("tracing its decomposition failed: ") + e.what();
    return false;
  }
  const auto& sn = sub.graph().nodes();
  const std::vector<ValueRef>& results = sn.back().args;
  if (results.size() != n.outputs.size()) {
    why = "its decomposition gives " + std::to_string(results.size()) + " values, the call " +
          std::to_string(n.outputs.size());
    return false;
  }
  for (size_t k = 0; k < results.size(); ++k) {
    const ValueMeta& got = sub.graph().meta(results[k]);
    if (!detail::same_layout(got, n.outputs[k])) {
      why =
          "its decomposition gives " + got.str() + " where the call records " + n.outputs[k].str();
      return false;
    }
    if (sn[results[k].node].kind == NodeKind::Placeholder) {
      why = "its decomposition returns an input itself";
      return false;
    }
  }
  bool requires_grad = false;
  for (const ValueMeta& m : n.outputs) requires_grad = requires_grad || m.requires_grad;
  std::vector<std::vector<ValueRef>> map(sn.size());
  size_t next_input = 0;
  Graph& g = b.graph();
  for (size_t j = 0; j < sn.size(); ++j) {
    const Node& s = sn[j];
    switch (s.kind) {
      case NodeKind::Placeholder:
        map[j] = {b.map(n.args.at(next_input++))};
        break;
      case NodeKind::GetAttr: {
        std::string name;
        for (int k = 0; name.empty() || attrs.count(name); ++k) {
          name = "_tensor_constant_" + n.name + "_" + std::to_string(k);
        }
        attrs[name] = sub.attrs().at(s.target);
        map[j] = {g.get_attr(name, name, s.outputs[0])};
        break;
      }
      case NodeKind::Call: {
        auto ref = [&](ValueRef v) { return v.is_none() ? v : map[v.node][v.output]; };
        std::vector<ValueRef> args;
        for (ValueRef a : s.args) args.push_back(ref(a));
        std::optional<ValueRef> target;
        if (s.inplace_target) target = ref(*s.inplace_target);
        std::vector<ValueMeta> outs = s.outputs;
        for (ValueMeta& m : outs) m.requires_grad = requires_grad;
        const int index = g.call(s.name, s.prim, std::move(args), target, s.alloc_outputs, outs);
        for (size_t k = 0; k < outs.size(); ++k) map[j].push_back({index, static_cast<int>(k)});
        break;
      }
      case NodeKind::Output:
        break;
    }
  }
  std::vector<ValueRef> values;
  for (ValueRef r : results) values.push_back(map[r.node][r.output]);
  b.replace(i, std::move(values));
  return true;
}

int decompose_once(Graph& graph, Attrs& attrs) {
  const auto& nodes = graph.nodes();
  const detail::WrittenValues written(graph);
  detail::GraphRebuilder b(graph);
  int count = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    const bool wanted = n.kind == NodeKind::Call && n.prim->has_decomposition() && !is_core(n) &&
                        !detail::has_effects(n) && !written.any(i);
    std::string why;
    if (wanted && splice(graph, i, b, attrs, why)) {
      ++count;
      continue;
    }
    if (wanted && compiler::log_enabled("graph")) {
      compiler::log("graph", "decompose: " + n.name + " (" + n.prim->name() + ") stays: " + why);
    }
    b.copy(i);
  }
  if (count > 0) graph = b.finish();
  return count;
}

}  // namespace

bool is_core(const Node& call) {
  if (call.kind != NodeKind::Call) return true;
  const RoleOf r = role_of(call.prim->kind());
  switch (r.role) {
    case Role::Core:
      return true;
    case Role::Decomposed:
      return false;
    case Role::CoreExcept:
      // A family with some ops decomposed: those whose primitive has a decomposition (clamp's
      // has one for tensor bounds only).
      return !call.prim->has_decomposition();
  }
  return true;
}

std::vector<OpsetEntry> core_opset_table() {
  std::vector<OpsetEntry> table;
  for (PrimitiveKind k : all_primitive_kinds()) {
    const RoleOf r = role_of(k);
    std::string why = r.why;
    if (r.role == Role::Decomposed && !make_primitive(k)->has_decomposition()) {
      why += " (decomposition missing)";
    }
    table.push_back({primitive_kind_name(k), role_name(r.role), why});
  }
  return table;
}

int decompose(Graph& graph, Attrs& attrs) {
  int total = 0;
  // A decomposition may call ops that decompose further; a few rounds reach the core opset.
  for (int round = 0; round < 4; ++round) {
    const int n = decompose_once(graph, attrs);
    total += n;
    if (n == 0) break;
  }
  return total;
}

}  // namespace ember::fx
