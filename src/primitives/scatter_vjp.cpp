// Gradients of the gather/scatter family and of sorting and selection (PyTorch's
// derivatives.yaml and FunctionsManual formulas), written with Ember ops so that they are
// differentiable again.
#include "ember/ember.h"
#include "primitives/scatter.h"
#include "primitives/sort.h"
#include "primitives/vjp_util.h"

namespace ember {

namespace {

TensorOptions like(const Tensor& g) { return TensorOptions().dtype(g.dtype()); }

// The leading corner of `t` with `shape_of`'s sizes: scatter reads only the index-shaped corner
// of src.
Tensor corner(const Tensor& t, const Tensor& shape_of) {
  Tensor c = t;
  for (int64_t d = 0; d < shape_of.dim(); ++d) c = c.narrow(d, 0, shape_of.size(d));
  return c;
}

// `t` placed in that corner of zeros(sizes): the rest of src gets no gradient.
Tensor embed_corner(const Tensor& t, const SymShape& sizes) {
  if (same_as(TensorMeta::of(t).sizes, sizes)) return t;
  Tensor z = zeros(sizes, like(t));
  corner(z, t).copy_(t);
  return z;
}

// zeros(self_sizes) with `values` (index-shaped) added where index sends them.
Tensor scatter_sum(const SymShape& self_sizes, int64_t dim, const Tensor& index,
                   const Tensor& values) {
  // In place into the fresh zeros: the out-of-place form would copy them first.
  Tensor out = zeros(self_sizes, like(values));
  out.scatter_add_(dim, index, values);
  return out;
}

// How many src elements each element of self receives.
Tensor scatter_counts(const SymShape& self_sizes, int64_t dim, const Tensor& index,
                      const Tensor& g) {
  return scatter_sum(self_sizes, dim, index, ones(index.sizes(), like(g)));
}

// Which index entries write last to their target (index-shaped, bool): with repeated indices the
// kernel keeps the last write along `dim` (Note [Scatter along a dim]), so only that source
// element reaches the output.
Tensor last_writers(const Tensor& index, int64_t dim, const SymShape& self_sizes) {
  if (index.dim() == 0) return ones({}, TensorOptions().dtype(kBool));
  std::vector<int64_t> shape(index.dim(), 1);
  shape[dim] = index.size(dim);
  Tensor order = arange(index.size(dim), TensorOptions().dtype(kInt64))
                     .view(SymIntList(shape))
                     .expand(SymIntList(index.sizes()))
                     .contiguous();
  Tensor last = full(self_sizes, -1, TensorOptions().dtype(kInt64))
                    .scatter_reduce(dim, index, order, "amax", /*include_self=*/false);
  return order == last.gather(dim, index);
}

}  // namespace

std::vector<Tensor> IndexSelect::vjp(const VjpContext& ctx) const {
  const auto& sizes = ctx.input_sizes[0];
  Tensor z = zeros(sizes, like(ctx.grads[0]));
  if (sizes.empty()) return {ctx.grads[0].reshape({}), Tensor()};
  Tensor idx = ctx.inputs[1].reshape({-1}).to(kInt64);
  return {index_add(z, p_.dim, idx, ctx.grads[0]), Tensor()};
}

std::vector<Tensor> Gather::vjp(const VjpContext& ctx) const {
  const auto& sizes = ctx.input_sizes[0];
  return {scatter_sum(sizes, sizes.empty() ? 0 : p_.dim, ctx.inputs[1], ctx.grads[0]), Tensor()};
}

std::vector<Tensor> Scatter::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const Tensor& index = ctx.inputs[1];
  const auto& self_sizes = ctx.input_sizes[0];
  const int64_t dim = self_sizes.empty() ? 0 : p_.dim;
  const bool has_src = ctx.input_sizes.size() > 2;
  // Positions of self that receive something (their old value is dropped unless included).
  auto dropped = [&](const Tensor& t) { return t.scatter(dim, index, 0); };
  Tensor gself, gsrc;  // gsrc: index-shaped
  switch (p_.reduce) {
    case ScatterReduce::None:
      gself = dropped(g);
      if (has_src)
        gsrc =
            g.gather(dim, index).masked_fill(last_writers(index, dim, self_sizes).logical_not(), 0);
      break;
    case ScatterReduce::Sum:
      gself = p_.include_self ? g : dropped(g);
      if (has_src) gsrc = g.gather(dim, index);
      break;
    case ScatterReduce::Mean: {
      Tensor n = scatter_counts(self_sizes, dim, index, g);
      if (p_.include_self) {
        n = n + 1;
        gself = g / n;
      } else {
        gself = g.masked_fill(n > 0, 0);
      }
      gsrc = (g / n.clamp_min(1)).gather(dim, index);
      break;
    }
    case ScatterReduce::Prod: {
      const Tensor& result = ctx.outputs[0];
      if (!has_src) {  // scatter(value, reduce="multiply"): self times value^count
        const double v = p_.value->to<double>();
        gself = g * full({}, v, like(g)).pow(scatter_counts(self_sizes, dim, index, g));
        break;
      }
      const Tensor &self = ctx.inputs[0], &src = corner(ctx.inputs[2], index);
      // Zeros are divided around: the product of the others, recomputed with the zero set to 1.
      Tensor self_zero = self == 0;
      Tensor masked_self = self.masked_fill(self_zero, 1);
      Tensor others = masked_self.scatter_reduce(dim, index, src, "prod", p_.include_self);
      gself = p_.include_self ? g * others / masked_self : dropped(g);
      Tensor src_zero = src == 0;
      Tensor zeros_here =
          scatter_sum(self_sizes, dim, index, src_zero.to(g.dtype())).gather(dim, index);
      Tensor single_zero = src_zero.logical_and(zeros_here == 1);
      Tensor others_src =
          self.scatter_reduce(dim, index, src.masked_fill(single_zero, 1), "prod", p_.include_self);
      gsrc = where(single_zero, (g * others_src).gather(dim, index),
                   (g * result).gather(dim, index) / src.masked_fill(src_zero, 1));
      break;
    }
    case ScatterReduce::AMax:
    case ScatterReduce::AMin: {
      // Shared evenly by every contribution equal to the result.
      const Tensor& result = ctx.outputs[0];
      const Tensor &self = ctx.inputs[0], &src = corner(ctx.inputs[2], index);
      Tensor self_is = (self == result).to(g.dtype());
      if (!p_.include_self) self_is = dropped(self_is);
      Tensor src_is = (src == result.gather(dim, index)).to(g.dtype());
      Tensor share = g / self_is.scatter_add(dim, index, src_is);
      gself = self_is * share;
      gsrc = src_is * share.gather(dim, index);
      break;
    }
  }
  std::vector<Tensor> out{grad_if(ctx.needs_grad[0], [&] { return gself; }), Tensor()};
  if (has_src) {
    out.push_back(grad_if(ctx.needs_grad[2] && gsrc.defined(),
                          [&] { return embed_corner(gsrc, ctx.input_sizes[2]); }));
  }
  return out;
}

