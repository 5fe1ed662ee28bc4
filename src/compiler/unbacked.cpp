// Note [Unbacked symbols]: the output sizes of nonzero, unique and bincount as unbacked symbols
// while tracing fake (unbacked.h); a run binds them from the call's result (detail::run_call).
#include "compiler/unbacked.h"

#include <limits>

#include "dispatch/dispatch.h"
#include "primitives/index.h"
#include "primitives/scatter.h"
#include "primitives/sort.h"

namespace ember::fx::detail {

namespace {

Tensor empty_meta(SymShape sizes, ScalarType dtype, const char* op) {
  return ember::detail::allocate_meta(
      TensorMeta::contiguous(std::move(sizes), dtype, Device(kMeta)), op);
}

bool is_zero(const SymInt& s) { return !s.is_symbolic() && s.hint() == 0; }

}  // namespace

bool sizes_from_data(PrimitiveKind kind) {
  return kind == PrimitiveKind::Nonzero || kind == PrimitiveKind::Unique ||
         kind == PrimitiveKind::Bincount;
}

std::vector<Tensor> unbacked_outputs(const Primitive& p, const std::vector<Tensor>& inputs,
                                     ValueRef input, size_t node, std::shared_ptr<ShapeEnv>& env,
                                     UnbackedMemo& memo) {
  const Tensor& x = inputs.at(0);
  const std::vector<SymInt> sizes = x.unsafeGetTensorImpl()->sym_sizes();
  SymInt numel(1);
  for (const SymInt& s : sizes) numel = numel * s;
  // A fresh symbol in [min, max]; `which` >= 0 memoises it per input value.
  auto count = [&](int which, const std::string& what, int64_t max, int64_t min = 0) {
    const auto key = std::make_tuple(input.node, input.output, which);
    if (which >= 0) {
      if (auto it = memo.find(key); it != memo.end()) return it->second;
    }
    if (!env) env = ShapeEnv::make();
    const SymInt u = env->unbacked(
        what, max, "output 0 dim 0 of node " + std::to_string(node) + " (" + p.name() + ")", min);
    if (which >= 0) memo.emplace(key, u);
    return u;
  };
  if (const auto* u = dynamic_cast<const Unique*>(&p)) {
    // Rows: the elements, or by dim the slices along dim 0 (the builder moved it there).
    const SymInt rows = u->by_dim() ? sizes.at(0) : numel;
    // As in PyTorch, unique by dim is not memoised.
    const int which = u->by_dim() ? -1 : (u->consecutive() ? 2 : 1);
    const char* what = u->consecutive() ? "the count of unique_consecutive" : "the count of unique";
    const SymInt c = is_zero(numel) ? SymInt(0) : count(which, what, upper_bound(rows));
    SymShape values = {c};
    if (u->by_dim()) {
      for (size_t d = 1; d < sizes.size(); ++d) values.push_back(sizes[d]);
    }
    SymShape inverse = {SymInt(0)}, counts = {SymInt(0)};
    if (u->return_inverse()) {
      inverse = u->by_dim() ? SymShape{rows} : SymShape(sizes.begin(), sizes.end());
    }
    if (u->return_counts()) counts = {c};
    return {empty_meta(std::move(values), x.dtype(), p.name()),
            empty_meta(std::move(inverse), kInt64, p.name()),
            empty_meta(std::move(counts), kInt64, p.name())};
  }
  if (const auto* b = dynamic_cast<const Bincount*>(&p)) {
    const ScalarType dtype = inputs.size() > 1 ? inputs[1].dtype() : kInt64;
    // The largest value + 1, at least minlength: no bound above.
    const SymInt len = is_zero(numel)
                           ? SymInt(b->minlength())
                           : count(-1, "the length of bincount",
                                   std::numeric_limits<int64_t>::max() - 1, b->minlength());
    return {empty_meta({len}, dtype, "bincount")};
  }
  EMBER_CHECK_NOT_IMPL(p.kind() == PrimitiveKind::Nonzero, "[", p.name(),
                       "] has no data-dependent output sizes");
  // No elements, no count: a literal 0 (PyTorch makes no symbol either).
  const SymInt c =
      is_zero(numel) ? SymInt(0) : count(0, "the count of nonzero", upper_bound(numel));
  return {empty_meta({c, SymInt(x.dim())}, kInt64, "nonzero")};
}

}  // namespace ember::fx::detail
