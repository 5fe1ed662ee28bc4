// Shape inference (Note [Inference]) of the convolution, pooling, resampling, padding and
// attention primitives. The op builders have validated the geometry; these rules only compute.
// Sizes that the inputs do not determine (a transposed convolution's output, an adaptive
// pooling's requested size, a backward op's input size) travel as the primitive's output_hw.
#include "core/strides.h"
#include "primitives/attention.h"
#include "primitives/conv.h"
#include "primitives/pool.h"

namespace ember {
namespace {

// A contiguous [n, c, h, w] tensor on `like`'s device.
TensorMeta nchw(const TensorMeta& like, SymInt n, SymInt c, SymInt h, SymInt w, ScalarType dtype) {
  return TensorMeta::contiguous({std::move(n), std::move(c), std::move(h), std::move(w)}, dtype,
                                like.device);
}

// A primitive's output_hw, which must state two sizes (a default-made or hand-written primitive
// may lack them).
const std::vector<int64_t>& output_hw(const std::vector<int64_t>& hw, const char* op) {
  EMBER_CHECK(hw.size() == 2, "[", op, "] output_hw must hold the output's 2 spatial sizes, got ",
              hw.size());
  return hw;
}

// [N, C] of `like` and the spatial size a parameter states.
TensorMeta nchw_hw(const TensorMeta& like, const std::vector<int64_t>& hw, ScalarType dtype,
                   const char* op) {
  const auto& s = output_hw(hw, op);
  return nchw(like, like.sizes[0], like.sizes[1], s[0], s[1], dtype);
}

// Windows of extent dilation * (kernel - 1) + 1 sliding by `stride` over the padded `in`.
SymInt windows(const SymInt& in, const SymInt& kernel, int64_t pad, int64_t stride,
               int64_t dilation) {
  return floordiv(in + 2 * pad - dilation * (kernel - 1) - 1, SymInt(stride)) + 1;
}

// PyTorch's pooling_output_shape: with ceil_mode the last window must start inside the input or
// its left padding (a guard on symbolic sizes).
SymInt pooled(const SymInt& in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation,
              bool ceil) {
  if (!ceil) return windows(in, kernel, pad, stride, dilation);
  SymInt out = windows(in + (stride - 1), kernel, pad, stride, dilation);
  if ((out - 1) * stride >= in + pad) out = out - 1;
  return out;
}

}  // namespace

MetaList Convolution::infer(std::span<const TensorMeta> in) const {
  const TensorMeta &a = in[0], &b = in[1];
  const Conv2dParams& c = p_.conv;
  switch (p_.op) {
    case ConvOp::Forward:  // {x, w}
      return {nchw(a, a.sizes[0], b.sizes[0],
                   windows(a.sizes[2], b.sizes[2], c.pad_h, c.stride_h, c.dilation_h),
                   windows(a.sizes[3], b.sizes[3], c.pad_w, c.stride_w, c.dilation_w), a.dtype)};
    case ConvOp::BackwardInput: {  // {grad_y, w}
      const auto& hw = output_hw(p_.output_hw, name());
      return {nchw(a, a.sizes[0], b.sizes[1] * c.groups, hw[0], hw[1], a.dtype)};
    }
    case ConvOp::BackwardWeight: {  // {grad_y, x}
      const auto& hw = output_hw(p_.output_hw, name());
      return {nchw(a, a.sizes[1], floordiv(b.sizes[1], SymInt(c.groups)), hw[0], hw[1], a.dtype)};
    }
  }
  return {};
}

MetaList SlidingWindow::infer(std::span<const TensorMeta> in) const {
  const TensorMeta& x = in[0];
  const Conv2dParams& c = p_.conv;
  const int64_t taps = p_.kernel_h * p_.kernel_w;
  if (!p_.to_columns) {  // cols [N, C * kH * kW, L] -> [N, C, H, W]
    const auto& hw = output_hw(p_.output_hw, name());
    return {nchw(x, x.sizes[0], floordiv(x.sizes[1], SymInt(taps)), hw[0], hw[1], x.dtype)};
  }
  const SymInt ho = windows(x.sizes[2], p_.kernel_h, c.pad_h, c.stride_h, c.dilation_h);
  const SymInt wo = windows(x.sizes[3], p_.kernel_w, c.pad_w, c.stride_w, c.dilation_w);
  return {TensorMeta::contiguous({x.sizes[0], x.sizes[1] * taps, ho * wo}, x.dtype, x.device)};
}

MetaList Pooling::infer(std::span<const TensorMeta> in) const {
  const TensorMeta& x = in[0];
  const Pool2dParams& q = p_.pool;
  switch (p_.op) {
    case PoolOp::MaxForward:
    case PoolOp::AvgForward: {
      const TensorMeta y = nchw(
          x, x.sizes[0], x.sizes[1],
          pooled(x.sizes[2], q.kernel_h, q.pad_h, q.stride_h, q.dilation_h, q.ceil_mode),
          pooled(x.sizes[3], q.kernel_w, q.pad_w, q.stride_w, q.dilation_w, q.ceil_mode), x.dtype);
      if (p_.op == PoolOp::AvgForward) return {y};
      TensorMeta idx = y;
      idx.dtype = kInt64;
      return {y, idx};
    }
    case PoolOp::AdaptiveMaxForward:
      return {nchw_hw(x, p_.output_hw, x.dtype, name()), nchw_hw(x, p_.output_hw, kInt64, name())};
    case PoolOp::AdaptiveAvgForward:
    case PoolOp::AvgBackward:
    case PoolOp::AdaptiveAvgBackward:
    case PoolOp::MaxBackward:
      return {nchw_hw(x, p_.output_hw, x.dtype, name())};
  }
  return {};
}

MetaList Upsample::infer(std::span<const TensorMeta> in) const {
  return {nchw_hw(in[0], p_.output_hw, in[0].dtype, name())};
}

MetaList Pad::infer(std::span<const TensorMeta> in) const {
  // pad lists (left, right) pairs from the last dim; backward removes what forward added.
  SymShape sizes = in[0].sizes;
  const size_t pairs = p_.pad.size() / 2;
  for (size_t k = 0; k < pairs; ++k) {
    SymInt& s = sizes[sizes.size() - 1 - k];
    const int64_t extra = p_.pad[2 * k] + p_.pad[2 * k + 1];
    s = p_.backward ? s - extra : s + extra;
  }
  return {TensorMeta::contiguous(std::move(sizes), in[0].dtype, in[0].device)};
}

MetaList ScaledDotProductAttention::infer(std::span<const TensorMeta> in) const {
  // {q [B, Hq, L, E], k, v [B, Hk, S, Ev][, mask]} -> {out [B, Hq, L, Ev] stored as
  // [B, L, Hq, Ev], logsumexp [B, Hq, L]} (primitives/attention.h)
  const TensorMeta &q = in[0], &v = in[2];
  const SymInt &B = q.sizes[0], &H = q.sizes[1], &L = q.sizes[2], &Ev = v.sizes[3];
  TensorMeta out = TensorMeta::contiguous({B, L, H, Ev}, q.dtype, q.device);
  std::swap(out.sizes[1], out.sizes[2]);
  std::swap(out.strides[1], out.strides[2]);
  return {std::move(out), TensorMeta::contiguous({B, H, L}, q.dtype, q.device)};
}

namespace {

// torch.empty_like's layout of `like`: its own strides where they are known and dense, else
// contiguous.
TensorMeta dense_like(const TensorMeta& like) {
  std::vector<int64_t> sizes, strides;
  for (size_t d = 0; d < like.sizes.size(); ++d) {
    if (like.sizes[d].is_symbolic() || like.strides[d].is_symbolic()) {
      return TensorMeta::contiguous(like.sizes, like.dtype, like.device);
    }
    sizes.push_back(like.sizes[d].hint());
    strides.push_back(like.strides[d].hint());
  }
  return non_overlapping_and_dense(sizes, strides)
             ? like
             : TensorMeta::contiguous(like.sizes, like.dtype, like.device);
}

}  // namespace

MetaList ScaledDotProductAttentionBackward::infer(std::span<const TensorMeta> in) const {
  // {grad_out, q, k, v, out, logsumexp[, mask]} -> {grad_q, grad_k, grad_v}, each laid out as
  // its input where that is dense
  MetaList out;
  for (size_t i = 1; i <= 3; ++i) out.push_back(dense_like(in[i]));
  return out;
}

}  // namespace ember
