// View ops: new geometry over the same storage, through the View primitive (src/primitives/copy.h).
#include <algorithm>
#include <numeric>

#include "ember/autograd.h"
#include "ember/ops/shape.h"
#include "ops/promotion.h"
#include "ops/util.h"
#include "primitives/copy.h"

namespace ember {
namespace {

Tensor make_view(const Tensor& x, const char* name, std::vector<int64_t> sizes,
                 std::vector<int64_t> strides, int64_t offset, View::Replay replay = nullptr) {
  checked_numel(sizes, name);  // an expand to 2^32 x 2^32 must not wrap numel
  return dispatch(
      View(name, std::move(sizes), std::move(strides), offset, std::nullopt, std::move(replay)),
      {x})[0];
}

// A selection view (select, narrow, slice, diagonal) with its logical replay (View::Replay). The
// replay is kept only when autograd will record the view, so that other calls do not allocate a
// std::function on this hot path.
template <typename F>
Tensor make_selection(const Tensor& x, const char* name, std::vector<int64_t> sizes,
                      std::vector<int64_t> strides, int64_t offset, F&& replay) {
  View::Replay r = nullptr;
  if (x.requires_grad() && is_grad_enabled()) r = std::forward<F>(replay);
  return make_view(x, name, std::move(sizes), std::move(strides), offset, std::move(r));
}

Tensor make_view(const Tensor& x, const char* name, std::vector<int64_t> sizes,
                 std::vector<int64_t> strides) {
  return make_view(x, name, std::move(sizes), std::move(strides), x.storage_offset());
}

// Resolves a single -1 in `shape` against numel (PyTorch's infer_size).
std::vector<int64_t> infer_size(const SymIntList& shape, int64_t numel, const char* op) {
  std::vector<int64_t> r = shape.concrete(op);
  int64_t known = 1;
  std::optional<size_t> infer;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i] == -1) {
      EMBER_CHECK(!infer, "[", op, "] only one dimension can be inferred");
      infer = i;
    } else {
      EMBER_CHECK(r[i] >= 0, "[", op, "] invalid shape dimension ", r[i]);
      EMBER_CHECK(!__builtin_mul_overflow(known, r[i], &known), "[", op, "] shape ",
                  ops::shape_str(r), " overflows int64");
    }
  }
  if (infer) {
    EMBER_CHECK(known != 0 && numel % known == 0, "[", op, "] shape '", ops::shape_str(r),
                "' is invalid for input of size ", numel);
    r[*infer] = numel / known;
  } else {
    EMBER_CHECK(known == numel, "[", op, "] shape '", ops::shape_str(r),
                "' is invalid for input of size ", numel);
  }
  return r;
}

// Strides for viewing (sizes, strides) as `shape` without copying, or nullopt (PyTorch's
// computeStride): each run of input dims that is contiguous in memory may be re-split freely.
std::optional<std::vector<int64_t>> view_strides(const std::vector<int64_t>& sizes,
                                                 const std::vector<int64_t>& strides,
                                                 const std::vector<int64_t>& shape) {
  std::vector<int64_t> out(shape.size());
  int64_t numel = 1;
  for (auto s : sizes) numel *= s;
  if (numel == 0 || sizes.empty()) return contiguous_strides(shape);  // empty, or 0-d to [1, ...]
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = strides.empty() ? 1 : strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
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

}  // namespace

Tensor view(const Tensor& x, SymIntList size) {
  auto shape = infer_size(size, x.numel(), "view");
  auto st = view_strides(x.sizes(), x.strides(), shape);
  EMBER_CHECK(st.has_value(),
              "[view] view size is not compatible with input tensor's size and "
              "stride (at least one dimension spans across two contiguous subspaces). Use "
              ".reshape(...) instead.");
  return make_view(x, "view", shape, *st);
}

Tensor reshape(const Tensor& x, SymIntList size) {
  auto shape = infer_size(size, x.numel(), "reshape");
  if (auto st = view_strides(x.sizes(), x.strides(), shape))
    return make_view(x, "reshape", shape, *st);
  return view(x.clone(), SymIntList(shape));
}

