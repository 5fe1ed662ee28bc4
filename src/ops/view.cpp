// View ops: argument checks with PyTorch's messages, then one view primitive each
// (Note [Views] in src/primitives/view.h), which computes the layout.
#include "primitives/view.h"

#include <algorithm>
#include <numeric>

#include "ember/autograd.h"
#include "ember/ops/shape.h"
#include "ops/promotion.h"
#include "ops/util.h"

namespace ember {
namespace {

template <typename P>
Tensor make(const Tensor& x, P prim) {
  return dispatch(prim, {x})[0];
}

// Resolves a single -1 in `shape` against numel (PyTorch's infer_size), on SymInts: a traced
// view of a dynamic size keeps its expressions (Note [Symbolic shapes]).
std::vector<SymInt> infer_size(const SymIntList& shape, const SymInt& numel, const char* op) {
  std::vector<SymInt> r = shape.vec();
  SymInt known = 1;
  std::optional<size_t> infer;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i] == -1) {
      EMBER_CHECK(!infer, "[", op, "] only one dimension can be inferred");
      infer = i;
    } else {
      EMBER_CHECK(r[i] >= 0, "[", op, "] invalid shape dimension ", r[i]);
      if (!known.is_symbolic() && !r[i].is_symbolic()) {
        EMBER_CHECK(try_mul(known.hint(), r[i].hint()), "[", op, "] shape ", ops::shape_str(r),
                    " overflows int64");
      }
      known = known * r[i];
    }
  }
  if (infer) {
    EMBER_CHECK(known != 0 && mod(numel, known) == 0, "[", op, "] shape '", ops::shape_str(r),
                "' is invalid for input of size ", numel);
    r[*infer] = floordiv(numel, known);
  } else {
    EMBER_CHECK(known == numel, "[", op, "] shape '", ops::shape_str(r),
                "' is invalid for input of size ", numel);
  }
  return r;
}

}  // namespace

Tensor view(const Tensor& x, SymIntList size) {
  return make(x, Reshape({infer_size(size, x.sym_numel(), "view")}));
}

Tensor reshape(const Tensor& x, SymIntList size) {
  auto shape = infer_size(size, x.sym_numel(), "reshape");
  const ViewLayout in = layout_of(x);
  if (reshape_strides(in.sizes, in.strides, SymShape(shape.begin(), shape.end())))
    return make(x, Reshape({shape}, "reshape"));
  return view(x.clone(), SymIntList(shape));
}

Tensor flatten(const Tensor& x, int64_t start_dim, int64_t end_dim) {
  int64_t s = ops::wrap_dim(start_dim, x.dim(), "flatten");
  int64_t e = ops::wrap_dim(end_dim, x.dim(), "flatten");
  EMBER_CHECK(s <= e, "[flatten] flatten() has invalid args: start_dim cannot come after end_dim");
  if (x.dim() == 0) return reshape(x, {1});
  const std::vector<SymInt> sizes = x.sym_sizes();
  std::vector<SymInt> shape(sizes.begin(), sizes.begin() + s);
  SymInt n = 1;
  for (int64_t d = s; d <= e; ++d) n = n * sizes[d];
  shape.push_back(n);
  shape.insert(shape.end(), sizes.begin() + e + 1, sizes.end());
  return reshape(x, SymIntList(shape));
}

Tensor squeeze(const Tensor& x) {
  std::vector<int64_t> all(x.dim());
  std::iota(all.begin(), all.end(), 0);
  return make(x, Squeeze({all}));
}

Tensor squeeze(const Tensor& x, IntList dims) {
  return make(x, Squeeze({ops::wrap_dims(dims, x.dim(), "squeeze")}));
}

Tensor unsqueeze(const Tensor& x, int64_t dim) {
  return make(x, Unsqueeze({ops::wrap_dim(dim, x.dim() + 1, "unsqueeze")}));
}

