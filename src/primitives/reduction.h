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

enum class ReduceOp : uint8_t {
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
  CountNonzero,  // outputs: [int64]
};

/// PyTorch's name for a reduction ("sum", "max", "var_mean", ...).
const char* reduce_op_name(ReduceOp op);

/// outputs = reduce(inputs[0]) over `dims` (wrapped, distinct). Outputs arrive allocated,
/// contiguous, with the reduced shape (with or without the kept size-1 dims).
class Reduce : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Reduce)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override;
  bool saves_output(size_t) const override;
  /// `name` overrides the op's name where the public op differs (max() runs AMax, nansum of
  /// integers runs Sum).
  Reduce(ReduceOp op, std::vector<int64_t> dims, bool keepdim, double param = 0,
         const char* name = nullptr)
      : op_(op), dims_(std::move(dims)), keepdim_(keepdim), param_(param), name_(name) {}
  const char* name() const override { return name_ != nullptr ? name_ : reduce_op_name(op_); }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override;
  ReduceOp op() const { return op_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  bool keepdim() const { return keepdim_; }
  /// correction for Var/Std/VarMean/StdMean, p for Norm.
  double param() const { return param_; }

 private:
  ReduceOp op_;
  std::vector<int64_t> dims_;
  bool keepdim_;
  double param_;
  const char* name_;
};

enum class ScanOp : uint8_t {
  CumSum,        // outputs: [values]  (dtype: the output's)
  CumProd,       // outputs: [values]
  CumMax,        // outputs: [values, indices]
  CumMin,        // outputs: [values, indices]
  LogCumSumExp,  // outputs: [values]
};

const char* scan_op_name(ScanOp op);

/// outputs = scan(inputs[0]) along `dim` (wrapped); outputs are contiguous with the input's shape.
class Scan : public Primitive {
 public:
  EMBER_PRIMITIVE_CLONE(Scan)
  std::vector<Tensor> vjp(const VjpContext& ctx) const override;
  bool saves_input(size_t) const override {
    return op_ == ScanOp::CumProd || op_ == ScanOp::LogCumSumExp;
  }
  bool saves_output(size_t) const override { return true; }
  Scan(ScanOp op, int64_t dim) : op_(op), dim_(dim) {}
  const char* name() const override { return scan_op_name(op_); }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::string describe() const override { return "dim=" + std::to_string(dim_); }
  ScanOp op() const { return op_; }
  int64_t dim() const { return dim_; }

 private:
  ScanOp op_;
  int64_t dim_;
};

}  // namespace ember
