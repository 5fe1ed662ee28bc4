#pragma once
// The Tensor handle. Methods are thin: each forwards to the free function of the same name in
// ember/ops/*.h, which validates, builds a primitive and calls dispatch.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/accessor.h"
#include "ember/core/device.h"
#include "ember/core/dtype.h"
#include "ember/core/indexing.h"
#include "ember/core/int_list.h"
#include "ember/core/scalar.h"
#include "ember/core/symint.h"
#include "ember/core/tensor_impl.h"
#include "ember/core/tensor_options.h"

namespace ember {

namespace autograd {
class Node;
}  // namespace autograd

class Tensor {
 public:
  Tensor() = default;  // undefined: defined() is false
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  // Note [Assignment to a temporary]: as in ATen, assigning to a named tensor rebinds the handle,
  // while assigning to a temporary writes into the elements it views: x[0] = 5 fills row 0,
  // x.index({0}) = y and t.grad().data() = g copy (broadcasting) into the viewed storage.
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & noexcept = default;
  Tensor& operator=(const Tensor& src) && {
    copy_(src);
    return *this;
  }
  Tensor& operator=(Tensor&& src) && {
    copy_(src);
    return *this;
  }
  Tensor& operator=(const Scalar& value) && {
    fill_(value);
    return *this;
  }

  // ---- metadata (src/core/tensor.cpp)
  bool defined() const { return impl_ != nullptr; }
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl() const { return impl_; }
  // The hottest accessors are inline (every op reads them); an undefined tensor raises.
  const std::vector<int64_t>& sizes() const { return checked_impl().sizes(); }
  const std::vector<int64_t>& strides() const { return checked_impl().strides(); }
  /// The sizes as SymInts: symbolic expressions for a tensor traced with dynamic shapes
  /// (Note [Symbolic tensors]), where sizes() would specialise them.
  std::vector<SymInt> sym_sizes() const;
  std::vector<SymInt> sym_strides() const;
  SymInt sym_size(int64_t dim) const;
  SymInt sym_numel() const;
  int64_t size(int64_t dim) const;  // negative dims wrap; IndexError when out of range
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return checked_impl().dim(); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return checked_impl().numel(); }
  ScalarType dtype() const { return checked_impl().dtype(); }
  ScalarType scalar_type() const { return dtype(); }
  Device device() const { return checked_impl().device(); }
  TensorOptions options() const;
  int64_t element_size() const;
  int64_t nbytes() const;
  int64_t storage_offset() const;
  bool is_contiguous() const { return checked_impl().is_contiguous(); }
  bool is_floating_point() const;
  bool is_complex() const { return false; }
  bool is_signed() const;
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  /// Whether both views address the same storage.
  bool is_alias_of(const Tensor& o) const;
  uint32_t _version() const;
  std::string toString() const;

