#pragma once
// Entry points of the reduction and scan kernels, one per file (reduce_sum.cpp, reduce_minmax.cpp,
// reduce_stats.cpp, reduce_logical.cpp, scan.cpp). Input and output dtypes come from the tensors.
#include <vector>

#include "backend/cpu/capability.h"
#include "backend/cpu/reduce_engine.h"
#include "primitives/reduction.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

/// Sum, NanSum, Mean, NanMean, Prod.
void reduce_sum_family(ReduceOp op, const ReduceGeom& g, const Tensor& x,
                       std::vector<Tensor>& outs);
/// AMax, AMin, MaxDim, MinDim, ArgMax, ArgMin, AMinMax.
void reduce_minmax_family(ReduceOp op, const ReduceGeom& g, const Tensor& x,
                          std::vector<Tensor>& outs);
/// Var, Std, VarMean, StdMean (param: correction), Norm (param: p), LogSumExp.
void reduce_stats_family(ReduceOp op, const ReduceGeom& g, const Tensor& x,
                         std::vector<Tensor>& outs, double param);
/// All, Any, CountNonzero.
void reduce_logical_family(ReduceOp op, const ReduceGeom& g, const Tensor& x,
                           std::vector<Tensor>& outs);
/// CumSum, CumProd, CumMax, CumMin, LogCumSumExp.
void scan_family(ScanOp op, const ScanGeom& g, const Tensor& x, std::vector<Tensor>& outs);

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY
