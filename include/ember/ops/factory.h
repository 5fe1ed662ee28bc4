#pragma once
// Tensor creation (src/ops/factory.cpp) and random sampling (src/ops/random.cpp).
#include <algorithm>
#include <functional>
#include <initializer_list>
#include <optional>
#include <type_traits>
#include <vector>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember {

Tensor empty(SymIntList size, const TensorOptions& options = {});
Tensor empty_strided(SymIntList size, SymIntList stride, const TensorOptions& options = {});
Tensor zeros(SymIntList size, const TensorOptions& options = {});
Tensor ones(SymIntList size, const TensorOptions& options = {});
/// Without a dtype, the result's dtype follows the fill value (bool, int64 or the default float).
Tensor full(SymIntList size, const Scalar& fill_value, const TensorOptions& options = {});
/// [start, end) in steps: ceil((end - start) / step) elements. Without a dtype: int64 when
/// start, end and step are all integers, else the default float dtype.
///   ember::arange(5);            // tensor([0, 1, 2, 3, 4])
///   ember::arange(1, 2.5, 0.5);  // tensor([1.0000, 1.5000, 2.0000])
Tensor arange(const Scalar& end, const TensorOptions& options = {});
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1,
              const TensorOptions& options = {});
/// arange(start, end, options), as libtorch spells it: step 1.
inline Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options) {
  return arange(start, end, 1, options);
}
/// `steps` evenly spaced values from start to end inclusive (default float dtype).
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps,
                const TensorOptions& options = {});
/// base ** linspace(start, end, steps).
Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base = 10.0,
                const TensorOptions& options = {});
/// Ones on the diagonal of an n x m (default n x n) matrix.
Tensor eye(int64_t n, const TensorOptions& options = {});
Tensor eye(int64_t n, int64_t m, const TensorOptions& options = {});

/// The *_like forms keep t's shape and dtype (unless options give one) and, as
/// torch.preserve_format, t's strides when t is dense (e.g. a transpose).
Tensor empty_like(const Tensor& t, const TensorOptions& options = {});
Tensor zeros_like(const Tensor& t, const TensorOptions& options = {});
Tensor ones_like(const Tensor& t, const TensorOptions& options = {});
Tensor full_like(const Tensor& t, const Scalar& fill_value, const TensorOptions& options = {});
Tensor rand_like(const Tensor& t, const TensorOptions& options = {});
Tensor randn_like(const Tensor& t, const TensorOptions& options = {});
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const TensorOptions& options = {});

/// Random sampling draws from a Generator (default_generator() unless one is passed); the same
/// seed gives the same values for every thread count. rand/randn/normal need a floating dtype.
/// U[0, 1).
Tensor rand(SymIntList size, const TensorOptions& options = {});
Tensor rand(SymIntList size, Generator& gen, const TensorOptions& options = {});
Tensor randn(SymIntList size, const TensorOptions& options = {});
Tensor randn(SymIntList size, Generator& gen, const TensorOptions& options = {});
/// Integers in [low, high); int64 unless a dtype is given.
Tensor randint(int64_t high, SymIntList size, const TensorOptions& options = {});
Tensor randint(int64_t low, int64_t high, SymIntList size, const TensorOptions& options = {});
/// A random permutation of 0..n-1 (int64 unless a dtype is given).
Tensor randperm(int64_t n, const TensorOptions& options = kInt64);
Tensor randperm(int64_t n, Generator& gen, const TensorOptions& options = kInt64);
/// 0 or 1 with probability p[i] (p floating, each in [0, 1]); the result has p's dtype.
Tensor bernoulli(const Tensor& p);
Tensor bernoulli(const Tensor& p, Generator& gen);
/// num_samples category indices (int64) per row of the 1-D or 2-D non-negative weights `input`
/// (they need not sum to 1), drawn with or without replacement as torch.multinomial.
Tensor multinomial(const Tensor& input, int64_t num_samples, bool replacement = false);
Tensor multinomial(const Tensor& input, int64_t num_samples, bool replacement, Generator& gen);
Tensor normal(double mean, double std, SymIntList size, const TensorOptions& options = {});
/// In-place samplers with an explicit generator (the Tensor methods use the default one).
Tensor& uniform_(Tensor& t, double from, double to, Generator& gen);
Tensor& normal_(Tensor& t, double mean, double std, Generator& gen);
Tensor& bernoulli_(Tensor& t, double p, Generator& gen);

/// Wraps external memory without copying (dtype: options' or the default float dtype). Without a
/// deleter the caller keeps ownership and must keep the memory alive while any tensor or view of
/// it lives; with one, the deleter runs once when the last of them is destroyed. If from_blob
/// throws (bad sizes or strides), the deleter is not called: the caller still owns the memory.
///   float buf[6]; auto t = ember::from_blob(buf, {2, 3});  // t aliases buf
Tensor from_blob(void* data, SymIntList sizes, const TensorOptions& options = {});
Tensor from_blob(void* data, SymIntList sizes, SymIntList strides,
                 const TensorOptions& options = {});
Tensor from_blob(void* data, SymIntList sizes, std::function<void(void*)> deleter,
                 const TensorOptions& options = {});
Tensor from_blob(void* data, SymIntList sizes, SymIntList strides,
                 std::function<void(void*)> deleter, const TensorOptions& options = {});

