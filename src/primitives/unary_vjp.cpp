// Gradients of the unary elementwise family (PyTorch's derivatives.yaml formulas), written with
// Ember ops so that they are differentiable again.
#include <cmath>
#include <numbers>

#include "dispatch/dispatch.h"
#include "ember/ember.h"
#include "ops/util.h"
#include "primitives/unary.h"

namespace ember {

namespace {
UnaryReads reads(UnaryOp op) {
  switch (op) {
#define EMBER_UNARY_READS(Op, name, F, Reads, ...) \
  case UnaryOp::Op:                                \
    return UnaryReads::Reads;
    EMBER_UNARY_TABLE_OPS(EMBER_UNARY_READS)
#undef EMBER_UNARY_READS
    case UnaryOp::Relu:
      return UnaryReads::Output;
    case UnaryOp::Neg:
    case UnaryOp::Sign:
    case UnaryOp::Round:
    case UnaryOp::IsNan:
    case UnaryOp::IsInf:
    case UnaryOp::IsFinite:
    case UnaryOp::LogicalNot:
    case UnaryOp::BitwiseNot:
      return UnaryReads::Nothing;
    case UnaryOp::Abs:
    case UnaryOp::Logit:
    case UnaryOp::Gelu:
    case UnaryOp::Softplus:
    case UnaryOp::Elu:
    case UnaryOp::LeakyRelu:
    case UnaryOp::Hardtanh:
    case UnaryOp::NanToNum:
      return UnaryReads::Input;
  }
  return UnaryReads::Input;
}

// silu'(x) and mish'(x), for the table's vjps.
Tensor silu_slope(const Tensor& x) {
  Tensor s = x.sigmoid();
  return s * (x * (1 - s) + 1);
}
Tensor mish_slope(const Tensor& x) {
  Tensor t = softplus(x).tanh();
  return t + x * x.sigmoid() * (1 - t * t);
}
}  // namespace

bool Unary::saves_input(size_t) const { return reads(p_.op) == UnaryReads::Input; }
bool Unary::saves_output(size_t) const { return reads(p_.op) == UnaryReads::Output; }

std::vector<Tensor> Unary::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  auto arg = [](const std::optional<Scalar>& s, double dflt) { return s ? s->to<double>() : dflt; };
  switch (p_.op) {
#define EMBER_UNARY_VJP(Op, name, F, Reads, vjp) \
  case UnaryOp::Op:                              \
    return {vjp};
    EMBER_UNARY_TABLE_OPS(EMBER_UNARY_VJP)
#undef EMBER_UNARY_VJP
    case UnaryOp::Abs:
      return {g * x.sign()};
    case UnaryOp::Neg:
      return {-g};
    case UnaryOp::Sign:
    case UnaryOp::Round:
      return {zeros_like(g)};
    case UnaryOp::Logit: {
      Tensor d = g / (x * (1 - x));
      if (p_.args.a) {
        const double eps = p_.args.a->to<double>();
        return {d.masked_fill((x < eps) | (x > 1 - eps), 0)};
      }
      return {d.masked_fill((x < 0) | (x > 1), std::nan(""))};
    }
    case UnaryOp::Relu:
      return {g.masked_fill(y <= 0, 0)};
    case UnaryOp::Gelu: {
      if (!p_.args.derivative) {  // g * gelu'(x), one fused kernel
        UnaryArgs d = p_.args;
        d.derivative = true;
        Tensor slope = ops::empty_tensor(x.sizes(), x.dtype(), "gelu_backward");
        dispatch(Unary(UnaryOp::Gelu, d), {x}, {slope});
        return {g * slope};
      }
      // gelu''(x), for double backward.
      if (p_.args.tanh_approx) {
        const double beta = std::sqrt(2.0 / std::numbers::pi), kappa = 0.044715;
        Tensor x2 = x * x;
        Tensor t = ((x + x2 * x * kappa) * beta).tanh();
        Tensor du = (x2 * (3 * kappa) + 1) * beta;  // d inner / dx
        Tensor dt = (1 - t * t) * du;               // d tanh(inner) / dx
        Tensor d2t = -2 * t * dt * du + (1 - t * t) * (x * (6 * kappa * beta));
        return {g * (dt + x * 0.5 * d2t)};
      }
      Tensor pdf = (x * x * -0.5).exp() * (1 / std::sqrt(2 * std::numbers::pi));
      return {g * pdf * (2 - x * x)};
    }
    case UnaryOp::Softplus: {
      const double beta = arg(p_.args.a, 1), threshold = arg(p_.args.b, 20);
      Tensor bx = x * beta;
      return {where(bx > threshold, g, g * bx.sigmoid())};
    }
    case UnaryOp::Elu: {
      const double alpha = arg(p_.args.a, 1), scale = arg(p_.args.b, 1),
                   in_scale = arg(p_.args.c, 1);
      return {where(x > 0, g * scale, g * (x * in_scale).exp() * (alpha * scale * in_scale))};
    }
    case UnaryOp::LeakyRelu: {
      const double slope = arg(p_.args.a, 0.01);
      return {where(x > 0, g, g * slope)};
    }
    case UnaryOp::Hardtanh: {
      const double lo = arg(p_.args.a, -1), hi = arg(p_.args.b, 1);
      return {g.masked_fill((x <= lo) | (x >= hi), 0)};
    }
    case UnaryOp::NanToNum:
      return {g.masked_fill(x.isfinite().logical_not(), 0)};
    case UnaryOp::IsNan:
    case UnaryOp::IsInf:
    case UnaryOp::IsFinite:
    case UnaryOp::LogicalNot:
    case UnaryOp::BitwiseNot:
      break;  // boolean or integral results: not differentiable
  }
  return Primitive::vjp(ctx);
}

}  // namespace ember
