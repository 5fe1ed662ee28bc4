// Per-op overhead and a small training step, written once with libtorch's names and built twice:
// against Ember (the bench_steps target) and against libtorch (scripts/bench.sh compiles it with
// -DEMBER_BENCH_LIBTORCH), so both sides run the same source. bench/peers/ops_peer.py runs the
// same cases in PyTorch from Python. See Note [Side-by-side cases] in bench_common.h.
//
//   dispatch_add        a 1-element add, no autograd (time per add)
//   dispatch_add_grad   the same add recording autograd (one input requires grad)
//   mlp_step            MLP 784-512-512-10, batch 256: forward, cross_entropy, backward, AdamW
#include "bench_common.h"

namespace {

using bench::Case;
using bench::Outputs;

// Adds per timed call: the per-call bookkeeping (the returned vector) is then negligible.
// scripts/bench.sh divides by it (the "inner" counter).
constexpr int64_t kInner = 1000;

bench::Body tiny_add(bool record) {
  torch::Tensor a = torch::ones({1}), b = torch::ones({1});
  if (record) a.requires_grad_(true);
  return [a, b] {
    torch::Tensor c;
    for (int64_t i = 0; i < kInner; ++i) c = a + b;
    return Outputs{c};
  };
}

torch::nn::Sequential make_mlp() {
  torch::nn::Sequential mlp(torch::nn::Linear(784, 512), torch::nn::ReLU(),
                            torch::nn::Linear(512, 512), torch::nn::ReLU(),
                            torch::nn::Linear(512, 10));
  torch::NoGradGuard no_grad;
  uint64_t seed = 100;  // ops_peer.py initialises its parameters in the same order
  for (torch::Tensor& p : mlp->parameters()) {
    std::vector<int64_t> shape(p.sizes().begin(), p.sizes().end());
    p.copy_(bench::pattern(shape, seed++, -0.05, 0.05));
  }
  return mlp;
}

struct MlpStep {
  torch::nn::Sequential mlp = make_mlp();
  torch::optim::AdamW opt{mlp->parameters(), torch::optim::AdamWOptions(1e-3)};
  torch::Tensor x = bench::pattern({256, 784}, 7, 0.0, 1.0), y = bench::pattern_classes(256, 10, 8);

  torch::Tensor step() {
    opt.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(mlp->forward(x), y);
    loss.backward();
    opt.step();
    return loss;
  }
};

bench::Body mlp_body() {
  auto s = std::make_shared<MlpStep>();
  return [s] { return Outputs{s->step()}; };
}

// The check runs three steps from the fixed initialisation: their losses, then the logits.
bench::Body mlp_check() {
  auto s = std::make_shared<MlpStep>();
  return [s] {
    torch::Tensor l0 = s->step(), l1 = s->step(), l2 = s->step();
    torch::NoGradGuard no_grad;
    return Outputs{torch::stack({l0, l1, l2}), s->mlp->forward(s->x)};
  };
}

}  // namespace

int main(int argc, char** argv) {
  bool checking = false;
  for (int i = 1; i < argc; ++i) checking = checking || std::strncmp(argv[i], "--check=", 8) == 0;
  const std::vector<Case> cases = {
      {"dispatch_add", [] { return tiny_add(false); }, kInner},
      {"dispatch_add_grad", [] { return tiny_add(true); }, kInner},
      {"mlp_step", checking ? mlp_check : mlp_body},
  };
  return bench::run_main(argc, argv, cases);
}
