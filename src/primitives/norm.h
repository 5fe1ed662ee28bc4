#pragma once
// Fused layer_norm and rms_norm over the trailing `normalized_ndim` dims (PyTorch's
// native_layer_norm / native_layer_norm_backward and _fused_rms_norm / _fused_rms_norm_backward).
// The op builders (src/nn/functional/normalization.cpp) validate, make x contiguous and cast the
// affine parameters to the compute dtype A (float32 for 16-bit x, else x's dtype); the kernels
// (src/backend/cpu/norm.cpp) compute in A and round y once. With x of shape [*lead, *norm] viewed
// as [M, N] rows, the statistics have shape [*lead, 1, ..., 1] and dtype A:
//   LayerNorm:          x[, weight][, bias]             -> y, mean, rstd
//   LayerNormBackward:  grad_y, x, mean, rstd[, weight] -> grad_x[, grad_weight][, grad_bias]
//   RmsNorm:            x[, weight]                     -> y, rstd
//   RmsNormBackward:    grad_y, x, rstd[, weight]       -> grad_x[, grad_weight]
// with rstd = 1 / sqrt(var + eps) (layer_norm, biased variance) or 1 / sqrt(mean(x^2) + eps).
// grad_weight and grad_bias are reduced over the rows in a fixed number of row chunks whose
// partial sums are added in order, so they do not depend on the thread count. The backward
// primitives have no vjp: the forwards' vjp uses them only when no graph of the gradient is
// recorded, and the composite formula (norm_backward_ops) otherwise, so that higher-order
// gradients work. decompose() writes each primitive with core ops for the compiler.
#include <cstdint>
#include <string>

#include "dispatch/primitive.h"

namespace ember {

struct NormParams {
  int64_t normalized_ndim = 1;
  double eps = 1e-5;
  bool has_weight = false;
  bool has_bias = false;  // layer_norm only
  EMBER_FIELDS(normalized_ndim, eps, has_weight, has_bias)
};

class LayerNorm : public PrimitiveOf<LayerNorm, NormParams, PrimitiveKind::LayerNorm> {
 public:
  using PrimitiveOf::PrimitiveOf;
  EMBER_INFER
  EMBER_VJP
  EMBER_DECOMPOSE
  bool saves_input(size_t i) const override { return i <= 1; }   // x and weight
  bool saves_output(size_t i) const override { return i >= 1; }  // mean and rstd
  const char* default_name() const override { return "native_layer_norm"; }
  EMBER_CPU_DISPATCHED_KERNEL;
};

class LayerNormBackward
    : public PrimitiveOf<LayerNormBackward, NormParams, PrimitiveKind::LayerNormBackward> {
 public:
  using PrimitiveOf::PrimitiveOf;
  EMBER_INFER
  EMBER_DECOMPOSE
  const char* default_name() const override { return "native_layer_norm_backward"; }
  EMBER_CPU_DISPATCHED_KERNEL;
};

class RmsNorm : public PrimitiveOf<RmsNorm, NormParams, PrimitiveKind::RmsNorm> {
 public:
  using PrimitiveOf::PrimitiveOf;
  EMBER_INFER
  EMBER_VJP
  EMBER_DECOMPOSE
  bool saves_output(size_t i) const override { return i == 1; }  // rstd
  const char* default_name() const override { return "_fused_rms_norm"; }
  EMBER_CPU_DISPATCHED_KERNEL;
};

class RmsNormBackward
    : public PrimitiveOf<RmsNormBackward, NormParams, PrimitiveKind::RmsNormBackward> {
 public:
  using PrimitiveOf::PrimitiveOf;
  EMBER_INFER
  EMBER_DECOMPOSE
  const char* default_name() const override { return "_fused_rms_norm_backward"; }
  EMBER_CPU_DISPATCHED_KERNEL;
};

/// The compute dtype of a normalisation of `x`: float32 for 16-bit floats, else x's own.
ScalarType norm_acc_dtype(ScalarType x);

}  // namespace ember
