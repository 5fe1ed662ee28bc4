// index_select, gather, scatter/scatter_add/scatter_reduce, index_add/copy/fill, masked_select,
// masked_scatter, take, take_along_dim, nonzero/argwhere: checks (PyTorch's wording, from
// ScatterGatherChecks.h and TensorAdvancedIndexing.cpp), output allocation, dispatch.
// Out-of-place forms clone self and run the in-place primitive on the clone.
#include "primitives/scatter.h"

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "ops/promotion.h"
#include "ops/util.h"
#include "primitives/index.h"

namespace ember {
namespace {

using ops::shape_str;

int64_t nonempty_dim(const Tensor& t) { return std::max<int64_t>(t.dim(), 1); }
// A SymInt: a dynamic dim is compared by its range (Note [Symbolic shapes]).
SymInt nonempty_size(const Tensor& t, int64_t d) {
  return t.dim() == 0 ? SymInt(1) : t.sym_size(d);
}

void check_defined(const Tensor& t, const char* op, const char* arg) {
  ops::check_defined(t, op, arg);
}

// PyTorch's gather_shape_check.
void gather_shape_check(const Tensor& self, int64_t dim, const Tensor& index, const char* op) {
  EMBER_CHECK(nonempty_dim(self) == nonempty_dim(index), "[", op,
              "] Index tensor must have the same number of dimensions as input tensor");
  for (int64_t d = 0; d < nonempty_dim(self); ++d) {
    if (d == dim) continue;
    EMBER_CHECK(nonempty_size(index, d) <= nonempty_size(self, d), "[", op,
                "] Size does not match at dimension ", d, " expected index ",
                shape_str(index.sizes()), " to be smaller than self ", shape_str(self.sizes()),
                " apart from dimension ", dim);
  }
}

// PyTorch's scatter_gather_dtype_check and scatter_shape_check.
void scatter_checks(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                    const char* op) {
  if (index.sym_numel() != 0) {
    EMBER_CHECK(index.dtype() == kInt64, "[", op, "] ", op, "(): Expected dtype int64 for index");
  }
  if (src != nullptr) {
    EMBER_CHECK(self.dtype() == src->dtype(), "[", op, "] ", op,
                "(): Expected self.dtype to be equal to src.dtype");
  }
  if (index.sym_numel() == 0) return;
  EMBER_CHECK(nonempty_dim(self) == nonempty_dim(index), "[", op,
              "] Index tensor must have the same number of dimensions as self tensor");
  if (src != nullptr) {
    EMBER_CHECK(nonempty_dim(*src) == nonempty_dim(index), "[", op,
                "] Index tensor must have the same number of dimensions as src tensor");
  }
  bool wrong = false;
  for (int64_t d = 0; d < nonempty_dim(self); ++d) {
    const SymInt s = nonempty_size(index, d);
    if (d != dim && s > nonempty_size(self, d)) wrong = true;
    if (src != nullptr && s > nonempty_size(*src, d)) wrong = true;
  }
  if (src != nullptr) {
    EMBER_CHECK(!wrong, "[", op, "] Expected index ", shape_str(index.sizes()),
                " to be smaller than self ", shape_str(self.sizes()), " apart from dimension ", dim,
                " and to be smaller size than src ", shape_str(src->sizes()));
  } else {
    EMBER_CHECK(!wrong, "[", op, "] Expected index ", shape_str(index.sizes()),
                " to be smaller than self ", shape_str(self.sizes()), " apart from dimension ",
                dim);
  }
}

// An input read while self is written: copied when the two share memory.
Tensor unaliased(const Tensor& self, const Tensor& t) {
  return ops::may_overlap(self, t) ? t.clone() : t;
}

ScatterReduce legacy_reduce(const std::string& reduce, const char* op) {
  if (reduce == "add") return ScatterReduce::Sum;
  if (reduce == "multiply") return ScatterReduce::Prod;
  EMBER_THROW(RuntimeError, "[", op, "] reduce argument must be either add or multiply.");
}

ScatterReduce new_reduce(const std::string& reduce, const char* op) {
  if (reduce == "sum") return ScatterReduce::Sum;
  if (reduce == "prod") return ScatterReduce::Prod;
  if (reduce == "mean") return ScatterReduce::Mean;
  if (reduce == "amax") return ScatterReduce::AMax;
  if (reduce == "amin") return ScatterReduce::AMin;
  EMBER_THROW(RuntimeError, "[", op,
              "] reduce argument must be either sum, prod, mean, amax or amin, got ", reduce);
}

// Runs an update primitive whose inputs[0] is self: in its in-place form writing self, or out of
// place, replacing `self` by a fresh result that starts as a copy of it (Note [Mutation and
// aliasing]); no clone either way. Inputs read while self is written are copied when they share
// its memory.
Tensor& run_update(Primitive&& prim, std::vector<Tensor> inputs, Tensor& self, bool inplace,
                   const char* op) {
  if (!inplace) {
    self = dispatch(prim, inputs)[0];
    return self;
  }
  ops::check_no_internal_overlap(self, op);
  for (size_t i = 1; i < inputs.size(); ++i) inputs[i] = unaliased(self, inputs[i]);
  prim.set_inplace();
  dispatch(prim, inputs, {self});
  return self;
}

// The common scatter: checks, then Scatter on self (in place, or out of place into `self`).
Tensor& scatter_impl(Tensor& self, int64_t dim_in, const Tensor& index, const Tensor* src,
                     std::optional<Scalar> value, ScatterReduce reduce, bool include_self,
                     const char* op, bool inplace = true) {
  check_defined(self, op, "self");
  check_defined(index, op, "index");
  if (src != nullptr) check_defined(*src, op, "src");
  ops::check_implemented(self.dtype(), op);
  const int64_t dim = ops::wrap_dim(dim_in, self.dim(), op);
  scatter_checks(self, dim, index, src, op);
  if (value) ops::check_scalar_fits(*value, self.dtype(), op);
  std::vector<Tensor> inputs = {self, index};
  if (src != nullptr) inputs.push_back(*src);
  return run_update(Scatter(dim, reduce, include_self, value, op), std::move(inputs), self, inplace,
                    op);
}

// The source of an out-of-place update (the update primitive copies it; Note [Mutation and
// aliasing]).
Tensor source_of(const Tensor& x, const char* op) {
  check_defined(x, op, "self");
  return x;
}

// index_add / index_copy / index_fill checks shared by the three.
void check_index_vector(const Tensor& index, const char* op, const char* what) {
  EMBER_CHECK(index.dim() <= 1, "[", op, "] ", what);
}

void check_source_shape(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                        const char* op) {
  // The ranks first: `dim` was wrapped for self, and a source of another rank has no such dim.
  bool ok = nonempty_dim(self) == nonempty_dim(source);
  for (int64_t d = 0; ok && d < nonempty_dim(self); ++d) {
    if (d != dim) ok = nonempty_size(self, d) == nonempty_size(source, d);
  }
  EMBER_CHECK(ok, "[", op,
              "] source tensor shape must match self tensor shape, excluding the specified "
              "dimension. Got self.shape = ",
              shape_str(self.sizes()), " source.shape = ", shape_str(source.sizes()));
  const SymInt source_size = nonempty_size(source, source.dim() == 0 ? 0 : dim);
  EMBER_CHECK(index.sym_numel() == source_size, "[", op, "] ", op, "(): Number of indices (",
              index.numel(), ") should be equal to source.size(dim) (", source_size, ")");
}

Tensor& index_add_impl(Tensor& self, int64_t dim_in, const Tensor& index, const Tensor& source,
                       const Scalar& alpha, bool inplace = true) {
  const char* op = "index_add_";
  check_defined(self, op, "self");
  check_defined(index, op, "index");
  check_defined(source, op, "source");
  ops::check_implemented(self.dtype(), op);
  const int64_t dim = ops::wrap_dim(dim_in, self.dim(), op);
  check_index_vector(index, op, "index_add_(): Index is supposed to be a vector");
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32, "[", op,
              "] index_add_(): Expected dtype int32/int64 for index");
  EMBER_CHECK(self.dtype() == source.dtype(), "[", op, "] index_add_(): self (",
              scalar_type_name(self.dtype()), ") and source (", scalar_type_name(source.dtype()),
              ") must have the same scalar type");
  check_source_shape(self, dim, index, source, op);
  if (!is_floating_point(self.dtype())) {
    EMBER_CHECK(!alpha.isFloatingPoint(), "[", op,
                "] For integral input tensors, argument alpha must not be a floating point "
                "number.");
  }
  if (self.dtype() != kBool) {
    EMBER_CHECK(!alpha.isBoolean(), "[", op, "] Boolean alpha only supported for Boolean results.");
  }
  return run_update(IndexUpdate(IndexUpdateOp::Add, dim, alpha), {self, index, source}, self,
                    inplace, op);
}

Tensor& index_copy_impl(Tensor& self, int64_t dim_in, const Tensor& index, const Tensor& source,
                        bool inplace = true) {
  const char* op = "index_copy_";
  check_defined(self, op, "self");
  check_defined(index, op, "index");
  check_defined(source, op, "source");
  ops::check_implemented(self.dtype(), op);
  const int64_t dim = ops::wrap_dim(dim_in, self.dim(), op);
  EMBER_CHECK(index.dim() <= 1, "[", op,
              "] index_copy_(): Index should have dimension 1 or 0 (got ", index.dim(), ")");
  EMBER_CHECK(index.dtype() == kInt64, "[", op,
              "] index_copy_(): Expected a long tensor for index, but got ",
              scalar_type_name(index.dtype()));
  EMBER_CHECK(self.dtype() == source.dtype(), "[", op,
              "] index_copy_(): self and source expected to have the same dtype, but got (self) ",
              scalar_type_name(self.dtype()), " and (source) ", scalar_type_name(source.dtype()));
  check_source_shape(self, dim, index, source, op);
  return run_update(IndexUpdate(IndexUpdateOp::Copy, dim, 0), {self, index, source}, self, inplace,
                    op);
}

Tensor& index_fill_impl(Tensor& self, int64_t dim_in, const Tensor& index, const Scalar& value,
                        bool inplace = true) {
  const char* op = "index_fill_";
  check_defined(self, op, "self");
  check_defined(index, op, "index");
  ops::check_implemented(self.dtype(), op);
  const int64_t dim = ops::wrap_dim(dim_in, self.dim(), op);
  EMBER_CHECK(index.dim() <= 1, "[", op, "] Index has to be a vector/scalar");
  EMBER_CHECK(index.dtype() == kInt64, "[", op, "] index_fill_(): Expected dtype int64 for index.");
  ops::check_scalar_fits(value, self.dtype(), op);
  return run_update(IndexUpdate(IndexUpdateOp::Fill, dim, value), {self, index}, self, inplace, op);
}

Scalar fill_value(const Tensor& value, const char* op) {
  check_defined(value, op, "value");
  EMBER_CHECK(value.dim() == 0, "[", op,
              "] index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return value.item();
}

// index_fill with a 0-d value tensor; one that needs a gradient fills through a mask.
Tensor index_fill_tensor(Tensor x, int64_t dim, const Tensor& index, const Tensor& value,
                         bool inplace) {
  const char* op = inplace ? "index_fill_" : "index_fill";
  const Scalar v = fill_value(value, op);
  if (ops::value_needs_grad(value)) {
    check_defined(x, op, "self");
    Tensor mask = zeros(SymIntList(x.sym_sizes()), TensorOptions().dtype(kBool));
    index_fill_impl(mask, dim, index, true);
    return ops::fill_with_value_grad(x, mask, value, inplace);
  }
  check_defined(x, op, "self");
  return index_fill_impl(x, dim, index, v, inplace);
}

Tensor& masked_scatter_impl(Tensor& self, const Tensor& mask, const Tensor& source,
                            bool inplace = true) {
  const char* op = "masked_scatter_";
  check_defined(self, op, "self");
  check_defined(mask, op, "mask");
  check_defined(source, op, "source");
  ops::check_implemented(self.dtype(), op);
  EMBER_CHECK(mask.dtype() == kBool, "[", op,
              "] masked_scatter_ only supports boolean masks, but got mask with dtype ",
              dtype_name(mask.dtype()));
  EMBER_CHECK(self.dtype() == source.dtype(), "[", op,
              "] masked_scatter_: expected self and source to have same dtypes but got ",
              scalar_type_name(self.dtype()), " and ", scalar_type_name(source.dtype()));
  const std::vector<SymInt> sizes = self.sym_sizes();
  const auto shape = ops::broadcast_pair(sizes, mask.sym_sizes(), op);
  EMBER_CHECK(shape == sizes, "[", op, "] output with shape ", shape_str(sizes),
              " doesn't match the broadcast shape ", shape_str(shape));
  return run_update(MaskedScatter(), {self, mask.expand(SymIntList(sizes)), source.reshape({-1})},
                    self, inplace, op);
}

}  // namespace

Tensor index_select(const Tensor& x, int64_t dim_in, const Tensor& index) {
  const char* op = "index_select";
  check_defined(x, op, "self");
  check_defined(index, op, "index");
  ops::check_implemented(x.dtype(), op);
  const int64_t dim = ops::wrap_dim(dim_in, x.dim(), op);
  EMBER_CHECK_INDEX(index.dim() <= 1, "[", op,
                    "] index_select(): Index is supposed to be a vector");
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32, "[", op,
              "] index_select(): Expected dtype int32 or int64 for index");
  if (x.dim() == 0) {
    EMBER_CHECK_INDEX(index.numel() == 1, "[", op,
                      "] index_select(): Index to scalar can have only 1 value, got ",
                      index.numel(), " value(s)");
  }
  return dispatch(IndexSelect(dim), {x, index})[0];
}

