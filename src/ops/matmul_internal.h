#pragma once
// Shared by the product op builders (src/ops/matmul.cpp, src/ops/einsum.cpp).
#include <vector>

#include "ember/core/tensor.h"

namespace ember::ops {

/// caffe2::TypeMeta names ("float", "double", "long int", "c10::Half", ...).
const char* type_meta_name(ScalarType t);

/// The Matmul primitive on 3-D operands a [B or 1, m, k] and b [B or 1, k, n] (a batch of 1 is
/// broadcast), with optional `self` broadcastable to [B, m, n] scaled by beta. Returns a new
/// contiguous [B, m, n] tensor. No argument checks: callers validate.
Tensor batched_product(const char* name, const Tensor& a, const Tensor& b, const Tensor& self = {},
                       const Scalar& beta = 0, const Scalar& alpha = 1);

/// mm / bmm / mv / dot with PyTorch's checks; messages start with "[op] ".
Tensor mm_checked(const Tensor& a, const Tensor& b, const char* op);
Tensor bmm_checked(const Tensor& a, const Tensor& b, const char* op);
Tensor mv_checked(const Tensor& mat, const Tensor& vec, const char* op);
Tensor dot_checked(const Tensor& a, const Tensor& b, const char* op);

}  // namespace ember::ops
