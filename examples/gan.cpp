// A small generative adversarial network in libtorch style: a generator turns noise into numbers
// and a discriminator learns to tell them from samples of N(4, 1.25^2). Both are
// torch::nn::Sequential stacks trained with Adam and a BCE loss, as libtorch's DCGAN example
// does; at the end the generated distribution's mean and spread should match the real one.
// Usage: ember_gan [steps]
#include <ember/torch.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace {
constexpr int64_t kNoise = 8;
constexpr int64_t kBatch = 64;
constexpr double kMean = 4.0, kStd = 1.25;
}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 3000;
  torch::manual_seed(7);

  torch::nn::Sequential generator(
      torch::nn::Linear(kNoise, 32),
      torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
      torch::nn::Linear(32, 32),
      torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
      torch::nn::Linear(32, 1));
  torch::nn::Sequential discriminator(
      torch::nn::Linear(1, 32),
      torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
      torch::nn::Linear(32, 32),
      torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
      torch::nn::Linear(32, 1), torch::nn::Sigmoid());

  torch::optim::Adam g_opt(generator->parameters(),
                           torch::optim::AdamOptions(1e-3).betas(std::make_tuple(0.5, 0.999)));
  torch::optim::Adam d_opt(discriminator->parameters(),
                           torch::optim::AdamOptions(1e-3).betas(std::make_tuple(0.5, 0.999)));
  torch::nn::BCELoss bce;

  for (int step = 1; step <= steps; ++step) {
    // Discriminator: real samples labelled 1 (smoothed to 0.9), generated ones 0.
    torch::Tensor real = torch::randn({kBatch, 1}) * kStd + kMean;
    torch::Tensor real_labels = torch::full({kBatch, 1}, 0.9);
    torch::Tensor fake = generator->forward(torch::randn({kBatch, kNoise}));
    torch::Tensor fake_labels = torch::zeros({kBatch, 1});
    d_opt.zero_grad();
    torch::Tensor d_loss = bce(discriminator->forward(real), real_labels) +
                           bce(discriminator->forward(fake.detach()), fake_labels);
    d_loss.backward();
    d_opt.step();

    // Generator: make the discriminator call its samples real.
    g_opt.zero_grad();
    torch::Tensor g_loss = bce(discriminator->forward(fake), torch::ones({kBatch, 1}));
    g_loss.backward();
    g_opt.step();

    if (step % 500 == 0) {
      std::printf("step %5d  D loss %.4f  G loss %.4f\n", step, d_loss.item<float>(),
                  g_loss.item<float>());
    }
  }

  torch::NoGradGuard no_grad;
  torch::Tensor samples = generator->forward(torch::randn({4096, kNoise}));
  const double mean = samples.mean().item<float>(), std = samples.std().item<float>();
  std::printf("generated: mean %.3f std %.3f   (real: mean %.3f std %.3f)\n", mean, std, kMean,
              kStd);
  // A histogram of the generated values, one row per bin.
  torch::Tensor hist = torch::histc(samples, 12, 0, 8);
  for (int64_t i = 0; i < 12; ++i) {
    const int bar = static_cast<int>(hist[i].item<float>() / 4096 * 120);
    std::printf("%5.2f | %s\n", i * 8.0 / 12, std::string(bar, '#').c_str());
  }
  const bool ok = std::abs(mean - kMean) < 0.5 && std::abs(std - kStd) < 0.6;
  std::printf("%s\n", ok ? "the generator matches the data" : "the generator did NOT converge");
  return ok ? 0 : 1;
}
