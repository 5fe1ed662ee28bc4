#pragma once
// Argument checks and helpers shared by the ember::linalg op builders.
#include <string>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/tensor.h"

namespace ember::linalg::detail {

/// float32/float64 only: integers, bool and low-precision floats are a TypeError naming the dtype.
void check_float(const Tensor& A, const char* op);
/// At least 2 dims (PyTorch's checkIsMatrix).
void check_matrix(const Tensor& A, const char* op, const char* arg = "A");
/// Matrix with equal last two dims (PyTorch's checkSquare).
void check_square(const Tensor& A, const char* op, const char* arg = "A");
/// Same dtype for two operands.
void check_same_dtype(const Tensor& A, const Tensor& B, const char* op);
/// Machine epsilon of float32 or float64.
double eps_of(ScalarType t);
/// Everything but the last two dims.
std::vector<SymInt> batch_shape(const Tensor& A);
std::vector<SymInt> concat(std::vector<SymInt> a, const std::vector<SymInt>& b);
/// Raises LinAlgError for the first nonzero entry of `info` (int32) with PyTorch's message for
/// the kind of op in `op` ("linalg.cholesky", "linalg.solve", "linalg.inv", "linalg.lu_factor").
void check_info(const Tensor& info, const char* op);
/// v [..., n] -> [..., n, n] with v on the diagonal (written with differentiable ops).
Tensor diag_embed(const Tensor& v);
/// B is a vector for solve-like ops (PyTorch's linalg_solve_is_vector_rhs).
bool is_vector_rhs(const Tensor& A, const Tensor& B);
/// The m×m permutation matrices P (A = P L U) of LAPACK pivots [*batch, k] (int32, 1-based).
Tensor pivots_to_permutation(const Tensor& pivots, int64_t m, ScalarType dtype);

}  // namespace ember::linalg::detail
