#pragma once
// Matrix products through the GEMM providers (src/ops/matmul.cpp, src/backend/cpu/gemm.cpp).
#include <string>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& a, const Tensor& v);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor vdot(const Tensor& a, const Tensor& b);
Tensor outer(const Tensor& a, const Tensor& b);
Tensor ger(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
             const Scalar& alpha = 1);
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
             const Scalar& alpha = 1);
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
               const Scalar& beta = 1, const Scalar& alpha = 1);
/// torch.einsum: "ij,jk->ik"; "..." broadcasts; an implicit output sorts the free letters.
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);
Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims = 2);
Tensor tensordot(const Tensor& a, const Tensor& b, IntList dims_a, IntList dims_b);
Tensor kron(const Tensor& a, const Tensor& b);

}  // namespace ember
