#pragma once
// Options of the loss functions (torch/nn/options/loss.h): reduction is a variant of tags,
// F::mse_loss(x, y, F::MSELossFuncOptions(ember::kSum)).
#include <cstdint>
#include <optional>
#include <variant>

#include "ember/core/tensor.h"
#include "ember/nn/arg.h"
#include "ember/nn/enum.h"

/// Constructors from each allowed tag (implicit, as libtorch's TORCH_OPTIONS_CTOR_VARIANT_ARG*).
#define EMBER_REDUCTION_CTORS3(Name)                       \
  Name() = default;                                        \
  Name(enumtype::kNone v) { reduction_ = v; } /* NOLINT */ \
  Name(enumtype::kMean v) { reduction_ = v; } /* NOLINT */ \
  Name(enumtype::kSum v) { reduction_ = v; }  /* NOLINT */

namespace ember::nn {

using reduction3_t = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;

struct L1LossOptions {
  typedef reduction3_t reduction_t;
  EMBER_REDUCTION_CTORS3(L1LossOptions)
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct KLDivLossOptions {
  typedef std::variant<enumtype::kNone, enumtype::kBatchMean, enumtype::kSum, enumtype::kMean>
      reduction_t;
  EMBER_REDUCTION_CTORS3(KLDivLossOptions)
  KLDivLossOptions(enumtype::kBatchMean v) { reduction_ = v; }  // NOLINT
  EMBER_ARG(reduction_t, reduction) = kMean;
  /// Whether `target` is given in log space.
  EMBER_ARG(bool, log_target) = false;
};

struct MSELossOptions {
  typedef reduction3_t reduction_t;
  EMBER_REDUCTION_CTORS3(MSELossOptions)
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct BCELossOptions {
  typedef reduction3_t reduction_t;
  /// A rescaling weight broadcast to the input's shape.
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct CosineEmbeddingLossOptions {
  typedef reduction3_t reduction_t;
  EMBER_ARG(double, margin) = 0.0;
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct SmoothL1LossOptions {
  typedef reduction3_t reduction_t;
  EMBER_REDUCTION_CTORS3(SmoothL1LossOptions)
  EMBER_ARG(reduction_t, reduction) = kMean;
  /// The L1/L2 switch point; 1.0 when not given.
  EMBER_ARG(std::optional<double>, beta) = std::nullopt;
};

struct HuberLossOptions {
  typedef reduction3_t reduction_t;
  EMBER_REDUCTION_CTORS3(HuberLossOptions)
  EMBER_ARG(reduction_t, reduction) = kMean;
  EMBER_ARG(double, delta) = 1.0;
};

struct MarginRankingLossOptions {
  typedef reduction3_t reduction_t;
  EMBER_ARG(double, margin) = 0;
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct NLLLossOptions {
  typedef reduction3_t reduction_t;
  /// A weight per class (size C).
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct CrossEntropyLossOptions {
  typedef reduction3_t reduction_t;
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(reduction_t, reduction) = kMean;
  EMBER_ARG(double, label_smoothing) = 0.0;
};

struct BCEWithLogitsLossOptions {
  typedef reduction3_t reduction_t;
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(reduction_t, reduction) = kMean;
  /// A weight of positive examples, broadcast along the class dim (the last one).
  EMBER_ARG(Tensor, pos_weight) = {};
};

namespace functional {
using L1LossFuncOptions = L1LossOptions;
using KLDivFuncOptions = KLDivLossOptions;
using MSELossFuncOptions = MSELossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using CosineEmbeddingLossFuncOptions = CosineEmbeddingLossOptions;
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using HuberLossFuncOptions = HuberLossOptions;
using MarginRankingLossFuncOptions = MarginRankingLossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;
}  // namespace functional

}  // namespace ember::nn

#undef EMBER_REDUCTION_CTORS3
