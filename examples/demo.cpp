// Ember demo: eager tensors in libtorch spelling. Fits a linear model y = X w + b by gradient
// descent written with plain tensor ops (autograd arrives with its own issue), then compares the
// result with the weights that generated the data. Replaced by `ember train` once the main job
// lands.
#include <ember/ember.h>

#include <cstdio>
#include <iostream>

int main() {
  ember::manual_seed(0);
  std::printf("Ember %s, %d threads\n\n", ember::version(), ember::get_num_threads());

  const int64_t n = 4096, d = 8;
  ember::Tensor w_true = ember::linspace(-2.0, 2.0, d).unsqueeze(1);  // [d, 1]
  const double b_true = 0.5;
  ember::Tensor X = ember::randn({n, d});
  ember::Tensor y = X.matmul(w_true) + b_true + 0.01 * ember::randn({n, 1});

  ember::Tensor w = ember::zeros({d, 1});
  ember::Tensor b = ember::zeros({1});
  const double lr = 0.1;
  for (int step = 0; step <= 200; ++step) {
    ember::Tensor err = X.matmul(w) + b - y;  // [n, 1]
    ember::Tensor loss = (err * err).mean();
    if (step % 40 == 0) std::printf("step %3d  mse %.6f\n", step, loss.item<double>());
    w -= lr * 2.0 / n * X.t().matmul(err);
    b -= lr * 2.0 * err.mean();
  }

  std::cout << "\nlearned w: " << w.squeeze() << "\ntrue w:    " << w_true.squeeze()
            << "\nlearned b: " << b << "  (true " << b_true << ")\n";
  double max_err = (w - w_true).abs().max().item<double>();
  std::printf("max |w - w_true| = %.2e\n", max_err);
  return max_err < 1e-2 ? 0 : 1;
}
