// Tensor indexing with libtorch's semantics (ATen's TensorIndexing.h): integers, slices, None,
// Ellipsis and bools are basic indexing and give views; index tensors (int64/int32, or bool/uint8
// masks) are advanced indexing and give copies through the Index / IndexPut primitives.
#include <algorithm>
#include <numeric>
#include <type_traits>

#include "ember/ops/shape.h"
#include "ops/util.h"
#include "primitives/index.h"
#include "primitives/view.h"

namespace ember {
namespace {

using Kind = TensorIndex::Kind;

bool is_mask_dtype(ScalarType t) { return t == kBool || t == kUInt8; }

// The result of basic indexing plus the index tensors left for advanced indexing, one slot per
// dim of `tensor` (undefined where a dim is not indexed; a k-d mask sits at its first dim).
struct Sliced {
  Tensor tensor;
  std::vector<Tensor> indices;
  bool has_advanced() const {
    return std::any_of(indices.begin(), indices.end(), [](const Tensor& t) { return t.defined(); });
  }
};

// Dims that the index list consumes: all but None, Ellipsis and bools; a mask consumes its dims.
int64_t count_specified_dims(const std::vector<TensorIndex>& indices) {
  int64_t count = 0;
  for (const auto& i : indices) {
    if (i.kind() == Kind::Tensor) {
      count += is_mask_dtype(i.tensor().dtype()) ? i.tensor().dim() : 1;
    } else if (i.kind() == Kind::Integer || i.kind() == Kind::Slice) {
      ++count;
    }
  }
  return count;
}

// `true` indexes a new size-1 dim as [0]; `false` as an empty index.
Tensor bool_index(bool value, const char* op) {
  Tensor t = ops::empty_tensor({value ? 1 : 0}, kInt64, op);
  if (value) t.fill_(0);
  return t;
}

Tensor apply_select(const Tensor& x, int64_t dim, int64_t index, int64_t real_dim, const char* op) {
  EMBER_CHECK_INDEX(x.dim() > 0, "[", op,
                    "] invalid index of a 0-dim tensor. Use "
                    "`tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim "
                    "tensor to a number");
  const int64_t size = x.size(dim);  // guards that dim alone
  EMBER_CHECK_INDEX(index >= -size && index < size, "[", op, "] index ", index,
                    " is out of bounds for dimension ", real_dim, " with size ", size);
  return select(x, dim, index);
}

Sliced apply_slicing(const Tensor& self, const std::vector<TensorIndex>& indices, const char* op) {
  EMBER_CHECK(self.defined(), "[", op, "] the indexed tensor is undefined");
  int64_t ellipses = std::count_if(indices.begin(), indices.end(),
                                   [](const TensorIndex& i) { return i.kind() == Kind::Ellipsis; });
  EMBER_CHECK_INDEX(ellipses <= 1, "[", op, "] an index can only have a single ellipsis ('...')");
  const int64_t specified = count_specified_dims(indices);
  EMBER_CHECK_INDEX(specified <= self.dim(), "[", op, "] too many indices for tensor of dimension ",
                    self.dim());
  Sliced s{self, {}};
  int64_t dim = 0;
  auto record = [&](const Tensor& t, int64_t consumed) {
    if (static_cast<int64_t>(s.indices.size()) <= dim) s.indices.resize(dim + 1);
    s.indices[dim] = t;
    dim += consumed;
  };
  for (size_t i = 0; i < indices.size(); ++i) {
    const TensorIndex& obj = indices[i];
    const int64_t real_dim = static_cast<int64_t>(i);
    switch (obj.kind()) {
      case Kind::Integer:
        s.tensor = apply_select(s.tensor, dim, obj.integer(), real_dim, op);
        break;
      case Kind::Slice: {
        const Slice& sl = obj.slice();
        EMBER_CHECK_VALUE(sl.step() > 0, "[", op, "] step must be greater than zero");
        s.tensor = s.tensor.slice(dim, sl.start(), sl.stop(), sl.step());
        ++dim;
        break;
      }
      case Kind::Ellipsis:
        dim += self.dim() - specified;
        break;
      case Kind::None:
        s.tensor = unsqueeze(s.tensor, dim);
        ++dim;
        break;
      case Kind::Boolean:
        s.tensor = unsqueeze(s.tensor, dim);
        record(bool_index(obj.boolean(), op), 1);
        break;
      case Kind::Tensor: {
        const Tensor& t = obj.tensor();
        const ScalarType st = t.dtype();
        if (t.dim() == 0 && is_integral(st, /*include_bool=*/true)) {
          // A 0-d integer tensor selects like an integer; a 0-d bool acts like true/false.
          if (!is_mask_dtype(st)) {
            s.tensor = apply_select(s.tensor, dim, t.item<int64_t>(), real_dim, op);
          } else {
            s.tensor = unsqueeze(s.tensor, dim);
            record(bool_index(t.item<int64_t>() != 0, op), 1);
          }
        } else {
          record(t, is_mask_dtype(st) ? t.dim() : 1);
        }
        break;
      }
    }
  }
  return s;
}

// Turns the recorded index tensors into integer index tensors over ascending dims: masks become
// their nonzero coordinates (after PyTorch's shape check), other dtypes are rejected.
void expand_indices(const Sliced& s, const char* op, std::vector<int64_t>& dims,
                    std::vector<Tensor>& ints) {
  const Tensor& x = s.tensor;
  for (int64_t d = 0; d < static_cast<int64_t>(s.indices.size()); ++d) {
    const Tensor& t = s.indices[d];
    if (!t.defined()) continue;
    const ScalarType st = t.dtype();
    if (is_mask_dtype(st)) {
      for (int64_t j = 0; j < t.dim(); ++j) {
        EMBER_CHECK_INDEX(d + j < x.dim() && t.sizes()[j] == x.sizes()[d + j], "[", op,
                          "] The shape of the mask ", ops::shape_str(t.sizes()), " at index ", j,
                          " does not match the shape of the indexed tensor ",
                          ops::shape_str(x.sizes()), " at index ", d + j);
      }
      Tensor nz = dispatch(Nonzero(), {t})[0];
      for (int64_t j = 0; j < t.dim(); ++j) {
        dims.push_back(d + j);
        ints.push_back(select(nz, 1, j));
      }
    } else {
      EMBER_CHECK_INDEX(st == kInt64 || st == kInt32, "[", op,
                        "] tensors used as indices must be long, int, byte or bool tensors, got ",
                        dtype_name(st));
      dims.push_back(d);
      ints.push_back(t);
    }
  }
}

// as PyTorch's slicePrefix1sSize: leading size-1 dims of an assigned value are dropped. A
// symbolic size counts as not 1 (PyTorch's size-oblivious test: no guard).
Tensor strip_leading_ones(const Tensor& v) {
  int64_t k = 0;
  while (k < v.dim() && v.sym_size(k).same_as(1)) ++k;
  if (k == 0) return v;
  std::vector<int64_t> leading(k);
  std::iota(leading.begin(), leading.end(), 0);
  return dispatch(Squeeze({leading}, "view"), {v})[0];
}

template <typename Size>  // int64_t, or SymInt for symbolic shapes
bool expandable(const std::vector<Size>& from, const std::vector<Size>& to) {
  if (from.size() > to.size()) return false;
  const size_t off = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    if constexpr (std::is_same_v<Size, SymInt>) {
      if (from[i].same_as(to[off + i])) continue;  // equal expressions: no guard
    }
    if (from[i] != 1 && from[i] != to[off + i]) return false;
  }
  return true;
}

// Whether the indexed tensor or an index has symbolic sizes (Note [Symbolic shapes]).
bool any_symbolic(const Tensor& x, const std::vector<Tensor>& ints) {
  bool symbolic = x.unsafeGetTensorImpl()->is_symbolic();
  for (const Tensor& t : ints) symbolic = symbolic || t.unsafeGetTensorImpl()->is_symbolic();
  return symbolic;
}

// The shape of x.index(...) (Note [Advanced indexing layout]), on SymInts: the indices'
// broadcast shape B replaces the indexed dims where they are adjacent, else it leads.
std::vector<SymInt> index_result_sizes(const Tensor& x, const std::vector<int64_t>& dims,
                                       const std::vector<Tensor>& ints, const char* op) {
  std::vector<SymInt> b;
  for (const Tensor& t : ints) b = ops::broadcast_pair(b, t.sym_sizes(), op);
  bool adjacent = true;
  for (size_t j = 1; j < dims.size(); ++j) adjacent = adjacent && dims[j] == dims[0] + int64_t(j);
  std::vector<SymInt> sizes;
  if (!adjacent) sizes = b;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) {
      sizes.push_back(x.sym_size(d));
    } else if (adjacent && d == dims[0]) {
      sizes.insert(sizes.end(), b.begin(), b.end());
    }
  }
  return sizes;
}