Tensor gather(const Tensor& x, int64_t dim_in, const Tensor& index, bool /*sparse_grad*/) {
  const char* op = "gather";
  check_defined(x, op, "self");
  check_defined(index, op, "index");
  ops::check_implemented(x.dtype(), op);
  const int64_t dim = ops::wrap_dim(dim_in, x.dim(), op);
  if (index.sym_numel() != 0) {
    EMBER_CHECK(index.dtype() == kInt64, "[", op, "] gather(): Expected dtype int64 for index");
    gather_shape_check(x, dim, index, op);
  }
  if (index.sym_numel() == 0) {
    return empty(SymIntList(index.sym_sizes()), TensorOptions(x.dtype()).device(x.device()));
  }
  return dispatch(Gather(dim), {x, index})[0];
}

// ---- scatter family
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = source_of(x, "scatter");
  return scatter_impl(out, dim, index, &src, std::nullopt, ScatterReduce::None, true, "scatter",
                      /*inplace=*/false);
}
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor out = source_of(x, "scatter");
  return scatter_impl(out, dim, index, nullptr, value, ScatterReduce::None, true, "scatter",
                      /*inplace=*/false);
}
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src,
               const std::string& reduce) {
  ScatterReduce r = legacy_reduce(reduce, "scatter");
  Tensor out = source_of(x, "scatter");
  return scatter_impl(out, dim, index, &src, std::nullopt, r, true, "scatter", /*inplace=*/false);
}
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value,
               const std::string& reduce) {
  ScatterReduce r = legacy_reduce(reduce, "scatter");
  Tensor out = source_of(x, "scatter");
  return scatter_impl(out, dim, index, nullptr, value, r, true, "scatter", /*inplace=*/false);
}
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = source_of(x, "scatter_add");
  return scatter_impl(out, dim, index, &src, std::nullopt, ScatterReduce::Sum, true, "scatter_add",
                      /*inplace=*/false);
}
Tensor scatter_reduce(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self) {
  ScatterReduce r = new_reduce(reduce, "scatter_reduce");
  Tensor out = source_of(x, "scatter_reduce");
  return scatter_impl(out, dim, index, &src, std::nullopt, r, include_self, "scatter_reduce",
                      /*inplace=*/false);
}

Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha) {
  Tensor out = source_of(x, "index_add");
  return index_add_impl(out, dim, index, source, alpha, /*inplace=*/false);
}
Tensor index_copy(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source) {
  Tensor out = source_of(x, "index_copy");
  return index_copy_impl(out, dim, index, source, /*inplace=*/false);
}
Tensor index_fill(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor out = source_of(x, "index_fill");
  return index_fill_impl(out, dim, index, value, /*inplace=*/false);
}
Tensor index_fill(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& value) {
  return index_fill_tensor(x, dim, index, value, false);
}

