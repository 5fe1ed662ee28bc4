// Decompositions of the primitives that exist for eager speed (Note [Decompositions] in
// src/compiler/decompose.h): each writes its op with core ops, step for step as its kernel
// computes (src/backend/cpu/binary_ternary.cpp, binary_compare.cpp), so that results agree
// exactly in float32 and float64 (16-bit floats round after each step instead of once).
#include <cmath>

#include "ember/ember.h"
#include "primitives/ternary.h"

namespace ember {

namespace {

// 1 - w as the kernel computes it: in float for 16- and 32-bit floats (their opmath type).
double one_minus(double w, ScalarType dtype) {
  return dtype == kFloat64 ? 1.0 - w : static_cast<double>(1.0f - static_cast<float>(w));
}

bool low_precision(ScalarType t) { return t == kFloat16 || t == kBFloat16; }

// The kernels compute 16-bit floats in float32 and round once (opmath): so do the
// decompositions (PyTorch's pw_cast_for_opmath).
std::vector<Tensor> in_opmath(std::vector<Tensor> inputs) {
  for (Tensor& t : inputs) {
    if (t.defined() && low_precision(t.dtype())) t = t.to(kFloat32);
  }
  return inputs;
}

}  // namespace

// min(max(x, lo), hi), NaN-propagating as the kernel (maximum and minimum propagate NaN).
std::vector<Tensor> Clamp::decompose(const std::vector<Tensor>& inputs) const {
  Tensor out = inputs.at(0);
  size_t next = 1;
  if (p_.has_min) out = out.maximum(inputs.at(next++));
  if (p_.has_max) out = out.minimum(inputs.at(next));
  return {out};
}

// PyTorch's two-sided formula: start + w * (end - start) for |w| < 0.5, else
// end - (end - start) * (1 - w).
std::vector<Tensor> Lerp::decompose(const std::vector<Tensor>& inputs) const {
  const ScalarType dtype = inputs.at(0).dtype();
  if (low_precision(dtype)) return {decompose(in_opmath(inputs))[0].to(dtype)};
  const Tensor &start = inputs.at(0), &end = inputs.at(1);
  const Tensor diff = end - start;
  if (p_.weight) {
    const double w = p_.weight->toDouble();
    if (std::abs(w) < 0.5) return {start + diff * *p_.weight};
    return {end - diff * one_minus(w, start.dtype())};
  }
  const Tensor& w = inputs.at(2);
  return {where(w.abs() < 0.5, start + w * diff, end - diff * (1 - w))};
}

// addcmul: self + value * tensor1 * tensor2; addcdiv: self + value * tensor1 / tensor2.
std::vector<Tensor> Addc::decompose(const std::vector<Tensor>& inputs) const {
  const ScalarType dtype = inputs.at(0).dtype();
  if (low_precision(dtype)) return {decompose(in_opmath(inputs))[0].to(dtype)};
  const Tensor &self = inputs.at(0), &t1 = inputs.at(1), &t2 = inputs.at(2);
  const bool floating = is_floating_point(self.dtype());
  const Scalar value = floating ? p_.value : Scalar(p_.value.to<int64_t>());
  const Tensor scaled = value.toDouble() == 1 ? t1 : t1 * value;
  return {self + (p_.is_div ? scaled / t2 : scaled * t2)};
}

// torch.isclose's composite: a == b, or both NaN with equal_nan, or a finite |a - b| within
// atol + |rtol * b|; integers (and bool) compare in float64, as the kernel does.
std::vector<Tensor> IsClose::decompose(const std::vector<Tensor>& inputs) const {
  Tensor a = inputs.at(0), b = inputs.at(1);
  Tensor close = a == b;
  const bool floating = is_floating_point(a.dtype());
  if (p_.equal_nan && floating) close = close.logical_or(a.isnan().logical_and(b.isnan()));
  if (p_.rtol == 0 && p_.atol == 0) return {close};
  if (!floating) {
    a = a.to(kFloat64);
    b = b.to(kFloat64);
  }
  const Tensor actual = (a - b).abs();
  const Tensor allowed = (b * p_.rtol).abs() + p_.atol;
  Tensor within = actual <= allowed;
  if (floating) within = actual.isfinite().logical_and(within);
  return {close.logical_or(within)};
}

}  // namespace ember
