// Gradients of the binary elementwise family (PyTorch's derivatives.yaml formulas). Broadcast
// inputs get their gradient summed back by the engine.
#include "ember/ember.h"
#include "primitives/binary.h"
#include "primitives/vjp_util.h"

namespace ember {

bool Binary::saves_input(size_t) const {
  return p_.op != BinaryOp::Add && p_.op != BinaryOp::Sub && p_.op != BinaryOp::DivTrunc &&
         p_.op != BinaryOp::DivFloor;
}

bool Binary::saves_output(size_t) const {
  return p_.op == BinaryOp::Pow || p_.op == BinaryOp::Hypot || p_.op == BinaryOp::Copysign;
}

std::vector<Tensor> Binary::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const Tensor& a = ctx.inputs[0];
  const Tensor& b = ctx.inputs[1];
  const Tensor& out = ctx.outputs.empty() ? Tensor() : ctx.outputs[0];
  const bool na = ctx.needs_grad[0], nb = ctx.needs_grad[1];
  switch (p_.op) {
    case BinaryOp::Add:
      return {g, grad_if(nb, [&] { return p_.alpha.to<double>() == 1.0 ? g : g * p_.alpha; })};
    case BinaryOp::Sub:
      return {g, grad_if(nb, [&] { return g * (-p_.alpha.to<double>()); })};
    case BinaryOp::Mul:
      return {grad_if(na, [&] { return g * b; }), grad_if(nb, [&] { return g * a; })};
    case BinaryOp::Div:
      return {grad_if(na, [&] { return g / b; }), grad_if(nb, [&] { return -g * a / (b * b); })};
    case BinaryOp::DivTrunc:
    case BinaryOp::DivFloor:
      return {grad_if(na, [&] { return zeros_like(g); }),
              grad_if(nb, [&] { return zeros_like(g); })};
    case BinaryOp::Remainder:
      return {g, grad_if(nb, [&] { return -g * a.div(b, "floor"); })};
    case BinaryOp::Fmod:
      return {g, grad_if(nb, [&] { return -g * a.div(b, "trunc"); })};
    case BinaryOp::Pow:
      return {grad_if(na, [&] { return (g * b * a.pow(b - 1)).masked_fill(b == 0, 0); }),
              grad_if(nb, [&] { return (g * out * a.log()).masked_fill((a == 0) & (b >= 0), 0); })};
    case BinaryOp::Atan2: {
      Tensor d = a * a + b * b;
      return {grad_if(na, [&] { return g * b / d; }), grad_if(nb, [&] { return -g * a / d; })};
    }
    case BinaryOp::Maximum:
    case BinaryOp::Minimum: {
      // Ties split the gradient in half, as PyTorch.
      Tensor split = where(a == b, g / 2, g);
      const bool mx = p_.op == BinaryOp::Maximum;
      return {grad_if(na, [&] { return split.masked_fill(mx ? a < b : a > b, 0); }),
              grad_if(nb, [&] { return split.masked_fill(mx ? a > b : a < b, 0); })};
    }
    case BinaryOp::Fmax:
    case BinaryOp::Fmin: {
      Tensor self_wins = (p_.op == BinaryOp::Fmax ? a >= b : a <= b) | b.isnan();
      return {grad_if(na, [&] { return g.masked_fill(self_wins.logical_not(), 0); }),
              grad_if(nb, [&] { return g.masked_fill(self_wins, 0); })};
    }
    case BinaryOp::Hypot:
      return {grad_if(na, [&] { return g * a / out; }), grad_if(nb, [&] { return g * b / out; })};
    case BinaryOp::Copysign:
      return {grad_if(na, [&] { return (g * out / a).masked_fill(a == 0, 0); }),
              grad_if(nb, [&] { return zeros_like(g); })};
    case BinaryOp::Logaddexp:
      return {grad_if(na, [&] { return g / ((b - a).exp() + 1); }),
              grad_if(nb, [&] { return g / ((a - b).exp() + 1); })};
    default:
      return Primitive::vjp(ctx);
  }
}

}  // namespace ember