// Basic-indexing assignment (PyTorch's copy_to): copy, fill from a 0-d value, or broadcast.
void copy_to(Tensor dst, const Tensor& src, const char* op) {
  ops::check_no_internal_overlap(dst, op);
  // Symbolic shapes compare as SymInts (Note [Symbolic shapes]); eager ones as int64.
  const bool symbolic =
      dst.unsafeGetTensorImpl()->is_symbolic() || src.unsafeGetTensorImpl()->is_symbolic();
  if (symbolic ? dst.sym_sizes() == src.sym_sizes() : dst.sizes() == src.sizes()) {
    dst.copy_(src);
    return;
  }
  if (src.dim() == 0) {
    dst.fill_(src);
    return;
  }
  Tensor v = strip_leading_ones(src);
  EMBER_CHECK(
      symbolic ? expandable(v.sym_sizes(), dst.sym_sizes()) : expandable(v.sizes(), dst.sizes()),
      "[", op,
      "] shape mismatch: value tensor of "
      "shape ",
      ops::shape_str(src.sym_sizes()),
      " cannot be broadcast to indexing result of "
      "shape ",
      ops::shape_str(dst.sym_sizes()));
  dst.copy_(expand(v, symbolic ? SymIntList(dst.sym_sizes()) : SymIntList(dst.sizes())));
}

