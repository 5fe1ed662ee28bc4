// F::linear_cross_entropy: cross_entropy(linear(x, W, b), t) without the (N, C) logits.
//
// Note [Batch-chunked linear cross-entropy]: the rows are taken `chunk` at a time; each chunk's
// (chunk, C) logits z give the rows' loss and, in the same pass, the gradient of
// sum_i s_i * loss_i with respect to z (s_i: the reduction's scale), written over z in place:
//   loss_i = f_i * lse(z_i) - <q_i, z_i>,   dloss_i/dz_i = f_i * softmax(z_i) - q_i,
// where q_i is the row's weighted target distribution (class weights, label smoothing and
// ignore_index folded in) and f_i = sum_c q_ic. That gradient then goes straight into
// grad_input[chunk] = G W, grad_W += G^T x[chunk] (in blocks of classes, so that no (C, D)
// temporary exists besides grad_W) and grad_b += sum_rows G. For the scalar reductions this runs
// in the forward and backward only scales the stored gradients by grad_output; with
// reduction='none' the forward computes the losses alone and backward recomputes the chunks with
// s = grad_output (PyTorch 2.14's two ops).
#include "ember/nn/functional/linear_cross_entropy.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <mutex>
#include <vector>

#include "ember/autograd/function.h"
#include "ember/nn/functional/linear.h"
#include "ember/nn/functional/loss.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/matmul.h"
#include "ember/ops/reduction.h"
#include "nn/functional/common.h"

