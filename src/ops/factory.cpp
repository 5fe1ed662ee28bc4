// Tensor creation: empty/zeros/ones/full, ranges, eye, the *_like forms, from_blob and the data
// path of ember::tensor(...).
#include "ember/ops/factory.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/strides.h"
#include "ops/factory_internal.h"
#include "ops/util.h"
#include "primitives/copy.h"
#include "primitives/factory.h"
#include "primitives/view.h"

namespace ember {

namespace {

// Checks what every factory checks: a device with a backend and an implemented dtype.
ScalarType checked_dtype(const TensorOptions& options, ScalarType dtype, const char* op) {
  check_device_available(options.device(), op);
  ops::check_implemented(dtype, op);
  return dtype;
}

ScalarType dtype_or(const TensorOptions& options, ScalarType fallback) {
  return options.has_dtype() ? options.dtype() : fallback;
}

Tensor make_strided(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                    ScalarType dtype, const char* op, Device device) {
  const size_t nbytes = strided_nbytes(sizes, strides, dtype, op);
  auto storage = std::make_shared<StorageImpl>(nbytes, device);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), dtype, sizes, strides, 0));
}

Tensor filled(Tensor t, const Scalar& value) {
  if (t.sym_numel() > 0) t.fill_(value);  // a SymInt: a dynamic size is not specialised
  return t;
}

bool any_symbolic(const SymIntList& sizes) {
  return std::any_of(sizes.begin(), sizes.end(), [](const SymInt& s) { return s.is_symbolic(); });
}

// Note [Symbolic shapes]: a factory given a traced size expression (zeros({s0, 3})) makes a meta
// tensor with those expressions (contiguous unless `strides` are given) and fills it through
// dispatch, so the graph records a node that allocates it at each run's size. empty's values are
// unspecified: its fill gives the tracer that node.
Tensor symbolic_filled(const SymIntList& sizes, const SymIntList& strides, ScalarType dtype,
                       const Scalar& value, const char* op) {
  for (const SymInt& s : sizes) {
    EMBER_CHECK(s >= 0, "[", op, "] Trying to create tensor with negative dimension ", s.str(),
                ": ", ops::shape_str(sizes.vec()));
  }
  TensorMeta m = TensorMeta::contiguous(SymShape(sizes.begin(), sizes.end()), dtype, kMeta);
  if (!strides.empty()) m.strides = SymShape(strides.begin(), strides.end());
  Tensor t = detail::allocate_meta(m, op);
  return dispatch(Fill::into(t, value), {}, {t})[0];
}

// zeros, ones and full: `size` filled with `value`.
Tensor full_of(const SymIntList& size, ScalarType dtype, const Scalar& value, const char* op,
               const TensorOptions& options) {
  if (any_symbolic(size))
    return ops::with_grad(symbolic_filled(size, {}, dtype, value, op), options);
  return ops::with_grad(
      filled(ops::empty_tensor(size.concrete(op), dtype, op, options.device()), value), options);
}

// Python's int(x) for a finite double inside int64's range; RuntimeError otherwise.
void check_fits_int64(const Scalar& s, const Scalar& start, const Scalar& end) {
  if (!s.isFloatingPoint()) return;
  const double v = s.toDouble();
  EMBER_CHECK(std::isfinite(v) && v >= -9223372036854775808.0 && v < 9223372036854775808.0,
              "[arange] unsupported range: ", start.toDouble(), " -> ", end.toDouble());
}

// The number of arange elements, with PyTorch's checks and its two size formulas (exact integer
// arithmetic for int64 with integral arguments, doubles otherwise).
int64_t arange_size(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dtype) {
  double size_d = 0;
  if (is_integral(dtype, false)) {
    for (const Scalar* s : {&start, &end, &step}) check_fits_int64(*s, start, end);
    const int64_t xstart = start.toLong(), xend = end.toLong(), xstep = step.toLong();
    EMBER_CHECK(xstep != 0, "[arange] step must be nonzero");
    EMBER_CHECK((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart),
                "[arange] upper bound and larger bound inconsistent with step sign");
    if (dtype == kInt64 && !start.isFloatingPoint() && !end.isFloatingPoint() &&
        !step.isFloatingPoint()) {
      const __int128 sgn = xstep > 0 ? 1 : -1;
      const __int128 n = (static_cast<__int128>(xend) - xstart + xstep - sgn) / xstep;
      size_d = static_cast<double>(n);
    } else {
      size_d = std::ceil((end.toDouble() - start.toDouble()) / step.toDouble());
    }
  } else {
    const double xstart = start.toDouble(), xend = end.toDouble(), xstep = step.toDouble();
    EMBER_CHECK(xstep > 0 || xstep < 0, "[arange] step must be nonzero");
    EMBER_CHECK(std::isfinite(xstart) && std::isfinite(xend),
                "[arange] unsupported range: ", xstart, " -> ", xend);
    EMBER_CHECK((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart),
                "[arange] upper bound and larger bound inconsistent with step sign");
    size_d = std::ceil((xend - xstart) / xstep);
  }
  // Strictly below 2^63: double(INT64_MAX) rounds up to 2^63, whose conversion is undefined.
  EMBER_CHECK(size_d >= 0 && size_d < 0x1p63, "[arange] invalid size, possible overflow?");
  return static_cast<int64_t>(size_d);
}

