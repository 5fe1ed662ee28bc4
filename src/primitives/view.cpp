// The view primitives' layouts and vjps (Note [Views] in primitives/view.h).
#include "primitives/view.h"

#include <algorithm>

#include "core/shape.h"
#include "dispatch/dispatch.h"
#include "ember/ember.h"
#include "primitives/infer_util.h"

namespace ember {

ViewLayout layout_of(const Tensor& t) {
  const TensorImpl* impl = t.unsafeGetTensorImpl();
  if (const SymGeometry* g = impl->sym_geometry()) {
    return {SymShape(g->sizes.begin(), g->sizes.end()),
            SymShape(g->strides.begin(), g->strides.end()), g->storage_offset, t.dtype()};
  }
  const auto& sz = impl->sizes();
  const auto& st = impl->strides();
  return {SymShape(sz.begin(), sz.end()), SymShape(st.begin(), st.end()), impl->storage_offset(),
          t.dtype()};
}

Tensor make_view(const Tensor& in, const ViewLayout& l, const char* op) {
  const auto& src = in.impl();
  std::shared_ptr<TensorImpl> impl;
  auto symbolic = [](const SymShape& v) {
    return std::any_of(v.begin(), v.end(), [](const SymInt& x) { return x.is_symbolic(); });
  };
  if (symbolic(l.sizes) || symbolic(l.strides) || l.offset.is_symbolic()) {
    // Note [Symbolic tensors]: a meta tensor traced with dynamic shapes
    impl = std::make_shared<TensorImpl>(
        src->storage(), l.dtype, std::span<const SymInt>(l.sizes.data(), l.sizes.size()),
        std::span<const SymInt>(l.strides.data(), l.strides.size()), l.offset);
  } else {
    std::vector<int64_t> sizes(l.sizes.size()), strides(l.strides.size());
    for (size_t d = 0; d < sizes.size(); ++d) sizes[d] = l.sizes[d].guard_int(op);
    for (size_t d = 0; d < strides.size(); ++d) strides[d] = l.strides[d].guard_int(op);
    checked_numel(sizes, op);  // an expand to 2^32 x 2^32 must not wrap numel
    impl = std::make_shared<TensorImpl>(src->storage(), l.dtype, std::move(sizes),
                                        std::move(strides), l.offset.guard_int(op));
  }
  impl->share_version_counter(src->version_counter());
  return Tensor(std::move(impl));
}

namespace {

SymShape shape_of(const std::vector<int64_t>& v) { return SymShape(v.begin(), v.end()); }
SymShape shape_of(const std::vector<SymInt>& v) { return SymShape(v.begin(), v.end()); }

int64_t ndim(const ViewLayout& l) { return static_cast<int64_t>(l.sizes.size()); }

// A dim parameter must address the input (a hand-built or deserialised primitive may not).
void check_dim(int64_t dim, int64_t n, const char* op) {
  EMBER_CHECK_INDEX(dim >= 0 && dim < n, "[", op, "] dim ", dim, " is out of range for a ", n,
                    "-d input");
}

// The gradient of a selection (slice, select, diagonal): zeros of the input's shape with the
// gradient written where the view took its elements, found by replaying the view on them.
Tensor into_zeros(const Primitive& view, const VjpContext& ctx) {
  const Tensor& g = ctx.grads[0];
  Tensor z = zeros(ctx.input_sizes[0], TensorOptions().dtype(g.dtype()));
  dispatch(view, {z})[0].copy_(g);
  return z;
}

Tensor reshaped_back(const VjpContext& ctx) {
  return ctx.grads[0].reshape(SymIntList(ctx.input_sizes[0]));
}

}  // namespace

ViewLayout AsStrided::layout(ViewLayout in) const {
  EMBER_CHECK(p_.sizes.size() == p_.strides.size(),
              "[as_strided] mismatch in length of strides and shape");
  return {shape_of(p_.sizes), shape_of(p_.strides), p_.offset, in.dtype};
}

std::vector<Tensor> Alias::vjp(const VjpContext& ctx) const { return {ctx.grads[0]}; }

// PyTorch's computeStride: each run of input dims that is contiguous in memory may be re-split.
std::optional<SymShape> reshape_strides(const SymShape& sizes, const SymShape& strides,
                                        const SymShape& shape) {
  if (sizes.empty() || numel(sizes) == 0) {  // 0-d to [1, ...], or empty: any layout
    return TensorMeta::contiguous(shape, kFloat32, kCPU).strides;
  }
  SymShape out(shape.size(), SymInt(0));
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  SymInt chunk_base_stride = strides.back();
  SymInt tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel = tensor_numel * sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel = view_numel * shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

ViewLayout Reshape::layout(ViewLayout in) const {
  SymShape shape = shape_of(p_.sizes);
  EMBER_CHECK(numel(shape) == numel(in.sizes), "[", name(), "] shape '", shape_str(shape),
              "' is invalid for input of size ", numel(in.sizes));
  auto strides = reshape_strides(in.sizes, in.strides, shape);
  EMBER_CHECK(strides.has_value(), "[", name(),
              "] view size is not compatible with input tensor's size and stride (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  return {std::move(shape), std::move(*strides), in.offset, in.dtype};
}

std::vector<Tensor> Reshape::vjp(const VjpContext& ctx) const { return {reshaped_back(ctx)}; }

ViewLayout Squeeze::layout(ViewLayout in) const {
  const int64_t n = ndim(in);
  for (int64_t d : p_.dims) check_dim(d, std::max<int64_t>(n, 1), name());
  ViewLayout out{{}, {}, in.offset, in.dtype};
  for (int64_t d = 0; d < n; ++d) {
    const bool listed = std::find(p_.dims.begin(), p_.dims.end(), d) != p_.dims.end();
    if (listed && in.sizes[d] == 1) continue;
    out.sizes.push_back(in.sizes[d]);
    out.strides.push_back(in.strides[d]);
  }
  return out;
}

std::vector<Tensor> Squeeze::vjp(const VjpContext& ctx) const { return {reshaped_back(ctx)}; }

ViewLayout Unsqueeze::layout(ViewLayout in) const {
  const int64_t n = ndim(in), d = p_.dim;
  check_dim(d, n + 1, name());
  SymInt stride = d < n ? sym_mul(in.sizes[d], in.strides[d], name(), "the stride") : SymInt(1);
  in.sizes.insert(in.sizes.begin() + d, 1, SymInt(1));
  in.strides.insert(in.strides.begin() + d, 1, stride);
  return in;
}

std::vector<Tensor> Unsqueeze::vjp(const VjpContext& ctx) const { return {reshaped_back(ctx)}; }

ViewLayout Permute::layout(ViewLayout in) const {
  const int64_t n = ndim(in);
  EMBER_CHECK(static_cast<int64_t>(p_.dims.size()) == n, "[", name(),
              "] number of dims don't match in permute: expected ", n, " dims, got ",
              p_.dims.size());
  std::vector<bool> seen(n, false);
  ViewLayout out{{}, {}, in.offset, in.dtype};
  for (int64_t d : p_.dims) {
    check_dim(d, n, name());
    EMBER_CHECK(!seen[d], "[", name(), "] repeated dim ", d, " in permute");
    seen[d] = true;
    out.sizes.push_back(in.sizes[d]);
    out.strides.push_back(in.strides[d]);
  }
  return out;
}

std::vector<Tensor> Permute::vjp(const VjpContext& ctx) const {
  std::vector<int64_t> inverse(p_.dims.size());
  for (size_t i = 0; i < p_.dims.size(); ++i) inverse[p_.dims[i]] = static_cast<int64_t>(i);
  return {ctx.grads[0].permute(IntList(inverse))};
}

ViewLayout Expand::layout(ViewLayout in) const {
  const int64_t n = ndim(in), m = static_cast<int64_t>(p_.sizes.size()), lead = m - n;
  EMBER_CHECK(lead >= 0, "[", name(), "] the number of sizes provided (", m,
              ") must be greater or equal to the number of dimensions in the tensor (", n, ")");
  ViewLayout out{shape_of(p_.sizes), SymShape(m, SymInt(0)), in.offset, in.dtype};
  for (int64_t d = lead; d < m; ++d) {
    const SymInt& from = in.sizes[d - lead];
    if (from == out.sizes[d]) {
      out.strides[d] = in.strides[d - lead];
    } else {
      EMBER_CHECK(from == 1, "[", name(), "] The expanded size of the tensor (", out.sizes[d],
                  ") must match the existing size (", from, ") at non-singleton dimension ", d,
                  ".  Target sizes: ", shape_str(out.sizes),
                  ".  Tensor sizes: ", shape_str(in.sizes));
    }
  }
  for (const SymInt& s : out.sizes) EMBER_CHECK(s >= 0, "[", name(), "] invalid size ", s);
  return out;
}

// The engine sums a broadcast gradient down to the input's shape.
std::vector<Tensor> Expand::vjp(const VjpContext& ctx) const { return {ctx.grads[0]}; }

ViewLayout StridedSlice::layout(ViewLayout in) const {
  const int64_t d = p_.dim;
  check_dim(d, ndim(in), name());
  const bool symbolic = !p_.sym_bounds.empty();
  EMBER_CHECK(!symbolic || p_.sym_bounds.size() == 2, "[", name(),
              "] expected sym_bounds {start, end}, got ", p_.sym_bounds.size(), " values");
  const SymInt start = symbolic ? p_.sym_bounds[0] : SymInt(p_.start);
  const SymInt end = symbolic ? p_.sym_bounds[1] : SymInt(p_.end);
  const SymInt& size = in.sizes[d];
  EMBER_CHECK(p_.step > 0 && start >= 0 && start <= end && size >= end, "[", name(), "] slice [",
              start, ", ", end, ") step ", p_.step, " does not fit dimension ", d, " of size ",
              size);
  // ceil((end - start) / step), without overflow when concrete
  const SymInt len = start.is_symbolic() || end.is_symbolic()
                         ? floordiv(end - start + (p_.step - 1), p_.step)
                     : end.guard_int() == start.guard_int()
                         ? SymInt(0)
                         : SymInt((end.guard_int() - start.guard_int() - 1) / p_.step + 1);
  in.offset = sym_add(in.offset, sym_mul(start, in.strides[d], name(), "the storage offset"),
                      name(), "the storage offset");
  // A size-1 result keeps its stride (a huge step would overflow it); a symbolic length is
  // multiplied, as PyTorch does, rather than guarded.
  if (len.is_symbolic() || len > 1)
    in.strides[d] = sym_mul(in.strides[d], p_.step, name(), "the stride");
  in.sizes[d] = len;
  return in;
}

std::vector<Tensor> StridedSlice::vjp(const VjpContext& ctx) const {
  return {into_zeros(*this, ctx)};
}

ViewLayout Select::layout(ViewLayout in) const {
  const int64_t d = p_.dim;
  check_dim(d, ndim(in), name());
  EMBER_CHECK_INDEX(p_.index >= 0 && in.sizes[d] > p_.index, "[", name(), "] index ", p_.index,
                    " is out of bounds for dimension ", d, " with size ", in.sizes[d]);
  const SymInt offset =
      sym_add(in.offset, sym_mul(p_.index, in.strides[d], name(), "the storage offset"), name(),
              "the storage offset");
  ViewLayout out{{}, {}, offset, in.dtype};
  for (int64_t i = 0; i < ndim(in); ++i) {
    if (i == d) continue;
    out.sizes.push_back(in.sizes[i]);
    out.strides.push_back(in.strides[i]);
  }
  return out;
}

std::vector<Tensor> Select::vjp(const VjpContext& ctx) const { return {into_zeros(*this, ctx)}; }

ViewLayout Diagonal::layout(ViewLayout in) const {
  const int64_t a = p_.dim1, b = p_.dim2, n = ndim(in);
  check_dim(a, n, name());
  check_dim(b, n, name());
  EMBER_CHECK(a != b, "[", name(), "] diagonal dimensions cannot be identical ", a, ", ", b);
  SymInt len, start = in.offset;
  if (p_.offset >= 0) {
    len = sym_max(sym_min(in.sizes[a], in.sizes[b] - p_.offset), 0);
    if (len > 0)
      start = sym_add(start, sym_mul(p_.offset, in.strides[b], name(), "the offset"), name(),
                      "the offset");
  } else {
    len = sym_max(sym_min(in.sizes[a] + p_.offset, in.sizes[b]), 0);
    if (len > 0)
      start = sym_add(start, sym_mul(-p_.offset, in.strides[a], name(), "the offset"), name(),
                      "the offset");
  }
  ViewLayout out{{}, {}, start, in.dtype};
  for (int64_t d = 0; d < n; ++d) {
    if (d == a || d == b) continue;
    out.sizes.push_back(in.sizes[d]);
    out.strides.push_back(in.strides[d]);
  }
  out.sizes.push_back(len);
  out.strides.push_back(sym_add(in.strides[a], in.strides[b], name(), "the diagonal stride"));
  return out;
}

std::vector<Tensor> Diagonal::vjp(const VjpContext& ctx) const { return {into_zeros(*this, ctx)}; }

// PyTorch's view_dtype: the same element size keeps the layout; otherwise the last dim (which
// must have stride 1) is split or merged.
ViewLayout ViewDtype::layout(ViewLayout in) const {
  const int64_t old_es = element_size(in.dtype), new_es = element_size(p_.dtype);
  const char* from = dtype_name(in.dtype);
  const char* to = dtype_name(p_.dtype);
  const int64_t n = ndim(in);
  in.dtype = p_.dtype;
  if (old_es == new_es) return in;
  EMBER_CHECK(n > 0, "[view] self.dim() cannot be 0 to view ", from, " as ", to,
              " (different element sizes)");
  SymShape& sz = in.sizes;
  SymShape& st = in.strides;
  auto check_last_stride = [&] {
    EMBER_CHECK(st[n - 1] == 1, "[view] self.stride(-1) must be 1 to view ", from, " as ", to,
                " (different element sizes), but got ", st[n - 1]);
  };
  if (old_es > new_es) {
    check_last_stride();
    const int64_t ratio = old_es / new_es;
    for (int64_t d = 0; d < n - 1; ++d) st[d] = sym_mul(st[d], ratio, "view", "the stride");
    sz[n - 1] = sym_mul(sz[n - 1], ratio, "view", "the size");
    in.offset = sym_mul(in.offset, ratio, "view", "the storage offset");
    return in;
  }
  const int64_t ratio = new_es / old_es;
  EMBER_CHECK(mod(sz[n - 1], ratio) == 0, "[view] self.size(-1) must be divisible by ", ratio,
              " to view ", from, " as ", to, " (different element sizes), but got ", sz[n - 1]);
  EMBER_CHECK(mod(in.offset, ratio) == 0, "[view] self.storage_offset() must be divisible by ",
              ratio, " to view ", from, " as ", to, " (different element sizes), but got ",
              in.offset);
  check_last_stride();
  for (int64_t d = 0; d < n - 1; ++d) {
    EMBER_CHECK(mod(st[d], ratio) == 0, "[view] self.stride(", d, ") must be divisible by ", ratio,
                " to view ", from, " as ", to, " (different element sizes), but got ", st[d]);
    st[d] = floordiv(st[d], ratio);
  }
  sz[n - 1] = floordiv(sz[n - 1], ratio);
  in.offset = floordiv(in.offset, ratio);
  return in;
}

// Only a view as the same type is recorded (another type is not differentiable).
std::vector<Tensor> ViewDtype::vjp(const VjpContext& ctx) const { return {ctx.grads[0]}; }

}  // namespace ember