namespace ember::nn::functional {
namespace {

using autograd::AutogradContext;
using autograd::variable_list;
using nn::detail::Reduction;

constexpr const char* kOp = "linear_cross_entropy";

/// The scalars of one call, shared by the forward and the recomputing backward.
struct Config {
  bool prob = false;  // class probabilities instead of class indices
  int64_t ignore_index = -100;
  double label_smoothing = 0.0;
  int64_t chunk = 1;
  ScalarType acc = kFloat32;  // softmax, loss and weight-gradient accumulation
  bool accurate = false;      // GEMMs in acc too (else in the input's dtype)
  Reduction reduction = Reduction::Mean;
  bool allow_retain_graph = false;
};

/// The tensors of one call: x (N, D), w (C, D), b (C) or undefined, target (N) or (N, C), class
/// weight cw (C, in acc) or undefined.
struct Problem {
  Tensor x, w, b, target, cw;
  Config cfg;
  int64_t rows() const { return x.size(0); }
  int64_t classes() const { return w.size(0); }
};

/// Where a chunk's gradients go; undefined members are not wanted.
struct Grads {
  Tensor x, w, b;
};

Tensor acc_of(const Tensor& t, ScalarType acc) { return t.dtype() == acc ? t : t.to(acc); }

/// grad_input, grad_W and grad_b of one chunk from its logit gradient gz (rows, C).
void accumulate(const Problem& p, const Tensor& wg, const Tensor& xc, const Tensor& gz, int64_t r0,
                Grads& g) {
  const Tensor gl = gz.dtype() == wg.dtype() ? gz : gz.to(wg.dtype());
  const int64_t rows = gz.size(0), c = p.classes(), d = p.x.size(1);
  if (g.x.defined()) g.x.narrow(0, r0, rows).copy_(ember::matmul(gl, wg));
  if (g.w.defined()) {
    // Blocks of classes whose product is no larger than the chunk's logits.
    const int64_t block = std::clamp<int64_t>(rows * c / std::max<int64_t>(d, 1), 1, c);
    for (int64_t c0 = 0; c0 < c; c0 += block) {
      const int64_t len = std::min(block, c - c0);
      g.w.narrow(0, c0, len)
          .add_(acc_of(ember::matmul(gl.narrow(1, c0, len).t(), xc), g.w.dtype()));
    }
  }
  if (g.b.defined()) g.b.add_(gz.sum({0}));
}

/// Rows [r0, r0 + rows): their losses (in acc). With `g`, also the gradients of
/// sum_i scale_i * loss_i added into g (Note [Batch-chunked linear cross-entropy]).
Tensor run_chunk(const Problem& p, const Tensor& wg, const Tensor& bg, int64_t r0, int64_t rows,
                 const Tensor& scale, Grads* g) {
  const Config& cfg = p.cfg;
  const double c = static_cast<double>(p.classes()), ls = cfg.label_smoothing;
  const Tensor xc = acc_of(p.x.narrow(0, r0, rows), wg.dtype());
  Tensor z = ember::matmul(xc, wg.t());
  if (bg.defined()) z.add_(bg);
  z = acc_of(z, cfg.acc);
  // First what needs the raw logits: the target terms <q_i, z_i>.
  Tensor q, qz, zt, zw, safe, wt, vf;
  double wsum = c;
  if (cfg.prob) {
    const Tensor t = acc_of(p.target.narrow(0, r0, rows), cfg.acc);
    q = ls > 0 ? t * (1 - ls) + ls / c : t;
    if (p.cw.defined()) q = q * p.cw;
    qz = (q * z).sum({1});
  } else {
    const Tensor tc = p.target.narrow(0, r0, rows);
    const Tensor valid = tc != cfg.ignore_index;
    safe = tc.masked_fill(valid.logical_not(), 0);
    vf = valid.to(cfg.acc);
    wt = p.cw.defined() ? p.cw.index({safe}) * vf : vf;
    zt = z.gather(1, safe.unsqueeze(1)).squeeze(1);
    if (ls > 0) {
      // The smoothing term -sum_c w_c log p_ic = W * lse_i - <w, z_i>, W = sum_c w_c.
      if (p.cw.defined()) wsum = p.cw.sum().item<double>();
      zw = p.cw.defined() ? ember::matmul(z, p.cw) : z.sum({1});
    }
  }
  // Then z becomes exp(z - max) in place: one exponential pass serves the loss and the gradient.
  const Tensor m = z.amax({1}, true);
  z.sub_(m).exp_();
  const Tensor se = z.sum({1});
  const Tensor lse = m.squeeze(1) + se.log();
  Tensor loss, f;
  if (cfg.prob) {
    f = q.sum({1});
    loss = f * lse - qz;
  } else {
    loss = wt * (lse - zt);
    f = wt;
    if (ls > 0) {
      loss = loss * (1 - ls) + vf * (lse * wsum - zw) * (ls / c);
      f = wt * (1 - ls) + vf * (wsum * ls / c);
    }
  }
  if (g == nullptr) return loss;
  Tensor gz = z;  // the logits become their gradient in place: f * softmax - q, scaled
  gz.mul_((f * scale / se).unsqueeze(1));
  if (cfg.prob) {
    gz.sub_(q * scale.unsqueeze(1));
  } else {
    gz.scatter_add_(1, safe.unsqueeze(1), (wt * scale * -(1 - ls)).unsqueeze(1));
    if (ls > 0) {
      const Tensor r = vf * scale * (ls / c);
      gz.sub_(p.cw.defined() ? ember::outer(r, p.cw) : r.unsqueeze(1));
    }
  }
  accumulate(p, wg, xc, gz, r0, *g);
  return loss;
}

/// Runs every chunk; returns the per-row losses (N, acc) and fills `g` when given, with
/// `scale` (N) the weight of each row's loss in the differentiated sum.
Tensor run_all(const Problem& p, const Tensor& scale, Grads* g) {
  const Config& cfg = p.cfg;
  // "accurate": the GEMMs in acc as well (a copy of W in acc, as PyTorch's policy costs).
  const Tensor wg = cfg.accurate ? acc_of(p.w, cfg.acc) : p.w;
  const Tensor bg = p.b.defined() ? acc_of(p.b, wg.dtype()) : Tensor();
  const int64_t n = p.rows();
  Tensor losses = ember::empty({n}, TensorOptions(cfg.acc));
  for (int64_t r0 = 0; r0 < n; r0 += cfg.chunk) {
    const int64_t rows = std::min(cfg.chunk, n - r0);
    const Tensor s = scale.defined() ? scale.narrow(0, r0, rows) : Tensor();
    losses.narrow(0, r0, rows).copy_(run_chunk(p, wg, bg, r0, rows, s, g));
  }
  return losses;
}

/// Gradient buffers for the inputs that need one: grad_W and grad_b in acc (a scratch when acc
/// is wider than the weight), grad_input in the input's dtype.
Grads make_grads(const Problem& p, bool gx, bool gw, bool gb) {
  Grads g;
  const TensorOptions acc(p.cfg.acc);
  if (gx) g.x = ember::zeros(p.x.sizes(), TensorOptions(p.x.dtype()));
  if (gw) g.w = ember::zeros(p.w.sizes(), acc);
  if (gb && p.b.defined()) g.b = ember::zeros({p.classes()}, acc);
  return g;
}

void finish_grads(const Problem& p, Grads& g) {
  if (g.w.defined()) g.w = acc_of(g.w, p.w.dtype());
  if (g.b.defined()) g.b = acc_of(g.b, p.b.dtype());
}

void check_first_order(const char* what) {
  EMBER_CHECK(!is_grad_enabled(), "[", kOp, "] ", what,
              ": higher-order gradients (create_graph=True) are not supported by the "
              "batch-chunked path; call without LinearCrossEntropyOptions for them");
}

/// The divisor of reduction='mean': the summed weight of the non-ignored rows (class indices) or
/// the number of rows (class probabilities), as cross_entropy.
double mean_divisor(const Problem& p) {
  if (p.cfg.prob) return static_cast<double>(p.rows());
  const Tensor valid = p.target != p.cfg.ignore_index;
  if (!p.cw.defined()) return valid.sum().item<double>();
  return (p.cw.index({p.target.masked_fill(valid.logical_not(), 0)}) * valid.to(p.cw.dtype()))
      .sum()
      .item<double>();
}

/// reduction 'mean' or 'sum': gradients computed in the forward, scaled in the backward.
struct ScalarLce : autograd::Function<ScalarLce> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& w, const Tensor& b,
                        const Tensor& target, const Tensor& cw, const Config& cfg) {
    const Problem p{x, w, b, target, cw, cfg};
    const bool mean = cfg.reduction == Reduction::Mean;
    const double div = mean ? mean_divisor(p) : 1.0;
    // All rows ignored: the mean is 0/0 = NaN as in PyTorch, and the gradients are zero.
    const double s = div == 0 ? 0.0 : 1.0 / div;
    const bool any =
        ctx->needs_input_grad(0) || ctx->needs_input_grad(1) || ctx->needs_input_grad(2);
    Grads g =
        make_grads(p, ctx->needs_input_grad(0), ctx->needs_input_grad(1), ctx->needs_input_grad(2));
    Tensor scale = any ? ember::full({p.rows()}, s, TensorOptions(cfg.acc)) : Tensor();
    Tensor total = run_all(p, scale, any ? &g : nullptr).sum();
    if (mean) total = total / div;
    finish_grads(p, g);
    // The gradients live in saved_data (backward scales them in place, which a saved tensor's
    // version check would refuse); the saved marker gives backward's usual error once the engine
    // has freed the graph.
    ctx->save_for_backward({ember::zeros({})});
    ctx->saved_data["grad_input"] = g.x;
    ctx->saved_data["grad_weight"] = g.w;
    ctx->saved_data["grad_bias"] = g.b;
    ctx->saved_data["allow_retain_graph"] = cfg.allow_retain_graph;
    ctx->saved_data["consumed"] = false;
    return acc_of(total, x.dtype());
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    check_first_order("backward");
    ctx->get_saved_variables();
    EMBER_CHECK(!ctx->saved_data["consumed"].toBool(), "[", kOp,
                "] the gradients computed in the forward were consumed by an earlier backward; "
                "pass LinearCrossEntropyOptions().allow_retain_graph(true) to run backward "
                "through this loss more than once");
    const Tensor& go = grads[0];
    const bool keep = ctx->saved_data["allow_retain_graph"].toBool();
    variable_list out(6);
    const char* names[] = {"grad_input", "grad_weight", "grad_bias"};
    for (size_t i = 0; i < 3; ++i) {
      const Tensor& stored = ctx->saved_data[names[i]].toTensor();
      if (!stored.defined()) continue;
      // Without allow_retain_graph the stored gradients are scaled in place and handed over.
      out[i] = keep ? stored * go : stored.mul_(go);
    }
    if (!keep) {
      ctx->saved_data["consumed"] = true;
      for (const char* n : names) ctx->saved_data[n] = Tensor();
    }
    return out;
  }
};