Tensor sequence(RangeOp op, const Scalar& start, const Scalar& end, int64_t steps, double base,
                const TensorOptions& options) {
  const char* name = op == RangeOp::Linspace ? "linspace" : "logspace";
  EMBER_CHECK(steps >= 0, "[", name, "] number of steps must be non-negative");
  const ScalarType dtype = checked_dtype(options, options.dtype(), name);
  EMBER_CHECK_TYPE(dtype != kBool, "[", name, "] \"", name, "_cpu\" not implemented for 'bool'");
  return ops::with_grad(
      dispatch(Range(op, start, end, base, steps, dtype, options.device().type()), {})[0], options);
}

}  // namespace

Tensor empty(SymIntList size, const TensorOptions& options) {
  const ScalarType dtype = checked_dtype(options, options.dtype(), "empty");
  if (any_symbolic(size))
    return ops::with_grad(symbolic_filled(size, {}, dtype, 0, "empty"), options);
  return ops::with_grad(ops::empty_tensor(size.concrete("empty"), dtype, "empty", options.device()),
                        options);
}

Tensor empty_strided(SymIntList size, SymIntList stride, const TensorOptions& options) {
  const ScalarType dtype = checked_dtype(options, options.dtype(), "empty_strided");
  if (any_symbolic(size) || any_symbolic(stride)) {
    EMBER_CHECK(size.size() == stride.size(),
                "[empty_strided] mismatch in length of strides and shape");
    return symbolic_filled(size, stride, dtype, 0, "empty_strided");
  }
  return make_strided(size.concrete("empty_strided"), stride.concrete("empty_strided"), dtype,
                      "empty_strided", options.device());
}

Tensor zeros(SymIntList size, const TensorOptions& options) {
  return full_of(size, checked_dtype(options, options.dtype(), "zeros"), 0, "zeros", options);
}

Tensor ones(SymIntList size, const TensorOptions& options) {
  return full_of(size, checked_dtype(options, options.dtype(), "ones"), 1, "ones", options);
}

Tensor full(SymIntList size, const Scalar& fill_value, const TensorOptions& options) {
  // As torch.full: a bool fill gives bool, an integer int64, a float the default dtype.
  ScalarType inferred = fill_value.isBoolean()         ? kBool
                        : fill_value.isIntegral(false) ? kInt64
                                                       : get_default_dtype();
  const ScalarType dtype = checked_dtype(options, dtype_or(options, inferred), "full");
  return full_of(size, dtype, fill_value, "full", options);
}

Tensor arange(const Scalar& end, const TensorOptions& options) {
  return arange(0, end, 1, options);
}

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
              const TensorOptions& options) {
  const bool all_integral =
      !start.isFloatingPoint() && !end.isFloatingPoint() && !step.isFloatingPoint();
  const ScalarType dtype = checked_dtype(
      options, dtype_or(options, all_integral ? kInt64 : get_default_dtype()), "arange");
  EMBER_CHECK_TYPE(dtype != kBool, "[arange] \"arange_cpu\" not implemented for 'bool'");
  const int64_t size = arange_size(start, end, step, dtype);
  const Range range(RangeOp::Arange, start, step, 10.0, size, dtype, options.device().type());
  return ops::with_grad(dispatch(range, {})[0], options);
}

}  // namespace ember

namespace ember::ops {

Tensor sym_arange(const SymInt& end, const TensorOptions& options) {
  if (!end.is_symbolic()) return arange(end.guard_int(), options);
  const ScalarType dtype = checked_dtype(options, dtype_or(options, kInt64), "arange");
  EMBER_CHECK(end >= 0, "[arange] upper bound and larger bound inconsistent with step sign");
  // A symbolic size is a meta tensor while tracing (Note [Symbolic shapes]); the tracer records
  // the primitive on the real device.
  const Range range(RangeOp::Arange, 0, 1, 10.0, end, dtype, kMeta);
  return ops::with_grad(dispatch(range, {})[0], options);
}

Tensor sym_size_tensor(const SymInt& size, const TensorOptions& options) {
  const ScalarType dtype = checked_dtype(options, dtype_or(options, kInt64), "sym_size_tensor");
  if (!size.is_symbolic()) return full({}, size.guard_int(), options.dtype(dtype));
  // No primitive parameter holds a symbolic scalar: a size-n tensor of ones sums to n at every
  // run's size (n >= 0: a size).
  return ones({size}, TensorOptions(dtype).device(options.device())).sum(dtype);
}

}  // namespace ember::ops

namespace ember {

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps,
                const TensorOptions& options) {
  return ops::with_grad(sequence(RangeOp::Linspace, start, end, steps, 10.0, options), options);
}

Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base,
                const TensorOptions& options) {
  return ops::with_grad(sequence(RangeOp::Logspace, start, end, steps, base, options), options);
}

