#pragma once
// Linear-algebra primitives (ember::linalg, src/linalg). Note [Linalg primitives]: every input
// arrives as a float32/float64 tensor [*batch, rows, cols] whose batch dims are already broadcast
// to one shape (stride-0 views allowed, any strides); outputs arrive allocated, contiguous, with
// the same batch dims. The CPU kernels (src/backend/cpu/linalg_*.cpp) run LAPACK for general sizes
// and native kernels for small matrices (linalg_small.cpp). vjps are in linalg_vjp.cpp.
#include <string>

#include "dispatch/primitive.h"

namespace ember {

/// A -> {L (or U with upper), info (int32, 0 or the order of the failing leading minor)}.
class LinalgCholesky : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(LinalgCholesky)
  explicit LinalgCholesky(bool upper) : upper_(upper) {}
  const char* name() const override { return "linalg_cholesky_ex"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override { return false; }
  bool saves_output(size_t i) const override { return i == 0; }
  bool upper() const { return upper_; }

 private:
  bool upper_;
};

/// A [m, n] -> {LU [m, n], pivots [min(m,n)] int32 (1-based, as LAPACK), info}.
/// Differentiable for square A.
class LinalgLuFactor : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(LinalgLuFactor)
  const char* name() const override { return "linalg_lu_factor_ex"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override { return false; }
  bool saves_output(size_t i) const override { return i < 2; }
};

/// {LU, pivots, B} -> X solving A X = B (or A^T X = B with trans).
class LinalgLuSolve : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(LinalgLuSolve)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t i) const override { return i < 2; }
  bool saves_output(size_t) const override { return true; }
  explicit LinalgLuSolve(bool trans) : trans_(trans) {}
  const char* name() const override { return "linalg_lu_solve"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;

 private:
  bool trans_;
};

/// {A [n, n], B [n, k]} -> {X [n, k], info} with A X = B (LU with partial pivoting).
class LinalgSolve : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(LinalgSolve)
  const char* name() const override { return "linalg_solve_ex"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t i) const override { return i == 0; }
  bool saves_output(size_t i) const override { return i == 0; }
};

/// {A [n, n], B [n, k]} -> X with A X = B, A triangular (only its `upper` or lower triangle is
/// read; with unitriangular its diagonal is taken as ones). No singularity check, as PyTorch.
class LinalgSolveTriangular : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(LinalgSolveTriangular)
  LinalgSolveTriangular(bool upper, bool unitriangular)
      : upper_(upper), unitriangular_(unitriangular) {}
  const char* name() const override { return "linalg_solve_triangular"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t i) const override { return i == 0; }
  bool saves_output(size_t i) const override { return i == 0; }
  std::string describe() const override;

 private:
  bool upper_, unitriangular_;
};

/// A [n, n] -> {eigenvalues [n] ascending, eigenvectors [n, n]}; reads one triangle.
class LinalgEigh : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(LinalgEigh)
  explicit LinalgEigh(bool upper) : upper_(upper) {}
  const char* name() const override { return "linalg_eigh"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override { return false; }
  bool saves_output(size_t) const override { return true; }

 private:
  bool upper_;
};

/// A [m, n] -> {U [m, m or k], S [k] descending, Vh [n or k, n]}, k = min(m, n).
class LinalgSvd : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(LinalgSvd)
  explicit LinalgSvd(bool full_matrices) : full_matrices_(full_matrices) {}
  const char* name() const override { return "linalg_svd"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override { return false; }
  bool saves_output(size_t) const override { return true; }
  bool full_matrices() const { return full_matrices_; }

 private:
  bool full_matrices_;
};

enum class QrMode { Reduced, Complete, R };

/// A [m, n] -> {Q, R} (mode R: Q is an empty tensor [0]).
class LinalgQr : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(LinalgQr)
  explicit LinalgQr(QrMode mode) : mode_(mode) {}
  const char* name() const override { return "linalg_qr"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override { return false; }
  bool saves_output(size_t) const override { return true; }
  std::string describe() const override;

 private:
  QrMode mode_;
};

/// {A [m, n], tau [k]} -> Q [m, n] (LAPACK's orgqr). Not differentiable yet.
class LinalgHouseholderProduct : public Primitive {
 public:
  const char* name() const override { return "linalg_householder_product"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
};

/// A [n, n] -> det (log_abs=false) or {sign, logabsdet} (log_abs=true), through LU.
class LinalgDet : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(LinalgDet)
  explicit LinalgDet(bool log_abs) : log_abs_(log_abs) {}
  const char* name() const override { return log_abs_ ? "linalg_slogdet" : "linalg_det"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override { return true; }
  bool saves_output(size_t i) const override { return !log_abs_ && i == 0; }

 private:
  bool log_abs_;
};

}  // namespace ember