/// reduction 'none': per-row losses; backward recomputes the chunks with s = grad_output.
struct RowLce : autograd::Function<RowLce> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& w, const Tensor& b,
                        const Tensor& target, const Tensor& cw, const Config& cfg) {
    ctx->save_for_backward({x, w, b, target, cw});
    ctx->saved_data["prob"] = cfg.prob;
    ctx->saved_data["ignore_index"] = cfg.ignore_index;
    ctx->saved_data["label_smoothing"] = cfg.label_smoothing;
    ctx->saved_data["chunk"] = cfg.chunk;
    ctx->saved_data["acc"] = static_cast<int64_t>(cfg.acc);
    ctx->saved_data["accurate"] = cfg.accurate;
    return acc_of(run_all(Problem{x, w, b, target, cw, cfg}, Tensor(), nullptr), x.dtype());
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    check_first_order("backward");
    variable_list saved = ctx->get_saved_variables();
    Config cfg;
    cfg.prob = ctx->saved_data["prob"].toBool();
    cfg.ignore_index = ctx->saved_data["ignore_index"].toInt();
    cfg.label_smoothing = ctx->saved_data["label_smoothing"].toDouble();
    cfg.chunk = ctx->saved_data["chunk"].toInt();
    cfg.acc = static_cast<ScalarType>(ctx->saved_data["acc"].toInt());
    cfg.accurate = ctx->saved_data["accurate"].toBool();
    const Problem p{saved[0], saved[1], saved[2], saved[3], saved[4], cfg};
    Grads g =
        make_grads(p, ctx->needs_input_grad(0), ctx->needs_input_grad(1), ctx->needs_input_grad(2));
    run_all(p, acc_of(grads[0].reshape({-1}), cfg.acc), &g);
    finish_grads(p, g);
    return {g.x, g.w, g.b, Tensor(), Tensor(), Tensor()};
  }
};