/// Nested initializer lists, as torch.tensor: ember::tensor({{1.0, 2.0}, {3.0, 4.0}}).
/// The dtype follows the C++ element type: double -> default float dtype, int -> int64,
/// bool -> bool, float -> float32, unless options give one.
namespace detail {
Tensor tensor_from_data(const void* data, ScalarType src, std::vector<int64_t> sizes,
                        const TensorOptions& options);
template <typename T>
constexpr ScalarType natural_dtype() {
  if constexpr (std::is_same_v<T, bool>)
    return kBool;
  else if constexpr (std::is_same_v<T, double>)
    return kFloat64;
  else if constexpr (std::is_floating_point_v<T>)
    return dtype_of<T>;
  else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    return dtype_of<T>;
  else
    return kInt64;
}
template <typename T>
using stored_t = std::conditional_t<std::is_same_v<T, bool> || std::is_floating_point_v<T> ||
                                        std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>,
                                    T, int64_t>;
/// The element buffer: std::vector<bool> has no data(), so bools are kept as bytes (0 or 1, the
/// representation of bool).
template <typename T>
using buffer_t = std::conditional_t<std::is_same_v<T, bool>, uint8_t, stored_t<T>>;
template <typename T>
TensorOptions infer_options(const TensorOptions& o) {
  if (o.has_dtype()) return o;
  // A C++ double behaves like a Python float: the default dtype.
  if constexpr (std::is_same_v<T, double>)
    return o.dtype(get_default_dtype());
  else
    return o.dtype(natural_dtype<T>());
}
template <typename T>
Tensor from_buffer(const std::vector<buffer_t<T>>& v, std::vector<int64_t> sizes,
                   const TensorOptions& options) {
  return tensor_from_data(v.data(), dtype_of<stored_t<T>>, std::move(sizes),
                          infer_options<T>(options));
}
template <typename T, typename Range>
void append(std::vector<buffer_t<T>>& v, const Range& r) {
  for (const auto& x : r) v.push_back(static_cast<buffer_t<T>>(static_cast<stored_t<T>>(x)));
}
}  // namespace detail

template <typename T, std::enable_if_t<std::is_arithmetic_v<T> || std::is_same_v<T, Half> ||
                                           std::is_same_v<T, BFloat16>,
                                       int> = 0>
Tensor tensor(T value, const TensorOptions& options = {}) {
  std::vector<detail::buffer_t<T>> v;
  detail::append<T>(v, std::initializer_list<T>{value});
  return detail::from_buffer<T>(v, {}, options);
}
template <typename T>
Tensor tensor(const std::vector<T>& values, const TensorOptions& options = {}) {
  std::vector<detail::buffer_t<T>> v;
  detail::append<T>(v, values);
  return detail::from_buffer<T>(v, {static_cast<int64_t>(values.size())}, options);
}
template <typename T>
Tensor tensor(std::initializer_list<T> values, const TensorOptions& options = {}) {
  return tensor(std::vector<T>(values), options);
}
namespace detail {
template <typename L>
struct list_depth : std::integral_constant<size_t, 0> {};
template <typename U>
struct list_depth<std::initializer_list<U>>
    : std::integral_constant<size_t, 1 + list_depth<U>::value> {};
// Appends a nested list's elements in row-major order; the first list met at each dim fixes that
// dim's size, and every other list at that dim must match it (PyTorch's wording).
template <typename T, typename U>
void flatten(const std::initializer_list<U>& list, size_t dim, std::vector<int64_t>& sizes,
             std::vector<buffer_t<T>>& v) {
  const auto n = static_cast<int64_t>(list.size());
  if (sizes[dim] < 0) sizes[dim] = n;
  EMBER_CHECK_VALUE(n == sizes[dim], "[tensor] expected sequence of length ", sizes[dim],
                    " at dim ", dim, " (got ", n, ")");
  if constexpr (std::is_same_v<U, T>) {
    append<T>(v, list);
  } else {
    for (const auto& inner : list) flatten<T>(inner, dim + 1, sizes, v);
  }
}
template <typename T, typename L>
Tensor from_nested(const L& list, const TensorOptions& options) {
  std::vector<int64_t> sizes(list_depth<L>::value, -1);
  std::vector<buffer_t<T>> v;
  flatten<T>(list, 0, sizes, v);
  for (int64_t& s : sizes) s = std::max<int64_t>(s, 0);  // dims below an empty list
  return from_buffer<T>(v, std::move(sizes), options);
}
template <typename T>
using list = std::initializer_list<T>;
}  // namespace detail

// Nested braces up to 6 dims, as libtorch's TensorDataContainer takes them:
// tensor({{{{1, 2}}, {{3, 4}}}}) has sizes [1, 2, 1, 2].
template <typename T>
Tensor tensor(detail::list<detail::list<T>> values, const TensorOptions& options = {}) {
  return detail::from_nested<T>(values, options);
}
template <typename T>
Tensor tensor(detail::list<detail::list<detail::list<T>>> values,
              const TensorOptions& options = {}) {
  return detail::from_nested<T>(values, options);
}
template <typename T>
Tensor tensor(detail::list<detail::list<detail::list<detail::list<T>>>> values,
              const TensorOptions& options = {}) {
  return detail::from_nested<T>(values, options);
}
template <typename T>
Tensor tensor(detail::list<detail::list<detail::list<detail::list<detail::list<T>>>>> values,
              const TensorOptions& options = {}) {
  return detail::from_nested<T>(values, options);
}
template <typename T>
Tensor tensor(
    detail::list<detail::list<detail::list<detail::list<detail::list<detail::list<T>>>>>> values,
    const TensorOptions& options = {}) {
  return detail::from_nested<T>(values, options);
}

}  // namespace ember
