// Finite-difference checks of gradients (torch.autograd.gradcheck / gradgradcheck).
#include <cmath>
#include <sstream>

#include "ember/autograd.h"
#include "ember/ember.h"

namespace ember::autograd {
namespace {

// Element k of t (row-major) as a double, and t with element k changed, as a new tensor.
Tensor perturbed(const Tensor& t, int64_t k, double delta) {
  Tensor c = t.detach().to(kFloat64, false, true).contiguous();
  c.data_ptr<double>()[k] += delta;
  // Kept differentiable: gradgradcheck's function differentiates its inputs again.
  return c.to(t.dtype()).requires_grad_(t.requires_grad());
}

std::vector<double> flat(const Tensor& t) {
  return t.detach().contiguous().to(kFloat64).reshape({-1}).tolist<double>();
}

std::vector<Tensor> call(const DifferentiableFn& fn, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> out = fn(inputs);
  for (auto& o : out) {
    if (o.defined() && !o.is_floating_point()) o = Tensor();
  }
  return out;
}

}  // namespace

bool gradcheck(const DifferentiableFn& fn, const std::vector<Tensor>& inputs, double eps,
               double atol, double rtol, bool raise_exception) {
  std::vector<size_t> diff;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].defined() && inputs[i].requires_grad()) diff.push_back(i);
  }
  EMBER_CHECK_VALUE(!diff.empty(),
                    "[gradcheck] gradcheck expects at least one input tensor to "
                    "require gradient, but none of the them have requires_grad=True.");
  std::vector<Tensor> outputs = call(fn, inputs);
  std::vector<Tensor> roots;
  std::vector<size_t> root_index;
  for (size_t j = 0; j < outputs.size(); ++j) {
    if (outputs[j].defined()) roots.push_back(outputs[j]), root_index.push_back(j);
  }
  std::ostringstream failure;
  // Numerical Jacobian columns: d outputs / d input element, by central differences.
  for (size_t i : diff) {
    const int64_t n_in = inputs[i].numel();
    std::vector<std::vector<std::vector<double>>> numerical(outputs.size());  // [out][in_k][out_m]
    for (int64_t k = 0; k < n_in; ++k) {
      std::vector<Tensor> plus = inputs, minus = inputs;
      plus[i] = perturbed(inputs[i], k, eps);
      minus[i] = perturbed(inputs[i], k, -eps);
      auto fp = call(fn, plus), fm = call(fn, minus);
      for (size_t j = 0; j < outputs.size(); ++j) {
        if (!outputs[j].defined()) continue;
        EMBER_CHECK(j < fp.size() && j < fm.size() && fp[j].defined() && fm[j].defined(),
                    "[gradcheck] the function returned a different number of outputs for "
                    "perturbed inputs");
        auto a = flat(fp[j]), b = flat(fm[j]);
        std::vector<double> col(a.size());
        for (size_t m = 0; m < a.size(); ++m) col[m] = (a[m] - b[m]) / (2 * eps);
        numerical[j].push_back(std::move(col));
      }
    }
    // Analytical rows: one backward per output element.
    for (size_t j = 0; j < outputs.size(); ++j) {
      if (!outputs[j].defined()) continue;
      const int64_t n_out = outputs[j].numel();
      for (int64_t m = 0; m < n_out; ++m) {
        std::vector<double> row(n_in, 0.0);
        if (outputs[j].requires_grad()) {
          Tensor go = zeros(outputs[j].sizes(), TensorOptions().dtype(outputs[j].dtype()));
          go.view({-1}).narrow(0, m, 1).fill_(1);
          auto g = grad({outputs[j]}, {inputs[i]}, {go}, /*retain_graph=*/true,
                        /*create_graph=*/false, /*allow_unused=*/true);
          if (g[0].defined()) {
            EMBER_CHECK(g[0].sizes() == inputs[i].sizes(), "[gradcheck] gradient for input ", i,
                        " has the wrong shape");
            row = flat(g[0]);
          }
        }
        for (int64_t k = 0; k < n_in; ++k) {
          const double num = numerical[j][k][m], ana = row[k];
          const bool ok = std::abs(ana - num) <= atol + rtol * std::abs(num) ||
                          (std::isnan(ana) && std::isnan(num));
          if (!ok && failure.tellp() == 0) {
            failure << "Jacobian mismatch for output " << j << " with respect to input " << i
                    << " at entry (output element " << m << ", input element " << k
                    << "): numerical " << num << ", analytical " << ana;
          }
        }
      }
    }
  }
  if (failure.tellp() == 0) return true;
  if (raise_exception) throw GradcheckError("[gradcheck] " + failure.str());
  return false;
}

bool gradgradcheck(const DifferentiableFn& fn, const std::vector<Tensor>& inputs, double eps,
                   double atol, double rtol, bool raise_exception) {
  std::vector<Tensor> outputs = call(fn, inputs);
  // Random grad_outputs, themselves differentiated.
  std::vector<Tensor> grad_outputs;
  for (const auto& o : outputs) {
    if (!o.defined()) continue;
    Tensor g = empty_like(o).uniform_(-1, 1);
    grad_outputs.push_back(g.requires_grad_());
  }
  std::vector<size_t> diff;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].defined() && inputs[i].requires_grad()) diff.push_back(i);
  }
  const size_t n_in = inputs.size();
  DifferentiableFn first = [&](const std::vector<Tensor>& args) {
    std::vector<Tensor> in(args.begin(), args.begin() + n_in);
    std::vector<Tensor> go(args.begin() + n_in, args.end());
    std::vector<Tensor> outs;
    for (const auto& o : call(fn, in)) {
      if (o.defined()) outs.push_back(o);
    }
    std::vector<Tensor> wrt;
    for (size_t i : diff) wrt.push_back(in[i]);
    std::vector<Tensor> needs_graph, used_go;
    for (size_t j = 0; j < outs.size(); ++j) {
      if (outs[j].requires_grad()) needs_graph.push_back(outs[j]), used_go.push_back(go[j]);
    }
    if (needs_graph.empty()) return std::vector<Tensor>{};
    auto g = grad(needs_graph, wrt, used_go, true, /*create_graph=*/true, /*allow_unused=*/true);
    for (size_t k = 0; k < g.size(); ++k) {
      if (!g[k].defined()) g[k] = zeros_like(wrt[k]);
    }
    return g;
  };
  std::vector<Tensor> args = inputs;
  args.insert(args.end(), grad_outputs.begin(), grad_outputs.end());
  return gradcheck(first, args, eps, atol, rtol, raise_exception);
}

}  // namespace ember::autograd
