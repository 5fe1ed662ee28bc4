#include "ember/core/tensor.h"

#include <iostream>
#include <sstream>

#include "core/shape.h"

namespace ember {

namespace {
// The data of a tensor that has some (Note [Meta device]: a meta tensor has none).
void* checked_data(const TensorImpl& impl) {
  EMBER_CHECK(!impl.device().is_meta(),
              "[data_ptr] Cannot access data pointer of Tensor that doesn't have storage (a meta "
              "tensor)");
  return impl.data();
}

}  // namespace

void Tensor::undefined_error() {
  EMBER_THROW(RuntimeError, "[Tensor] the tensor is undefined (default-constructed)");
}

// A 0-d tensor has no size or stride to return (wrap_dim accepts -1 and 0 for it, as ops that
// reduce a scalar do); PyTorch's message. Reading sizes()[0] there read past the vector.
static int64_t dim_of_shape(int64_t d, int64_t ndim, const char* op) {
  EMBER_CHECK_INDEX(ndim > 0, "[", op, "] dimension specified as ", d,
                    " but tensor has no dimensions");
  return wrap_dim(d, ndim, op);
}
std::vector<SymInt> Tensor::sym_sizes() const { return checked_impl().sym_sizes(); }
std::vector<SymInt> Tensor::sym_strides() const { return checked_impl().sym_strides(); }
SymInt Tensor::sym_size(int64_t d) const {
  const TensorImpl& impl = checked_impl();
  const int64_t w = dim_of_shape(d, impl.dim(), "size");
  return impl.is_symbolic() ? impl.sym_geometry()->sizes[w] : SymInt(impl.sizes()[w]);
}
SymInt Tensor::sym_numel() const { return checked_impl().sym_numel(); }
int64_t Tensor::size(int64_t d) const {
  const TensorImpl& impl = checked_impl();
  const int64_t w = dim_of_shape(d, impl.dim(), "size");
  // Note [Symbolic tensors]: only the dim asked for is a guard.
  return impl.is_symbolic() ? impl.sym_geometry()->sizes[w].guard_int("Tensor.size()")
                            : impl.sizes()[w];
}
int64_t Tensor::stride(int64_t d) const { return strides()[dim_of_shape(d, dim(), "stride")]; }
TensorOptions Tensor::options() const { return TensorOptions().dtype(dtype()).device(device()); }
int64_t Tensor::element_size() const { return ember::element_size(dtype()); }
int64_t Tensor::nbytes() const { return numel() * element_size(); }
int64_t Tensor::storage_offset() const { return checked_impl().storage_offset(); }
bool Tensor::is_floating_point() const { return ember::is_floating_point(dtype()); }
bool Tensor::is_signed() const { return ember::is_signed(dtype()); }
bool Tensor::is_alias_of(const Tensor& o) const {
  return defined() && o.defined() && impl_->storage() == o.impl_->storage();
}
uint32_t Tensor::_version() const { return checked_impl().version(); }
void* Tensor::data_ptr() const { return checked_data(checked_impl()); }

std::string Tensor::toString() const {
  std::ostringstream ss;
  ss << *this;
  return ss.str();
}

void Tensor::print() const {
  if (!defined()) {
    std::cout << "[UndefinedTensor]\n";
    return;
  }
  std::cout << "[CPU" << scalar_type_name(dtype()) << "Type " << shape_str(sizes()) << "]\n";
}

void Tensor::check_accessor_dim(size_t n) const {
  EMBER_CHECK(static_cast<size_t>(dim()) == n, "[accessor] TensorAccessor expected ", n,
              " dims but tensor has ", dim());
}

template <typename T>
T* Tensor::data_ptr() const {
  EMBER_CHECK_TYPE(dtype() == dtype_of<T>, "[data_ptr] expected scalar type ",
                   dtype_name(dtype_of<T>), " but found ", dtype_name(dtype()));
  return static_cast<T*>(checked_data(checked_impl()));
}

template <typename T>
T Tensor::item() const {
  EMBER_CHECK(numel() == 1, "[item] a Tensor with ", numel(),
              " elements cannot be converted to Scalar");
  T out{};
  visit_dtype(dtype(), "item", [&](auto* tag) {
    using S = std::remove_pointer_t<decltype(tag)>;
    S v = *static_cast<const S*>(checked_data(checked_impl()));
    if constexpr (std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>) {
      out = static_cast<T>(static_cast<float>(v));
    } else {
      out = static_cast<T>(v);
    }
  });
  return out;
}

Scalar Tensor::item() const {
  if (dtype() == kBool) return Scalar(item<bool>());
  if (is_floating_point()) return Scalar(item<double>());
  return Scalar(item<int64_t>());
}

#define EMBER_INSTANTIATE(T)               \
  template T* Tensor::data_ptr<T>() const; \
  template T Tensor::item<T>() const;
EMBER_FORALL_CPP_TYPES(EMBER_INSTANTIATE)
#undef EMBER_INSTANTIATE

}  // namespace ember