/// Checks what both paths share, so that they fail alike.
void check_arguments(const Tensor& input, const Tensor& w, const Tensor& target,
                     const LinearCrossEntropyFuncOptions& o) {
  nn::detail::check_defined(input, kOp);
  nn::detail::check_defined(w, kOp, "linear_weight");
  EMBER_CHECK_TYPE(is_floating_point(input.dtype()) && is_implemented(input.dtype()), "[", kOp,
                   "] \"addmm_impl_cpu_\" not implemented for '", scalar_type_name(input.dtype()),
                   "'");
  nn::detail::check_defined(target, kOp, "target");
  EMBER_CHECK(input.dim() >= 1, "[", kOp,
              "] both arguments to linear need to be at least 1D, but they are ", input.dim(),
              "D and ", w.dim(), "D");
  EMBER_CHECK_VALUE(w.dim() == 2, "[", kOp,
                    "] linear_weight must be 2-D (num_classes, in_features), got ", w.dim(), "-D");
  const int64_t d = input.size(-1), c = w.size(0);
  int64_t n = 1;
  for (int64_t i = 0; i + 1 < input.dim(); ++i) n *= input.size(i);
  EMBER_CHECK(w.size(1) == d, "[", kOp, "] mat1 and mat2 shapes cannot be multiplied (", n, "x", d,
              " and ", w.size(1), "x", c, ")");
  EMBER_CHECK(w.dtype() == input.dtype(), "[", kOp,
              "] expected mat1 and mat2 to have the same dtype, but got: ",
              dtype_name(input.dtype()), " != ", dtype_name(w.dtype()));
  const Tensor& b = o.linear_bias();
  if (b.defined()) {
    EMBER_CHECK(b.dim() == 1 && b.size(0) == c, "[", kOp, "] linear_bias must have shape [", c,
                "], got ", ops::shape_str(b.sizes()));
    EMBER_CHECK(b.dtype() == input.dtype(), "[", kOp,
                "] expected linear_bias to have the input's dtype ", dtype_name(input.dtype()),
                ", got ", dtype_name(b.dtype()));
  }
  const double ls = o.label_smoothing();
  EMBER_CHECK(ls >= 0.0 && ls <= 1.0, "[", kOp,
              "] label_smoothing must be between 0.0 and 1.0. Got: ", ls);
  const Tensor& cw = o.weight();
  EMBER_CHECK(!cw.defined() || (cw.dim() == 1 && cw.numel() == c), "[", kOp,
              "] weight tensor should be defined either for all ", c,
              " classes or no classes but got weight tensor of shape: ",
              ops::shape_str(cw.defined() ? cw.sizes() : std::vector<int64_t>{}));
  std::vector<int64_t> lead = input.sizes();
  lead.pop_back();
  if (is_floating_point(target.dtype())) {
    std::vector<int64_t> want = lead;
    want.push_back(c);
    EMBER_CHECK(target.sizes() == want, "[", kOp,
                "] Expected target with class probabilities of size ", ops::shape_str(want),
                ", got ", ops::shape_str(target.sizes()));
    EMBER_CHECK(!o.ignore_index().has_value(), "[", kOp,
                "] ignore_index is not supported for floating point target");
    return;
  }
  EMBER_CHECK_TYPE(target.dtype() == kInt64, "[", kOp, "] expected scalar type Long but found ",
                   scalar_type_name(target.dtype()));
  EMBER_CHECK_VALUE(target.numel() == n, "[", kOp, "] Expected input batch_size (", n,
                    ") to match target batch_size (", target.numel(), ").");
  EMBER_CHECK(target.sizes() == lead, "[", kOp, "] Expected target size ", ops::shape_str(lead),
              ", got ", ops::shape_str(target.sizes()));
  if (target.numel() == 0 || target.device().is_meta()) return;  // meta: no values to check
  const int64_t ii = o.ignore_index().value_or(-100);
  const Tensor bad = (target != ii).logical_and((target < 0).logical_or(target >= c));
  if (bad.any().item<bool>()) {
    const int64_t v = target.reshape({-1}).index({bad.reshape({-1})}).index({0}).item<int64_t>();
    EMBER_THROW(IndexError, "[", kOp, "] Target ", v, " is out of bounds.");
  }
}