// PyTorch rejects in-place index_put_ whose value or index tensors share memory with the
// written tensor (checked on dense operands, as PyTorch does).
void check_no_partial_overlap(const Tensor& self, const Tensor& other, const char* op) {
  EMBER_CHECK(!(ops::may_overlap(self, other) && self.is_contiguous() && other.is_contiguous()),
              "[", op,
              "] unsupported operation: some elements of the input tensor and the "
              "written-to tensor refer to a single memory location. Please clone() the tensor "
              "before performing the operation.");
}

Tensor alias(const Tensor& x) { return dispatch(Alias(), {x})[0]; }

}  // namespace

Tensor index(const Tensor& x, const std::vector<TensorIndex>& indices) {
  Sliced s = apply_slicing(x, indices, "index");
  if (!s.has_advanced()) return s.tensor.is_same(x) ? alias(x) : s.tensor;
  std::vector<int64_t> dims;
  std::vector<Tensor> ints;
  expand_indices(s, "index", dims, ints);
  // The index shapes broadcast (symbolic ones, Note [Symbolic shapes], as expressions).
  if (any_symbolic(s.tensor, ints)) {
    for (size_t i = 1; i < ints.size(); ++i) ops::check_broadcastable(ints[0], ints[i], "index");
  } else {
    advanced_index_geometry(s.tensor, dims, ints, "index");
  }
  std::vector<Tensor> inputs{s.tensor};
  inputs.insert(inputs.end(), ints.begin(), ints.end());
  return dispatch(Index(dims), inputs)[0];
}

Tensor& index_put_(Tensor& x, const std::vector<TensorIndex>& indices, const Tensor& value,
                   bool accumulate) {
  const char* op = "index_put_";
  EMBER_CHECK(value.defined(), "[", op, "] the assigned value is undefined");
  // A lone `false` selects nothing; PyTorch returns without checking the value's shape.
  if (indices.size() == 1 && indices[0].kind() == Kind::Boolean && !indices[0].boolean()) {
    return x;
  }
  Sliced s = apply_slicing(x, indices, op);
  if (!s.has_advanced()) {
    if (accumulate) {
      s.tensor.add_(value);
    } else {
      copy_to(s.tensor, value, op);
    }
    return x;
  }
  for (const auto& i : indices) {
    if (i.kind() == Kind::Tensor) check_no_partial_overlap(s.tensor, i.tensor(), op);
  }
  check_no_partial_overlap(s.tensor, value, op);
  ops::check_no_internal_overlap(s.tensor, op);
  std::vector<int64_t> dims;
  std::vector<Tensor> ints;
  expand_indices(s, op, dims, ints);
  Tensor v = strip_leading_ones(value);
  // Symbolic shapes compare as SymInts (Note [Symbolic shapes]); eager ones as int64.
  const bool symbolic = any_symbolic(s.tensor, ints) || v.unsafeGetTensorImpl()->is_symbolic();
  const std::vector<SymInt> sym_result =
      symbolic ? index_result_sizes(s.tensor, dims, ints, op) : std::vector<SymInt>{};
  const std::vector<int64_t> result =
      symbolic ? std::vector<int64_t>{}
               : advanced_index_geometry(s.tensor, dims, ints, op).result_sizes;
  EMBER_CHECK(symbolic ? expandable(v.sym_sizes(), sym_result) : expandable(v.sizes(), result), "[",
              op,
              "] shape mismatch: value tensor of "
              "shape ",
              ops::shape_str(v.sym_sizes()),
              " cannot be broadcast to indexing result of "
              "shape ",
              symbolic ? ops::shape_str(sym_result) : ops::shape_str(result));
  // The value is converted to x's dtype (and copied when it shares memory with x).
  if (v.dtype() != x.dtype() || ops::may_overlap(s.tensor, v)) v = v.to(x.dtype(), false, true);
  std::vector<Tensor> inputs{s.tensor, v};
  inputs.insert(inputs.end(), ints.begin(), ints.end());
  dispatch(in_place(IndexPut(dims, accumulate)), inputs, {s.tensor});
  return x;
}

// ---- Tensor methods
Tensor Tensor::operator[](int64_t index) const { return select(0, index); }
Tensor Tensor::operator[](const Tensor& index) const { return ember::index(*this, {index}); }
Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return ember::index(*this, std::vector<TensorIndex>(indices));
}
Tensor Tensor::index(const std::vector<TensorIndex>& indices) const {
  return ember::index(*this, indices);
}
const Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices,
                                 const Tensor& value) const {
  return ember::index_put_(mutable_self(), std::vector<TensorIndex>(indices), value);
}
const Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices,
                                 const Scalar& value) const {
  return index_put_(std::vector<TensorIndex>(indices), value);
}
const Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices,
                                 const Tensor& value) const {
  return ember::index_put_(mutable_self(), indices, value);
}
const Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices,
                                 const Scalar& value) const {
  EMBER_CHECK(defined(), "[index_put_] the indexed tensor is undefined");
  return ember::index_put_(mutable_self(), indices, ops::scalar_tensor(value, dtype()));
}

}  // namespace ember