Tensor permute(const Tensor& x, IntList dims) {
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == x.dim(),
              "[permute] number of dims don't match "
              "in permute: expected ",
              x.dim(), " dims, got ", dims.size());
  auto w = ops::wrap_dims(dims, x.dim(), "permute");
  std::vector<bool> seen(w.size(), false);
  for (int64_t d : w) {
    EMBER_CHECK(!seen[d], "[permute] permute(): duplicate dims are not allowed.");
    seen[d] = true;
  }
  return make(x, Permute({w}));
}

Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1) {
  int64_t a = ops::wrap_dim(dim0, x.dim(), "transpose");
  int64_t b = ops::wrap_dim(dim1, x.dim(), "transpose");
  std::vector<int64_t> perm(x.dim());
  std::iota(perm.begin(), perm.end(), 0);
  if (x.dim() > 0) std::swap(perm[a], perm[b]);
  return make(x, Permute({perm}, "transpose"));
}

Tensor swapaxes(const Tensor& x, int64_t dim0, int64_t dim1) { return transpose(x, dim0, dim1); }

Tensor t(const Tensor& x) {
  EMBER_CHECK(x.dim() <= 2, "[t] t() expects a tensor with <= 2 dimensions, but self is ", x.dim(),
              "D");
  return x.dim() < 2 ? make(x, Alias({}, "t")) : transpose(x, 0, 1);
}

Tensor expand(const Tensor& x, SymIntList size) {
  std::vector<SymInt> shape = size.vec();
  EMBER_CHECK(static_cast<int64_t>(shape.size()) >= x.dim(),
              "[expand] the number of sizes "
              "provided (",
              shape.size(),
              ") must be greater or equal to the number of dimensions "
              "in the tensor (",
              x.dim(), ")");
  const std::vector<SymInt> sizes = x.sym_sizes();
  int64_t off = static_cast<int64_t>(shape.size()) - x.dim();
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (d < off) {
      EMBER_CHECK(shape[d] >= 0, "[expand] The expanded size of the tensor (", shape[d],
                  ") isn't allowed in a leading, non-existing dimension ", d);
      continue;
    }
    const SymInt& xs = sizes[d - off];
    if (shape[d] == -1) shape[d] = xs;
    EMBER_CHECK(shape[d] == xs || xs == 1, "[expand] The expanded size of the tensor (", shape[d],
                ") must match the existing size (", xs, ") at non-singleton dimension ", d,
                ".  Target sizes: ", ops::shape_str(shape),
                ".  Tensor sizes: ", ops::shape_str(sizes));
    EMBER_CHECK(shape[d] >= 0, "[expand] invalid size ", shape[d]);
  }
  return make(x, Expand({shape}));
}

Tensor broadcast_to(const Tensor& x, SymIntList size) { return expand(x, size); }

namespace {

// A slice primitive for [start, end) of dim d, with SymInt bounds only where one is symbolic;
// `name` is its display name (null: slice's own).
StridedSlice slice_of(int64_t d, const SymInt& start, const SymInt& end, int64_t step,
                      const char* name) {
  SliceParams p{d, 0, 0, step};
  if (start.is_symbolic() || end.is_symbolic()) {
    p.sym_bounds = {start, end};
  } else {
    p.start = start.guard_int();
    p.end = end.guard_int();
  }
  return name ? StridedSlice(std::move(p), name) : StridedSlice(std::move(p));
}

}  // namespace

Tensor narrow(const Tensor& x, int64_t dim, SymInt start_s, SymInt length_s) {
  EMBER_CHECK(x.dim() > 0, "[narrow] narrow() cannot be applied to a 0-dim tensor.");
  int64_t d = ops::wrap_dim(dim, x.dim(), "narrow");
  // SymInts: a dynamic dim (or a start computed from one) stays symbolic; the checks are guards
  // that its range decides (Note [Symbolic shapes]).
  const SymInt size = x.sym_size(d);
  if (!size.is_symbolic() && !start_s.is_symbolic() && !length_s.is_symbolic()) {
    const int64_t n = size.guard_int(), length = length_s.guard_int();
    int64_t start = start_s.guard_int();
    EMBER_CHECK_INDEX(start >= -n && start <= n,
                      "[narrow] start out of range (expected to be in range of [", -n, ", ", n,
                      "], but got ", start, ")");
    if (start < 0) start += n;
    EMBER_CHECK(length >= 0 && start <= n - length, "[narrow] start (", start, ") + length (",
                length, ") exceeds dimension size (", n, ").");
    return make(x, StridedSlice({d, start, start + length, 1}, "narrow"));
  }
  SymInt start = std::move(start_s);
  const SymInt length = std::move(length_s);
  const SymInt lowest = 0 - size;
  EMBER_CHECK_INDEX(start >= lowest && start <= size,
                    "[narrow] start out of range (expected to be "
                    "in range of [",
                    lowest, ", ", size, "], but got ", start, ")");
  if (start < 0) start = start + size;
  EMBER_CHECK(length >= 0 && start <= size - length, "[narrow] start (", start, ") + length (",
              length, ") exceeds dimension size (", size, ").");
  return make(x, slice_of(d, start, start + length, 1, "narrow"));
}

