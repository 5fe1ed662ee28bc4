// Gradients of copies, matrix products, the ternary family, indexing and the computing shape
// ops (PyTorch's derivatives.yaml formulas).
#include "ember/ember.h"
#include "primitives/copy.h"
#include "primitives/index.h"
#include "primitives/matmul.h"
#include "primitives/shape.h"
#include "primitives/ternary.h"
#include "primitives/vjp_util.h"

namespace ember {

namespace {
// The TensorIndex list that addresses `ints` on `dims` (full slices elsewhere).
std::vector<TensorIndex> advanced_indices(const std::vector<int64_t>& dims,
                                          const std::vector<Tensor>& inputs, size_t first) {
  std::vector<TensorIndex> idx;
  for (size_t i = 0; i < dims.size(); ++i) {
    while (static_cast<int64_t>(idx.size()) < dims[i]) idx.emplace_back(indexing::Slice());
    idx.emplace_back(inputs[first + i]);
  }
  return idx;
}
}  // namespace

std::vector<Tensor> Copy::vjp(const VjpContext& ctx) const { return {ctx.grads[0]}; }

std::vector<Tensor> Matmul::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const Tensor &a = ctx.inputs[0], &b = ctx.inputs[1];
  // PyTorch's maybe_multiply: a factor of 1 (linear's, addmm's default) costs no pass.
  auto scaled = [](Tensor t, const Scalar& by) { return by.toDouble() == 1.0 ? t : t * by; };
  // As PyTorch's mm_mat1/mm_mat2_backward: an operand stored column-major (a transposed view,
  // as linear's weight.t()) gets its gradient column-major too, computed as the transposed
  // product. After the transpose's backward it is then contiguous like the weight, and
  // AccumulateGrad keeps it rather than copying it.
  // (Strides known at trace time only: both forms are correct, so nothing need be guarded.)
  auto column_major = [](const Tensor& t) {
    const std::vector<SymInt> s = t.sym_strides();
    auto is_one = [](const SymInt& v) { return !v.is_symbolic() && v.hint() == 1; };
    return is_one(s[s.size() - 2]) && !is_one(s.back());
  };
  std::vector<Tensor> out{
      grad_if(ctx.needs_grad[0],
              [&] {
                return scaled(column_major(a) ? b.matmul(g.mT()).mT() : g.matmul(b.mT()), p_.alpha);
              }),
      grad_if(ctx.needs_grad[1], [&] {
        return scaled(column_major(b) ? g.mT().matmul(a).mT() : a.mT().matmul(g), p_.alpha);
      })};
  if (ctx.needs_grad.size() > 2)
    out.push_back(grad_if(ctx.needs_grad[2], [&] { return scaled(g, p_.beta); }));
  return out;
}

std::vector<Tensor> Where::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const Tensor& c = ctx.inputs[0];
  return {Tensor(), grad_if(ctx.needs_grad[1], [&] { return g.masked_fill(c.logical_not(), 0); }),
          grad_if(ctx.needs_grad[2], [&] { return g.masked_fill(c, 0); })};
}

std::vector<Tensor> Clamp::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const Tensor& x = ctx.inputs[0];
  if (!p_.tensor_bounds) {
    Tensor keep = ones_like(x, TensorOptions().dtype(kBool));
    if (p_.has_min) keep = keep & (x >= *p_.min);
    if (p_.has_max) keep = keep & (x <= *p_.max);
    return {g.masked_fill(keep.logical_not(), 0)};
  }
  Tensor lo = p_.has_min ? ctx.inputs[1] : Tensor();
  Tensor hi = p_.has_max ? ctx.inputs[p_.has_min ? 2 : 1] : Tensor();
  Tensor keep = ones_like(x, TensorOptions().dtype(kBool));
  if (lo.defined()) keep = keep & (x >= lo);
  if (hi.defined()) keep = keep & (x <= hi);
  if (lo.defined() && hi.defined()) keep = keep & (lo <= hi);
  std::vector<Tensor> out{
      grad_if(ctx.needs_grad[0], [&] { return g.masked_fill(keep.logical_not(), 0); })};
  if (lo.defined()) {
    Tensor m = x < lo;
    if (hi.defined()) m = m & (lo <= hi);
    out.push_back(grad_if(ctx.needs_grad[1], [&] { return g.masked_fill(m.logical_not(), 0); }));
  }
  if (hi.defined()) {
    Tensor m = x > hi;
    if (lo.defined()) m = m | (lo > hi);
    out.push_back(
        grad_if(ctx.needs_grad.back(), [&] { return g.masked_fill(m.logical_not(), 0); }));
  }
  return out;
}

