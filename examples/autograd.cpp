// An autograd walk-through in libtorch style (after PyTorch's "Autograd in C++ frontend"
// tutorial): gradients of a scalar, vector-Jacobian products, hooks, higher-order gradients,
// NoGradGuard and a custom autograd function. Each step checks itself against a closed form and
// the program exits non-zero if any check fails.
#include <ember/torch.h>

#include <cmath>
#include <cstdio>
#include <iostream>

namespace {

int failures = 0;

void check(bool ok, const char* what) {
  std::printf("  [%s] %s\n", ok ? "ok" : "FAILED", what);
  if (!ok) ++failures;
}

bool close(const torch::Tensor& a, const torch::Tensor& b) {
  return torch::allclose(a, b, 1e-5, 1e-6);
}

// y = x * exp(x) with its own backward: dy/dx = (1 + x) exp(x).
struct MulExp : public torch::autograd::Function<MulExp> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor x) {
    ctx->save_for_backward({x});
    return x * x.exp();
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    torch::Tensor x = ctx->get_saved_variables()[0];
    return {grad_outputs[0] * (1 + x) * x.exp()};
  }
};

}  // namespace

int main() {
  std::printf("1. Gradient of a scalar\n");
  torch::Tensor x = torch::ones({2, 2}, torch::requires_grad());
  torch::Tensor y = x + 2;
  std::cout << "  y.grad_fn: " << y.grad_fn()->name() << "\n";
  torch::Tensor z = y * y * 3;
  torch::Tensor out = z.mean();
  out.backward();
  // out = mean(3 (x + 2)^2): d out / dx = 6 (x + 2) / 4 = 4.5 at x = 1.
  check(close(x.grad(), torch::full({2, 2}, 4.5)), "d mean(3 (x + 2)^2) / dx = 4.5");

  std::printf("2. Vector-Jacobian product\n");
  torch::Tensor a = torch::tensor({0.5, -1.0, 2.0}, torch::requires_grad());
  torch::Tensor b = a * a * a;
  torch::Tensor v = torch::tensor({1.0, 0.1, 0.01});
  b.backward(v);
  check(close(a.grad(), v * 3 * a.detach() * a.detach()), "v^T J of a^3 is v * 3 a^2");

  std::printf("3. Hooks\n");
  torch::Tensor h = torch::tensor({1.0, 2.0}, torch::requires_grad());
  h.register_hook([](torch::Tensor grad) { return grad * 10; });
  (h * h).sum().backward();
  check(close(h.grad(), torch::tensor({20.0, 40.0})), "a hook scales the gradient by 10");

  std::printf("4. Higher-order gradients\n");
  torch::Tensor t = torch::tensor({1.5}, torch::requires_grad());
  torch::Tensor f = t.pow(4);
  torch::Tensor df = torch::autograd::grad({f}, {t}, {}, /*retain_graph=*/true,
                                           /*create_graph=*/true)[0];
  torch::Tensor d2f = torch::autograd::grad({df}, {t})[0];
  check(std::abs(df.item<float>() - 4 * std::pow(1.5, 3)) < 1e-4, "d t^4 / dt = 4 t^3");
  check(std::abs(d2f.item<float>() - 12 * 1.5 * 1.5) < 1e-4, "d^2 t^4 / dt^2 = 12 t^2");

  std::printf("5. NoGradGuard\n");
  {
    torch::NoGradGuard no_grad;
    torch::Tensor w = x * 2;
    check(!w.requires_grad(), "no graph is recorded under NoGradGuard");
  }
  check((x * 2).requires_grad(), "recording resumes after the guard");

  std::printf("6. A custom autograd function\n");
  torch::Tensor c = torch::tensor({0.0, 1.0, -2.0}, torch::requires_grad());
  MulExp::apply(c).sum().backward();
  check(close(c.grad(), (1 + c.detach()) * c.detach().exp()), "custom backward (1 + x) e^x");

  std::printf("%s\n", failures == 0 ? "all checks passed" : "some checks FAILED");
  return failures == 0 ? 0 : 1;
}