  /// The single element as T (converted); RuntimeError unless numel() == 1.
  template <typename T>
  T item() const;
  Scalar item() const;
  void check_accessor_dim(size_t n) const;
  /// Typed pointer to the first element; TypeError when T does not match dtype().
  template <typename T>
  T* data_ptr() const;
  void* data_ptr() const;
  /// A copy of the elements in row-major order, converted to T.
  template <typename T>
  std::vector<T> tolist() const;
  /// Typed element access (libtorch's accessor); RuntimeError unless dim() == N, TypeError
  /// when T does not match dtype(). The tensor must outlive the accessor.
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    static_assert(N > 0, "accessor is used for indexing tensor, for scalars use *data_ptr<T>()");
    check_accessor_dim(N);
    return TensorAccessor<T, N>(data_ptr<T>(), sizes().data(), strides().data());
  }
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;

  // ---- libtorch conveniences (src/core/tensor.cpp)
  /// t[i] is t.select(0, i); t[index] is t.index({index}).
  Tensor operator[](int64_t index) const;
  Tensor operator[](const Tensor& index) const;
  Tensor softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor log_softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  bool is_cuda() const { return device().is_cuda(); }
  Tensor toType(ScalarType dtype) const { return to(dtype); }
  /// Prints the tensor's type and shape, as libtorch's print(): "[CPUFloatType [2, 3]]".
  void print() const;

  // ---- conversion and copying (src/core/tensor.cpp, src/ops/copy.cpp)
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device device, std::optional<ScalarType> dtype = std::nullopt,
            bool non_blocking = false, bool copy = false) const;
  Tensor to(const TensorOptions& options, bool non_blocking = false, bool copy = false) const;
  Tensor to(DeviceType type, bool non_blocking = false, bool copy = false) const {  // x.to(kMeta)
    return to(Device(type), std::nullopt, non_blocking, copy);
  }
  Tensor cpu() const { return to(Device(kCPU)); }
  Tensor clone() const;
  Tensor contiguous() const;
  const Tensor& copy_(const Tensor& src, bool non_blocking = false) const;
  const Tensor& fill_(const Scalar& value) const;
  const Tensor& fill_(const Tensor& value) const;  // 0-d tensor
  const Tensor& zero_() const;

  // ---- autograd (src/autograd/tensor_autograd.cpp)
  bool requires_grad() const;
  /// Leaves only; floating-point dtypes only (RuntimeError otherwise, as PyTorch).
  const Tensor& requires_grad_(bool requires_grad = true) const;
  const Tensor& set_requires_grad(bool requires_grad) const {
    return requires_grad_(requires_grad);
  }
  /// The accumulated gradient (undefined until a backward reaches this leaf).
  const Tensor& grad() const;
  Tensor& mutable_grad();
  /// The node that produced this tensor; null for leaves.
  const std::shared_ptr<autograd::Node>& grad_fn() const;
  bool is_leaf() const;
  /// Which output of grad_fn() this tensor is.
  uint32_t output_nr() const;
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false, const std::vector<Tensor>& inputs = {}) const;
  /// An alias outside the graph (requires_grad false).
  Tensor detach() const;
  const Tensor& detach_() const;
  /// libtorch's Tensor::data(): a detached alias that shares storage and version counter.
  Tensor data() const { return detach(); }
  /// Keeps .grad on a non-leaf after backward.
  void retain_grad() const;
  bool retains_grad() const;
  /// Calls `hook(grad)` when this tensor's gradient is computed; a hook that returns a defined
  /// tensor replaces the gradient. Returns an id for remove_hook.
  unsigned register_hook(std::function<Tensor(const Tensor&)> hook) const;
  template <typename F,
            std::enable_if_t<std::is_void_v<std::invoke_result_t<F, const Tensor&>>, int> = 0>
  unsigned register_hook(F hook) const {
    return register_hook(std::function<Tensor(const Tensor&)>([hook](const Tensor& g) {
      hook(g);
      return Tensor();
    }));
  }
  void remove_hook(unsigned id) const;
  /// Leaves only: calls `hook(tensor)` after a gradient has been accumulated into .grad.
  unsigned register_post_accumulate_grad_hook(std::function<void(const Tensor&)> hook) const;
  /// Whether created under InferenceMode.
  bool is_inference() const;

  // ---- views and shape (src/ops/shape.cpp)
  Tensor view(SymIntList size) const;
  Tensor view(ScalarType dtype) const;
  Tensor view_as(const Tensor& other) const;
  Tensor reshape(SymIntList shape) const;
  Tensor reshape_as(const Tensor& other) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, SymIntList sizes) const;
  Tensor squeeze() const;
  Tensor squeeze(IntList dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor permute(IntList dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;
  Tensor mT() const;
  Tensor expand(SymIntList size) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor broadcast_to(SymIntList size) const;
  Tensor narrow(int64_t dim, SymInt start, SymInt length) const;
  Tensor slice(int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor select(int64_t dim, SymInt index) const;
  Tensor index(std::initializer_list<TensorIndex> indices) const;
  Tensor index(const std::vector<TensorIndex>& indices) const;
  const Tensor& index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value) const;
  const Tensor& index_put_(std::initializer_list<TensorIndex> indices, const Scalar& value) const;
  const Tensor& index_put_(const std::vector<TensorIndex>& indices, const Tensor& value) const;
  const Tensor& index_put_(const std::vector<TensorIndex>& indices, const Scalar& value) const;
  Tensor as_strided(SymIntList size, SymIntList stride,
                    std::optional<SymInt> storage_offset = std::nullopt) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> split(SymInt split_size, int64_t dim = 0) const;
  std::vector<Tensor> split(SymIntList split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> split_with_sizes(SymIntList split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  Tensor repeat(SymIntList repeats) const;
  Tensor tile(SymIntList dims) const;
  Tensor flip(IntList dims) const;
  Tensor roll(SymIntList shifts, IntList dims = {}) const;
  /// x.roll(1) and x.roll(1, 0): one integer shift, as libtorch's IntArrayRef accepts.
  template <typename I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  Tensor roll(I shift, IntList dims = {}) const {
    return roll(SymIntList{SymInt(static_cast<int64_t>(shift))}, dims);
  }
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;
  const Tensor& tril_(int64_t diagonal = 0) const;
  const Tensor& triu_(int64_t diagonal = 0) const;
  Tensor movedim(IntList source, IntList destination) const;

  // ---- elementwise (src/ops/elementwise*.cpp)
#define EMBER_UNARY_METHOD(name) \
  Tensor name() const;           \
  const Tensor& name##_() const;
  EMBER_UNARY_METHOD(abs)
  EMBER_UNARY_METHOD(neg)
  EMBER_UNARY_METHOD(sign)
  EMBER_UNARY_METHOD(exp)
  EMBER_UNARY_METHOD(exp2)
  EMBER_UNARY_METHOD(expm1)
  EMBER_UNARY_METHOD(log)
  EMBER_UNARY_METHOD(log2)
  EMBER_UNARY_METHOD(log10)
  EMBER_UNARY_METHOD(log1p)
  EMBER_UNARY_METHOD(sqrt)
  EMBER_UNARY_METHOD(rsqrt)
  EMBER_UNARY_METHOD(reciprocal)
  EMBER_UNARY_METHOD(sin)
  EMBER_UNARY_METHOD(cos)
  EMBER_UNARY_METHOD(tan)
  EMBER_UNARY_METHOD(asin)
  EMBER_UNARY_METHOD(acos)
  EMBER_UNARY_METHOD(atan)
  EMBER_UNARY_METHOD(sinh)
  EMBER_UNARY_METHOD(cosh)
  EMBER_UNARY_METHOD(tanh)
  EMBER_UNARY_METHOD(sigmoid)
  EMBER_UNARY_METHOD(erf)
  EMBER_UNARY_METHOD(erfc)
  EMBER_UNARY_METHOD(erfinv)
  EMBER_UNARY_METHOD(floor)
  EMBER_UNARY_METHOD(ceil)
  EMBER_UNARY_METHOD(trunc)
  EMBER_UNARY_METHOD(frac)
  EMBER_UNARY_METHOD(relu)
  EMBER_UNARY_METHOD(logical_not)
  EMBER_UNARY_METHOD(bitwise_not)
#undef EMBER_UNARY_METHOD
  Tensor round(int64_t decimals = 0) const;
  const Tensor& round_(int64_t decimals = 0) const;
  Tensor logit(std::optional<double> eps = std::nullopt) const;
  Tensor nan_to_num(std::optional<double> nan = 0.0, std::optional<double> posinf = std::nullopt,
                    std::optional<double> neginf = std::nullopt) const;
  Tensor isnan() const;
  Tensor isinf() const;
  Tensor isfinite() const;

  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor add(const Scalar& other, const Scalar& alpha = 1) const;
  const Tensor& add_(const Tensor& other, const Scalar& alpha = 1) const;
  const Tensor& add_(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor sub(const Scalar& other, const Scalar& alpha = 1) const;
  const Tensor& sub_(const Tensor& other, const Scalar& alpha = 1) const;
  const Tensor& sub_(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor div(const Tensor& other, std::optional<std::string> rounding_mode = std::nullopt) const;
  Tensor div(const Scalar& other, std::optional<std::string> rounding_mode = std::nullopt) const;
  const Tensor& div_(const Tensor& other,
                     std::optional<std::string> rounding_mode = std::nullopt) const;
  const Tensor& div_(const Scalar& other,
                     std::optional<std::string> rounding_mode = std::nullopt) const;
#define EMBER_BINARY_METHOD(name)                   \
  Tensor name(const Tensor& other) const;           \
  Tensor name(const Scalar& other) const;           \
  const Tensor& name##_(const Tensor& other) const; \
  const Tensor& name##_(const Scalar& other) const;
  EMBER_BINARY_METHOD(mul)
  EMBER_BINARY_METHOD(floor_divide)
  EMBER_BINARY_METHOD(remainder)
  EMBER_BINARY_METHOD(fmod)
  EMBER_BINARY_METHOD(pow)
  EMBER_BINARY_METHOD(atan2)
  EMBER_BINARY_METHOD(hypot)
  EMBER_BINARY_METHOD(copysign)
  EMBER_BINARY_METHOD(eq)
  EMBER_BINARY_METHOD(ne)
  EMBER_BINARY_METHOD(lt)
  EMBER_BINARY_METHOD(le)
  EMBER_BINARY_METHOD(gt)
  EMBER_BINARY_METHOD(ge)
  EMBER_BINARY_METHOD(logical_and)
  EMBER_BINARY_METHOD(logical_or)
  EMBER_BINARY_METHOD(logical_xor)
  EMBER_BINARY_METHOD(bitwise_and)
  EMBER_BINARY_METHOD(bitwise_or)
  EMBER_BINARY_METHOD(bitwise_xor)
  EMBER_BINARY_METHOD(bitwise_left_shift)
  EMBER_BINARY_METHOD(bitwise_right_shift)
#undef EMBER_BINARY_METHOD
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  Tensor fmax(const Tensor& other) const;
  Tensor fmin(const Tensor& other) const;
  Tensor logaddexp(const Tensor& other) const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor clamp(const std::optional<Tensor>& min,
               const std::optional<Tensor>& max = std::nullopt) const;
  const Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor clip(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  const Tensor& clamp_(const std::optional<Tensor>& min,
                       const std::optional<Tensor>& max = std::nullopt) const;
  Tensor clamp_min(const Scalar& min) const;
  Tensor clamp_min(const Tensor& min) const;
  Tensor clamp_max(const Scalar& max) const;
  Tensor clamp_max(const Tensor& max) const;
  const Tensor& clamp_min_(const Scalar& min) const;
  const Tensor& clamp_min_(const Tensor& min) const;
  const Tensor& clamp_max_(const Scalar& max) const;
  const Tensor& clamp_max_(const Tensor& max) const;
  Tensor lerp(const Tensor& end, const Scalar& weight) const;
  Tensor lerp(const Tensor& end, const Tensor& weight) const;
  const Tensor& lerp_(const Tensor& end, const Scalar& weight) const;
  const Tensor& lerp_(const Tensor& end, const Tensor& weight) const;
  // (src/ops/binary_composite.cpp)
  Tensor xlogy(const Tensor& other) const;
  Tensor xlogy(const Scalar& other) const;
  const Tensor& xlogy_(const Tensor& other) const;
  const Tensor& xlogy_(const Scalar& other) const;
  Tensor float_power(const Tensor& exponent) const;
  Tensor float_power(const Scalar& exponent) const;
  const Tensor& float_power_(const Tensor& exponent) const;
  const Tensor& float_power_(const Scalar& exponent) const;
  Tensor addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  Tensor addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  const Tensor& addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  const Tensor& addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  const Tensor& masked_fill_(const Tensor& mask, const Scalar& value) const;
  const Tensor& masked_fill_(const Tensor& mask, const Tensor& value) const;
  Tensor where(const Tensor& condition, const Tensor& other) const;

  // ---- reductions (src/ops/reduction*.cpp). An empty dim list means every dim.
  Tensor sum(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor sum(IntList dim, bool keepdim = false,
             std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor nansum(IntList dim = {}, bool keepdim = false,
                std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(IntList dim, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor nanmean(IntList dim = {}, bool keepdim = false,
                 std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(int64_t dim, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor max() const;
  Tensor min() const;
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor amax(IntList dim = {}, bool keepdim = false) const;
  Tensor amin(IntList dim = {}, bool keepdim = false) const;
  std::tuple<Tensor, Tensor> aminmax(std::optional<int64_t> dim = std::nullopt,
                                     bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor var(IntList dim = {}, double correction = 1, bool keepdim = false) const;
  Tensor std(IntList dim = {}, double correction = 1, bool keepdim = false) const;
  /// libtorch's forms: an optional dim list (nullopt: all) and an optional correction (nullopt: 1).
  Tensor var(OptionalIntList dim, const std::optional<Scalar>& correction,
             bool keepdim = false) const;
  Tensor std(OptionalIntList dim, const std::optional<Scalar>& correction,
             bool keepdim = false) const;
  Tensor norm(const Scalar& p = 2, IntList dim = {}, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor logsumexp(IntList dim, bool keepdim = false) const;
  Tensor all() const;
  Tensor all(IntList dim, bool keepdim = false) const;
  Tensor any() const;
  Tensor any(IntList dim, bool keepdim = false) const;
  Tensor count_nonzero(IntList dim = {}) const;
  Tensor cumsum(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor cumprod(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  std::tuple<Tensor, Tensor> cummax(int64_t dim) const;
  std::tuple<Tensor, Tensor> cummin(int64_t dim) const;
  Tensor logcumsumexp(int64_t dim) const;

  // ---- matrix products (src/ops/linear_algebra.cpp)
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& mat2) const;
  Tensor bmm(const Tensor& mat2) const;
  Tensor mv(const Tensor& vec) const;
  Tensor dot(const Tensor& other) const;
  Tensor vdot(const Tensor& other) const;
  Tensor outer(const Tensor& vec2) const;
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;
  Tensor addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;
  Tensor baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                 const Scalar& alpha = 1) const;
  Tensor kron(const Tensor& other) const;

  // ---- random in-place (src/ops/random.cpp)
  const Tensor& uniform_(double from = 0, double to = 1) const;
  const Tensor& normal_(double mean = 0, double std = 1) const;
  const Tensor& bernoulli_(double p = 0.5) const;
  /// ember::multinomial with the default generator.
  Tensor multinomial(int64_t num_samples, bool replacement = false) const;
  const Tensor& random_(int64_t from, std::optional<int64_t> to = std::nullopt) const;

  // ---- comparison helpers (src/ops/compare.cpp)
  bool equal(const Tensor& other) const;
  bool allclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8,
                bool equal_nan = false) const;
  Tensor isclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8,
                 bool equal_nan = false) const;

  // ---- indexing, scatter/gather, unique, sorting (src/ops/scatter.cpp, src/ops/unique.cpp,
  // src/ops/sort.cpp); see ember/ops/indexing.h and ember/ops/sort.h.
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index, bool sparse_grad = false) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src,
                 const std::string& reduce) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value,
                 const std::string& reduce) const;
  const Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src) const;
  const Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value) const;
  const Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src,
                         const std::string& reduce) const;
  const Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value,
                         const std::string& reduce) const;
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  const Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src,
                        const std::string& reduce, bool include_self = true) const;
  const Tensor& scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                                const std::string& reduce, bool include_self = true) const;
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source,
                   const Scalar& alpha = 1) const;
  const Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                           const Scalar& alpha = 1) const;
  Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source) const;
  const Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor index_fill(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor index_fill(int64_t dim, const Tensor& index, const Tensor& value) const;
  const Tensor& index_fill_(int64_t dim, const Tensor& index, const Scalar& value) const;
  const Tensor& index_fill_(int64_t dim, const Tensor& index, const Tensor& value) const;
  Tensor masked_select(const Tensor& mask) const;
  Tensor masked_scatter(const Tensor& mask, const Tensor& source) const;
  const Tensor& masked_scatter_(const Tensor& mask, const Tensor& source) const;
  Tensor take(const Tensor& index) const;
  Tensor take_along_dim(const Tensor& indices, std::optional<int64_t> dim = std::nullopt) const;
  Tensor nonzero() const;
  std::vector<Tensor> nonzero_numpy() const;
  Tensor argwhere() const;
  std::tuple<Tensor, Tensor, Tensor> unique(bool sorted = true, bool return_inverse = false,
                                            bool return_counts = false,
                                            std::optional<int64_t> dim = std::nullopt) const;
  std::tuple<Tensor, Tensor, Tensor> unique_consecutive(
      bool return_inverse = false, bool return_counts = false,
      std::optional<int64_t> dim = std::nullopt) const;
  Tensor bincount(const std::optional<Tensor>& weights = std::nullopt, int64_t minlength = 0) const;
  Tensor histc(int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0) const;
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> sort(std::optional<bool> stable, int64_t dim = -1,
                                  bool descending = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false, bool stable = false) const;
  /// libtorch's argsort(stable, dim, descending).
  Tensor argsort(bool stable, int64_t dim, bool descending = false) const;
  Tensor msort() const;
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true,
                                  bool sorted = true) const;
  std::tuple<Tensor, Tensor> kthvalue(int64_t k, int64_t dim = -1, bool keepdim = false) const;
  Tensor median() const;
  std::tuple<Tensor, Tensor> median(int64_t dim, bool keepdim = false) const;
  Tensor nanmedian() const;
  std::tuple<Tensor, Tensor> nanmedian(int64_t dim, bool keepdim = false) const;
  std::tuple<Tensor, Tensor> mode(int64_t dim = -1, bool keepdim = false) const;

 private:
  // Note [const in-place methods]: a Tensor is a handle to a shared TensorImpl, as in ATen, so
  // in-place methods (which change the impl, never the handle) are const and callable on a
  // const Tensor& (x.grad().zero_()); they hand the handle on to the Tensor& helpers this way.
  Tensor& mutable_self() const { return const_cast<Tensor&>(*this); }
  const TensorImpl& checked_impl() const {
    if (!impl_) [[unlikely]]
      undefined_error();
    return *impl_;
  }
  [[noreturn]] static void undefined_error();

  std::shared_ptr<TensorImpl> impl_;
};

