#pragma once
// libtorch compatibility: code written for libtorch's C++ frontend builds against Ember by
// including this header instead of <torch/torch.h>.
//
//   #include <ember/torch.h>
//   struct Net : torch::nn::Module {
//     Net() { fc = register_module("fc", torch::nn::Linear(784, 10)); }
//     torch::Tensor forward(torch::Tensor x) { return torch::log_softmax(fc->forward(x), 1); }
//     torch::nn::Linear fc{nullptr};
//   };
//
// Every `torch::` name is Ember's own (the namespaces below import ember's): tensors and ops,
// torch::nn (modules, holders, options, functional), torch::optim, torch::data (datasets such as
// MNIST, transforms Normalize/Stack, make_data_loader), torch::autograd, NoGradGuard,
// Device, manual_seed, and torch::save/torch::load (which write safetensors files and read
// those and PyTorch's torch.save state dicts).
// torch::cuda::is_available() is false: Ember has no CUDA backend yet.
#include <concepts>
#include <iostream>  // libtorch programs use std::cout without including it
#include <optional>
#include <sstream>
#include <string>

#include "ember/ember.h"

namespace torch {

using namespace ::ember;  // NOLINT: the whole API under torch::
/// libtorch's list-of-sizes argument type.
using IntArrayRef = ::ember::IntList;
// libtorch's short dtype names (torch/types.h): torch::kF32 is torch::kFloat32.
constexpr ScalarType kU8 = kUInt8;
constexpr ScalarType kI8 = kInt8;
constexpr ScalarType kI16 = kInt16;
constexpr ScalarType kI32 = kInt32;
constexpr ScalarType kI64 = kInt64;
constexpr ScalarType kF16 = kFloat16;
constexpr ScalarType kF32 = kFloat32;
constexpr ScalarType kF64 = kFloat64;
// torch::optional and torch::nullopt (libtorch's types.h imports them).
using std::nullopt;
using std::nullopt_t;
using std::optional;

// Aliases, not namespaces of their own: after `using namespace torch;`, `nn::Linear` names one
// namespace whichever way it is reached (torch::nn or, through torch's using-directive, ember::nn).
namespace nn = ::ember::nn;
namespace optim = ::ember::optim;
namespace data = ::ember::data;
namespace autograd = ::ember::autograd;

namespace cuda {
/// No CUDA backend in this build.
inline bool is_available() { return false; }
inline int64_t device_count() { return 0; }
}  // namespace cuda

// ATen functions that libtorch puts at the top level and Ember keeps in nn::functional (those
// whose argument order is the same in both).
using ::ember::nn::functional::adaptive_avg_pool2d;
using ::ember::nn::functional::binary_cross_entropy;
using ::ember::nn::functional::binary_cross_entropy_with_logits;
using ::ember::nn::functional::conv1d;
using ::ember::nn::functional::conv2d;
using ::ember::nn::functional::huber_loss;
using ::ember::nn::functional::kl_div;
using ::ember::nn::functional::l1_loss;
using ::ember::nn::functional::layer_norm;
using ::ember::nn::functional::linear;
using ::ember::nn::functional::mse_loss;
using ::ember::nn::functional::nll_loss;
using ::ember::nn::functional::smooth_l1_loss;

/// ATen's reduction codes (at::Reduction), as taken by the loss overloads below.
namespace Reduction {
enum Reduction : int64_t { None = 0, Mean = 1, Sum = 2 };
}  // namespace Reduction

namespace detail {
/// A reduction code as the options' variant (ValueError for codes other than 0, 1, 2).
template <typename R = ::ember::nn::functional::MSELossFuncOptions::reduction_t>
R reduction(int64_t r) {
  EMBER_CHECK_VALUE(r >= Reduction::None && r <= Reduction::Sum,
                    "[torch] reduction must be Reduction::None, Mean or Sum (0, 1, 2), got ", r);
  if (r == Reduction::None) return ::ember::kNone;
  if (r == Reduction::Sum) return ::ember::kSum;
  return ::ember::kMean;
}
}  // namespace detail

// ATen's pooling and dropout: one function per name (not overloaded), so that a libtorch program
// can pass them to nn::Functional, e.g. Functional(torch::max_pool2d, 3, stride, 0, 1, false).
// Each list is one value for every spatial dimension or one per dimension; an empty stride
// means the kernel size.
namespace F_ = ::ember::nn::functional;
namespace detail {
template <size_t D>
ExpandingArray<D> pool_arg(const IntList& v, const char* op, const char* what) {
  EMBER_CHECK(v.size() == 1 || v.size() == D, "[", op, "] ", what,
              " must either be a single int, or a tuple of ", D, " ints, got ", v.size(),
              " values");
  return v.size() == 1 ? ExpandingArray<D>(v[0]) : ExpandingArray<D>(v.vec());
}
/// The arguments every pooling op shares, checked and expanded to D values.
template <size_t D>
struct PoolArgs {
  PoolArgs(const char* op, const IntList& k, const IntList& s, const IntList& p)
      : kernel_size(pool_arg<D>(k, op, "kernel_size")),
        stride(s.empty() ? std::nullopt : std::optional(pool_arg<D>(s, op, "stride"))),
        padding(pool_arg<D>(p, op, "padding")) {}
  ExpandingArray<D> kernel_size;
  std::optional<ExpandingArray<D>> stride;  // nullopt: the kernel size
  ExpandingArray<D> padding;
};
}  // namespace detail

/// at::max_pool1d / at::max_pool2d(self, kernel_size, stride = {}, padding = 0, dilation = 1,
/// ceil_mode = false).
#define EMBER_TORCH_MAX_POOL(D)                                                             \
  inline Tensor max_pool##D##d(const Tensor& self, IntArrayRef kernel_size,                 \
                               IntArrayRef stride = {}, IntArrayRef padding = 0,            \
                               IntArrayRef dilation = 1, bool ceil_mode = false) {          \
    const detail::PoolArgs<D> a("max_pool" #D "d", kernel_size, stride, padding);           \
    return F_::max_pool##D##d(self, a.kernel_size, a.stride, a.padding,                     \
                              detail::pool_arg<D>(dilation, "max_pool" #D "d", "dilation"), \
                              ceil_mode);                                                   \
  }
EMBER_TORCH_MAX_POOL(1)
EMBER_TORCH_MAX_POOL(2)
#undef EMBER_TORCH_MAX_POOL
/// at::avg_pool1d(self, kernel_size, stride = {}, padding = 0, ceil_mode = false,
/// count_include_pad = true).
inline Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                         IntArrayRef padding = 0, bool ceil_mode = false,
                         bool count_include_pad = true) {
  const detail::PoolArgs<1> a("avg_pool1d", kernel_size, stride, padding);
  return F_::avg_pool1d(self, a.kernel_size, a.stride, a.padding, ceil_mode, count_include_pad);
}
/// at::avg_pool2d(self, kernel_size, stride = {}, padding = 0, ceil_mode = false,
/// count_include_pad = true, divisor_override = nullopt).
inline Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                         IntArrayRef padding = 0, bool ceil_mode = false,
                         bool count_include_pad = true,
                         std::optional<int64_t> divisor_override = std::nullopt) {
  const detail::PoolArgs<2> a("avg_pool2d", kernel_size, stride, padding);
  return F_::avg_pool2d(self, a.kernel_size, a.stride, a.padding, ceil_mode, count_include_pad,
                        divisor_override);
}
/// at::threshold(self, threshold, value): elements <= threshold become value (the input's dtype).
inline Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  return F_::threshold(self, threshold.toDouble(), value.toDouble());
}
inline Tensor threshold_(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  return F_::threshold(self, threshold.toDouble(), value.toDouble(), /*inplace=*/true);
}
/// at::dropout(input, p, train).
inline Tensor dropout(const Tensor& input, double p, bool train) {
  return F_::dropout(input, p, train);
}

