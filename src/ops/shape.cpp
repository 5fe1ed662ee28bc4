// Shape ops that are not single views: cat/stack, split family, repeat/tile, flip, roll, diag,
// tril/triu, broadcasting helpers. Views live in src/ops/view.cpp, indexing in indexing.cpp.
#include "ember/ops/shape.h"

#include <algorithm>
#include <limits>

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ops/factory_internal.h"
#include "ops/util.h"
#include "primitives/shape.h"

namespace ember {
namespace {

// PyTorch's size(dim) on a 0-d tensor, where wrap_dim alone accepts dims 0 and -1.
void check_has_dims(const Tensor& x, int64_t dim, const char* op) {
  EMBER_CHECK_INDEX(x.dim() > 0, "[", op, "] Dimension specified as ", dim,
                    " but tensor has no dimensions");
}

// Legacy rule: 1-D tensors of shape [0] are ignored by cat whatever the other shapes.
bool cat_should_skip(const Tensor& t) { return t.dim() == 1 && t.sym_size(0) == 0; }

Tensor cat_impl(const std::vector<Tensor>& tensors, int64_t dim, const char* op) {
  EMBER_CHECK(!tensors.empty(), "[", op, "] torch.cat(): expected a non-empty list of Tensors");
  ScalarType dtype = ScalarType::Undefined;
  std::optional<size_t> valid;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.defined(), "[", op, "] expected a defined tensor at position ", i);
    EMBER_CHECK(t.dim() > 0, "[", op, "] zero-dimensional tensor (at position ", i,
                ") cannot be concatenated");
    dtype = promote_types(dtype, t.dtype());
    if (!valid && !cat_should_skip(t)) valid = i;
  }
  if (!valid) return ops::empty_tensor(tensors[0].sizes(), dtype, op, tensors[0].device());
  const Tensor& ref = tensors[*valid];
  const int64_t d = ops::wrap_dim(dim, ref.dim(), op);
  // SymInt sizes: a dynamic dim is compared by its range (Note [Symbolic shapes]); Cat infers
  // the result's shape.
  const std::vector<SymInt> ref_sizes = ref.sym_sizes();
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (cat_should_skip(t)) continue;
    EMBER_CHECK(t.dim() == ref.dim(), "[", op,
                "] Tensors must have same number of dimensions: got ", ref.dim(), " and ", t.dim());
    for (int64_t k = 0; k < ref.dim(); ++k) {
      if (k == d) continue;
      EMBER_CHECK(ref_sizes[k] == t.sym_size(k), "[", op,
                  "] Sizes of tensors must match except in dimension ", d, ". Expected size ",
                  ref_sizes[k], " but got size ", t.sym_size(k), " for tensor number ", i,
                  " in the list.");
    }
    inputs.push_back(t);
  }
  return dispatch(Cat(d, dtype), inputs)[0];
}

Tensor repeat_impl(const Tensor& x, const std::vector<int64_t>& repeats, const char* op) {
  EMBER_CHECK(static_cast<int64_t>(repeats.size()) >= x.dim(), "[", op,
              "] Number of dimensions of repeat dims can not be smaller than number of dimensions "
              "of tensor");
  const int64_t pad = static_cast<int64_t>(repeats.size()) - x.dim();
  for (size_t i = 0; i < repeats.size(); ++i) {
    EMBER_CHECK(repeats[i] >= 0, "[", op, "] Trying to create tensor with negative dimension ",
                repeats[i], ": ", ops::shape_str(repeats));
    // The overflow check needs a value: a dynamic size (an expression) is not specialised for it.
    const SymInt s = static_cast<int64_t>(i) < pad ? SymInt(1) : x.sym_size(i - pad);
    if (!s.is_symbolic()) (void)checked_mul(s.guard_int(), repeats[i], op, "the repeated size");
  }
  return dispatch(Repeat(repeats), {x})[0];
}

Tensor triangle(const Tensor& x, int64_t diagonal, bool lower) {
  const char* op = lower ? "tril" : "triu";
  EMBER_CHECK(x.dim() >= 2, "[", op, "] ", op, ": input tensor must have at least 2 dimensions");
  return dispatch(Triangle(lower, diagonal), {x})[0];
}