Tensor eye(int64_t n, const TensorOptions& options) { return eye(n, n, options); }

Tensor eye(int64_t n, int64_t m, const TensorOptions& options) {
  EMBER_CHECK(n >= 0, "[eye] n must be greater or equal to 0, got ", n);
  EMBER_CHECK(m >= 0, "[eye] m must be greater or equal to 0, got ", m);
  const ScalarType dtype = checked_dtype(options, options.dtype(), "eye");
  Tensor out = filled(ops::empty_tensor({n, m}, dtype, "eye", options.device()), 0);
  // The diagonal is a strided view; filling it writes the ones.
  const int64_t k = std::min(n, m);
  if (k > 0) dispatch(Diagonal(), {out})[0].fill_(1);
  return ops::with_grad(out, options);
}

Tensor empty_like(const Tensor& t, const TensorOptions& options) {
  EMBER_CHECK(t.defined(), "[empty_like] the input tensor is undefined");
  const ScalarType dtype = checked_dtype(options, dtype_or(options, t.dtype()), "empty_like");
  const Device device = options.has_device() ? options.device() : t.device();
  if (t.unsafeGetTensorImpl()->is_symbolic() && t.is_contiguous() && device.is_meta()) {
    // Note [Symbolic tensors]: the same expressions for sizes and (contiguous) strides.
    TensorMeta m = TensorMeta::of(t);
    m.dtype = dtype;
    return ops::with_grad(detail::allocate_meta(m, "empty_like"), options);
  }
  // torch.preserve_format: a dense layout (such as a transpose) keeps its strides.
  if (!t.is_contiguous() && non_overlapping_and_dense(t.sizes(), t.strides())) {
    return ops::with_grad(make_strided(t.sizes(), t.strides(), dtype, "empty_like", device),
                          options);
  }
  return ops::with_grad(ops::empty_tensor(t.sizes(), dtype, "empty_like", device), options);
}

Tensor zeros_like(const Tensor& t, const TensorOptions& options) {
  return ops::with_grad(filled(empty_like(t, options.requires_grad(false)), 0), options);
}

Tensor ones_like(const Tensor& t, const TensorOptions& options) {
  return ops::with_grad(filled(empty_like(t, options.requires_grad(false)), 1), options);
}

Tensor full_like(const Tensor& t, const Scalar& fill_value, const TensorOptions& options) {
  return ops::with_grad(filled(empty_like(t, options.requires_grad(false)), fill_value), options);
}

namespace {
Tensor wrap_blob(void* data, const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                 std::function<void(void*)> deleter, const TensorOptions& options) {
  const ScalarType dtype = checked_dtype(options, options.dtype(), "from_blob");
  EMBER_CHECK_VALUE(options.device().is_cpu(),
                    "[from_blob] the memory of a blob is on the cpu, got device ",
                    options.device().str());
  const size_t nbytes = strided_nbytes(sizes, strides, dtype, "from_blob");
  EMBER_CHECK(data != nullptr || nbytes == 0, "[from_blob] data pointer is null");
  auto storage = std::make_shared<StorageImpl>(data, nbytes, std::move(deleter));
  return ops::with_grad(
      Tensor(std::make_shared<TensorImpl>(std::move(storage), dtype, sizes, strides, 0)), options);
}
}  // namespace

Tensor from_blob(void* data, SymIntList sizes, const TensorOptions& options) {
  auto s = sizes.concrete("from_blob");
  return ops::with_grad(wrap_blob(data, s, contiguous_strides(s), nullptr, options), options);
}

Tensor from_blob(void* data, SymIntList sizes, SymIntList strides, const TensorOptions& options) {
  return wrap_blob(data, sizes.concrete("from_blob"), strides.concrete("from_blob"), nullptr,
                   options);
}

Tensor from_blob(void* data, SymIntList sizes, std::function<void(void*)> deleter,
                 const TensorOptions& options) {
  auto s = sizes.concrete("from_blob");
  return ops::with_grad(wrap_blob(data, s, contiguous_strides(s), std::move(deleter), options),
                        options);
}

Tensor from_blob(void* data, SymIntList sizes, SymIntList strides,
                 std::function<void(void*)> deleter, const TensorOptions& options) {
  return wrap_blob(data, sizes.concrete("from_blob"), strides.concrete("from_blob"),
                   std::move(deleter), options);
}

namespace detail {
Tensor tensor_from_data(const void* data, ScalarType src, std::vector<int64_t> sizes,
                        const TensorOptions& options) {
  const ScalarType dtype = checked_dtype(options, options.dtype(), "tensor");
  Tensor view = from_blob(const_cast<void*>(data), sizes, TensorOptions(src));
  if (view.numel() == 0 || options.device().is_meta()) {  // meta: no values to copy
    return ops::with_grad(ops::empty_tensor(sizes, dtype, "tensor", options.device()), options);
  }
  return ops::with_grad(dispatch(Copy(dtype), {view})[0], options);
}
}  // namespace detail

}  // namespace ember