// ---- masks
Tensor masked_select(const Tensor& x, const Tensor& mask) {
  const char* op = "masked_select";
  check_defined(x, op, "self");
  check_defined(mask, op, "mask");
  ops::check_implemented(x.dtype(), op);
  EMBER_CHECK(mask.dtype() == kBool, "[", op, "] masked_select: expected BoolTensor for mask");
  const auto shape = ops::broadcast_pair(x.sym_sizes(), mask.sym_sizes(), op);
  // Composite: a mask index of the broadcast operands (Nonzero + Index primitives).
  Tensor xb = x.expand(SymIntList(shape));
  Tensor mb = mask.expand(SymIntList(shape));
  if (shape.empty()) {
    xb = xb.reshape({1});
    mb = mb.reshape({1});
  }
  return xb.index({mb});
}

Tensor masked_scatter(const Tensor& x, const Tensor& mask, const Tensor& source) {
  const char* op = "masked_scatter";
  check_defined(x, op, "self");
  check_defined(mask, op, "mask");
  const auto shape = ops::broadcast_pair(x.sym_sizes(), mask.sym_sizes(), op);
  Tensor out = x.expand(SymIntList(shape));
  return masked_scatter_impl(out, mask, source, /*inplace=*/false);
}

// ---- take
Tensor take(const Tensor& x, const Tensor& index) {
  const char* op = "take";
  check_defined(x, op, "self");
  check_defined(index, op, "index");
  ops::check_implemented(x.dtype(), op);
  EMBER_CHECK(index.dtype() == kInt64, "[", op,
              "] take(): Expected a long tensor for index, but found ",
              scalar_type_name(index.dtype()));
  if (index.sym_numel() == 0) {
    return empty(SymIntList(index.sym_sizes()), TensorOptions(x.dtype()).device(x.device()));
  }
  EMBER_CHECK_INDEX(x.sym_numel() > 0, "[", op, "] take(): tried to take from an empty tensor");
  return dispatch(Take(), {x.reshape({-1}), index})[0];
}

