// Polynomial regression in plain libtorch style: fit y = 0.5 x^3 - 1.2 x^2 + 0.3 x + 2 (plus
// noise) with one torch::nn::Linear over the features [x, x^2, x^3], SGD and an MSE loss. Prints
// the learned polynomial next to the true one. Usage: ember_regression [steps]
#include <ember/torch.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

constexpr int64_t kDegree = 3;
const double kTrueWeights[kDegree] = {0.3, -1.2, 0.5};
const double kTrueBias = 2.0;

// [x, x^2, x^3] for a column of x.
torch::Tensor features(const torch::Tensor& x) { return torch::cat({x, x.pow(2), x.pow(3)}, 1); }

// A batch of (features, targets) with x uniform in [-1, 1).
std::pair<torch::Tensor, torch::Tensor> get_batch(int64_t batch_size) {
  torch::Tensor x = torch::rand({batch_size, 1}) * 2 - 1;
  torch::Tensor w =
      torch::tensor({kTrueWeights[0], kTrueWeights[1], kTrueWeights[2]}, torch::kFloat32)
          .unsqueeze(1);
  torch::Tensor y = features(x).mm(w) + kTrueBias + 0.01 * torch::randn({batch_size, 1});
  return {features(x), y};
}

std::string poly(const torch::Tensor& w, double b) {
  std::string s;
  char buf[64];
  for (int64_t i = kDegree - 1; i >= 0; --i) {
    std::snprintf(buf, sizeof buf, "%+.3f x^%lld ", w[i].item<float>(),
                  static_cast<long long>(i + 1));
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "%+.3f", b);
  return s + buf;
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 2000;
  torch::manual_seed(1);
  torch::nn::Linear fc(kDegree, 1);
  torch::optim::SGD optimizer(fc->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));

  float loss_value = 0;
  for (int step = 1; step <= steps; ++step) {
    auto [x, y] = get_batch(32);
    optimizer.zero_grad();
    torch::Tensor loss = torch::mse_loss(fc->forward(x), y);
    loss.backward();
    optimizer.step();
    loss_value = loss.item<float>();
    if (step % 500 == 0) std::printf("step %5d  loss %.6f\n", step, loss_value);
  }
  torch::Tensor w_true = torch::tensor({kTrueWeights[0], kTrueWeights[1], kTrueWeights[2]});
  std::printf("learned: y = %s\n", poly(fc->weight.view({-1}), fc->bias.item<float>()).c_str());
  std::printf("true:    y = %s\n", poly(w_true, kTrueBias).c_str());
  // Success when the fit is close to the noise floor (variance 1e-4).
  return loss_value < 1e-3 ? 0 : 1;
}