void warn_fallback(const char* why) {
  static std::once_flag once;
  std::call_once(once, [why] {
    std::cerr << "[" << kOp << "] warning: " << why
              << "; falling back to the reference path (logits materialised)\n";
  });
}

}  // namespace

Tensor linear_cross_entropy(const Tensor& input, const Tensor& linear_weight, const Tensor& target,
                            const LinearCrossEntropyFuncOptions& o) {
  check_arguments(input, linear_weight, target, o);
  const Reduction red = nn::detail::reduction_of(o.reduction());
  const bool prob = is_floating_point(target.dtype());
  if (o.options()) o.options()->validate();
  // Meta tensors (shape inference, tracing) have no values for the chunked path's divisor.
  const bool reference =
      !o.options() || (prob && target.requires_grad()) || input.device().is_meta();
  if (o.options() && reference) warn_fallback("a target that requires grad");
  const int64_t d = input.size(-1), c = linear_weight.size(0);
  std::vector<int64_t> lead = input.sizes();
  lead.pop_back();
  int64_t n = 1;
  for (int64_t v : lead) n *= v;
  const Tensor x = input.reshape({n, d});
  const Tensor t = prob ? target.reshape({n, c}) : target.reshape({n});
  if (reference) {
    CrossEntropyFuncOptions ce;
    ce.weight(o.weight()).ignore_index(o.ignore_index().value_or(-100));
    ce.label_smoothing(o.label_smoothing()).reduction(o.reduction());
    const Tensor loss = cross_entropy(linear(x, linear_weight, o.linear_bias()), t, ce);
    return red == Reduction::None ? loss.reshape(lead) : loss;
  }
  const LinearCrossEntropyOptions& opts = *o.options();
  Config cfg;
  cfg.prob = prob;
  cfg.ignore_index = o.ignore_index().value_or(-100);
  cfg.label_smoothing = o.label_smoothing();
  cfg.acc = opts.resolve_acc_dtype(input.dtype());
  cfg.accurate = opts.resolve_acc_policy(input.dtype()) == "accurate";
  cfg.chunk =
      std::clamp<int64_t>(opts.resolve_chunk(n, d, c, input.dtype()), 1, std::max<int64_t>(n, 1));
  cfg.reduction = red;
  cfg.allow_retain_graph = opts.allow_retain_graph();
  const Tensor cw = o.weight().defined() ? acc_of(o.weight(), cfg.acc) : Tensor();
  if (red == Reduction::None) {
    return RowLce::apply(x, linear_weight, o.linear_bias(), t, cw, cfg).reshape(lead);
  }
  return ScalarLce::apply(x, linear_weight, o.linear_bias(), t, cw, cfg);
}

}  // namespace ember::nn::functional