Tensor take_along_dim(const Tensor& x, const Tensor& indices, std::optional<int64_t> dim) {
  const char* op = "take_along_dim";
  check_defined(x, op, "self");
  check_defined(indices, op, "indices");
  EMBER_CHECK(indices.dtype() == kInt64, "[", op,
              "] torch.take_along_dim(): dtype of indices should be Long but got ",
              scalar_type_name(indices.dtype()));
  if (!dim) return gather(x.reshape({-1}), 0, indices.reshape({-1}));
  EMBER_CHECK(x.dim() == indices.dim(), "[", op,
              "] torch.take_along_dim(): input and indices should have the same number of "
              "dimensions, but got ",
              x.dim(), " dimensions for input, and ", indices.dim(), " dimensions for indices");
  const int64_t d = ops::wrap_dim(*dim, x.dim(), op);
  if (x.dim() == 0) return gather(x, d, indices);
  // Broadcast every dim but d (PyTorch's _take_along_dim_helper).
  const std::vector<SymInt> x_sizes = x.sym_sizes(), i_sizes = indices.sym_sizes();
  std::vector<SymInt> xs = x_sizes, is = i_sizes;
  xs[d] = i_sizes[d];
  Tensor ib = indices.broadcast_to(SymIntList(ops::broadcast_pair(xs, i_sizes, op)));
  is[d] = x_sizes[d];
  Tensor xb = x.broadcast_to(SymIntList(ops::broadcast_pair(is, x_sizes, op)));
  return gather(xb, d, ib);
}