std::vector<Tensor> IndexUpdate::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const Tensor index = ctx.inputs[1].to(kInt64);
  const int64_t dim = ctx.input_sizes[0].empty() ? 0 : p_.dim;
  std::vector<Tensor> out{grad_if(ctx.needs_grad[0],
                                  [&] {
                                    if (p_.op == IndexUpdateOp::Add) return g;
                                    return g.index_fill(dim, index, 0);
                                  }),
                          Tensor()};
  if (p_.op == IndexUpdateOp::Fill) return out;
  out.push_back(grad_if(ctx.needs_grad[2], [&] {
    Tensor gs = g.index_select(dim, index);
    if (ctx.input_sizes[2].empty()) gs = gs.reshape({});
    if (p_.op == IndexUpdateOp::Add) return gs * p_.scalar;
    if (gs.dim() == 0) return gs;
    // Repeated indices: only the last copy lands.
    const SymInt& size = ctx.input_sizes[0][dim];
    Tensor idx = index.reshape({-1});
    std::vector<int64_t> shape(gs.dim(), 1);
    shape[dim] = idx.numel();
    Tensor keep = last_writers(idx, 0, {size}).view(SymIntList(shape));
    return gs.masked_fill(keep.logical_not(), 0);
  }));
  return out;
}

std::vector<Tensor> Take::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const int64_t n = ctx.concrete_sizes(0, name())[0];
  Tensor idx = ctx.inputs[1].reshape({-1});
  idx = where(idx < 0, idx + n, idx);
  return {zeros({n}, like(g)).index_add(0, idx, g.reshape({-1})), Tensor()};
}

std::vector<Tensor> MaskedScatter::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const Tensor& mask = ctx.inputs[1];
  std::vector<Tensor> out{grad_if(ctx.needs_grad[0], [&] { return g.masked_fill(mask, 0); }),
                          Tensor()};
  out.push_back(grad_if(ctx.needs_grad[2], [&] {
    // The first k source elements went to the k true positions; the rest get zero.
    Tensor taken = masked_select(g, mask);
    const int64_t n = ctx.concrete_sizes(2, name())[0];
    return cat({taken, zeros({n - taken.numel()}, like(g))});
  }));
  return out;
}

std::vector<Tensor> SortSelect::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const auto& in = ctx.input_sizes[0];
  if (p_.whole) {
    // median() / nanmedian(): shared by every element equal to the median (NaN equals NaN).
    const Tensor &x = ctx.inputs[0], &m = ctx.outputs[0];
    Tensor mask = (x == m).logical_or(x.isnan().logical_and(m.isnan())).to(g.dtype());
    return {mask * (g / mask.sum())};
  }
  if (in.empty()) return {g.reshape({})};
  Tensor gv = g, idx = ctx.outputs[1];
  if (g.dim() < static_cast<int64_t>(in.size())) {  // a reduced dim without keepdim
    gv = gv.unsqueeze(p_.dim);
    idx = idx.unsqueeze(p_.dim);
  }
  return {zeros(in, like(g)).scatter(p_.dim, idx, gv)};
}

}  // namespace ember