Tensor flatten(const Tensor& x, int64_t start_dim, int64_t end_dim) {
  int64_t s = ops::wrap_dim(start_dim, x.dim(), "flatten");
  int64_t e = ops::wrap_dim(end_dim, x.dim(), "flatten");
  EMBER_CHECK(s <= e, "[flatten] flatten() has invalid args: start_dim cannot come after end_dim");
  if (x.dim() == 0) return reshape(x, {1});
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().begin() + s);
  int64_t n = 1;
  for (int64_t d = s; d <= e; ++d) n *= x.sizes()[d];
  shape.push_back(n);
  shape.insert(shape.end(), x.sizes().begin() + e + 1, x.sizes().end());
  return reshape(x, SymIntList(shape));
}

Tensor squeeze(const Tensor& x) {
  std::vector<int64_t> sz, st;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (x.sizes()[d] != 1) {
      sz.push_back(x.sizes()[d]);
      st.push_back(x.strides()[d]);
    }
  }
  return make_view(x, "squeeze", sz, st);
}

Tensor squeeze(const Tensor& x, IntList dims) {
  auto wrapped = ops::wrap_dims(dims, x.dim(), "squeeze");
  std::vector<int64_t> sz, st;
  for (int64_t d = 0; d < x.dim(); ++d) {
    bool drop = x.sizes()[d] == 1 && std::find(wrapped.begin(), wrapped.end(), d) != wrapped.end();
    if (!drop) {
      sz.push_back(x.sizes()[d]);
      st.push_back(x.strides()[d]);
    }
  }
  return make_view(x, "squeeze", sz, st);
}

Tensor unsqueeze(const Tensor& x, int64_t dim) {
  int64_t d = ops::wrap_dim(dim, x.dim() + 1, "unsqueeze");
  auto sz = x.sizes();
  auto st = x.strides();
  int64_t stride = d < x.dim() ? sz[d] * st[d] : 1;
  sz.insert(sz.begin() + d, 1);
  st.insert(st.begin() + d, stride);
  return make_view(x, "unsqueeze", sz, st);
}

Tensor permute(const Tensor& x, IntList dims) {
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == x.dim(),
              "[permute] number of dims don't match "
              "in permute: expected ",
              x.dim(), " dims, got ", dims.size());
  auto w = ops::wrap_dims(dims, x.dim(), "permute");
  std::vector<int64_t> sz(w.size()), st(w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    sz[i] = x.sizes()[w[i]];
    st[i] = x.strides()[w[i]];
  }
  return make_view(x, "permute", sz, st);
}

Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1) {
  int64_t a = ops::wrap_dim(dim0, x.dim(), "transpose");
  int64_t b = ops::wrap_dim(dim1, x.dim(), "transpose");
  auto sz = x.sizes();
  auto st = x.strides();
  if (x.dim() > 0) {
    std::swap(sz[a], sz[b]);
    std::swap(st[a], st[b]);
  }
  return make_view(x, "transpose", sz, st);
}

Tensor swapaxes(const Tensor& x, int64_t dim0, int64_t dim1) { return transpose(x, dim0, dim1); }

Tensor t(const Tensor& x) {
  EMBER_CHECK(x.dim() <= 2, "[t] t() expects a tensor with <= 2 dimensions, but self is ", x.dim(),
              "D");
  return x.dim() < 2 ? make_view(x, "t", x.sizes(), x.strides()) : transpose(x, 0, 1);
}

Tensor expand(const Tensor& x, SymIntList size) {
  auto shape = size.concrete("expand");
  EMBER_CHECK(static_cast<int64_t>(shape.size()) >= x.dim(),
              "[expand] the number of sizes "
              "provided (",
              shape.size(),
              ") must be greater or equal to the number of dimensions "
              "in the tensor (",
              x.dim(), ")");
  int64_t off = static_cast<int64_t>(shape.size()) - x.dim();
  std::vector<int64_t> st(shape.size(), 0);
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (d < off) {
      EMBER_CHECK(shape[d] >= 0, "[expand] The expanded size of the tensor (", shape[d],
                  ") isn't allowed in a leading, non-existing dimension ", d);
      continue;
    }
    int64_t xs = x.sizes()[d - off];
    if (shape[d] == -1) shape[d] = xs;
    EMBER_CHECK(shape[d] == xs || xs == 1, "[expand] The expanded size of the tensor (", shape[d],
                ") must match the existing size (", xs, ") at non-singleton dimension ", d,
                ".  Target sizes: ", ops::shape_str(shape),
                ".  Tensor sizes: ", ops::shape_str(x.sizes()));
    EMBER_CHECK(shape[d] >= 0, "[expand] invalid size ", shape[d]);
    st[d] = xs == shape[d] ? x.strides()[d - off] : 0;
  }
  return make_view(x, "expand", shape, st);
}

