// Names of autograd nodes as libtorch prints them (grad_fn()->name()).
//
// Note [Overload suffix]: libtorch names a node after the op and the position of the op's
// overload among those in derivatives.yaml: add.Tensor is AddBackward0, add.Scalar (x + 2 in C++)
// AddBackward1, pow.Tensor_Scalar / Tensor_Tensor / Scalar are PowBackward0 / 1 / 2. Ember keeps
// one Binary primitive per op and passes a Python-like scalar as a wrapped 0-d tensor, so the
// suffix is read from which operand is a wrapped number.
#include <cctype>

#include "autograd/functions.h"
#include "primitives/binary.h"

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

}  // namespace

std::string backward_name(const char* op) { return camel_case(op) + "Backward0"; }

std::string backward_name(const Primitive& prim, const std::vector<Tensor>& inputs) {
  int overload = 0;
  if (prim.kind() == PrimitiveKind::Binary && inputs.size() == 2) {
    const auto& binary = static_cast<const Binary&>(prim);
    // Only under the op's own name (or its in-place form): floor_divide keeps its own node name.
    const std::string own = binary_op_name(binary.op());
    const std::string name = prim.name();
    if (name == own || name == own + "_")
      overload = binary_overload(binary.op(), wrapped(inputs[0]), wrapped(inputs[1]));
  }
  return camel_case(prim.name()) + "Backward" + std::to_string(overload);
}

}  // namespace ember::autograd