Tensor& triangle_(Tensor& x, int64_t diagonal, bool lower) {
  const char* op = lower ? "tril_" : "triu_";
  EMBER_CHECK(x.dim() >= 2, "[", op, "] ", lower ? "tril" : "triu",
              ": input tensor must have at least 2 dimensions");
  ops::check_no_internal_overlap(x, op);
  Tensor self = x;
  dispatch(in_place(Triangle(lower, diagonal)), {self}, {self});
  return x;
}

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  return cat_impl(tensors, dim, "cat");
}
Tensor concat(const std::vector<Tensor>& tensors, int64_t dim) {
  return cat_impl(tensors, dim, "concat");
}
Tensor concatenate(const std::vector<Tensor>& tensors, int64_t dim) {
  return cat_impl(tensors, dim, "concatenate");
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "[stack] stack expects a non-empty TensorList");
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].defined(), "[stack] expected a defined tensor at position ", i);
  }
  const int64_t d = ops::wrap_dim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].sym_sizes() == tensors[0].sym_sizes(),
                "[stack] stack expects each tensor to be equal size, but got ",
                ops::shape_str(tensors[0].sym_sizes()), " at entry 0 and ",
                ops::shape_str(tensors[i].sym_sizes()), " at entry ", i);
    inputs.push_back(unsqueeze(tensors[i], d));
  }
  return cat_impl(inputs, d, "stack");
}

std::vector<Tensor> split(const Tensor& x, SymInt split_size_s, int64_t dim) {
  EMBER_CHECK(x.dim() != 0, "[split] split expects at least a 1-dimensional tensor");
  const int64_t d = ops::wrap_dim(dim, x.dim(), "split");
  // Tensor::size(d): only the split dim is a guard (Note [Symbolic tensors]).
  const int64_t split_size = split_size_s.guard_int("split"), size = x.size(d);
  EMBER_CHECK(split_size >= 0,
              "[split] split expects split_size be non-negative, but got "
              "split_size=",
              split_size);
  EMBER_CHECK(split_size > 0 || size == 0,
              "[split] split_size can only be 0 if dimension size "
              "is 0, but got dimension size of ",
              size);
  int64_t num = 1;
  if (split_size != 0) num = std::max<int64_t>(size / split_size + (size % split_size != 0), 1);
  std::vector<Tensor> out;
  out.reserve(num);
  for (int64_t i = 0; i < num; ++i) {
    const int64_t start = i * split_size;
    out.push_back(narrow(x, d, start, std::min(split_size, size - start)));
  }
  return out;
}