Tensor broadcast_to(const Tensor& x, SymIntList size) { return expand(x, size); }

Tensor narrow(const Tensor& x, int64_t dim, SymInt start_s, SymInt length_s) {
  EMBER_CHECK(x.dim() > 0, "[narrow] narrow() cannot be applied to a 0-dim tensor.");
  int64_t d = ops::wrap_dim(dim, x.dim(), "narrow");
  int64_t size = x.sizes()[d], start = start_s.guard_int("narrow"),
          length = length_s.guard_int("narrow");
  EMBER_CHECK_INDEX(start >= -size && start <= size,
                    "[narrow] start out of range (expected to be "
                    "in range of [",
                    -size, ", ", size, "], but got ", start, ")");
  if (start < 0) start += size;
  EMBER_CHECK(length >= 0 && start <= size - length, "[narrow] start (", start, ") + length (",
              length, ") exceeds dimension size (", size, ").");
  auto sz = x.sizes();
  sz[d] = length;
  return make_selection(x, "narrow", sz, x.strides(), x.storage_offset() + start * x.strides()[d],
                        [d, start, length](const Tensor& t) { return t.narrow(d, start, length); });
}

Tensor select(const Tensor& x, int64_t dim, SymInt index_s) {
  EMBER_CHECK_INDEX(x.dim() > 0, "[select] select() cannot be applied to a 0-dim tensor.");
  int64_t d = ops::wrap_dim(dim, x.dim(), "select");
  int64_t size = x.sizes()[d], index = index_s.guard_int("select");
  EMBER_CHECK_INDEX(index >= -size && index < size, "[select] index ", index,
                    " is out of bounds for dimension ", d, " with size ", size);
  if (index < 0) index += size;
  auto sz = x.sizes();
  auto st = x.strides();
  int64_t offset = x.storage_offset() + index * st[d];
  sz.erase(sz.begin() + d);
  st.erase(st.begin() + d);
  return make_selection(x, "select", sz, st, offset,
                        [d, index](const Tensor& t) { return t.select(d, index); });
}

Tensor as_strided(const Tensor& x, SymIntList size_s, SymIntList stride_s,
                  std::optional<SymInt> storage_offset) {
  ops::check_defined(x, "as_strided", "self");
  auto size = size_s.concrete("as_strided");
  auto stride = stride_s.concrete("as_strided");
  EMBER_CHECK(size.size() == stride.size(), "[as_strided] mismatch in length of strides and shape");
  int64_t offset = storage_offset ? storage_offset->guard_int("as_strided") : x.storage_offset();
  EMBER_CHECK(offset >= 0, "[as_strided] Tensor: invalid storage offset ", offset);
  for (size_t i = 0; i < size.size(); ++i) {
    EMBER_CHECK(size[i] >= 0, "[as_strided] Trying to create tensor with negative dimension ",
                size[i], ": ", ops::shape_str(size));
    EMBER_CHECK(stride[i] >= 0,
                "[as_strided] as_strided: Negative strides are not supported at "
                "the moment, got strides: ",
                ops::shape_str(stride));
  }
  // The bytes the view reaches, with overflow checks (a wrapped product once accepted views
  // outside the storage). An empty view reaches none, whatever its offset (as PyTorch).
  const auto span = static_cast<int64_t>(strided_nbytes(size, stride, x.dtype(), "as_strided"));
  int64_t needed = 0, offset_bytes = 0;
  EMBER_CHECK(span == 0 || (!__builtin_mul_overflow(offset, x.element_size(), &offset_bytes) &&
                            !__builtin_add_overflow(offset_bytes, span, &needed)),
              "[as_strided] the requested storage size overflows int64");
  EMBER_CHECK(needed <= static_cast<int64_t>(x.impl()->storage()->nbytes()),
              "[as_strided] setStorage: sizes ", ops::shape_str(size), ", strides ",
              ops::shape_str(stride), ", storage offset ", offset, ", and itemsize ",
              x.element_size(), " requiring a storage size of ", needed,
              " are out of bounds for storage of size ", x.impl()->storage()->nbytes());
  return make_view(x, "as_strided", size, stride, offset);
}

