// c10d's names (<c10d/ProcessGroupMPI.hpp>) and libtorch's DistributedRandomSampler, as
// pytorch/examples' cpp/distributed uses them. The MPI group itself runs under mpirun in
// scripts/pytorch-examples.sh; here the same front runs over gloo in forked ranks.
#include <gtest/gtest.h>

#include "distributed/multiprocess.h"
#include "ember/libtorch/c10d/ProcessGroupMPI.hpp"
#include "ember/torch.h"
#include "opdb.h"

namespace ember {
namespace {

using test::expect_errors;
using testing_dist::run_children;
using testing_dist::unused_port;

std::vector<std::vector<size_t>> batches(torch::data::samplers::DistributedRandomSampler& s,
                                         size_t batch_size) {
  std::vector<std::vector<size_t>> out;
  while (auto b = s.next(batch_size)) out.push_back(*b);
  return out;
}

// Expected batches as libtorch 1.13 prints them for the same calls (both shuffle with
// std::mt19937 and std::shuffle of the same standard library).
TEST(DistributedRandomSampler, MatchesLibtorch) {
  using torch::data::samplers::DistributedRandomSampler;
  using B = std::vector<std::vector<size_t>>;
  // 10 samples over 3 replicas, duplicates allowed: 4 each, indices 10 and 11 wrap to 0 and 1.
  const B with_dups[3] = {{{0, 2, 1}, {5}}, {{9, 1, 4}, {7}}, {{6, 0, 3}, {8}}};
  const B without_dups[3] = {{{2, 4}, {6}}, {{0, 5}, {1}}, {{8, 3}, {7}}};
  for (size_t rank = 0; rank < 3; ++rank) {
    DistributedRandomSampler a(10, 3, rank, true);
    EXPECT_EQ(batches(a, 3), with_dups[rank]) << "rank " << rank;
    EXPECT_EQ(a.local_sample_count(), 4u);
    DistributedRandomSampler b(10, 3, rank, false);
    EXPECT_EQ(batches(b, 2), without_dups[rank]) << "rank " << rank;
  }
  DistributedRandomSampler s(7, 2, 1, true);
  EXPECT_EQ(batches(s, 10), (B{{3, 6, 4, 0}}));
  s.set_epoch(3);
  s.reset();
  EXPECT_EQ(batches(s, 10), (B{{2, 6, 4, 0}}));
  EXPECT_EQ(s.index(), 8u);
  DistributedRandomSampler one(5);
  EXPECT_EQ(batches(one, 2), (B{{2, 4}, {3, 0}, {1}}));
  // Through make_data_loader with a sampler given by value, as cpp/distributed does.
  auto dataset = torch::data::datasets::TensorDataset(torch::arange(10, torch::kFloat32));
  auto loader = torch::data::make_data_loader(std::move(dataset),
                                              DistributedRandomSampler(10, 3, 2, false), 2);
  std::vector<float> seen;
  for (auto& batch : *loader) {
    for (const auto& example : batch) seen.push_back(example.data.item<float>());
  }
  EXPECT_EQ(seen, (std::vector<float>{8, 3, 7}));
  expect_errors<ValueError>({{"rank out of range", [] { (void)DistributedRandomSampler(4, 2, 2); },
                              "[DistributedRandomSampler] rank must be in [0, 2), got 2"}});
}

// The suite name keeps this forking test out of the sanitizer shards (Note [Sanitizer test
// shards]).
TEST(ProcessGroup, C10dNamesOverEmberDistributed) {
  const uint16_t port = unused_port();
  auto status = run_children(2, [&](int rank) {
    ::setenv("RANK", std::to_string(rank).c_str(), 1);
    ::setenv("WORLD_SIZE", "2", 1);
    ::setenv("MASTER_ADDR", "127.0.0.1", 1);
    ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
    namespace dist = ember::distributed;
    dist::init_process_group("gloo");
    auto pg = std::make_shared<c10d::ProcessGroup>();
    if (pg->getRank() != rank || pg->getSize() != 2 || pg->getBackendName() != "gloo") return 1;
    // cpp/distributed's averaging of gradients: allreduce, wait, divide through .data().
    Tensor w = torch::full({3}, 1.0, torch::requires_grad());
    (w * (rank + 1)).sum().backward();  // grads 1 and 2
    std::vector<std::shared_ptr<c10d::ProcessGroup::Work>> works;
    std::vector<Tensor> tmp = {w.grad()};
    works.push_back(pg->allreduce(tmp));
    for (auto& work : works) {
      if (!work->wait()) return 2;
    }
    w.grad().data() = w.grad().data() / pg->getSize();
    if (!w.grad().equal(torch::full({3}, 1.5))) return 3;
    std::vector<Tensor> b = {torch::full({2}, static_cast<double>(rank))};
    c10d::BroadcastOptions opts;
    opts.rootRank = 1;
    pg->broadcast(b, opts)->wait();
    if (!b[0].equal(torch::full({2}, 1.0))) return 4;
    c10d::AllreduceOptions max;
    max.reduceOp = c10d::ReduceOp::MAX;
    std::vector<Tensor> m = {torch::tensor({static_cast<double>(rank)})};
    pg->allreduce(m, max)->wait();
    if (m[0].item<double>() != 1.0) return 5;
    pg->barrier()->wait();
    std::vector<Tensor> two = {w, w};
    bool raised = false;
    try {
      pg->allreduce(two);
    } catch (const ValueError& e) {
      raised = std::string(e.what()).find("expects exactly one tensor") != std::string::npos;
    }
    if (!raised) return 6;
    raised = false;
    try {
      c10d::ProcessGroupMPI::createProcessGroupMPI();
    } catch (const RuntimeError& e) {
      raised = std::string(e.what()).find("uses the gloo backend, not mpi") != std::string::npos;
    }
    if (!raised) return 7;
    c10d::ProcessGroupMPI aborted(dist::get_default_group());
    aborted.abort();
    raised = false;
    try {
      aborted.allreduce(tmp);
    } catch (const RuntimeError& e) {
      raised = std::string(e.what()).find("the process group was aborted") != std::string::npos;
    }
    if (!raised) return 8;
    dist::destroy_process_group();
    return 0;
  });
  for (int r = 0; r < 2; ++r) EXPECT_EQ(status[r], 0) << "rank " << r;
}

}  // namespace
}  // namespace ember
