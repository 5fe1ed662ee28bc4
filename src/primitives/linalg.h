#pragma once
// Linear-algebra primitives (ember::linalg, src/linalg). Note [Linalg primitives]: every input
// arrives as a float32/float64 tensor [*batch, rows, cols] whose batch dims are already broadcast
// to one shape (stride-0 views allowed, any strides); outputs are contiguous, with the same batch
// dims, allocated by dispatch from the primitive's inference (src/primitives/infer_linalg.cpp). The
// CPU kernels (src/backend/cpu/linalg_*.cpp) run LAPACK for general sizes and native kernels for
// small matrices (linalg_small.cpp). vjps are in linalg_vjp.cpp.
#include <string>

#include "dispatch/primitive.h"

namespace ember {

/// A -> {L (or U with upper), info (int32, 0 or the order of the failing leading minor)}.
struct UpperParam {
  bool upper = false;
  EMBER_FIELDS(upper)
};

class LinalgCholesky
    : public PrimitiveOf<LinalgCholesky, UpperParam, PrimitiveKind::LinalgCholesky> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit LinalgCholesky(bool upper) : PrimitiveOf({upper}) {}
  EMBER_INFER
  const char* default_name() const override { return "linalg_cholesky_ex"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  EMBER_VJP
  bool saves_input(size_t) const override { return false; }
  bool saves_output(size_t i) const override { return i == 0; }
  bool upper() const { return p_.upper; }
};

/// A [m, n] -> {LU [m, n], pivots [min(m,n)] int32 (1-based, as LAPACK), info}.
/// Differentiable for square A.
class LinalgLuFactor : public PrimitiveOf<LinalgLuFactor, NoParams, PrimitiveKind::LinalgLuFactor> {
 public:
  EMBER_INFER
  const char* default_name() const override { return "linalg_lu_factor_ex"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  EMBER_VJP
  bool saves_input(size_t) const override { return false; }
  bool saves_output(size_t i) const override { return i < 2; }
};

/// {LU, pivots, B} -> X solving A X = B (or A^T X = B with trans).
struct LuSolveParams {
  bool trans = false;
  EMBER_FIELDS(trans)
};

class LinalgLuSolve
    : public PrimitiveOf<LinalgLuSolve, LuSolveParams, PrimitiveKind::LinalgLuSolve> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit LinalgLuSolve(bool trans) : PrimitiveOf({trans}) {}
  EMBER_VJP
  bool saves_input(size_t i) const override { return i < 2; }
  bool saves_output(size_t) const override { return true; }
  EMBER_INFER
  const char* default_name() const override { return "linalg_lu_solve"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  bool trans() const { return p_.trans; }
};

/// {A [n, n], B [n, k]} -> {X [n, k], info} with A X = B (LU with partial pivoting).
class LinalgSolve : public PrimitiveOf<LinalgSolve, NoParams, PrimitiveKind::LinalgSolve> {
 public:
  EMBER_INFER
  const char* default_name() const override { return "linalg_solve_ex"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  EMBER_VJP
  bool saves_input(size_t i) const override { return i == 0; }
  bool saves_output(size_t i) const override { return i == 0; }
};

/// {A [n, n], B [n, k]} -> X with A X = B, A triangular (only its `upper` or lower triangle is
/// read; with unitriangular its diagonal is taken as ones). No singularity check, as PyTorch.
struct SolveTriangularParams {
  bool upper = false, unitriangular = false;
  EMBER_FIELDS(upper, unitriangular)
};

class LinalgSolveTriangular : public PrimitiveOf<LinalgSolveTriangular, SolveTriangularParams,
                                                 PrimitiveKind::LinalgSolveTriangular> {
 public:
  using PrimitiveOf::PrimitiveOf;
  LinalgSolveTriangular(bool upper, bool unitriangular) : PrimitiveOf({upper, unitriangular}) {}
  EMBER_INFER
  const char* default_name() const override { return "linalg_solve_triangular"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  EMBER_VJP
  bool saves_input(size_t i) const override { return i == 0; }
  bool saves_output(size_t i) const override { return i == 0; }
  bool upper() const { return p_.upper; }
  bool unitriangular() const { return p_.unitriangular; }
};

/// A [n, n] -> {eigenvalues [n] ascending, eigenvectors [n, n]}; reads one triangle.
class LinalgEigh : public PrimitiveOf<LinalgEigh, UpperParam, PrimitiveKind::LinalgEigh> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit LinalgEigh(bool upper) : PrimitiveOf({upper}) {}
  EMBER_INFER
  const char* default_name() const override { return "linalg_eigh"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  EMBER_VJP
  bool saves_input(size_t) const override { return false; }
  bool saves_output(size_t) const override { return true; }
  bool upper() const { return p_.upper; }
};

/// A [m, n] -> {U [m, m or k], S [k] descending, Vh [n or k, n]}, k = min(m, n).
struct SvdParams {
  bool full_matrices = true;
  EMBER_FIELDS(full_matrices)
};

class LinalgSvd : public PrimitiveOf<LinalgSvd, SvdParams, PrimitiveKind::LinalgSvd> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit LinalgSvd(bool full_matrices) : PrimitiveOf({full_matrices}) {}
  EMBER_INFER
  const char* default_name() const override { return "linalg_svd"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  EMBER_VJP
  bool saves_input(size_t) const override { return false; }
  bool saves_output(size_t) const override { return true; }
  bool full_matrices() const { return p_.full_matrices; }
};

EMBER_ENUM(QrMode, uint8_t, Reduced, Complete, R);

/// A [m, n] -> {Q, R} (mode R: Q is an empty tensor [0]).
struct QrParams {
  QrMode mode = QrMode::Reduced;
  EMBER_FIELDS(mode)
};

class LinalgQr : public PrimitiveOf<LinalgQr, QrParams, PrimitiveKind::LinalgQr> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit LinalgQr(QrMode mode) : PrimitiveOf({mode}) {}
  EMBER_INFER
  const char* default_name() const override { return "linalg_qr"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  EMBER_VJP
  bool saves_input(size_t) const override { return false; }
  bool saves_output(size_t) const override { return true; }
  QrMode mode() const { return p_.mode; }
};

/// {A [m, n], tau [k]} -> Q [m, n] (LAPACK's orgqr). Not differentiable yet.
class LinalgHouseholderProduct : public PrimitiveOf<LinalgHouseholderProduct, NoParams,
                                                    PrimitiveKind::LinalgHouseholderProduct> {
 public:
  EMBER_INFER
  const char* default_name() const override { return "linalg_householder_product"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
};

/// A [n, n] -> det (log_abs=false) or {sign, logabsdet} (log_abs=true), through LU.
struct DetParams {
  bool log_abs = false;
  EMBER_FIELDS(log_abs)
};

class LinalgDet : public PrimitiveOf<LinalgDet, DetParams, PrimitiveKind::LinalgDet> {
 public:
  using PrimitiveOf::PrimitiveOf;
  explicit LinalgDet(bool log_abs) : PrimitiveOf({log_abs}) {}
  EMBER_INFER
  const char* default_name() const override { return p_.log_abs ? "linalg_slogdet" : "linalg_det"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  EMBER_VJP
  bool saves_input(size_t) const override { return true; }
  bool saves_output(size_t i) const override { return !p_.log_abs && i == 0; }
};

}  // namespace ember
