#pragma once
// Reductions and scans. Note [Reduce primitive]: one class per family, parametrised by an op enum.
// The op builder (src/ops/reduction*.cpp) validates arguments, resolves the dim list (an empty
// list already expanded to every dim), casts the input where PyTorch casts it (a `dtype`
// argument), allocates contiguous outputs of the final shape (keepdim or not) and dispatches.
// Kernels live in src/backend/cpu/reduce*.cpp on the shared engine in reduce_engine.h.
#include <cstdint>
#include <string>
#include <vector>

#include "dispatch/primitive.h"

namespace ember {

// clang-format off
EMBER_ENUM(ReduceOp, uint8_t,
  Sum,           // outputs: [sum]           (dtype: the output's)
  NanSum,        // outputs: [sum]
  Mean,          // outputs: [mean]
  NanMean,       // outputs: [mean]
  Prod,          // outputs: [prod]
  AMax,          // outputs: [values]
  AMin,          // outputs: [values]
  MaxDim,        // outputs: [values, indices]  (max(dim) / max())
  MinDim,        // outputs: [values, indices]
  ArgMax,        // outputs: [indices]
  ArgMin,        // outputs: [indices]
  AMinMax,       // outputs: [min, max]
  Var,           // outputs: [var]            param = correction
  Std,           // outputs: [std]            param = correction
  VarMean,       // outputs: [var, mean]      param = correction
  StdMean,       // outputs: [std, mean]      param = correction
  Norm,          // outputs: [norm]           param = p
  LogSumExp,     // outputs: [logsumexp]
  All,           // outputs: [bool or uint8]
  Any,           // outputs: [bool or uint8]
  CountNonzero   // outputs: [int64]
);
// clang-format on

/// PyTorch's name for a reduction ("sum", "max", "var_mean", ...).
const char* reduce_op_name(ReduceOp op);

struct ReduceParams {
  ReduceOp op = ReduceOp::Sum;
  std::vector<int64_t> dims;
  bool keepdim = false;
  /// correction for Var/Std/VarMean/StdMean, p for Norm.
  double param = 0;
  /// The dtype of the first output (values); indices are int64, a second value output (mean,
  /// max) has this dtype too.
  ScalarType dtype = kFloat32;
  EMBER_FIELDS(op, dims, keepdim, param, dtype)
};

/// outputs = reduce(inputs[0]) over `dims` (wrapped, distinct). Outputs arrive allocated,
/// contiguous, with the reduced shape (with or without the kept size-1 dims).
class Reduce : public PrimitiveOf<Reduce, ReduceParams, PrimitiveKind::Reduce> {
 public:
  using PrimitiveOf::PrimitiveOf;
  /// `name` overrides the op's name where the public op differs (max() runs AMax, nansum of
  /// integers runs Sum).
  Reduce(ReduceOp op, std::vector<int64_t> dims, bool keepdim, ScalarType dtype, double param = 0,
         const char* name = nullptr)
      : PrimitiveOf({op, std::move(dims), keepdim, param, dtype}) {
    set_display_name(name);
  }
  EMBER_VJP
  EMBER_INFER
  bool saves_input(size_t) const override;
  bool saves_output(size_t) const override;
  const char* default_name() const override { return reduce_op_name(p_.op); }
  EMBER_CPU_DISPATCHED_KERNEL;
  ReduceOp op() const { return p_.op; }
  const std::vector<int64_t>& dims() const { return p_.dims; }
  bool keepdim() const { return p_.keepdim; }
  double param() const { return p_.param; }
};

// clang-format off
EMBER_ENUM(ScanOp, uint8_t,
  CumSum,        // outputs: [values]  (dtype: the output's)
  CumProd,       // outputs: [values]
  CumMax,        // outputs: [values, indices]
  CumMin,        // outputs: [values, indices]
  LogCumSumExp   // outputs: [values]
);
// clang-format on

const char* scan_op_name(ScanOp op);

struct ScanParams {
  ScanOp op = ScanOp::CumSum;
  int64_t dim = 0;
  /// The dtype of the values (CumMax/CumMin add int64 indices).
  ScalarType dtype = kFloat32;
  EMBER_FIELDS(op, dim, dtype)
};

/// outputs = scan(inputs[0]) along `dim` (wrapped); outputs are contiguous with the input's shape.
class Scan : public PrimitiveOf<Scan, ScanParams, PrimitiveKind::Scan> {
 public:
  using PrimitiveOf::PrimitiveOf;
  Scan(ScanOp op, int64_t dim, ScalarType dtype) : PrimitiveOf({op, dim, dtype}) {}
  EMBER_VJP
  EMBER_INFER
  bool saves_input(size_t) const override {
    return p_.op == ScanOp::CumProd || p_.op == ScanOp::LogCumSumExp;
  }
  bool saves_output(size_t) const override { return true; }
  const char* default_name() const override { return scan_op_name(p_.op); }
  EMBER_CPU_DISPATCHED_KERNEL;
  ScanOp op() const { return p_.op; }
  int64_t dim() const { return p_.dim; }
};

}  // namespace ember
