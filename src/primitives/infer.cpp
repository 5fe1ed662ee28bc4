// Shape inference (Note [Inference]) of the elementwise, reduction, softmax, matmul and
// copying shape families: each primitive's outputs from its inputs' metadata, on SymInts. The op
// builders have validated the arguments; these rules only compute.
#include "primitives/binary.h"
#include "primitives/matmul.h"
#include "primitives/reduction.h"
#include "primitives/shape.h"
#include "primitives/softmax.h"
#include "primitives/ternary.h"
#include "primitives/unary.h"

namespace ember {
namespace {

// NumPy broadcasting of every input's sizes (undefined inputs have none and do not count).
SymShape broadcast(const std::vector<TensorMeta>& in) {
  SymShape out;
  for (const TensorMeta& m : in) {
    if (m.sizes.size() > out.size()) {
      out.insert(out.begin(), m.sizes.size() - out.size(), SymInt(1));
    }
    const size_t lead = out.size() - m.sizes.size();
    for (size_t i = 0; i < m.sizes.size(); ++i) {
      if (out[lead + i] == 1) out[lead + i] = m.sizes[i];
    }
  }
  return out;
}

// An elementwise result: the broadcast shape, contiguous, on the first input's device.
std::vector<TensorMeta> elementwise(const std::vector<TensorMeta>& in, ScalarType dtype) {
  return {TensorMeta::contiguous(broadcast(in), dtype, in[0].device)};
}

std::vector<TensorMeta> same_shape(const TensorMeta& x, std::vector<ScalarType> dtypes) {
  std::vector<TensorMeta> out;
  for (ScalarType t : dtypes) out.push_back(TensorMeta::contiguous(x.sizes, t, x.device));
  return out;
}

bool is_predicate(UnaryOp op) {
  return op == UnaryOp::IsNan || op == UnaryOp::IsInf || op == UnaryOp::IsFinite ||
         op == UnaryOp::LogicalNot;
}

}  // namespace

std::vector<TensorMeta> Unary::infer(const std::vector<TensorMeta>& in) const {
  return same_shape(in[0], {is_predicate(p_.op) ? kBool : in[0].dtype});
}

std::vector<TensorMeta> Binary::infer(const std::vector<TensorMeta>& in) const {
  return elementwise(in, binary_op_returns_bool(p_.op) ? kBool : in[0].dtype);
}

std::vector<TensorMeta> Where::infer(const std::vector<TensorMeta>& in) const {
  return {TensorMeta::contiguous(broadcast(in), in[1].dtype, in[1].device)};
}

std::vector<TensorMeta> Clamp::infer(const std::vector<TensorMeta>& in) const {
  return elementwise(in, in[0].dtype);
}

std::vector<TensorMeta> Lerp::infer(const std::vector<TensorMeta>& in) const {
  return elementwise(in, in[0].dtype);
}

std::vector<TensorMeta> Addc::infer(const std::vector<TensorMeta>& in) const {
  return elementwise(in, in[0].dtype);
}

std::vector<TensorMeta> MaskedFill::infer(const std::vector<TensorMeta>& in) const {
  return elementwise(in, in[0].dtype);
}

std::vector<TensorMeta> IsClose::infer(const std::vector<TensorMeta>& in) const {
  return elementwise(in, kBool);
}

std::vector<TensorMeta> Softmax::infer(const std::vector<TensorMeta>& in) const {
  return same_shape(in[0], {in[0].dtype});
}

std::vector<TensorMeta> Reduce::infer(const std::vector<TensorMeta>& in) const {
  const auto& x = in[0].sizes;
  std::vector<bool> reduced(x.size(), false);
  for (int64_t d : p_.dims) {
    if (d < static_cast<int64_t>(x.size())) reduced[d] = true;
  }
  SymShape shape;
  for (size_t d = 0; d < x.size(); ++d) {
    if (!reduced[d]) {
      shape.push_back(x[d]);
    } else if (p_.keepdim) {
      shape.push_back(1);
    }
  }
  std::vector<ScalarType> dtypes = {p_.dtype};
  switch (p_.op) {
    case ReduceOp::MaxDim:
    case ReduceOp::MinDim:
      dtypes.push_back(kInt64);
      break;
    case ReduceOp::VarMean:
    case ReduceOp::StdMean:
    case ReduceOp::AMinMax:
      dtypes.push_back(p_.dtype);
      break;
    case ReduceOp::Sum:
    case ReduceOp::NanSum:
    case ReduceOp::Mean:
    case ReduceOp::NanMean:
    case ReduceOp::Prod:
    case ReduceOp::AMax:
    case ReduceOp::AMin:
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
    case ReduceOp::Var:
    case ReduceOp::Std:
    case ReduceOp::Norm:
    case ReduceOp::LogSumExp:
    case ReduceOp::All:
    case ReduceOp::Any:
    case ReduceOp::CountNonzero:
      break;
  }
  std::vector<TensorMeta> out;
  for (ScalarType t : dtypes) out.push_back(TensorMeta::contiguous(shape, t, in[0].device));
  return out;
}

std::vector<TensorMeta> Scan::infer(const std::vector<TensorMeta>& in) const {
  const bool indices = p_.op == ScanOp::CumMax || p_.op == ScanOp::CumMin;
  return indices ? same_shape(in[0], {p_.dtype, kInt64}) : same_shape(in[0], {p_.dtype});
}

std::vector<TensorMeta> Matmul::infer(const std::vector<TensorMeta>& in) const {
  // [B, m, k] @ [B, k, n] -> [B, m, n]
  return {TensorMeta::contiguous({in[0].sizes[0], in[0].sizes[1], in[1].sizes[2]}, in[0].dtype,
                                 in[0].device)};
}

std::vector<TensorMeta> Flip::infer(const std::vector<TensorMeta>& in) const {
  return same_shape(in[0], {in[0].dtype});
}

std::vector<TensorMeta> Roll::infer(const std::vector<TensorMeta>& in) const {
  return same_shape(in[0], {in[0].dtype});
}

std::vector<TensorMeta> Triangle::infer(const std::vector<TensorMeta>& in) const {
  return same_shape(in[0], {in[0].dtype});
}

std::vector<TensorMeta> Repeat::infer(const std::vector<TensorMeta>& in) const {
  const auto& x = in[0].sizes;
  const size_t pad = p_.repeats.size() - x.size();
  SymShape shape;
  for (size_t i = 0; i < p_.repeats.size(); ++i) {
    shape.push_back((i < pad ? SymInt(1) : x[i - pad]) * p_.repeats[i]);
  }
  return {TensorMeta::contiguous(std::move(shape), in[0].dtype, in[0].device)};
}

}  // namespace ember