// ---- nonzero
Tensor nonzero(const Tensor& x) {
  const char* op = "nonzero";
  check_defined(x, op, "self");
  ops::check_implemented(x.dtype(), op);
  // The Nonzero primitive reads a one-byte mask; other dtypes compare with zero first.
  Tensor mask = (x.dtype() == kBool || x.dtype() == kUInt8) ? x : ne(x, 0);
  return dispatch(Nonzero(), {mask})[0];
}

std::vector<Tensor> nonzero_numpy(const Tensor& x) {
  check_defined(x, "nonzero", "self");
  Tensor nz = nonzero(x.dim() == 0 ? x.reshape({1}) : x);
  return nz.unbind(1);
}

std::vector<Tensor> nonzero(const Tensor& x, bool as_tuple) {
  if (as_tuple) return nonzero_numpy(x);
  return {nonzero(x)};
}

Tensor argwhere(const Tensor& x) { return nonzero(x); }

// ---- Tensor methods
Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return ember::index_select(*this, dim, index);
}
Tensor Tensor::gather(int64_t dim, const Tensor& index, bool sparse_grad) const {
  return ember::gather(*this, dim, index, sparse_grad);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter(*this, dim, index, src);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::scatter(*this, dim, index, value);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src,
                       const std::string& reduce) const {
  return ember::scatter(*this, dim, index, src, reduce);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value,
                       const std::string& reduce) const {
  return ember::scatter(*this, dim, index, value, reduce);
}
const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) const {
  return scatter_impl(mutable_self(), dim, index, &src, std::nullopt, ScatterReduce::None, true,
                      "scatter_");
}
const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) const {
  return scatter_impl(mutable_self(), dim, index, nullptr, value, ScatterReduce::None, true,
                      "scatter_");
}
const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src,
                               const std::string& reduce) const {
  return scatter_impl(mutable_self(), dim, index, &src, std::nullopt,
                      legacy_reduce(reduce, "scatter_"), true, "scatter_");
}
const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value,
                               const std::string& reduce) const {
  return scatter_impl(mutable_self(), dim, index, nullptr, value, legacy_reduce(reduce, "scatter_"),
                      true, "scatter_");
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter_add(*this, dim, index, src);
}
const Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const {
  return scatter_impl(mutable_self(), dim, index, &src, std::nullopt, ScatterReduce::Sum, true,
                      "scatter_add_");
}
Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src,
                              const std::string& reduce, bool include_self) const {
  return ember::scatter_reduce(*this, dim, index, src, reduce, include_self);
}
const Tensor& Tensor::scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                                      const std::string& reduce, bool include_self) const {
  return scatter_impl(mutable_self(), dim, index, &src, std::nullopt,
                      new_reduce(reduce, "scatter_reduce_"), include_self, "scatter_reduce_");
}
Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source,
                         const Scalar& alpha) const {
  return ember::index_add(*this, dim, index, source, alpha);
}
const Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                                 const Scalar& alpha) const {
  return index_add_impl(mutable_self(), dim, index, source, alpha);
}
Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  return ember::index_copy(*this, dim, index, source);
}
const Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const {
  return index_copy_impl(mutable_self(), dim, index, source);
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::index_fill(*this, dim, index, value);
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Tensor& value) const {
  return ember::index_fill(*this, dim, index, value);
}
const Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Scalar& value) const {
  return index_fill_impl(mutable_self(), dim, index, value);
}
const Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Tensor& value) const {
  index_fill_tensor(mutable_self(), dim, index, value, true);
  return *this;
}
Tensor Tensor::masked_select(const Tensor& mask) const { return ember::masked_select(*this, mask); }
Tensor Tensor::masked_scatter(const Tensor& mask, const Tensor& source) const {
  return ember::masked_scatter(*this, mask, source);
}
const Tensor& Tensor::masked_scatter_(const Tensor& mask, const Tensor& source) const {
  return masked_scatter_impl(mutable_self(), mask, source);
}
Tensor Tensor::take(const Tensor& index) const { return ember::take(*this, index); }
Tensor Tensor::take_along_dim(const Tensor& indices, std::optional<int64_t> dim) const {
  return ember::take_along_dim(*this, indices, dim);
}
Tensor Tensor::nonzero() const { return ember::nonzero(*this); }
std::vector<Tensor> Tensor::nonzero_numpy() const { return ember::nonzero_numpy(*this); }
Tensor Tensor::argwhere() const { return ember::argwhere(*this); }

}  // namespace ember
