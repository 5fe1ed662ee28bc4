// Display names of the reduction and scan primitives' ops.
#include "primitives/reduction.h"

namespace ember {

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return "sum";
    case ReduceOp::NanSum:
      return "nansum";
    case ReduceOp::Mean:
      return "mean";
    case ReduceOp::NanMean:
      return "nanmean";
    case ReduceOp::Prod:
      return "prod";
    case ReduceOp::AMax:
      return "amax";
    case ReduceOp::AMin:
      return "amin";
    case ReduceOp::MaxDim:
      return "max";
    case ReduceOp::MinDim:
      return "min";
    case ReduceOp::ArgMax:
      return "argmax";
    case ReduceOp::ArgMin:
      return "argmin";
    case ReduceOp::AMinMax:
      return "aminmax";
    case ReduceOp::Var:
      return "var";
    case ReduceOp::Std:
      return "std";
    case ReduceOp::VarMean:
      return "var_mean";
    case ReduceOp::StdMean:
      return "std_mean";
    case ReduceOp::Norm:
      return "norm";
    case ReduceOp::LogSumExp:
      return "logsumexp";
    case ReduceOp::All:
      return "all";
    case ReduceOp::Any:
      return "any";
    case ReduceOp::CountNonzero:
      return "count_nonzero";
  }
  return "reduce";
}

const char* scan_op_name(ScanOp op) {
  switch (op) {
    case ScanOp::CumSum:
      return "cumsum";
    case ScanOp::CumProd:
      return "cumprod";
    case ScanOp::CumMax:
      return "cummax";
    case ScanOp::CumMin:
      return "cummin";
    case ScanOp::LogCumSumExp:
      return "logcumsumexp";
  }
  return "scan";
}

}  // namespace ember
