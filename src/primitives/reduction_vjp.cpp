// Gradients of reductions and scans (PyTorch's derivatives.yaml formulas).
#include <algorithm>
#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "primitives/reduction.h"

namespace ember {

namespace {

// A reduced tensor brought back to the input's shape (the reduced dims re-inserted, expanded).
Tensor expand_back(Tensor t, const std::vector<int64_t>& dims, bool keepdim,
                   const SymShape& sizes) {
  if (!keepdim) {
    std::vector<int64_t> sorted = dims;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t d : sorted) t = t.unsqueeze(d);
  }
  return t.expand(SymIntList(sizes));
}

// The number of elements each output reduces, less `minus`: a number, or, when the sizes are
// symbolic (a joint graph traced with dynamic shapes, Note [Symbolic autograd]), a 0-d tensor the
// graph computes as the sum of a one broadcast over the reduced sizes (a graph holds tensors and
// shapes, not symbolic scalars).
class ReducedCount {
 public:
  ReducedCount(const std::vector<int64_t>& dims, const SymShape& sizes, double minus,
               ScalarType dtype) {
    SymInt count = 1;
    SymShape reduced;
    for (int64_t d : dims) {
      count = count * sizes[d];
      reduced.push_back(sizes[d]);
    }
    if (!count.is_symbolic()) {
      n_ = static_cast<double>(count.hint()) - minus;
      return;
    }
    const ScalarType dt = dtype == kFloat64 ? kFloat64 : kFloat32;
    symbolic_ = ones({}, TensorOptions().dtype(dt)).expand(SymIntList(reduced)).sum() - minus;
  }
  /// a / count.
  Tensor divide(const Tensor& a) const { return symbolic_.defined() ? a / symbolic_ : a / n_; }
  /// a * (k / count).
  Tensor scale(const Tensor& a, double k) const {
    return symbolic_.defined() ? a * (symbolic_.reciprocal() * k) : a * (k / n_);
  }

 private:
  double n_ = 0;
  Tensor symbolic_;
};

// Gradient shared evenly by the elements equal to the extreme value (amax, max(), norm inf).
Tensor evenly_distribute(const Tensor& g, const Tensor& mask, const std::vector<int64_t>& dims) {
  Tensor m = mask.to(g.dtype());
  return g * m / m.sum(dims, /*keepdim=*/true);
}

// zeros(sizes) with src added at `index` along `dim` (max(dim), cummax backward).
Tensor scatter_add_along(const SymShape& sizes, int64_t dim, const Tensor& index,
                         const Tensor& src) {
  return zeros(sizes, TensorOptions().dtype(src.dtype())).scatter_add_(dim, index, src);
}

// cumprod's gradient for an input with zeros, built from products that leave x_i out, so that
// it is differentiable again (double backward): O(n^2) along dim, as PyTorch's.
Tensor cumprod_backward_quadratic(const Tensor& g, const Tensor& x, int64_t dim) {
  const int64_t n = x.size(dim);
  std::vector<Tensor> grads;
  for (int64_t k = 0; k < n; ++k) {
    // For j >= k: prod_{m < k} x_m * prod_{k < m <= j} x_m.
    Tensor before = x.narrow(dim, 0, k).prod(dim, /*keepdim=*/true);
    Tensor omitted = before;
    if (k + 1 < n)
      omitted = cat({before, before * x.narrow(dim, k + 1, n - k - 1).cumprod(dim)}, dim);
    grads.push_back((g.narrow(dim, k, n - k) * omitted).sum({dim}, /*keepdim=*/true));
  }
  return cat(grads, dim);
}

}  // namespace

bool Reduce::saves_input(size_t) const { return p_.op != ReduceOp::Sum && p_.op != ReduceOp::Mean; }

bool Reduce::saves_output(size_t) const {
  switch (p_.op) {
    case ReduceOp::Prod:
    case ReduceOp::AMax:
    case ReduceOp::AMin:
    case ReduceOp::MaxDim:
    case ReduceOp::MinDim:
    case ReduceOp::AMinMax:
    case ReduceOp::Std:
    case ReduceOp::StdMean:
    case ReduceOp::Norm:
    case ReduceOp::LogSumExp:
      return true;
    default:
      return false;
  }
}