/// Prints as PyTorch does: tensor([[1.0000, 2.0000], ...]) with a dtype suffix where PyTorch
/// shows one; large tensors are summarised (src/core/print.cpp).
std::ostream& operator<<(std::ostream& os, const Tensor& t);

// ---- operators (src/ops/elementwise*.cpp): Python-scalar semantics for the Scalar sides.
Tensor operator-(const Tensor& a);
Tensor operator~(const Tensor& a);
#define EMBER_BINARY_OPERATOR(op)                       \
  Tensor operator op(const Tensor& a, const Tensor& b); \
  Tensor operator op(const Tensor& a, const Scalar& b); \
  Tensor operator op(const Scalar& a, const Tensor& b);
EMBER_BINARY_OPERATOR(+)
EMBER_BINARY_OPERATOR(-)
EMBER_BINARY_OPERATOR(*)
EMBER_BINARY_OPERATOR(/)
EMBER_BINARY_OPERATOR(%)
EMBER_BINARY_OPERATOR(==)
EMBER_BINARY_OPERATOR(!=)
EMBER_BINARY_OPERATOR(<)
EMBER_BINARY_OPERATOR(<=)
EMBER_BINARY_OPERATOR(>)
EMBER_BINARY_OPERATOR(>=)
EMBER_BINARY_OPERATOR(&)
EMBER_BINARY_OPERATOR(|)
EMBER_BINARY_OPERATOR(^)
EMBER_BINARY_OPERATOR(<<)
EMBER_BINARY_OPERATOR(>>)
#undef EMBER_BINARY_OPERATOR
Tensor& operator+=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Scalar& b);
Tensor& operator-=(Tensor& a, const Tensor& b);
Tensor& operator-=(Tensor& a, const Scalar& b);
Tensor& operator*=(Tensor& a, const Tensor& b);
Tensor& operator*=(Tensor& a, const Scalar& b);
Tensor& operator/=(Tensor& a, const Tensor& b);
Tensor& operator/=(Tensor& a, const Scalar& b);
// Compound assignment to a temporary updates the elements it views (x[0] += 1), as in ATen;
// see Note [Assignment to a temporary].
#define EMBER_RVALUE_COMPOUND(op)                                                      \
  inline Tensor operator op(Tensor&& a, const Tensor& b) { return std::move(a op b); } \
  inline Tensor operator op(Tensor&& a, const Scalar& b) { return std::move(a op b); }
EMBER_RVALUE_COMPOUND(+=)
EMBER_RVALUE_COMPOUND(-=)
EMBER_RVALUE_COMPOUND(*=)
EMBER_RVALUE_COMPOUND(/=)
#undef EMBER_RVALUE_COMPOUND

}  // namespace ember