std::vector<Tensor> split_with_sizes(const Tensor& x, SymIntList split_sizes_s, int64_t dim) {
  EMBER_CHECK(x.dim() != 0, "[split_with_sizes] split expects at least a 1-dimensional tensor");
  const int64_t d = ops::wrap_dim(dim, x.dim(), "split_with_sizes");
  const auto sizes = split_sizes_s.concrete("split_with_sizes");
  int64_t total = 0;
  for (int64_t s : sizes) {
    EMBER_CHECK(s >= 0,
                "[split_with_sizes] split_with_sizes expects split_sizes have only "
                "non-negative entries, but got split_sizes=",
                ops::shape_str(sizes));
    total = checked_add(total, s, "split_with_sizes", "the sum of split_sizes");
  }
  EMBER_CHECK(total == x.size(d),
              "[split_with_sizes] split_with_sizes expects split_sizes to "
              "sum exactly to ",
              x.size(d), " (input tensor's size at dimension ", d,
              "), but "
              "got split_sizes=",
              ops::shape_str(sizes));
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(narrow(x, d, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> split(const Tensor& x, SymIntList split_sizes, int64_t dim) {
  return split_with_sizes(x, split_sizes, dim);
}

constexpr int64_t kMaxEmptyChunks = int64_t{1} << 24;

std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  EMBER_CHECK(x.dim() > 0, "[chunk] chunk expects at least a 1-dimensional tensor");
  EMBER_CHECK(chunks > 0, "[chunk] chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t d = ops::wrap_dim(dim, x.dim(), "chunk");
  const int64_t size = x.size(d);  // only the chunked dim is a guard
  const int64_t split_size = size / chunks + (size % chunks != 0);
  // A zero-size dim still yields `chunks` empty pieces (PyTorch's special case).
  if (split_size == 0 && size == 0) {
    // One tensor per chunk: a count beyond any memory would escape as std::bad_alloc.
    EMBER_CHECK(chunks <= kMaxEmptyChunks, "[chunk] ", chunks,
                " empty chunks of a size-0 dim exceed the supported ", kMaxEmptyChunks);
    return split_with_sizes(x, SymIntList(std::vector<int64_t>(chunks, 0)), d);
  }
  return split(x, split_size, d);
}

std::vector<Tensor> unbind(const Tensor& x, int64_t dim) {
  const int64_t d = ops::wrap_dim(dim, x.dim(), "unbind");
  check_has_dims(x, dim, "unbind");
  std::vector<Tensor> out;
  for (int64_t i = 0, n = x.size(d); i < n; ++i) out.push_back(select(x, d, i));
  return out;
}

Tensor unflatten(const Tensor& x, int64_t dim, SymIntList sizes_s) {
  const int64_t d = ops::wrap_dim(dim, x.dim(), "unflatten");
  check_has_dims(x, dim, "unflatten");
  auto sizes = sizes_s.concrete("unflatten");
  EMBER_CHECK(!sizes.empty(), "[unflatten] unflatten: sizes must be non-empty");
  const int64_t n = x.size(d);  // only the unflattened dim is a guard
  int64_t known = 1;
  std::optional<size_t> infer;
  bool ok = true;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      EMBER_CHECK(!infer, "[unflatten] only one dimension can be inferred");
      infer = i;
    } else {
      EMBER_CHECK(sizes[i] >= 0, "[unflatten] invalid shape dimension ", sizes[i]);
      const auto k = try_mul(known, sizes[i]);
      ok = ok && k;
      known = k.value_or(0);
    }
  }
  if (infer) {
    ok = ok && known != 0 && n % known == 0;
    if (ok) sizes[*infer] = n / known;
  } else {
    ok = ok && known == n;
  }
  EMBER_CHECK(ok, "[unflatten] unflatten: Provided sizes ", ops::shape_str(sizes_s.concrete()),
              " don't multiply up to the size of dim ", d, " (", n, ") in the input tensor");
  const std::vector<SymInt> xs = x.sym_sizes();
  std::vector<SymInt> shape(xs.begin(), xs.begin() + d);
  shape.insert(shape.end(), sizes.begin(), sizes.end());
  shape.insert(shape.end(), xs.begin() + d + 1, xs.end());
  return view(x, SymIntList(shape));
}

Tensor repeat(const Tensor& x, SymIntList repeats) {
  return repeat_impl(x, repeats.concrete("repeat"), "repeat");
}

Tensor tile(const Tensor& x, SymIntList dims) {
  auto reps = dims.concrete("tile");
  if (x.dim() > static_cast<int64_t>(reps.size()))
    reps.insert(reps.begin(), x.dim() - reps.size(), 1);
  return repeat_impl(x, reps, "tile");
}

Tensor flip(const Tensor& x, IntList dims) {
  auto wrapped = ops::wrap_dims(dims, x.dim(), "flip");
  std::vector<int64_t> kept;  // flipping a dim of size <= 1 (or a 0-d tensor) changes nothing
  for (int64_t d : wrapped) {
    if (x.dim() > 0 && x.sym_size(d) > 1) kept.push_back(d);
  }
  return dispatch(Flip(kept), {x})[0];
}

namespace {

// Note [Symbolic roll]: a shift modulo a dynamic dim's size has no concrete value, and Roll's
// shifts are normalised into [0, size). As PyTorch's decomposition, such a dim is rolled by an
// index_select with (i - shift) mod size, which a traced graph evaluates at each run's size.
Tensor roll_symbolic(const Tensor& x, int64_t d, int64_t shift) {
  const SymInt n = x.sym_size(d);
  const TensorOptions opts = TensorOptions(kInt64).device(x.device());
  const Tensor idx = remainder(ops::sym_arange(n, opts) - shift, ops::sym_size_tensor(n, opts));
  return index_select(x, d, idx);
}

}  // namespace

Tensor roll(const Tensor& x, SymIntList shifts_s, IntList dims) {
  const auto shifts = shifts_s.concrete("roll");
  EMBER_CHECK(!shifts.empty(), "[roll] `shifts` required");
  if (dims.empty()) {
    EMBER_CHECK(shifts.size() == 1,
                "[roll] shifts and dimensions must align. shifts: ", shifts.size(),
                ", dims:", dims.size());
    // Without dims the tensor is rolled as if flattened.
    Tensor flat = reshape(x, {x.sym_numel()});
    return view(roll(flat, {shifts[0]}, {0}), SymIntList(x.sym_sizes()));
  }
  EMBER_CHECK(shifts.size() == dims.size(),
              "[roll] shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims:", dims.size());
  // Rolls compose; the same dim given twice rolls by the sum (of the shifts, for a dynamic dim).
  std::vector<int64_t> total(std::max<int64_t>(x.dim(), 1), 0);
  bool any_symbolic = false;  // a dynamic dim is rolled by index_select (Note [Symbolic roll])
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = ops::wrap_dim(dims[i], x.dim(), "roll");
    check_has_dims(x, dims[i], "roll");
    const SymInt size = x.sym_size(d);
    if (size == 0) continue;  // a guard for a dynamic dim (decided by a range from 1 up)
    if (size.is_symbolic()) {
      EMBER_CHECK(shifts[i] > std::numeric_limits<int64_t>::min() / 2 &&
                      shifts[i] < std::numeric_limits<int64_t>::max() / 2,
                  "[roll] shift ", shifts[i], " is out of range");
      any_symbolic = true;
      total[d] += shifts[i];
      continue;
    }
    const int64_t n = size.guard_int("roll");
    int64_t s = shifts[i] % n;
    if (s < 0) s += n;
    total[d] = (total[d] + s) % n;
  }
  std::vector<int64_t> rs, rd;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (total[d] != 0 && !(any_symbolic && x.sym_size(d).is_symbolic())) {
      rd.push_back(d);
      rs.push_back(total[d]);
    }
  }
  Tensor out = rd.empty() && any_symbolic ? x : dispatch(Roll(rs, rd), {x})[0];
  for (int64_t d = 0; any_symbolic && d < x.dim(); ++d) {
    if (x.sym_size(d).is_symbolic()) out = roll_symbolic(out, d, total[d]);
  }
  return out;
}

