// Shape inference, gradients and decompositions of the fused normalisations (primitives/norm.h).
#include "primitives/norm.h"

#include "dispatch/dispatch.h"
#include "ember/autograd.h"
#include "ember/ember.h"
#include "primitives/infer_util.h"

namespace ember {

ScalarType norm_acc_dtype(ScalarType x) { return x == kFloat16 || x == kBFloat16 ? kFloat32 : x; }

namespace {

// ---- shapes

struct NormLayout {
  size_t ndim, k;  // the input's dims and the normalised (trailing) ones
  ScalarType acc;
};

NormLayout check_layout(const TensorMeta& x, const NormParams& p, const char* op) {
  const size_t ndim = x.sizes.size();
  EMBER_CHECK(p.normalized_ndim >= 1 && static_cast<size_t>(p.normalized_ndim) <= ndim, "[", op,
              "] normalized_ndim ", p.normalized_ndim, " is out of range for a ", ndim, "-d input");
  EMBER_CHECK_TYPE(is_floating_point(x.dtype), "[", op, "] expected a floating input, got ",
                   x.str());
  return {ndim, static_cast<size_t>(p.normalized_ndim), norm_acc_dtype(x.dtype)};
}

SymShape normalized_sizes(const TensorMeta& x, const NormLayout& l) {
  return SymShape(x.sizes.begin() + static_cast<std::ptrdiff_t>(l.ndim - l.k), x.sizes.end());
}

// [*lead, 1, ..., 1]: the statistics' shape.
TensorMeta stat_meta(const TensorMeta& x, const NormLayout& l) {
  SymShape s = x.sizes;
  for (size_t d = l.ndim - l.k; d < l.ndim; ++d) s[d] = 1;
  return TensorMeta::contiguous(std::move(s), l.acc, x.device);
}

void check_param(const TensorMeta& t, const SymShape& norm, ScalarType acc, const char* what,
                 const char* op) {
  EMBER_CHECK(same_as(t.sizes, norm) && t.dtype == acc, "[", op, "] expected ", what, " of ",
              dtype_name(acc), " with the normalized shape, got ", t.str());
}

// The forward outputs: y, then the statistics (mean and rstd, or rstd alone).
MetaList norm_forward_infer(std::span<const TensorMeta> in, const NormParams& p, bool rms,
                            const char* op) {
  const TensorMeta& x = in[0];
  const NormLayout l = check_layout(x, p, op);
  const SymShape norm = normalized_sizes(x, l);
  EMBER_CHECK(!(rms && p.has_bias), "[", op, "] rms_norm takes no bias");
  size_t i = 1;
  if (p.has_weight) check_param(in[i++], norm, l.acc, "weight", op);
  if (p.has_bias) check_param(in[i++], norm, l.acc, "bias", op);
  MetaList out{TensorMeta::contiguous(x.sizes, x.dtype, x.device)};
  out.push_back(stat_meta(x, l));
  if (!rms) out.push_back(stat_meta(x, l));
  return out;
}

// The backward outputs: grad_x[, grad_weight][, grad_bias]; inputs grad_y, x, stats..., weight.
MetaList norm_backward_infer(std::span<const TensorMeta> in, const NormParams& p, bool rms,
                             const char* op) {
  const TensorMeta& x = in[1];
  const NormLayout l = check_layout(x, p, op);
  EMBER_CHECK(same_as(in[0].sizes, x.sizes) && in[0].dtype == x.dtype, "[", op, "] grad_output ",
              in[0].str(), " does not match input ", x.str());
  const TensorMeta stat = stat_meta(x, l);
  const size_t nstats = rms ? 1 : 2;
  for (size_t s = 0; s < nstats; ++s) {
    EMBER_CHECK(same_as(in[2 + s].sizes, stat.sizes) && in[2 + s].dtype == l.acc, "[", op,
                "] expected statistics of ", stat.str(), ", got ", in[2 + s].str());
  }
  const SymShape norm = normalized_sizes(x, l);
  MetaList out{TensorMeta::contiguous(x.sizes, x.dtype, x.device)};
  if (p.has_weight) {
    check_param(in[2 + nstats], norm, l.acc, "weight", op);
    out.push_back(TensorMeta::contiguous(norm, l.acc, x.device));
  }
  if (p.has_bias) out.push_back(TensorMeta::contiguous(norm, l.acc, x.device));
  return out;
}

// ---- the composite formulas (decompositions and differentiable gradients)

std::vector<int64_t> dims_from(int64_t begin, int64_t end) {
  std::vector<int64_t> d;
  for (int64_t i = begin; i < end; ++i) d.push_back(i);
  return d;
}

struct Stats {
  Tensor mean, rstd;  // mean undefined for rms_norm
};

Stats stats_ops(const Tensor& xf, const NormParams& p, bool rms) {
  const auto dims = dims_from(xf.dim() - p.normalized_ndim, xf.dim());
  if (rms) return {Tensor(), ((xf * xf).mean(dims, /*keepdim=*/true) + p.eps).rsqrt()};
  auto [var, mean] = ember::var_mean(xf, dims, /*correction=*/0, /*keepdim=*/true);
  return {mean, (var + p.eps).rsqrt()};
}

std::vector<Tensor> forward_ops(const std::vector<Tensor>& in, const NormParams& p, bool rms) {
  const Tensor& x = in[0];
  const Tensor xf = x.to(norm_acc_dtype(x.dtype()));
  const Stats s = stats_ops(xf, p, rms);
  Tensor y = rms ? xf * s.rstd : (xf - s.mean) * s.rstd;
  size_t i = 1;
  if (p.has_weight) y = y * in[i++];
  if (p.has_bias) y = y + in[i++];
  if (rms) return {y.to(x.dtype()), s.rstd};
  return {y.to(x.dtype()), s.mean, s.rstd};
}

// grad_x[, grad_weight][, grad_bias] of y = xhat * w + b, xhat = (x - mean) * rstd (or x * rstd):
//   grad_x = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)), dxhat = grad_y * w,
// without the mean(dxhat) term for rms_norm; grad_w and grad_b sum over the leading dims.
std::vector<Tensor> backward_ops(const Tensor& g, const Tensor& x, const Stats& s, const Tensor& w,
                                 const NormParams& p, bool rms) {
  const ScalarType acc = norm_acc_dtype(x.dtype());
  const Tensor xf = x.to(acc), gf = g.to(acc);
  const int64_t axis = x.dim() - p.normalized_ndim;
  const auto dims = dims_from(axis, x.dim()), lead = dims_from(0, axis);
  const Tensor xhat = rms ? xf * s.rstd : (xf - s.mean) * s.rstd;
  const Tensor dxhat = p.has_weight ? gf * w : gf;
  Tensor inner = dxhat - xhat * (dxhat * xhat).mean(dims, /*keepdim=*/true);
  if (!rms) inner = inner - dxhat.mean(dims, /*keepdim=*/true);
  std::vector<Tensor> out{(s.rstd * inner).to(x.dtype())};
  auto lead_sum = [&](const Tensor& t) { return lead.empty() ? t : t.sum(lead); };
  if (p.has_weight) out.push_back(lead_sum(gf * xhat));
  if (p.has_bias) out.push_back(lead_sum(gf));
  return out;
}

std::vector<Tensor> backward_decompose(const std::vector<Tensor>& in, const NormParams& p,
                                       bool rms) {
  const Stats s = rms ? Stats{Tensor(), in[2]} : Stats{in[2], in[3]};
  const size_t w = rms ? 3 : 4;
  return backward_ops(in[0], in[1], s, p.has_weight ? in[w] : Tensor(), p, rms);
}

// The forward's vjp: the fused backward primitive, or (while a graph of the gradient is being
// recorded) the composite formula with the statistics recomputed from x, differentiable in x,
// w and the incoming gradient.
template <typename Backward>
std::vector<Tensor> norm_vjp(const VjpContext& ctx, const NormParams& p, bool rms) {
  const Tensor& x = ctx.inputs[0];
  const Tensor w = p.has_weight ? ctx.inputs[1] : Tensor();
  const Tensor g = ctx.grads[0].to(x.dtype()).contiguous();
  if (is_grad_enabled()) {
    return backward_ops(g, x, stats_ops(x.to(norm_acc_dtype(x.dtype())), p, rms), w, p, rms);
  }
  std::vector<Tensor> args{g, x};
  if (!rms) args.push_back(ctx.outputs[1]);
  args.push_back(ctx.outputs[rms ? 1 : 2]);
  if (w.defined()) args.push_back(w);
  return dispatch(Backward(p), args);
}

}  // namespace

MetaList LayerNorm::infer(std::span<const TensorMeta> in) const {
  return norm_forward_infer(in, p_, false, name());
}
MetaList LayerNormBackward::infer(std::span<const TensorMeta> in) const {
  return norm_backward_infer(in, p_, false, name());
}
MetaList RmsNorm::infer(std::span<const TensorMeta> in) const {
  return norm_forward_infer(in, p_, true, name());
}
MetaList RmsNormBackward::infer(std::span<const TensorMeta> in) const {
  return norm_backward_infer(in, p_, true, name());
}

std::vector<Tensor> LayerNorm::decompose(const std::vector<Tensor>& in) const {
  return forward_ops(in, p_, false);
}
std::vector<Tensor> RmsNorm::decompose(const std::vector<Tensor>& in) const {
  return forward_ops(in, p_, true);
}
std::vector<Tensor> LayerNormBackward::decompose(const std::vector<Tensor>& in) const {
  return backward_decompose(in, p_, false);
}
std::vector<Tensor> RmsNormBackward::decompose(const std::vector<Tensor>& in) const {
  return backward_decompose(in, p_, true);
}

std::vector<Tensor> LayerNorm::vjp(const VjpContext& ctx) const {
  return norm_vjp<LayerNormBackward>(ctx, p_, false);
}
std::vector<Tensor> RmsNorm::vjp(const VjpContext& ctx) const {
  return norm_vjp<RmsNormBackward>(ctx, p_, true);
}

}  // namespace ember
