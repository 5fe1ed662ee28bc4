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
// Device, manual_seed, and torch::save/torch::load, which write safetensors files.
// torch::cuda::is_available() is false: Ember has no CUDA backend yet.
#include <iostream>  // libtorch programs use std::cout without including it
#include <optional>

#include "ember/ember.h"

namespace torch {

using namespace ::ember;  // NOLINT: the whole API under torch::
/// libtorch's list-of-sizes argument type.
using IntArrayRef = ::ember::IntList;

namespace nn {
using namespace ::ember::nn;  // NOLINT
}  // namespace nn

namespace optim {
using namespace ::ember::optim;  // NOLINT
}  // namespace optim

namespace data {
using namespace ::ember::data;  // NOLINT
}  // namespace data

namespace autograd {
using namespace ::ember::autograd;  // NOLINT
}  // namespace autograd

namespace cuda {
/// No CUDA backend in this build.
inline bool is_available() { return false; }
inline int64_t device_count() { return 0; }
}  // namespace cuda

// ATen functions that libtorch puts at the top level and Ember keeps in nn::functional (those
// whose argument order is the same in both).
using ::ember::nn::functional::adaptive_avg_pool2d;
using ::ember::nn::functional::avg_pool2d;
using ::ember::nn::functional::binary_cross_entropy;
using ::ember::nn::functional::binary_cross_entropy_with_logits;
using ::ember::nn::functional::conv1d;
using ::ember::nn::functional::conv2d;
using ::ember::nn::functional::dropout;
using ::ember::nn::functional::kl_div;
using ::ember::nn::functional::l1_loss;
using ::ember::nn::functional::layer_norm;
using ::ember::nn::functional::linear;
using ::ember::nn::functional::max_pool1d;
using ::ember::nn::functional::max_pool2d;
using ::ember::nn::functional::mse_loss;
using ::ember::nn::functional::nll_loss;
using ::ember::nn::functional::smooth_l1_loss;

/// ATen's reduction codes (at::Reduction), as taken by the loss overloads below.
namespace Reduction {
enum Reduction : int64_t { None = 0, Mean = 1, Sum = 2 };
}  // namespace Reduction

namespace detail {
inline ::ember::nn::functional::NLLLossFuncOptions::reduction_t reduction(int64_t r) {
  if (r == Reduction::None) return ::ember::kNone;
  if (r == Reduction::Sum) return ::ember::kSum;
  return ::ember::kMean;
}
}  // namespace detail

/// ATen's nll_loss(input, target, weight, reduction, ignore_index).
inline Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                       int64_t reduction = Reduction::Mean, int64_t ignore_index = -100) {
  return ::ember::nn::functional::nll_loss(input, target,
                                           ::ember::nn::functional::NLLLossFuncOptions()
                                               .weight(weight)
                                               .reduction(detail::reduction(reduction))
                                               .ignore_index(ignore_index));
}

/// ATen's name for cross-entropy on logits (class indices or probabilities).
inline Tensor cross_entropy_loss(const Tensor& input, const Tensor& target) {
  return ::ember::nn::functional::cross_entropy(input, target);
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
using IntArrayRef = ::ember::IntList;
}  // namespace c10

/// libtorch's macro for a module holder: TORCH_MODULE(Net) wraps NetImpl.
#define TORCH_MODULE(Name) EMBER_MODULE(Name)
/// libtorch's checks: a RuntimeError with the message (or the failed condition).
#define TORCH_CHECK(cond, ...) EMBER_CHECK(cond, "[TORCH_CHECK] ", #cond, " ", ##__VA_ARGS__)
#define AT_ASSERT(cond) EMBER_CHECK(cond, "[AT_ASSERT] assertion failed: ", #cond)