std::vector<Tensor> Reduce::vjp(const VjpContext& ctx) const {
  const auto& sizes = ctx.input_sizes[0];
  const Tensor& x = ctx.inputs[0];
  // A 0-d input "reduces" over dim 0, which does not exist in its shape.
  std::vector<int64_t> dims;
  for (int64_t d : p_.dims) {
    if (d < static_cast<int64_t>(sizes.size())) dims.push_back(d);
  }
  auto back = [&](const Tensor& t) { return expand_back(t, dims, p_.keepdim, sizes); };
  auto out = [&](size_t i) { return back(ctx.outputs[i]); };
  const Tensor g = back(ctx.grads[0]);
  auto count = [&](double minus) { return ReducedCount(dims, sizes, minus, g.dtype()); };
  switch (p_.op) {
    case ReduceOp::Sum:
      return {g};
    case ReduceOp::NanSum:
      return {g.masked_fill(x.isnan(), 0)};
    case ReduceOp::Mean:
      return {count(0).divide(g)};
    case ReduceOp::NanMean: {
      Tensor valid = x.isnan().logical_not();
      Tensor count = valid.sum(dims, true).to(g.dtype());
      return {(g / count).masked_fill(valid.logical_not(), 0)};
    }
    case ReduceOp::Prod: {
      Tensor y = out(0);
      Tensor zero = x == 0;
      if (!zero.any().item<bool>()) return {g * y / x};
      // With zeros: the product of the other elements, by an exclusive product per element.
      Tensor flat = x.movedim(
          IntList(dims), IntList([&] {
            std::vector<int64_t> tail;
            for (size_t i = 0; i < dims.size(); ++i) {
              tail.push_back(x.dim() - static_cast<int64_t>(dims.size()) + static_cast<int64_t>(i));
            }
            return tail;
          }()));
      std::vector<int64_t> lead(flat.sizes().begin(), flat.sizes().end() - dims.size());
      std::vector<int64_t> flat_shape = lead;
      flat_shape.push_back(-1);
      Tensor f = flat.reshape(SymIntList(flat_shape));
      const int64_t last = f.dim() - 1;
      Tensor ones_col = ones_like(f.narrow(last, 0, 1));
      Tensor left = cat({ones_col, f.narrow(last, 0, f.size(last) - 1)}, last).cumprod(last);
      Tensor right = cat({f.narrow(last, 1, f.size(last) - 1), ones_col}, last)
                         .flip(IntList{last})
                         .cumprod(last)
                         .flip(IntList{last});
      Tensor others = (left * right).reshape(SymIntList(flat.sizes()));
      std::vector<int64_t> src;
      for (size_t i = 0; i < dims.size(); ++i) src.push_back(flat.dim() - dims.size() + i);
      return {g * others.movedim(IntList(src), IntList(dims))};
    }
    case ReduceOp::AMax:
    case ReduceOp::AMin:
      return {evenly_distribute(g, x == out(0), dims)};
    case ReduceOp::MaxDim:
    case ReduceOp::MinDim: {
      if (sizes.empty()) return {ctx.grads[0].reshape({})};
      if (dims.size() != 1) return {evenly_distribute(g, x == out(0), dims)};
      Tensor idx = p_.keepdim ? ctx.outputs[1] : ctx.outputs[1].unsqueeze(dims[0]);
      Tensor gv = p_.keepdim ? ctx.grads[0] : ctx.grads[0].unsqueeze(dims[0]);
      return {scatter_add_along(sizes, dims[0], idx, gv)};
    }
    case ReduceOp::AMinMax: {
      Tensor r;
      if (ctx.has_grad[0]) r = evenly_distribute(g, x == out(0), dims);
      if (ctx.has_grad[1]) {
        Tensor m = evenly_distribute(back(ctx.grads[1]), x == out(1), dims);
        r = r.defined() ? r + m : m;
      }
      return {r};
    }
    case ReduceOp::Var:
    case ReduceOp::VarMean:
    case ReduceOp::Std:
    case ReduceOp::StdMean: {
      const bool is_std = p_.op == ReduceOp::Std || p_.op == ReduceOp::StdMean;
      const ReducedCount n = count(p_.param);
      Tensor r;
      if (ctx.has_grad[0]) {
        Tensor centered = x - x.mean(dims, true);
        if (is_std) {
          // A zero std has no derivative; the safe denominator keeps NaN out of double backward.
          Tensor s = out(0), zero = s == 0;
          r = n.divide(g * centered / s.masked_fill(zero, 1)).masked_fill(zero, 0);
        } else {
          r = n.scale(g * centered, 2.0);
        }
      }
      if ((p_.op == ReduceOp::VarMean || p_.op == ReduceOp::StdMean) && ctx.has_grad[1]) {
        Tensor m = count(0).divide(back(ctx.grads[1]));
        r = r.defined() ? r + m : m;
      }
      return {r};
    }
    case ReduceOp::Norm: {
      const double p = p_.param;
      Tensor norm = out(0);
      if (p == 0) return {zeros_like(x)};
      if (p == 1) return {g * x.sign()};
      if (std::isinf(p)) return {evenly_distribute(g * x.sign(), x.abs() == norm, dims)};
      Tensor zero = norm == 0, safe = norm.masked_fill(zero, 1);
      if (p == 2) return {(g * x / safe).masked_fill(zero, 0)};
      return {(g * x * x.abs().pow(p - 2) / safe.pow(p - 1)).masked_fill(zero, 0)};
    }
    case ReduceOp::LogSumExp:
      return {g * (x - out(0)).exp()};
    default:
      return Primitive::vjp(ctx);
  }
}

