// The Tensor methods that run ops (conversion, copy, fill): they dispatch primitives, so they
// live above the core (Note [Layers] in CMakeLists.txt).
#include "ember/core/tensor.h"
#include "ops/promotion.h"
#include "ops/util.h"
#include "primitives/copy.h"

namespace ember {

namespace {
// `t` as `dt` on `d`, always a new tensor (Note [Meta device]: to meta moves no data).
Tensor converted(const Tensor& t, ScalarType dt, Device d) {
  ops::check_implemented(dt, "to");
  check_device_available(d, "to");
  EMBER_CHECK_NOT_IMPL(!t.device().is_meta() || d.is_meta(),
                       "[to] Cannot copy out of meta tensor; no data!");
  if (t.device().type() == d.type()) return dispatch(Copy(dt), {t})[0];
  return ops::empty_tensor(t.sizes(), dt, "to", d);  // to meta: no values to move
}
}  // namespace

template <typename T>
std::vector<T> Tensor::tolist() const {
  Tensor c = contiguous().to(dtype_of<T>);
  const T* p = c.data_ptr<T>();
  return std::vector<T>(p, p + c.numel());
}

#define EMBER_INSTANTIATE(T) template std::vector<T> Tensor::tolist<T>() const;
EMBER_FORALL_CPP_TYPES(EMBER_INSTANTIATE)
#undef EMBER_INSTANTIATE

Tensor Tensor::to(ScalarType dt, bool, bool copy) const {
  if (dt == dtype() && !copy) return *this;  // a tensor's own dtype is implemented
  return converted(*this, dt, device());
}

Tensor Tensor::to(Device d, std::optional<ScalarType> dt, bool, bool copy) const {
  const ScalarType target = dt.value_or(dtype());
  if (target == dtype() && d.type() == device().type() && !copy) return *this;
  return converted(*this, target, d);
}

Tensor Tensor::to(const TensorOptions& o, bool non_blocking, bool copy) const {
  return to(o.has_device() ? o.device() : device(), o.dtype_opt(), non_blocking, copy);
}

Tensor Tensor::clone() const { return to(dtype(), false, true); }

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

const Tensor& Tensor::copy_(const Tensor& src, bool) const {
  EMBER_CHECK(src.defined(), "[copy_] the source tensor is undefined");
  ops::check_no_internal_overlap(mutable_self(), "copy_");
  // SymInts when either side is symbolic (Note [Symbolic shapes]): a dynamic dim stays symbolic.
  const bool symbolic = impl()->is_symbolic() || src.impl()->is_symbolic();
  const std::vector<SymInt> dst = symbolic ? sym_sizes() : std::vector<SymInt>();
  if (symbolic) {
    auto shape = ops::broadcast_pair(src.sym_sizes(), dst, "copy_");
    EMBER_CHECK(shape == dst, "[copy_] output with shape ", ops::shape_str(dst),
                " doesn't match the broadcast shape ", ops::shape_str(shape));
  } else {
    auto shape = ops::broadcast_pair(src.sizes(), sizes(), "copy_");
    EMBER_CHECK(shape == sizes(), "[copy_] output with shape ", ops::shape_str(sizes()),
                " doesn't match the broadcast shape ", ops::shape_str(shape));
  }
  // Partially overlapping memory would be read after being written: copy through a temporary.
  Tensor s =
      ops::may_overlap(mutable_self(), src) && !(src.is_same(mutable_self())) ? src.clone() : src;
  // Copy's inference states the input's sizes: a broadcast source arrives expanded.
  if (symbolic) {
    if (s.sym_sizes() != dst) s = s.expand(SymIntList(dst));
  } else if (s.sizes() != sizes()) {
    s = s.expand(SymIntList(sizes()));
  }
  Tensor self = *this;
  dispatch(in_place(Copy(dtype())), {s}, {self});
  return *this;
}

const Tensor& Tensor::fill_(const Scalar& value) const {
  ops::check_no_internal_overlap(mutable_self(), "fill_");
  ops::check_scalar_fits(value, dtype(), "fill_");
  Tensor self = *this;
  dispatch(Fill::into(self, value), {}, {self});
  return *this;
}

const Tensor& Tensor::fill_(const Tensor& value) const {
  EMBER_CHECK(value.dim() == 0,
              "[fill_] fill_ only supports 0-dimension value tensor but got "
              "tensor with ",
              value.dim(), " dimensions.");
  // A value that needs a gradient gets the sum of this tensor's: copy_ broadcasts it.
  if (ops::value_needs_grad(value)) return copy_(value);
  return fill_(value.item());
}

const Tensor& Tensor::zero_() const { return fill_(0); }

}  // namespace ember
