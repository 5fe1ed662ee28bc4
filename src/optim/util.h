#pragma once
// Helpers shared by the optimizers' sources.
#include <optional>
#include <vector>

#include "ember/ops/factory.h"
#include "ember/optim/optimizer.h"

namespace ember::optim::detail {

/// One group holding `params`, or none when the list is empty (so that the base reports PyTorch's
/// "optimizer got an empty parameter list").
inline std::vector<OptimizerParamGroup> single_group(std::vector<Tensor> params) {
  std::vector<OptimizerParamGroup> groups;
  if (!params.empty()) groups.emplace_back(std::move(params));
  return groups;
}

/// The state of `p` as T, created by `init` on first use.
template <typename T, typename Init>
T& state_of(std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& state, const Tensor& p,
            Init&& init) {
  auto& slot = state[p.unsafeGetTensorImpl()];
  if (!slot) {
    auto st = std::make_unique<T>();
    init(*st);
    slot = std::move(st);
  }
  return static_cast<T&>(*slot);
}

/// Note [Fused Adam]: an optimizer's `fused` option. By default the fused step runs float32 and
/// float64 parameters, whose values it computes as the for-loop does; true runs every floating
/// dtype through it (16-bit ones computed in float), false none.
inline bool uses_fused(std::optional<bool> fused, const Tensor& p) {
  return fused.value_or(p.dtype() == kFloat32 || p.dtype() == kFloat64);
}

/// Adam's and AdamW's state tensors of `p`, zeros on first use (PyTorch's _init_group):
/// exp_avg and exp_avg_sq, and max_exp_avg_sq with amsgrad.
template <typename State>
void init_adam_state(State& st, const Tensor& p, bool amsgrad) {
  if (!st.exp_avg().defined()) st.exp_avg(ember::zeros_like(p));
  if (!st.exp_avg_sq().defined()) st.exp_avg_sq(ember::zeros_like(p));
  if (amsgrad && !st.max_exp_avg_sq().defined()) st.max_exp_avg_sq(ember::zeros_like(p));
}

}  // namespace ember::optim::detail