std::vector<Tensor> Scan::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const Tensor& y = ctx.outputs[0];
  const IntList d{p_.dim};
  auto reverse_cumsum = [&](const Tensor& t) { return t.flip(d).cumsum(p_.dim).flip(d); };
  switch (p_.op) {
    case ScanOp::CumSum:
      return {reverse_cumsum(g)};
    case ScanOp::CumProd: {
      // d y_j / d x_i = prod_{m <= j, m != i} x_m for j >= i.
      const Tensor& x = ctx.inputs[0];
      if (x.dim() == 0) return {g};
      Tensor zero = x == 0;
      if (!zero.any().item<bool>()) return {reverse_cumsum(g * y) / x};
      if (is_grad_enabled()) return {cumprod_backward_quadratic(g, x, p_.dim)};
      // Before the first zero of a slice that is y_j / x_i; at the first zero, the product with
      // that zero replaced by 1; after it, every y_j it reaches holds the zero, so 0.
      Tensor seen = zero.to(kInt64).cumsum(p_.dim);
      Tensor before = seen == 0, first = zero.logical_and(seen == 1);
      Tensor at_zero = reverse_cumsum(g * x.masked_fill(first, 1).cumprod(p_.dim));
      return {where(before, reverse_cumsum(g * y) / x.masked_fill(before.logical_not(), 1),
                    at_zero.masked_fill(first.logical_not(), 0))};
    }
    case ScanOp::CumMax:
    case ScanOp::CumMin:
      return {scatter_add_along(ctx.input_sizes[0], p_.dim, ctx.outputs[1], g)};
    case ScanOp::LogCumSumExp: {
      // sum_{j>=i} g_j exp(x_i - y_j), in log space for the positive and negative parts of g.
      const Tensor& x = ctx.inputs[0];
      // log(0) = -inf would make logcumsumexp compute -inf - -inf; the smallest normal number
      // stands in for zero (its contribution is below rounding).
      const double tiny = x.dtype() == kFloat64 ? std::numeric_limits<double>::min()
                                                : std::numeric_limits<float>::min();
      auto part = [&](const Tensor& gp) {
        Tensor lg = gp.clamp_min(tiny).log() - y;
        return (lg.flip(d).logcumsumexp(p_.dim).flip(d) + x).exp();
      };
      return {part(g.clamp_min(0)) - part((-g).clamp_min(0))};
    }
  }
  return Primitive::vjp(ctx);
}

}  // namespace ember
