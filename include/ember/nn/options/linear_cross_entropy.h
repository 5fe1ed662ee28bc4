#pragma once
// Options of the fused linear + cross-entropy (torch.nn.LinearCrossEntropyOptions, PyTorch 2.14):
//   F::linear_cross_entropy(x, w, t, F::LinearCrossEntropyFuncOptions().options(
//       nn::LinearCrossEntropyOptions().acc_policy("compact").chunking_method("aspect_ratio:2")));
// Without `options` the loss is computed by the reference path (the logits materialised);
// with them, batch-chunked (Note [Batch-chunked linear cross-entropy] in
// src/nn/functional/linear_cross_entropy.cpp).
#include <cstdint>
#include <optional>
#include <string>

#include "ember/core/tensor.h"
#include "ember/nn/arg.h"
#include "ember/nn/options/loss.h"

namespace ember::nn {

struct LinearCrossEntropyOptions {
  /// Keeps the gradients computed in the forward intact, so that the graph can be run backward
  /// more than once (costs one more gradient-sized allocation per backward).
  EMBER_ARG(bool, allow_retain_graph) = false;
  /// Rows per chunk; used when chunking_method is "auto" or unset (default: one chunk), and
  /// must agree with an "aspect_ratio" method when both are given.
  EMBER_ARG(std::optional<int64_t>, batch_chunk_size) = std::nullopt;
  /// "auto", "aspect_ratio" (the (chunk, C) logits match the (N, D) input's footprint),
  /// "aspect_ratio:k" (that divided by k, k >= 1) or unset (use batch_chunk_size).
  EMBER_ARG(std::optional<std::string>, chunking_method) = std::string("auto");
  /// "auto", "accurate" (acc_dtype everywhere, a weight-gradient scratch in acc_dtype) or
  /// "compact" (acc_dtype only for the softmax; on the CPU a 16-bit weight gradient still
  /// accumulates in an acc_dtype scratch). "balanced" was removed in 2.14: use "compact".
  EMBER_ARG(std::string, acc_policy) = "auto";
  /// float16, bfloat16, float32 or float64; unset: float32 for 16-bit inputs, else the input's.
  EMBER_ARG(std::optional<ScalarType>, acc_dtype) = std::nullopt;

 public:
  /// ValueError on an unknown acc_policy (or "balanced"), chunking_method, a non-positive
  /// batch_chunk_size or an unsupported acc_dtype.
  void validate() const;
  /// Rows per chunk for N rows, D input features and C classes (`dtype`: the input's, which
  /// "auto" depends on): "aspect_ratio" gives next_pow2(ceil(N / ceil(C / D))), ":k" divides
  /// it by k. ValueError when batch_chunk_size disagrees with the method.
  int64_t resolve_chunk(int64_t N, int64_t D, int64_t C, ScalarType dtype = kFloat32) const;
  /// "accurate" or "compact": "auto" is "accurate" for 16-bit inputs on the CPU, else "compact".
  std::string resolve_acc_policy(ScalarType dtype) const;
  /// The accumulation dtype for an input of `dtype`; ValueError for a mixed pair other than
  /// (float16 or bfloat16 input, float32 accumulation).
  ScalarType resolve_acc_dtype(ScalarType dtype) const;
};

namespace functional {

/// F::linear_cross_entropy's arguments after (input, linear_weight, target), as PyTorch's
/// keyword arguments: cross_entropy(linear(input, linear_weight, linear_bias), target, weight,
/// reduction, ignore_index, label_smoothing).
struct LinearCrossEntropyFuncOptions {
  typedef reduction3_t reduction_t;
  EMBER_ARG(Tensor, linear_bias) = {};
  /// A weight per class (size C).
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(reduction_t, reduction) = kMean;
  /// Unset: -100 for class-index targets; not allowed with class probabilities.
  EMBER_ARG(std::optional<int64_t>, ignore_index) = std::nullopt;
  EMBER_ARG(double, label_smoothing) = 0.0;
  /// Unset: the reference path (logits materialised); set: batch-chunked.
  EMBER_ARG(std::optional<LinearCrossEntropyOptions>, options) = std::nullopt;
};

}  // namespace functional

/// nn::LinearCrossEntropyLoss(in_features, num_classes): owns the (num_classes, in_features)
/// weight (and a bias with .bias(true)).
struct LinearCrossEntropyLossOptions {
  typedef reduction3_t reduction_t;
  LinearCrossEntropyLossOptions(int64_t in_features, int64_t num_classes)
      : in_features_(in_features), num_classes_(num_classes) {}
  EMBER_ARG(int64_t, in_features);
  EMBER_ARG(int64_t, num_classes);
  EMBER_ARG(bool, bias) = false;
  EMBER_ARG(ScalarType, dtype) = kFloat32;
  /// A weight per class, registered as the buffer "class_weight".
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(reduction_t, reduction) = kMean;
  EMBER_ARG(std::optional<int64_t>, ignore_index) = std::nullopt;
  EMBER_ARG(double, label_smoothing) = 0.0;
  EMBER_ARG(std::optional<LinearCrossEntropyOptions>, options) = std::nullopt;
};

}  // namespace ember::nn