// ATen's top-level loss functions, (input, target, ..., reduction, extra scalars) as in
// native_functions.yaml. The reduction has no default here: the two-argument calls go to the
// nn::functional forms above, which compute the same thing.
inline Tensor mse_loss(const Tensor& input, const Tensor& target, int64_t reduction) {
  return F_::mse_loss(input, target,
                      F_::MSELossFuncOptions().reduction(detail::reduction(reduction)));
}
inline Tensor l1_loss(const Tensor& input, const Tensor& target, int64_t reduction) {
  return F_::l1_loss(input, target,
                     F_::L1LossFuncOptions().reduction(detail::reduction(reduction)));
}
inline Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, int64_t reduction,
                             double beta = 1.0) {
  return F_::smooth_l1_loss(
      input, target,
      F_::SmoothL1LossFuncOptions().reduction(detail::reduction(reduction)).beta(beta));
}
inline Tensor huber_loss(const Tensor& input, const Tensor& target, int64_t reduction,
                         double delta = 1.0) {
  return F_::huber_loss(
      input, target,
      F_::HuberLossFuncOptions().reduction(detail::reduction(reduction)).delta(delta));
}
inline Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                                   int64_t reduction = Reduction::Mean) {
  return F_::binary_cross_entropy(
      input, target,
      F_::BinaryCrossEntropyFuncOptions().weight(weight).reduction(detail::reduction(reduction)));
}
inline Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                               const Tensor& weight, const Tensor& pos_weight = {},
                                               int64_t reduction = Reduction::Mean) {
  return F_::binary_cross_entropy_with_logits(input, target,
                                              F_::BinaryCrossEntropyWithLogitsFuncOptions()
                                                  .weight(weight)
                                                  .pos_weight(pos_weight)
                                                  .reduction(detail::reduction(reduction)));
}
inline Tensor kl_div(const Tensor& input, const Tensor& target, int64_t reduction,
                     bool log_target = false) {
  auto r = ::ember::nn::functional::KLDivFuncOptions::reduction_t(::ember::kMean);
  if (reduction == Reduction::None) r = ::ember::kNone;
  if (reduction == Reduction::Sum) r = ::ember::kSum;
  (void)detail::reduction(reduction);  // validates the code
  return F_::kl_div(input, target, F_::KLDivFuncOptions().reduction(r).log_target(log_target));
}

