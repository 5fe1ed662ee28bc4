// Names of autograd nodes as libtorch prints them (grad_fn()->name()).
//
// Note [Overload suffix]: libtorch names a node after the op and the position of the op's
// overload among those in derivatives.yaml: add.Tensor is AddBackward0, add.Scalar (x + 2 in C++)
// AddBackward1, pow.Tensor_Scalar / Tensor_Tensor / Scalar are PowBackward0 / 1 / 2. Ember keeps
// one primitive per op, so the suffix is read from the call: which operand of a binary op is a
// wrapped number (a Python-like scalar), whether clamp's bounds or lerp's weight are tensors
// (extra inputs), whether scatter writes a value or a source.
#include <cctype>
#include <string>
#include <string_view>

#include "autograd/functions.h"
#include "primitives/binary.h"
#include "primitives/reduction.h"
#include "primitives/scatter.h"

namespace ember::autograd {
namespace {

std::string camel_case(const char* op) {
  std::string out;
  bool upper = true;
  for (const char* c = op; *c; ++c) {
    if (*c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(*c))) : *c;
    upper = false;
  }
  return out;
}

bool wrapped(const Tensor& t) {
  return t.defined() && t.unsafeGetTensorImpl()->is_wrapped_number();
}

// The overload number of a binary op's node (Note [Overload suffix]). A scalar first operand
// of a commutative op is libtorch's other.op(self) (2 * x is x.mul(2)); of sub and div it is a
// full tensor (2 - x is SubBackward0).
// derivatives.yaml's orders: div .Tensor, .Scalar, .Tensor_mode, .Scalar_mode; remainder and
// fmod .Scalar before .Tensor; pow .Tensor_Scalar, .Tensor_Tensor, .Scalar.
int binary_overload(BinaryOp op, bool scalar_first, bool scalar_second) {
  using enum BinaryOp;
  if (op == Add || op == Mul) return scalar_first || scalar_second ? 1 : 0;
  if (op == Sub || op == Div) return scalar_second ? 1 : 0;
  if (op == DivTrunc || op == DivFloor) return scalar_second ? 3 : 2;
  if (op == Remainder || op == Fmod) return scalar_second ? 0 : 1;
  if (op == Pow) return scalar_second ? 0 : (scalar_first ? 2 : 1);
  return 0;  // ops with one differentiable overload
}

// sum, mean, prod and norm over dims are libtorch's second overloads (sum.dim_IntList,
// norm.ScalarOpt_dim, ...), the full reductions the first; max() and min() are max/min's second
// (after max.dim). Ember's primitive keeps the reduced dims, not how they were given: a list
// naming every dim without keepdim reads as the full reduction.
int reduce_overload(const Reduce& reduce, std::string_view op, const Tensor& input) {
  using enum ReduceOp;
  const ReduceOp r = reduce.op();
  if ((r == AMax && op == "max") || (r == AMin && op == "min")) return 1;
  if (r != Sum && r != Mean && r != Prod && r != Norm) return 0;
  const bool every_dim = static_cast<int64_t>(reduce.dims().size()) == input.dim();
  return every_dim && !reduce.keepdim() ? 0 : 1;
}

}  // namespace

std::string backward_name(const char* op) { return camel_case(op) + "Backward0"; }

// The op's own name without the in-place underscore: a display name (floor_divide, scatter_add)
// is another op of libtorch's, with its own numbering.
std::string_view without_inplace_suffix(const char* name) {
  std::string_view op = name;
  if (!op.empty() && op.back() == '_') op.remove_suffix(1);
  return op;
}

std::string backward_name(const char* op, int overload) {
  return camel_case(std::string(without_inplace_suffix(op)).c_str()) + "Backward" +
         std::to_string(overload);
}

std::string backward_name(const Primitive& prim, const std::vector<Tensor>& inputs) {
  return backward_name(prim.name(), backward_overload(prim, inputs));
}

int backward_overload(const Primitive& prim, const std::vector<Tensor>& inputs) {
  const std::string_view op = without_inplace_suffix(prim.name());
  int overload = 0;
  const PrimitiveKind kind = prim.kind();
  if (kind == PrimitiveKind::Binary && inputs.size() == 2) {
    const auto& binary = static_cast<const Binary&>(prim);
    if (op == binary_op_name(binary.op()))
      overload = binary_overload(binary.op(), wrapped(inputs[0]), wrapped(inputs[1]));
    if (op == "rsub") overload = wrapped(inputs[0]) ? 1 : 0;  // rsub.Tensor, rsub.Scalar
  } else if (kind == PrimitiveKind::Clamp) {
    // clamp.Tensor before clamp (Scalar bounds); clamp_min and clamp_max Scalar before Tensor.
    const bool scalar_bounds = inputs.size() == 1;
    overload = (op == "clamp") == scalar_bounds ? 1 : 0;
  } else if (kind == PrimitiveKind::Reduce && inputs.size() == 1) {
    overload = reduce_overload(static_cast<const Reduce&>(prim), op, inputs[0]);
  } else if (kind == PrimitiveKind::Fill) {
    overload = prim.inplace() ? 2 : 0;  // fill.Scalar, fill.Tensor, fill_.Scalar, fill_.Tensor
  } else if (kind == PrimitiveKind::Lerp) {
    overload = inputs.size() == 3 ? 1 : 0;  // lerp.Scalar, lerp.Tensor (the weight)
  } else if (kind == PrimitiveKind::Scatter && op == "scatter") {
    // scatter.src, scatter.value (with a reduction libtorch has no derivative to name)
    overload = static_cast<const Scatter&>(prim).value() ? 1 : 0;
  }
  return overload;
}

}  // namespace ember::autograd