Tensor diag(const Tensor& x, int64_t k) {
  EMBER_CHECK(x.dim() == 1 || x.dim() == 2, "[diag] diag(): Supports 1D or 2D tensors. Got ",
              x.dim(), "D");
  if (x.dim() == 2) return diagonal(x, k, 0, 1).clone();
  constexpr int64_t kLimit = std::numeric_limits<int64_t>::max() / 4;
  EMBER_CHECK(k > -kLimit && k < kLimit, "[diag] diagonal ", k, " is out of range");
  // A dynamic length stays symbolic. Below the diagonal the view would start at a symbolic
  // offset (k rows of n), which a graph does not hold: the transpose of the diagonal above.
  if (k < 0 && x.sym_size(0).is_symbolic()) return diag(x, -k).t().contiguous();
  const SymInt n = x.sym_size(0) + (k < 0 ? -k : k);
  Tensor out = zeros({n, n}, TensorOptions(x.dtype()).device(x.device()));
  if (x.sym_numel() > 0) diagonal(out, k, 0, 1).copy_(x);
  return out;
}

Tensor tril(const Tensor& x, int64_t diagonal) { return triangle(x, diagonal, true); }
Tensor triu(const Tensor& x, int64_t diagonal) { return triangle(x, diagonal, false); }

std::vector<int64_t> broadcast_shapes(const std::vector<std::vector<int64_t>>& shapes) {
  size_t n = 0;
  for (const auto& s : shapes) n = std::max(n, s.size());
  std::vector<int64_t> result(n, 1);
  for (const auto& s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      const int64_t v = s[s.size() - 1 - i];
      int64_t& r = result[n - 1 - i];
      EMBER_CHECK(v >= 0, "[broadcast_shapes] Trying to create tensor with negative dimension ", v,
                  ": ", ops::shape_str(s));
      if (v == 1 || v == r) continue;
      EMBER_CHECK(r == 1,
                  "[broadcast_shapes] Shape mismatch: objects cannot be broadcast to a "
                  "single shape");
      r = v;
    }
  }
  return result;
}

std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors) {
  std::vector<SymInt> shape;
  for (const auto& t : tensors) {
    EMBER_CHECK(t.defined(), "[broadcast_tensors] expected defined tensors");
    shape = ops::broadcast_pair(shape, t.sym_sizes(), "broadcast_tensors");
  }
  std::vector<Tensor> out;
  for (const auto& t : tensors) out.push_back(expand(t, SymIntList(shape)));
  return out;
}

// ---- Tensor methods
Tensor Tensor::unflatten(int64_t dim, SymIntList sizes) const {
  return ember::unflatten(*this, dim, sizes);
}
std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t dim) const {
  return ember::chunk(*this, chunks, dim);
}
std::vector<Tensor> Tensor::split(SymInt split_size, int64_t dim) const {
  return ember::split(*this, split_size, dim);
}
std::vector<Tensor> Tensor::split(SymIntList split_sizes, int64_t dim) const {
  return ember::split_with_sizes(*this, split_sizes, dim);
}
std::vector<Tensor> Tensor::split_with_sizes(SymIntList split_sizes, int64_t dim) const {
  return ember::split_with_sizes(*this, split_sizes, dim);
}
std::vector<Tensor> Tensor::unbind(int64_t dim) const { return ember::unbind(*this, dim); }
Tensor Tensor::repeat(SymIntList repeats) const { return ember::repeat(*this, repeats); }
Tensor Tensor::tile(SymIntList dims) const { return ember::tile(*this, dims); }
Tensor Tensor::flip(IntList dims) const { return ember::flip(*this, dims); }
Tensor Tensor::roll(SymIntList shifts, IntList dims) const {
  return ember::roll(*this, shifts, dims);
}
Tensor Tensor::tril(int64_t diagonal) const { return ember::tril(*this, diagonal); }
Tensor Tensor::triu(int64_t diagonal) const { return ember::triu(*this, diagonal); }
const Tensor& Tensor::tril_(int64_t diagonal) const {
  return triangle_(mutable_self(), diagonal, true);
}
const Tensor& Tensor::triu_(int64_t diagonal) const {
  return triangle_(mutable_self(), diagonal, false);
}

}  // namespace ember
