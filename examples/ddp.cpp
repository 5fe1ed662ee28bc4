// Data-parallel training with DistributedDataParallel and DistributedSampler: every rank fits the
// same linear model on its own share of each epoch's samples, and DDP averages the gradients.
// Run it through the launcher, which sets RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT:
//   build/default/ember run --nproc-per-node 2 -- build/default/examples/ember_ddp
// Exits non-zero when the ranks' weights differ or the fit is off.
#include <ember/data.h>
#include <ember/distributed.h>
#include <ember/ember.h>
#include <ember/nn.h>
#include <ember/optim.h>

#include <cstdio>

namespace dist = ember::distributed;
namespace F = ember::nn::functional;

int main() {
  dist::init_process_group("gloo");  // env:// rendezvous
  const int64_t rank = dist::get_rank();

  // The same dataset on every rank: y = x . (1, -2, 3, 0.5) + 0.25.
  ember::manual_seed(0);
  const ember::Tensor x = ember::randn({512, 4});
  const ember::Tensor w_true = ember::tensor({1.0f, -2.0f, 3.0f, 0.5f});
  const ember::Tensor y = x.matmul(w_true).unsqueeze(1) + 0.25;

  ember::manual_seed(static_cast<uint64_t>(100 + rank));  // DDP starts every rank from rank 0's
  ember::nn::Linear model(4, 1);
  ember::nn::parallel::DistributedDataParallel ddp(model);
  ember::optim::SGD opt(model->parameters(), ember::optim::SGDOptions(0.1));
  ember::data::DistributedSampler sampler(512);  // num_replicas and rank from the group

  double loss = 0;
  for (size_t epoch = 0; epoch < 10; ++epoch) {
    sampler.set_epoch(epoch);
    sampler.reset();
    while (auto batch = sampler.next(32)) {
      std::vector<int64_t> rows(batch->begin(), batch->end());
      const ember::Tensor idx = ember::tensor(rows);
      opt.zero_grad();
      ember::Tensor l = F::mse_loss(ddp(x.index_select(0, idx)), y.index_select(0, idx));
      l.backward();
      opt.step();
      loss = l.item<double>();
    }
  }

  // Every rank must hold the same weights: their spread across ranks is zero.
  ember::Tensor w = model->weight.detach().reshape({-1});
  ember::Tensor lo = w.clone(), hi = w.clone();
  dist::all_reduce(lo, dist::ReduceOp::MIN);
  dist::all_reduce(hi, dist::ReduceOp::MAX);
  const bool same = hi.sub(lo).abs().max().item<double>() == 0.0;
  const bool fit = w.allclose(w_true, 0, 1e-3) && loss < 1e-5;
  if (rank == 0) {
    std::printf("weights (%.4f, %.4f, %.4f, %.4f), bias %.4f, last loss %.2e: %s\n",
                w[0].item<double>(), w[1].item<double>(), w[2].item<double>(), w[3].item<double>(),
                model->bias[0].item<double>(), loss, same && fit ? "ok" : "WRONG");
  }
  dist::destroy_process_group();
  return same && fit ? 0 : 1;
}
