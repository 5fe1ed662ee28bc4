// Loss functions as composites of Ember ops in numerically stable forms. 16-bit inputs compute in
// float32 and the result is rounded once to the input's dtype.
#include "ember/nn/functional/loss.h"

#include <cmath>
#include <sstream>

#include "ember/nn/functional/activation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "nn/functional/common.h"
#include "ops/factory_internal.h"

namespace ember::nn::functional {
namespace {

using nn::detail::apply_reduction;
using nn::detail::check_defined;
using nn::detail::from_opmath;
using nn::detail::Reduction;
using nn::detail::reduction_of;
using nn::detail::to_opmath;

std::string torch_size(const std::vector<int64_t>& s) {
  std::ostringstream ss;
  ss << "torch.Size([";
  for (size_t i = 0; i < s.size(); ++i) ss << (i ? ", " : "") << s[i];
  ss << "])";
  return ss.str();
}

/// The floating result dtype of a pointwise loss of (input, target).
ScalarType loss_dtype(const Tensor& input, const Tensor& target, const char* op) {
  check_defined(input, op);
  check_defined(target, op, "target");
  const ScalarType dt = promote_types(input.dtype(), target.dtype());
  EMBER_CHECK_TYPE(is_floating_point(dt) && is_implemented(dt), "[", op, "] \"", op,
                   "_cpu\" not implemented for '", dtype_name(dt), "'");
  return dt;
}

/// -input[i, target[i]] * weight[target[i]] over (N, C, d...) inputs with class indices.
/// `logp` is already in the compute dtype.
Tensor nll_impl(const Tensor& logp, const Tensor& target, const Tensor& weight,
                int64_t ignore_index, Reduction red, const char* op) {
  check_defined(target, op, "target");
  EMBER_CHECK_VALUE(logp.dim() >= 1, "[", op, "] Expected 1 or more dimensions (got ", logp.dim(),
                    ")");
  EMBER_CHECK_TYPE(target.dtype() == kInt64 || target.dtype() == kUInt8, "[", op,
                   "] expected scalar type Long but found ", dtype_name(target.dtype()));
  const int64_t class_dim = logp.dim() == 1 ? 0 : 1;
  const SymInt c = logp.sym_size(class_dim);  // a dynamic class count stays symbolic
  if (logp.dim() == 1) {
    EMBER_CHECK(target.dim() == 0, "[", op,
                "] size mismatch (got input: ", ops::shape_str(logp.sizes()),
                ", target: ", ops::shape_str(target.sizes()), ")");
  } else {
    EMBER_CHECK_VALUE(target.dim() >= 1 && logp.sym_size(0) == target.sym_size(0), "[", op,
                      "] Expected input batch_size (", logp.size(0),
                      ") to match target batch_size (", target.dim() >= 1 ? target.size(0) : 0,
                      ").");
    std::vector<SymInt> expected = logp.sym_sizes();  // SymInts: a dynamic batch stays symbolic
    expected.erase(expected.begin() + 1);
    EMBER_CHECK(target.sym_sizes() == expected, "[", op, "] Expected target size ",
                ops::shape_str(expected), ", got ", ops::shape_str(target.sizes()));
  }
  EMBER_CHECK(
      !weight.defined() || (weight.dim() == 1 && weight.sym_numel() == c), "[", op,
      "] weight tensor should be defined either for all ", c,
      " classes or no classes but got weight tensor of shape: ", ops::shape_str(weight.sizes()));
  Tensor t = target.to(kInt64).reshape({-1});
  // Meta targets have no values to check (as PyTorch's meta kernel).
  for (int64_t v : t.device().is_meta() ? std::vector<int64_t>() : t.tolist<int64_t>()) {
    EMBER_CHECK_INDEX(v == ignore_index || (v >= 0 && v < c), "[", op, "] Target ", v,
                      " is out of bounds.");
  }
  const SymInt m = t.sym_numel();
  const TensorOptions on_device = TensorOptions().device(logp.device());
  Tensor x2 = logp.dim() == 1 ? logp.reshape({1, c}) : logp.movedim({1}, {-1}).reshape({m, c});
  Tensor valid = t != ignore_index;
  Tensor safe = t.masked_fill(valid.logical_not(), 0);
  Tensor picked = x2.gather(1, safe.unsqueeze(1)).squeeze(1);  // [M]
  Tensor w = weight.defined() ? weight.to(logp.dtype()).index({safe})
                              : ember::ones({m}, on_device.dtype(logp.dtype()));
  w = w.masked_fill(valid.logical_not(), 0);
  Tensor loss = ember::where(valid, -(picked * w), ember::zeros({}, logp.dtype()));
  switch (red) {
    case Reduction::None:
      return loss.reshape(SymIntList(target.sym_sizes()));
    case Reduction::Sum:
      return loss.sum();
    case Reduction::Mean:
      return loss.sum() / w.sum();
  }
  return loss;
}

void check_same_dims(const Tensor& a, const Tensor& b, const Tensor& c, const char* op) {
  EMBER_CHECK(a.dim() == b.dim() && b.dim() == c.dim(), "[", op, "] ", op,
              " : All input tensors should have same dimension but got sizes: input1: ",
              ops::shape_str(a.sizes()), ", input2: ", ops::shape_str(b.sizes()),
              ", target: ", ops::shape_str(c.sizes()), " ");
}

}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& o) {
  nn::detail::check_floating(input, "nll_loss", "nll_loss_forward_reduce_cuda_kernel_2d");
  Tensor r = nll_impl(to_opmath(input), target, o.weight(), o.ignore_index(),
                      reduction_of(o.reduction()), "nll_loss");
  return from_opmath(r, input.dtype());
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& o) {
  const char* op = "cross_entropy";
  nn::detail::check_floating(input, op, "log_softmax_lastdim_kernel_impl");
  check_defined(target, op, "target");
  EMBER_CHECK_VALUE(input.dim() >= 1, "[", op, "] Expected 1 or more dimensions (got ", input.dim(),
                    ")");
  const double ls = o.label_smoothing();
  EMBER_CHECK(ls >= 0.0 && ls <= 1.0, "[", op,
              "] label_smoothing must be between 0.0 and 1.0. Got: ", ls);
  const Reduction red = reduction_of(o.reduction());
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  const SymInt c = input.sym_size(class_dim);
  Tensor x = to_opmath(input);
  Tensor logp = ember::log_softmax(x, class_dim);
  Tensor weight = o.weight().defined() ? o.weight().to(x.dtype()) : Tensor();
  std::vector<SymInt> wshape(x.dim(), 1);
  wshape[class_dim] = c;
  if (weight.defined()) {
    EMBER_CHECK(
        weight.dim() == 1 && weight.sym_numel() == c, "[", op,
        "] weight tensor should be defined either for all ", c,
        " classes or no classes but got weight tensor of shape: ", ops::shape_str(weight.sizes()));
  }
  if (input.sym_sizes() == target.sym_sizes()) {
    // Class probabilities.
    EMBER_CHECK(is_floating_point(target.dtype()), "[", op,
                "] Expected floating point type for target with class probabilities, got ",
                dtype_name(target.dtype()));
    EMBER_CHECK(o.ignore_index() < 0, "[", op,
                "] ignore_index is not supported for floating point target");
    Tensor t = target.to(x.dtype());
    if (ls > 0) t = t * (1 - ls) + ls / static_cast<double>(c);
    Tensor prod = logp * t;
    if (weight.defined()) prod = prod * weight.reshape(wshape);
    Tensor r;
    switch (red) {
      case Reduction::None:
        r = -prod.sum({class_dim});
        break;
      case Reduction::Sum:
        r = -prod.sum();
        break;
      case Reduction::Mean:
        // The mean over the other dims: sum / (numel / C) without a concrete (maybe dynamic)
        // numel; NaN when empty, as PyTorch.
        r = -prod.sum({class_dim}).mean();
        break;
    }
    return from_opmath(r, input.dtype());
  }
  Tensor nll = nll_impl(logp, target, weight, o.ignore_index(), red, op);
  if (ls == 0) return from_opmath(nll, input.dtype());
  // Label smoothing with class indices: (1 - ls) * nll + ls / C * smooth, where smooth is the
  // (weighted) negative sum of log-probabilities over classes, zero at ignored positions.
  Tensor ignored = target.to(kInt64) == o.ignore_index();
  Tensor smooth =
      weight.defined() ? -(logp * weight.reshape(wshape)).sum({class_dim}) : -logp.sum({class_dim});
  smooth = smooth.masked_fill(ignored, 0);
  Tensor s;
  switch (red) {
    case Reduction::None:
      s = smooth;
      break;
    case Reduction::Sum:
      s = smooth.sum();
      break;
    case Reduction::Mean:
      if (weight.defined()) {
        Tensor t = target.to(kInt64).masked_fill(ignored, 0);
        Tensor wsum = weight.index({t.reshape({-1})}).masked_fill(ignored.reshape({-1}), 0).sum();
        s = smooth.sum() / wsum;
      } else {
        s = smooth.sum() / ignored.logical_not().sum().to(x.dtype());
      }
      break;
  }
  return from_opmath(nll * (1 - ls) + s * (ls / static_cast<double>(c)), input.dtype());
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& o) {
  const char* op = "binary_cross_entropy";
  const ScalarType dt = loss_dtype(input, target, op);
  EMBER_CHECK_VALUE(input.sym_sizes() == target.sym_sizes(), "[", op, "] Using a target size (",
                    torch_size(target.sizes()), ") that is different to the input size (",
                    torch_size(input.sizes()),
                    ") is deprecated. Please ensure they have the same size.");
  Tensor x = to_opmath(input.to(dt));
  Tensor t = to_opmath(target.to(dt));
  // A meta input has no values to check (as PyTorch's meta kernel).
  EMBER_CHECK(x.device().is_meta() || x.numel() == 0 || ((x >= 0) & (x <= 1)).all().item<bool>(),
              "[", op, "] all elements of input should be between 0 and 1");
  Tensor loss = -(t * x.log().clamp_min(-100) + (1 - t) * (-x).log1p().clamp_min(-100));
  if (o.weight().defined()) loss = loss * to_opmath(o.weight());
  return from_opmath(apply_reduction(loss, reduction_of(o.reduction())), dt);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& o) {
  const char* op = "binary_cross_entropy_with_logits";
  const ScalarType dt = loss_dtype(input, target, op);
  EMBER_CHECK_VALUE(input.sym_sizes() == target.sym_sizes(), "[", op, "] Target size (",
                    torch_size(target.sizes()), ") must be the same as input size (",
                    torch_size(input.sizes()), ")");
  Tensor x = to_opmath(input.to(dt));
  Tensor t = to_opmath(target.to(dt));
  // log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|))
  Tensor log_sig = x.clamp_max(0) - (-x.abs()).exp().log1p();
  if (o.pos_weight().defined()) log_sig = log_sig * ((to_opmath(o.pos_weight()) - 1) * t + 1);
  Tensor loss = (1 - t) * x - log_sig;
  if (o.weight().defined()) loss = loss * to_opmath(o.weight());
  return from_opmath(apply_reduction(loss, reduction_of(o.reduction())), dt);
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& o) {
  const ScalarType dt = loss_dtype(input, target, "mse_loss");
  Tensor d = to_opmath(input.to(dt)) - to_opmath(target.to(dt));
  return from_opmath(apply_reduction(d * d, reduction_of(o.reduction())), dt);
}

Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& o) {
  const ScalarType dt = loss_dtype(input, target, "l1_loss");
  Tensor d = to_opmath(input.to(dt)) - to_opmath(target.to(dt));
  return from_opmath(apply_reduction(d.abs(), reduction_of(o.reduction())), dt);
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& o) {
  const ScalarType dt = loss_dtype(input, target, "smooth_l1_loss");
  const double beta = o.beta().value_or(1.0);
  EMBER_CHECK(beta >= 0,
              "[smooth_l1_loss] smooth_l1_loss does not support negative values for beta.");
  Tensor z = (to_opmath(input.to(dt)) - to_opmath(target.to(dt))).abs();
  Tensor loss = beta == 0 ? z : ember::where(z < beta, z * z * (0.5 / beta), z - 0.5 * beta);
  return from_opmath(apply_reduction(loss, reduction_of(o.reduction())), dt);
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options, double beta) {
  SmoothL1LossFuncOptions o = options;
  EMBER_CHECK_VALUE(!options.beta().has_value() || *options.beta() == beta,
                    "[smooth_l1_loss] expected beta not to be provided in 'options', but got ",
                    *options.beta());
  o.beta(beta);
  return smooth_l1_loss(input, target, o);
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& o) {
  const ScalarType dt = loss_dtype(input, target, "huber_loss");
  const double delta = o.delta();
  EMBER_CHECK(delta > 0, "[huber_loss] huber_loss does not support non-positive values for delta.");
  Tensor z = (to_opmath(input.to(dt)) - to_opmath(target.to(dt))).abs();
  Tensor loss = ember::where(z < delta, z * z * 0.5, (z - 0.5 * delta) * delta);
  return from_opmath(apply_reduction(loss, reduction_of(o.reduction())), dt);
}

Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& o) {
  const ScalarType dt = loss_dtype(input, target, "kl_div");
  Tensor x = to_opmath(input.to(dt));
  Tensor t = to_opmath(target.to(dt));
  Tensor loss;
  if (o.log_target()) {
    loss = t.exp() * (t - x);
  } else {
    // xlogy(t, t) - t * x: 0 where t == 0.
    Tensor tlogt = ember::where(t == 0, ember::zeros({}, t.options()), t * t.log());
    loss = tlogt - t * x;
  }
  const std::string red = get_enum_name(o.reduction());
  Tensor r;
  if (red == "batchmean") {
    r = loss.sum();
    if (x.dim() != 0) r = r / static_cast<double>(x.size(0));
  } else {
    r = apply_reduction(loss, reduction_of(o.reduction()));
  }
  return from_opmath(r, dt);
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& o) {
  const char* op = "margin_ranking_loss";
  check_defined(input1, op, "input1");
  check_defined(input2, op, "input2");
  check_defined(target, op, "target");
  check_same_dims(input1, input2, target, op);
  const ScalarType dt =
      promote_types(promote_types(input1.dtype(), input2.dtype()), target.dtype());
  EMBER_CHECK_TYPE(is_floating_point(dt) && is_implemented(dt), "[", op, "] not implemented for '",
                   dtype_name(dt), "'");
  Tensor a = to_opmath(input1.to(dt)), b = to_opmath(input2.to(dt)), y = to_opmath(target.to(dt));
  Tensor loss = (-y * (a - b) + o.margin()).clamp_min(0);
  return from_opmath(apply_reduction(loss, reduction_of(o.reduction())), dt);
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& o) {
  const char* op = "cosine_embedding_loss";
  check_defined(input1, op, "input1");
  check_defined(input2, op, "input2");
  check_defined(target, op, "target");
  const int64_t td = target.dim();
  EMBER_CHECK(td == 1 || td == 0, "[", op,
              "] 0D or 1D target tensor expected, multi-target not supported");
  if (td == 1) {
    EMBER_CHECK(input1.dim() == 2 && input2.dim() == 2, "[", op,
                "] 1D target tensor expects 2D input tensors, but found inputs with sizes ",
                ops::shape_str(input1.sizes()), " and ", ops::shape_str(input2.sizes()), ".");
  } else {
    EMBER_CHECK(input1.dim() == 1 && input2.dim() == 1, "[", op,
                "] 0D target tensor expects 1D input tensors, but found inputs with sizes ",
                ops::shape_str(input1.sizes()), " and ", ops::shape_str(input2.sizes()), ".");
  }
  const ScalarType dt = promote_types(input1.dtype(), input2.dtype());
  EMBER_CHECK_TYPE(is_floating_point(dt) && is_implemented(dt), "[", op, "] not implemented for '",
                   dtype_name(dt), "'");
  Tensor a = to_opmath(input1.to(dt)), b = to_opmath(input2.to(dt));
  constexpr double kEps = 1e-12;
  Tensor prod = (a * b).sum({td});
  Tensor mag1 = (a * a).sum({td}) + kEps;
  Tensor mag2 = (b * b).sum({td}) + kEps;
  Tensor cos = prod / (mag1 * mag2).sqrt();
  Tensor zeros = ember::zeros_like(cos);
  Tensor pos = ember::where(target == 1, 1 - cos, zeros);
  Tensor neg = ember::where(target == -1, (cos - o.margin()).clamp_min(0), zeros);
  return from_opmath(apply_reduction(pos + neg, reduction_of(o.reduction())), dt);
}

}  // namespace ember::nn::functional