Tensor diagonal(const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2) {
  int64_t a = ops::wrap_dim(dim1, x.dim(), "diagonal");
  int64_t b = ops::wrap_dim(dim2, x.dim(), "diagonal");
  EMBER_CHECK(x.dim() >= 2, "[diagonal] diagonal dimensions requires at least 2 dims, got ",
              x.dim());
  EMBER_CHECK(a != b, "[diagonal] diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  int64_t len, start = x.storage_offset();
  if (offset >= 0) {
    len = std::max<int64_t>(std::min(x.sizes()[a], x.sizes()[b] - offset), 0);
    if (len > 0) start += offset * x.strides()[b];
  } else {
    len = std::max<int64_t>(std::min(x.sizes()[a] + offset, x.sizes()[b]), 0);
    if (len > 0) start -= offset * x.strides()[a];
  }
  std::vector<int64_t> sz, st;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d == a || d == b) continue;
    sz.push_back(x.sizes()[d]);
    st.push_back(x.strides()[d]);
  }
  sz.push_back(len);
  st.push_back(x.strides()[a] + x.strides()[b]);
  return make_selection(x, "diagonal", sz, st, start,
                        [=](const Tensor& t) { return t.diagonal(offset, a, b); });
}

Tensor movedim(const Tensor& x, IntList source, IntList destination) {
  EMBER_CHECK(source.size() == destination.size(),
              "[movedim] movedim: Invalid source or "
              "destination dims: source (",
              ops::shape_str(source.vec()),
              " dims) should contain "
              "the same number of dims as destination (",
              ops::shape_str(destination.vec()), " dims)");
  auto src = ops::wrap_dims(source, x.dim(), "movedim");
  auto dst = ops::wrap_dims(destination, x.dim(), "movedim");
  const int64_t n = x.dim();
  // A 0-d tensor accepts dim 0 (or -1) and stays as it is.
  if (n == 0) return make_view(x, "movedim", x.sizes(), x.strides());
  std::vector<int64_t> order(n, -1);
  std::vector<bool> used(n, false);
  for (size_t i = 0; i < src.size(); ++i) {
    order[dst[i]] = src[i];
    used[src[i]] = true;
  }
  int64_t next = 0;
  for (int64_t d = 0; d < n; ++d) {
    if (order[d] != -1) continue;
    while (used[next]) ++next;
    order[d] = next++;
  }
  return permute(x, IntList(order));
}

Tensor moveaxis(const Tensor& x, IntList source, IntList destination) {
  return movedim(x, source, destination);
}

// ---- Tensor methods
Tensor Tensor::view(SymIntList size) const { return ember::view(*this, size); }
Tensor Tensor::view_as(const Tensor& other) const {
  return ember::view(*this, SymIntList(other.sizes()));
}
Tensor Tensor::reshape(SymIntList shape) const { return ember::reshape(*this, shape); }
Tensor Tensor::reshape_as(const Tensor& other) const {
  return ember::reshape(*this, SymIntList(other.sizes()));
}
Tensor Tensor::flatten(int64_t s, int64_t e) const { return ember::flatten(*this, s, e); }
Tensor Tensor::squeeze() const { return ember::squeeze(*this); }
Tensor Tensor::squeeze(IntList dim) const { return ember::squeeze(*this, dim); }
Tensor Tensor::unsqueeze(int64_t dim) const { return ember::unsqueeze(*this, dim); }
Tensor Tensor::permute(IntList dims) const { return ember::permute(*this, dims); }
Tensor Tensor::transpose(int64_t a, int64_t b) const { return ember::transpose(*this, a, b); }
Tensor Tensor::t() const { return ember::t(*this); }
Tensor Tensor::mT() const {
  EMBER_CHECK(dim() >= 2,
              "[mT] tensor.mT is only supported on matrices or batches of matrices. "
              "Got ",
              dim(), "-D tensor.");
  return ember::transpose(*this, -2, -1);
}
Tensor Tensor::expand(SymIntList size) const { return ember::expand(*this, size); }
Tensor Tensor::expand_as(const Tensor& other) const {
  return ember::expand(*this, SymIntList(other.sizes()));
}
Tensor Tensor::broadcast_to(SymIntList size) const { return ember::expand(*this, size); }
Tensor Tensor::narrow(int64_t dim, SymInt start, SymInt length) const {
  return ember::narrow(*this, dim, start, length);
}
Tensor Tensor::slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                     int64_t step) const {
  EMBER_CHECK_INDEX(this->dim() > 0, "[slice] slice() cannot be applied to a 0-dim tensor.");
  EMBER_CHECK(step > 0, "[slice] slice step must be positive");
  int64_t d = ops::wrap_dim(dim, this->dim(), "slice");
  int64_t size = sizes()[d];
  int64_t b = start.value_or(0), e = end.value_or(size);
  if (b < 0) b += size;
  if (e < 0) e += size;
  b = std::clamp<int64_t>(b, 0, size);
  e = std::clamp<int64_t>(e, b, size);
  auto sz = sizes();
  auto st = strides();
  sz[d] = e == b ? 0 : (e - b - 1) / step + 1;  // ceil((e - b) / step) without overflow
  int64_t offset = storage_offset() + b * st[d];
  if (sz[d] > 1) st[d] *= step;  // step < size here, so no overflow
  return make_selection(*this, "slice", sz, st, offset,
                        [=](const Tensor& t) { return t.slice(d, b, e, step); });
}
Tensor Tensor::select(int64_t dim, SymInt index) const { return ember::select(*this, dim, index); }