std::vector<Tensor> Lerp::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const Tensor &s = ctx.inputs[0], &e = ctx.inputs[1];
  if (p_.weight) {
    return {grad_if(ctx.needs_grad[0], [&] { return g * (1 - p_.weight->to<double>()); }),
            grad_if(ctx.needs_grad[1], [&] { return g * *p_.weight; })};
  }
  const Tensor& w = ctx.inputs[2];
  return {grad_if(ctx.needs_grad[0], [&] { return g * (1 - w); }),
          grad_if(ctx.needs_grad[1], [&] { return g * w; }),
          grad_if(ctx.needs_grad[2], [&] { return g * (e - s); })};
}

std::vector<Tensor> Addc::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const Tensor &t1 = ctx.inputs[1], &t2 = ctx.inputs[2];
  if (p_.is_div) {
    return {g, grad_if(ctx.needs_grad[1], [&] { return g * p_.value / t2; }),
            grad_if(ctx.needs_grad[2], [&] { return -g * p_.value * t1 / (t2 * t2); })};
  }
  return {g, grad_if(ctx.needs_grad[1], [&] { return g * p_.value * t2; }),
          grad_if(ctx.needs_grad[2], [&] { return g * p_.value * t1; })};
}

std::vector<Tensor> MaskedFill::vjp(const VjpContext& ctx) const {
  return {ctx.grads[0].masked_fill(ctx.inputs[1], 0), Tensor()};
}

std::vector<Tensor> Index::vjp(const VjpContext& ctx) const {
  Tensor z = zeros(ctx.input_sizes[0], TensorOptions().dtype(ctx.grads[0].dtype()));
  index_put_(z, advanced_indices(p_.dims, ctx.inputs, 1), ctx.grads[0], /*accumulate=*/true);
  std::vector<Tensor> out{z};
  out.resize(ctx.inputs.size());
  return out;
}

std::vector<Tensor> IndexPut::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  auto idx = advanced_indices(p_.dims, ctx.inputs, 2);
  std::vector<Tensor> out{grad_if(ctx.needs_grad[0],
                                  [&] {
                                    if (p_.accumulate) return g;
                                    Tensor r = g.clone();
                                    index_put_(r, idx, zeros({}, TensorOptions().dtype(g.dtype())));
                                    return r;
                                  }),
                          grad_if(ctx.needs_grad[1], [&] { return index(g, idx); })};
  out.resize(ctx.inputs.size());
  return out;
}

std::vector<Tensor> Cat::vjp(const VjpContext& ctx) const {
  std::vector<Tensor> out;
  SymInt offset = 0;
  for (size_t i = 0; i < ctx.input_sizes.size(); ++i) {
    const SymInt& n = ctx.input_sizes[i][p_.dim];
    out.push_back(
        grad_if(ctx.needs_grad[i], [&] { return ctx.grads[0].narrow(p_.dim, offset, n); }));
    offset += n;
  }
  return out;
}

std::vector<Tensor> Flip::vjp(const VjpContext& ctx) const {
  return {ctx.grads[0].flip(IntList(p_.dims))};
}

std::vector<Tensor> Roll::vjp(const VjpContext& ctx) const {
  if (p_.shifts.empty()) return {ctx.grads[0]};
  std::vector<SymInt> back;
  for (auto s : p_.shifts) back.emplace_back(-s);
  return {ctx.grads[0].roll(SymIntList(back), IntList(p_.dims))};
}

std::vector<Tensor> Repeat::vjp(const VjpContext& ctx) const {
  // g has sizes r_i * s_i; view it as [r_0, s_0, r_1, s_1, ...] and sum the r's.
  const auto& in = ctx.input_sizes[0];
  const size_t pad = p_.repeats.size() - in.size();
  std::vector<SymInt> split;
  std::vector<int64_t> sum_dims;
  for (size_t i = 0; i < p_.repeats.size(); ++i) {
    const SymInt s = i < pad ? SymInt(1) : in[i - pad];
    sum_dims.push_back(static_cast<int64_t>(split.size()));
    split.push_back(p_.repeats[i]);
    split.push_back(s);
  }
  Tensor g = ctx.grads[0].reshape(SymIntList(split));
  if (!sum_dims.empty()) g = g.sum(sum_dims);
  return {g.reshape(SymIntList(in))};
}

std::vector<Tensor> Triangle::vjp(const VjpContext& ctx) const {
  return {p_.lower ? ctx.grads[0].tril(p_.diagonal) : ctx.grads[0].triu(p_.diagonal)};
}

}  // namespace ember