Tensor select(const Tensor& x, int64_t dim, SymInt index_s) {
  EMBER_CHECK_INDEX(x.dim() > 0, "[select] select() cannot be applied to a 0-dim tensor.");
  int64_t d = ops::wrap_dim(dim, x.dim(), "select");
  // The selected dim's size alone (the others may be symbolic and stay so).
  const SymInt size = x.sym_size(d);
  int64_t index = index_s.guard_int("select");
  EMBER_CHECK_INDEX(SymInt(index) + size >= SymInt(0) && SymInt(index) < size, "[select] index ",
                    index, " is out of bounds for dimension ", d, " with size ", size.str());
  if (index < 0) index += size.guard_int("select");
  return make(x, Select({d, index}));
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
  const int64_t needed =
      span == 0
          ? 0
          : checked_add(checked_mul(offset, x.element_size(), "as_strided", "the storage offset"),
                        span, "as_strided", "the requested storage size");
  EMBER_CHECK(needed <= static_cast<int64_t>(x.impl()->storage()->nbytes()),
              "[as_strided] setStorage: sizes ", ops::shape_str(size), ", strides ",
              ops::shape_str(stride), ", storage offset ", offset, ", and itemsize ",
              x.element_size(), " requiring a storage size of ", needed,
              " are out of bounds for storage of size ", x.impl()->storage()->nbytes());
  return make(x, AsStrided({size, stride, offset}));
}

Tensor diagonal(const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2) {
  int64_t a = ops::wrap_dim(dim1, x.dim(), "diagonal");
  int64_t b = ops::wrap_dim(dim2, x.dim(), "diagonal");
  EMBER_CHECK(x.dim() >= 2, "[diagonal] diagonal dimensions requires at least 2 dims, got ",
              x.dim());
  EMBER_CHECK(a != b, "[diagonal] diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  return make(x, Diagonal({offset, a, b}));
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
  if (n == 0) return make(x, Alias({}, "movedim"));
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
  const SymInt size = sym_size(d);
  if (!size.is_symbolic()) {
    const int64_t n = size.guard_int();
    int64_t b = start.value_or(0), e = end.value_or(n);
    if (b < 0) b += n;
    if (e < 0) e += n;
    b = std::clamp<int64_t>(b, 0, n);
    e = std::clamp<int64_t>(e, b, n);
    return make(*this, StridedSlice({d, b, e, step}));
  }
  // A dynamic dim: the bounds are clamped with sym_min/sym_max, so x[::2] and x[:-1] keep their
  // expressions and x[:5] is Min(5, s0) (Note [Symbolic shapes]).
  SymInt b = start.value_or(0), e = end ? SymInt(*end) : size;
  if (start && *start < 0) b = b + size;
  if (end && *end < 0) e = e + size;
  b = sym_min(sym_max(b, 0), size);
  e = sym_min(sym_max(e, b), size);
  return make(*this, slice_of(d, b, e, step, nullptr));
}
Tensor Tensor::select(int64_t dim, SymInt index) const { return ember::select(*this, dim, index); }

// Reinterprets the bytes (PyTorch's view_dtype; the primitive checks the layout).
Tensor Tensor::view(ScalarType dtype) const {
  ops::check_implemented(dtype, "view");
  return make(*this, ViewDtype({dtype}));
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
