// Written for libtorch; built against an installed Ember through find_package(Torch).
#include <torch/torch.h>

#include <iostream>

int main() {
  torch::manual_seed(0);
  auto net = torch::nn::Linear(3, 1);
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1));
  auto x = torch::randn({16, 3});
  auto y = x.sum(1, /*keepdim=*/true);
  double first = 0, last = 0;
  for (int step = 0; step < 50; ++step) {
    opt.zero_grad();
    auto loss = torch::mse_loss(net->forward(x), y);
    loss.backward();
    opt.step();
    (step == 0 ? first : last) = loss.item<double>();
  }
  std::cout << "loss " << first << " -> " << last << std::endl;
  return last < first / 10 ? 0 : 1;
}