// Reinterprets the bytes (PyTorch's view_dtype): same element size keeps the geometry; otherwise
// the last dim (which must have stride 1) is split or merged.
Tensor Tensor::view(ScalarType dtype) const {
  ops::check_implemented(dtype, "view");
  const int64_t old_es = element_size(), new_es = ember::element_size(dtype);
  auto sz = sizes();
  auto st = strides();
  int64_t off = storage_offset();
  const char* from = dtype_name(this->dtype());
  const char* to = dtype_name(dtype);
  const int64_t nd = dim();
  if (old_es != new_es) {
    EMBER_CHECK(nd > 0, "[view] self.dim() cannot be 0 to view ", from, " as ", to,
                " (different element sizes)");
  }
  if (old_es > new_es) {
    const int64_t ratio = old_es / new_es;
    EMBER_CHECK(st[nd - 1] == 1, "[view] self.stride(-1) must be 1 to view ", from, " as ", to,
                " (different element sizes), but got ", st[nd - 1]);
    for (int64_t d = 0; d < nd - 1; ++d) st[d] *= ratio;
    sz[nd - 1] *= ratio;
    off *= ratio;
  } else if (old_es < new_es) {
    const int64_t ratio = new_es / old_es;
    EMBER_CHECK(sz[nd - 1] % ratio == 0, "[view] self.size(-1) must be divisible by ", ratio,
                " to view ", from, " as ", to, " (different element sizes), but got ", sz[nd - 1]);
    EMBER_CHECK(off % ratio == 0, "[view] self.storage_offset() must be divisible by ", ratio,
                " to view ", from, " as ", to, " (different element sizes), but got ", off);
    EMBER_CHECK(st[nd - 1] == 1, "[view] self.stride(-1) must be 1 to view ", from, " as ", to,
                " (different element sizes), but got ", st[nd - 1]);
    for (int64_t d = 0; d < nd - 1; ++d) {
      EMBER_CHECK(st[d] % ratio == 0, "[view] self.stride(", d, ") must be divisible by ", ratio,
                  " to view ", from, " as ", to, " (different element sizes), but got ", st[d]);
      st[d] /= ratio;
    }
    sz[nd - 1] /= ratio;
    off /= ratio;
  }
  return dispatch(View("view", sz, st, off, dtype), {*this})[0];
}
Tensor Tensor::as_strided(SymIntList size, SymIntList stride,
                          std::optional<SymInt> storage_offset) const {
  return ember::as_strided(*this, size, stride, storage_offset);
}
Tensor Tensor::diagonal(int64_t offset, int64_t d1, int64_t d2) const {
  return ember::diagonal(*this, offset, d1, d2);
}
Tensor Tensor::movedim(IntList s, IntList d) const { return ember::movedim(*this, s, d); }

}  // namespace ember
