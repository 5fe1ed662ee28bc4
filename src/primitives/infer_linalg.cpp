// Shape inference (Note [Inference]) of the linear-algebra primitives (Note [Linalg primitives]
// in primitives/linalg.h): every output is contiguous with the inputs' batch dims (already
// broadcast by the op builder); info and pivots are int32.
#include "primitives/linalg.h"

namespace ember {
namespace {

// A tensor of `a`'s batch dims followed by `tail`, in `dtype`, on `a`'s device.
TensorMeta batched(const TensorMeta& a, std::initializer_list<SymInt> tail, ScalarType dtype) {
  SymShape sizes(a.sizes.begin(), a.sizes.end() - 2);
  sizes.append(tail.begin(), tail.end());
  return TensorMeta::contiguous(std::move(sizes), dtype, a.device);
}

const SymInt& rows(const TensorMeta& a) { return a.sizes[a.sizes.size() - 2]; }
const SymInt& cols(const TensorMeta& a) { return a.sizes.back(); }

TensorMeta like(const TensorMeta& a, ScalarType dtype) {
  return TensorMeta::contiguous(a.sizes, dtype, a.device);
}

}  // namespace

MetaList LinalgCholesky::infer(std::span<const TensorMeta> in) const {
  return {like(in[0], in[0].dtype), batched(in[0], {}, kInt32)};
}

MetaList LinalgLuFactor::infer(std::span<const TensorMeta> in) const {
  const TensorMeta& a = in[0];
  return {like(a, a.dtype), batched(a, {sym_min(rows(a), cols(a))}, kInt32),
          batched(a, {}, kInt32)};
}

MetaList LinalgLuSolve::infer(std::span<const TensorMeta> in) const {
  return {like(in[2], in[0].dtype)};  // {LU, pivots, B} -> X of B's shape
}

MetaList LinalgSolve::infer(std::span<const TensorMeta> in) const {
  return {like(in[1], in[0].dtype), batched(in[0], {}, kInt32)};
}

MetaList LinalgSolveTriangular::infer(std::span<const TensorMeta> in) const {
  return {like(in[1], in[0].dtype)};
}

MetaList LinalgEigh::infer(std::span<const TensorMeta> in) const {
  const TensorMeta& a = in[0];
  return {batched(a, {cols(a)}, a.dtype), like(a, a.dtype)};
}

MetaList LinalgSvd::infer(std::span<const TensorMeta> in) const {
  const TensorMeta& a = in[0];
  const SymInt &m = rows(a), &n = cols(a), k = sym_min(m, n);
  return {batched(a, {m, p_.full_matrices ? m : k}, a.dtype), batched(a, {k}, a.dtype),
          batched(a, {p_.full_matrices ? n : k, n}, a.dtype)};
}

MetaList LinalgQr::infer(std::span<const TensorMeta> in) const {
  const TensorMeta& a = in[0];
  const SymInt &m = rows(a), &n = cols(a);
  const SymInt k = p_.mode == QrMode::Complete ? m : sym_min(m, n);
  // Mode R computes no Q: an empty [0] tensor stands in for it.
  TensorMeta q = p_.mode == QrMode::R ? TensorMeta::contiguous({0}, a.dtype, a.device)
                                      : batched(a, {m, k}, a.dtype);
  return {std::move(q), batched(a, {k, n}, a.dtype)};
}

MetaList LinalgHouseholderProduct::infer(std::span<const TensorMeta> in) const {
  return {like(in[0], in[0].dtype)};
}

MetaList LinalgDet::infer(std::span<const TensorMeta> in) const {
  const TensorMeta d = batched(in[0], {}, in[0].dtype);
  if (p_.log_abs) return {d, d};  // sign, logabsdet
  return {d};
}

}  // namespace ember