/// ATen's nll_loss(input, target, weight, reduction, ignore_index).
inline Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                       int64_t reduction = Reduction::Mean, int64_t ignore_index = -100) {
  return F_::nll_loss(input, target,
                      F_::NLLLossFuncOptions()
                          .weight(weight)
                          .reduction(detail::reduction(reduction))
                          .ignore_index(ignore_index));
}

/// ATen's cross_entropy_loss(input, target, weight, reduction, ignore_index, label_smoothing):
/// logits against class indices or probabilities.
inline Tensor cross_entropy_loss(const Tensor& input, const Tensor& target,
                                 const Tensor& weight = {}, int64_t reduction = Reduction::Mean,
                                 int64_t ignore_index = -100, double label_smoothing = 0.0) {
  return F_::cross_entropy(input, target,
                           F_::CrossEntropyFuncOptions()
                               .weight(weight)
                               .reduction(detail::reduction(reduction))
                               .ignore_index(ignore_index)
                               .label_smoothing(label_smoothing));
}

// Factories with a single integer as the size, as libtorch's IntArrayRef converts one int
// (torch::randn(3, torch::requires_grad()), torch::zeros(batch.size(0), device)). Templates, so
// that braced lists ({}, {2, 3}) still go to Ember's own overloads.
using ::ember::empty;
using ::ember::full;
using ::ember::ones;
using ::ember::rand;
using ::ember::randn;
using ::ember::zeros;
#define EMBER_TORCH_SINGLE_SIZE(name)                                              \
  template <std::integral I>                                                       \
  Tensor name(I size, const TensorOptions& options = {}) {                         \
    return ::ember::name(SymIntList{SymInt(static_cast<int64_t>(size))}, options); \
  }
EMBER_TORCH_SINGLE_SIZE(empty)
EMBER_TORCH_SINGLE_SIZE(zeros)
EMBER_TORCH_SINGLE_SIZE(ones)
EMBER_TORCH_SINGLE_SIZE(rand)
EMBER_TORCH_SINGLE_SIZE(randn)
#undef EMBER_TORCH_SINGLE_SIZE
template <std::integral I>
Tensor full(I size, const Scalar& value, const TensorOptions& options = {}) {
  return ::ember::full(SymIntList{SymInt(static_cast<int64_t>(size))}, value, options);
}

/// c10::str: the arguments streamed into one string (tensors print as with std::cout).
template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

}  // namespace torch

/// ATen's namespace, for code that spells at::Tensor, at::kFloat or at::IntArrayRef.
namespace at {
using namespace ::torch;  // NOLINT
}  // namespace at

/// c10's vocabulary types that libtorch programs name directly.
namespace c10 {
using std::nullopt;
using std::optional;
using ::torch::str;
using IntArrayRef = ::ember::IntList;
using ::ember::IValue;
}  // namespace c10

namespace ember::nn {
/// Prints the module a holder wraps (libtorch's pimpl.h): std::cout << model.
template <typename M>
std::ostream& operator<<(std::ostream& os, const ModuleHolder<M>& holder) {
  return os << *holder;
}
}  // namespace ember::nn

namespace ember::compat {
/// Prints a list of sizes as c10's ArrayRef does: std::cout << x.sizes() shows "[8, 3]".
inline std::ostream& operator<<(std::ostream& os, const std::vector<int64_t>& sizes) {
  os << "[";
  for (size_t i = 0; i < sizes.size(); ++i) os << (i ? ", " : "") << sizes[i];
  return os << "]";
}
}  // namespace ember::compat
// x.sizes() is a std::vector here, not an IntArrayRef, so argument-dependent lookup cannot find
// the printer: it is declared where ordinary lookup finds it, at the top level (user code) and in
// ember (whose own operator<< overloads would hide the top-level one there).
namespace ember {
using compat::operator<<;
}  // namespace ember
using ::ember::compat::operator<<;

/// libtorch's macro for a module holder: TORCH_MODULE(Net) wraps NetImpl.
#define TORCH_MODULE(Name) EMBER_MODULE(Name)
/// libtorch's checks: a RuntimeError with the message (or the failed condition).
#define TORCH_CHECK(cond, ...) EMBER_CHECK(cond, "[TORCH_CHECK] ", #cond, " ", ##__VA_ARGS__)
#define AT_ASSERT(cond) EMBER_CHECK(cond, "[AT_ASSERT] assertion failed: ", #cond)
