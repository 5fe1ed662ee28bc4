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
bool uses_output(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp:
    case UnaryOp::Exp2:
    case UnaryOp::Expm1:
    case UnaryOp::Sqrt:
    case UnaryOp::Rsqrt:
    case UnaryOp::Reciprocal:
    case UnaryOp::Tan:
    case UnaryOp::Tanh:
    case UnaryOp::Sigmoid:
    case UnaryOp::Erfinv:
    case UnaryOp::Relu:
      return true;
    default:
      return false;
  }
}
bool uses_nothing(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg:
    case UnaryOp::Sign:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
    case UnaryOp::Trunc:
    case UnaryOp::Frac:
      return true;
    default:
      return false;
  }
}
}  // namespace

bool Unary::saves_input(size_t) const { return !uses_output(p_.op) && !uses_nothing(p_.op); }
bool Unary::saves_output(size_t) const { return uses_output(p_.op); }

std::vector<Tensor> Unary::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  const double two_over_sqrt_pi = 2.0 / std::sqrt(std::numbers::pi);
  auto arg = [](const std::optional<Scalar>& s, double dflt) { return s ? s->to<double>() : dflt; };
  switch (p_.op) {
    case UnaryOp::Abs:
      return {g * x.sign()};
    case UnaryOp::Neg:
      return {-g};
    case UnaryOp::Sign:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
    case UnaryOp::Trunc:
      return {zeros_like(g)};
    case UnaryOp::Frac:
      return {g};
    case UnaryOp::Exp:
      return {g * y};
    case UnaryOp::Exp2:
      return {g * y * std::numbers::ln2};
    case UnaryOp::Expm1:
      return {g * (y + 1)};
    case UnaryOp::Log:
      return {g / x};
    case UnaryOp::Log2:
      return {g / (x * std::numbers::ln2)};
    case UnaryOp::Log10:
      return {g / (x * std::numbers::ln10)};
    case UnaryOp::Log1p:
      return {g / (x + 1)};
    case UnaryOp::Sqrt:
      return {g / (y * 2)};
    case UnaryOp::Rsqrt:
      return {g * y * y * y * -0.5};
    case UnaryOp::Reciprocal:
      return {-g * y * y};
    case UnaryOp::Sin:
      return {g * x.cos()};
    case UnaryOp::Cos:
      return {-g * x.sin()};
    case UnaryOp::Tan:
      return {g * (y * y + 1)};
    case UnaryOp::Asin:
      return {g * (1 - x * x).rsqrt()};
    case UnaryOp::Acos:
      return {-g * (1 - x * x).rsqrt()};
    case UnaryOp::Atan:
      return {g / (x * x + 1)};
    case UnaryOp::Sinh:
      return {g * x.cosh()};
    case UnaryOp::Cosh:
      return {g * x.sinh()};
    case UnaryOp::Tanh:
      return {g * (1 - y * y)};
    case UnaryOp::Sigmoid:
      return {g * y * (1 - y)};
    case UnaryOp::Logit: {
      Tensor d = g / (x * (1 - x));
      if (p_.args.a) {
        const double eps = p_.args.a->to<double>();
        return {d.masked_fill((x < eps) | (x > 1 - eps), 0)};
      }
      return {d.masked_fill((x < 0) | (x > 1), std::nan(""))};
    }
    case UnaryOp::Erf:
      return {g * (-x * x).exp() * two_over_sqrt_pi};
    case UnaryOp::Erfc:
      return {g * (-x * x).exp() * -two_over_sqrt_pi};
    case UnaryOp::Erfinv:
      return {g * (y * y).exp() * (std::sqrt(std::numbers::pi) / 2)};
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
    case UnaryOp::Silu: {
      Tensor s = x.sigmoid();
      return {g * s * (x * (1 - s) + 1)};
    }
    case UnaryOp::Mish: {
      Tensor t = softplus(x).tanh();
      return {g * (t + x * x.sigmoid() * (1 - t * t))};
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
    case UnaryOp::Hardsigmoid:
      return {(g / 6).masked_fill((x <= -3) | (x >= 3), 0)};
    case UnaryOp::Hardswish:
      return {where(x < -3, zeros_like(g), where(x <= 3, g * (x / 3 + 0.5), g))};
    case UnaryOp::NanToNum:
      return {g.masked_fill(x.isfinite().logical_not(), 0)};
    default:
      return Primitive::vjp(ctx);
  }
}

}  // namespace ember
