#include "profiler/flops.h"

#include <algorithm>
#include <unordered_map>

namespace ember::profiler::detail {
namespace {

// Note [FLOP formulas]: a multiply-add counts as 2 FLOPs, as in PyTorch's profiler
// (torch/csrc/profiler/util.cpp computeFlops) and torch.utils.flop_counter. Each formula reads
// the tensor arguments its primitive receives (scaled_dot_product_attention(q, k, v)); an op
// family that lands with another order must adapt its entry here. Shapes that do not fit give 0 (no estimate), never an error.
using Args = std::vector<const Tensor*>;
using Outs = std::vector<Tensor>;
using FlopFn = int64_t (*)(const Args&, const Outs&);

const std::vector<int64_t>* shape(const Args& a, size_t i) {
  if (i >= a.size() || a[i] == nullptr || !a[i]->defined()) return nullptr;
  return &a[i]->sizes();
}

int64_t prod(const std::vector<int64_t>& s, size_t from = 0) {
  int64_t p = 1;
  for (size_t i = from; i < s.size(); ++i) p *= s[i];
  return p;
}

// Every matrix product (mm, bmm, addmm, baddbmm, matmul, mv, dot, ...) reaches dispatch as the
// batched Matmul primitive: inputs [B, m, k] and [B, k, n] (and "self"), output [B, m, n]. So one
// formula serves them all: 2 * B * m * n * k.
int64_t product(const Args& a, const Outs& out) {
  auto* x = shape(a, 0);
  if (!x || x->empty() || out.empty() || !out[0].defined()) return 0;
  return 2 * out[0].numel() * x->back();
}

// Convolution (any dimensionality, any stride/padding/dilation): every output element is a dot
// product of (C_in / groups) * prod(kernel) terms, so 2 * numel(out) * prod(weight.shape[1:]).
// Equals PyTorch's conv2d formula 2 * N * H_out * W_out * k_h * k_w * C_in * C_out / groups.
int64_t conv(const Args& a, const Outs& out) {
  auto* w = shape(a, 1);
  if (!w || w->size() < 3 || out.empty() || !out[0].defined()) return 0;
  return 2 * out[0].numel() * prod(*w, 1);
}

// scaled_dot_product_attention(q [..., L, E], k [..., S, E], v [..., S, Ev]): the two batched
// products q @ k^T and softmax @ v, 2 * B * L * S * (E + Ev) (torch.utils.flop_counter).
int64_t attention(const Args& a, const Outs&) {
  auto* q = shape(a, 0);
  auto* k = shape(a, 1);
  auto* v = shape(a, 2);
  if (!q || !k || !v || q->size() < 2 || k->size() < 2 || v->size() < 2) return 0;
  int64_t batch = prod(*q) / std::max<int64_t>(1, (*q)[q->size() - 2] * q->back());
  int64_t l = (*q)[q->size() - 2], e = q->back(), s = (*k)[k->size() - 2], ev = v->back();
  return 2 * batch * l * s * (e + ev);
}

// add / mul: one FLOP per element of self, as PyTorch counts them.
int64_t elementwise(const Args& a, const Outs&) {
  auto* s = shape(a, 0);
  return s ? prod(*s) : 0;
}

const std::unordered_map<std::string_view, FlopFn>& table() {
  static const std::unordered_map<std::string_view, FlopFn> t = {
      {"mm", product},
      {"addmm", product},
      {"addmm_", product},
      {"bmm", product},
      {"baddbmm", product},
      {"baddbmm_", product},
      {"matmul", product},
      {"mv", product},
      {"addmv", product},
      {"dot", product},
      {"vdot", product},
      {"conv1d", conv},
      {"conv2d", conv},
      {"conv3d", conv},
      {"convolution", conv},
      {"scaled_dot_product_attention", attention},
      {"add", elementwise},
      {"add_", elementwise},
      {"mul", elementwise},
      {"mul_", elementwise},
  };
  return t;
}

}  // namespace

int64_t compute_flops(std::string_view op, const std::vector<const Tensor*>& args,
                      const std::vector<Tensor>& outputs) {
  auto it = table().find(op);
  if (it == table().end()) return 0;
  return std::max<int64_t>(0, it->second(args, outputs));
}

std::vector<std::string> flop_ops() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : table()) names.emplace_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace ember::profiler::detail
