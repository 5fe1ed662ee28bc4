// Gradients of the unary elementwise family (PyTorch's derivatives.yaml formulas), written with
// Ember ops so that they are differentiable again.
#include <cmath>
#include <numbers>

#include "dispatch/dispatch.h"
#include "ember/ember.h"
#include "ops/util.h"
#include "primitives/unary.h"
#include "primitives/vjp_util.h"

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

// silu'(x) and mish'(x), with Ember ops.
Tensor silu_slope(const Tensor& x) {
  Tensor s = x.sigmoid();
  return s * (x * (1 - s) + 1);
}
Tensor mish_slope(const Tensor& x) {
  Tensor t = softplus(x).tanh();
  return t + x * x.sigmoid() * (1 - t * t);
}

constexpr double kBeta = 0.7978845608028654;  // sqrt(2 / pi), gelu's tanh approximation
constexpr double kKappa = 0.044715;

// Note [Fused unary backward]: what UnaryBackward computes, g * f'(v), with Ember ops (its
// decomposition, and the vjp where the fused kernel does not apply).
Tensor composite_backward(UnaryOp op, const UnaryArgs& args, const Tensor& g, const Tensor& v) {
  if (op == UnaryOp::Relu) return g.masked_fill(v <= 0, 0);
  if (op == UnaryOp::Sigmoid) return g * (1 - v) * v;
  if (op == UnaryOp::Tanh) return g * (1 - v * v);
  if (op == UnaryOp::Silu) return g * silu_slope(v);
  if (op == UnaryOp::Gelu && args.tanh_approx) {
    Tensor x2 = v * v;
    Tensor t = ((v + x2 * v * kKappa) * kBeta).tanh();
    return g * ((1 + t) * 0.5 + v * 0.5 * (1 - t * t) * kBeta * (x2 * (3 * kKappa) + 1));
  }
  if (op == UnaryOp::Gelu) {
    Tensor cdf = ((v * M_SQRT1_2).erf() + 1) * 0.5;
    return g * (cdf + v * (v * v * -0.5).exp() * (1 / std::sqrt(2 * std::numbers::pi)));
  }
  EMBER_INTERNAL_ASSERT(false, "unary_backward: no fused backward for ", unary_op_name(op));
  return {};
}

// d(f'(v)) / dv, for double backward: with respect to the output y for sigmoid and tanh.
Tensor second_derivative(UnaryOp op, const UnaryArgs& args, const Tensor& v) {
  if (op == UnaryOp::Relu) return zeros_like(v);
  if (op == UnaryOp::Sigmoid) return 1 - 2 * v;
  if (op == UnaryOp::Tanh) return -2 * v;
  if (op == UnaryOp::Silu) {
    Tensor s = v.sigmoid();
    return s * (1 - s) * (2 + v * (1 - 2 * s));
  }
  if (op == UnaryOp::Gelu && args.tanh_approx) {
    Tensor x2 = v * v;
    Tensor t = ((v + x2 * v * kKappa) * kBeta).tanh();
    Tensor du = (x2 * (3 * kKappa) + 1) * kBeta;  // d inner / dx
    Tensor dt = (1 - t * t) * du;                 // d tanh(inner) / dx
    Tensor d2t = -2 * t * dt * du + (1 - t * t) * (v * (6 * kKappa * kBeta));
    return dt + v * 0.5 * d2t;
  }
  EMBER_INTERNAL_ASSERT(op == UnaryOp::Gelu, "unary_backward: no fused backward for ",
                        unary_op_name(op));
  Tensor pdf = (v * v * -0.5).exp() * (1 / std::sqrt(2 * std::numbers::pi));
  return pdf * (2 - v * v);
}
}  // namespace

bool has_fused_backward(UnaryOp op) {
  return op == UnaryOp::Relu || op == UnaryOp::Sigmoid || op == UnaryOp::Tanh ||
         op == UnaryOp::Silu || op == UnaryOp::Gelu;
}

Tensor unary_backward(UnaryOp op, const UnaryArgs& args, const Tensor& g, const Tensor& v) {
  if (has_fused_backward(op) && g.dtype() == v.dtype() && same_sizes(g, v)) {
    return dispatch(UnaryBackward(op, args), {g, v})[0];
  }
  return composite_backward(op, args, g, v);
}

const char* UnaryBackward::default_name() const {
  if (p_.op == UnaryOp::Relu) return "threshold_backward";
  if (p_.op == UnaryOp::Sigmoid) return "sigmoid_backward";
  if (p_.op == UnaryOp::Tanh) return "tanh_backward";
  if (p_.op == UnaryOp::Silu) return "silu_backward";
  if (p_.op == UnaryOp::Gelu) return "gelu_backward";
  return "unary_backward";  // a default-made or deserialised one, which the kernel refuses
}

std::vector<Tensor> UnaryBackward::vjp(const VjpContext& ctx) const {
  const Tensor& gg = ctx.grads[0];
  const Tensor& g = ctx.inputs[0];
  const Tensor& v = ctx.inputs[1];
  std::vector<Tensor> out(2);
  if (ctx.needs_grad[0]) out[0] = unary_backward(p_.op, p_.args, gg, v);  // linear in g
  if (ctx.needs_grad[1]) out[1] = gg * g * second_derivative(p_.op, p_.args, v);
  return out;
}

std::vector<Tensor> UnaryBackward::decompose(const std::vector<Tensor>& inputs) const {
  return {composite_backward(p_.op, p_.args, inputs[0], inputs[1])};
}

bool Unary::saves_input(size_t) const { return reads(p_.op) == UnaryReads::Input; }
bool Unary::saves_output(size_t) const { return reads(p_.op) == UnaryReads::Output; }

std::vector<Tensor> Unary::vjp(const VjpContext& ctx) const {
  const Tensor& g = ctx.grads[0];
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  auto arg = [](const std::optional<Scalar>& s, double dflt) { return s ? s->to<double>() : dflt; };
  auto fused = [&](const Tensor& v) { return unary_backward(p_.op, p_.args, g, v); };
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
      return {fused(y)};
    case UnaryOp::Gelu:
      return {fused(x)};
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
