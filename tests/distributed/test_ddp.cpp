// DistributedDataParallel on forked gloo ranks: training equals one process on the full batch,
// buckets reduce in order while backward runs, no_sync accumulates, unused parameters, and model
// mismatches. References are computed in each child with plain modules (no communication).
#include "distributed/dist_test_util.h"
#include "ember/nn.h"
#include "ember/optim.h"

using namespace ember;
using namespace ember::testing_dist;
namespace F = ember::nn::functional;
using ember::nn::parallel::DistributedDataParallel;
using ember::nn::parallel::DistributedDataParallelOptions;

namespace {

constexpr int64_t kIn = 5, kOut = 3, kBatch = 12;  // kBatch divides among 1, 2, 3, 4 ranks

nn::Sequential make_mlp(uint64_t seed) {
  manual_seed(seed);
  nn::Sequential m(nn::Linear(kIn, 8), nn::Tanh(), nn::Linear(8, 6), nn::Tanh(),
                   nn::Linear(6, kOut));
  m->to(kFloat64);
  return m;
}

// Rows [begin, end) of the global batch: known smooth functions of (row, column).
Tensor inputs(int64_t begin, int64_t end) {
  Tensor x = empty({end - begin, kIn}, kFloat64);
  double* p = x.data_ptr<double>();
  for (int64_t i = begin; i < end; ++i)
    for (int64_t j = 0; j < kIn; ++j) p[(i - begin) * kIn + j] = std::sin(0.3 * i + 0.7 * j + 0.1);
  return x;
}
Tensor targets(int64_t begin, int64_t end) {
  Tensor y = empty({end - begin, kOut}, kFloat64);
  double* p = y.data_ptr<double>();
  for (int64_t i = begin; i < end; ++i)
    for (int64_t k = 0; k < kOut; ++k) p[(i - begin) * kOut + k] = std::cos(0.5 * i - 0.2 * k);
  return y;
}

// Whether every tensor of a equals the one of b to float64 rounding.
bool close(const std::vector<Tensor>& a, const std::vector<Tensor>& b, const char* what) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].defined() || !b[i].defined()) {
      std::fprintf(stderr, "%s %zu: undefined\n", what, i);
      return false;
    }
    if (!holds(a[i], values(b[i]), std::string(what) + " " + std::to_string(i))) return false;
  }
  return true;
}
std::vector<Tensor> grads(const std::vector<Tensor>& params) {
  std::vector<Tensor> g;
  for (const auto& p : params) g.push_back(p.grad());
  return g;
}

// N SGD steps: DDP, each rank on its shard, against one plain model on the whole batch. Ranks
// start from different weights; DDP's broadcast makes them rank 0's (seed 100).
int trains_like_full_batch(int rank, int world, DistributedDataParallelOptions options) {
  constexpr int kSteps = 5;
  nn::Sequential ref = make_mlp(100);
  optim::SGD ref_opt(ref->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  nn::Sequential model = make_mlp(100 + static_cast<uint64_t>(rank));
  DistributedDataParallel ddp(model, options);
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  DIST_CHILD_CHECK(close(model->parameters(), ref->parameters(), "broadcast parameter"));
  const int64_t shard = kBatch / world, begin = rank * shard;
  for (int step = 0; step < kSteps; ++step) {
    ref_opt.zero_grad();
    F::mse_loss(ref->forward(inputs(0, kBatch)), targets(0, kBatch)).backward();
    ref_opt.step();
    opt.zero_grad();
    F::mse_loss(ddp(inputs(begin, begin + shard)), targets(begin, begin + shard)).backward();
    DIST_CHILD_CHECK(close(grads(model->parameters()), grads(ref->parameters()), "gradient"));
    opt.step();
  }
  DIST_CHILD_CHECK(close(model->parameters(), ref->parameters(), "parameter"));
  if (options.gradient_as_bucket_view()) {
    // .grad lives in the bucket: consecutive parameters of one bucket are adjacent in memory.
    const auto params = model->parameters();
    for (const auto& bucket : ddp.bucket_indices())
      for (size_t k = 1; k < bucket.size(); ++k) {
        const Tensor &g = params[bucket[k]].grad(), &prev = params[bucket[k - 1]].grad();
        DIST_CHILD_CHECK(g.data_ptr<double>() == prev.data_ptr<double>() + prev.numel());
      }
  }
  return 0;
}

class DistributedDataParallelWorld : public ::testing::TestWithParam<int> {};

TEST_P(DistributedDataParallelWorld, TrainsLikeOneProcessOnTheFullBatch) {
  const int world = GetParam();
  run_world(world, [world](int rank) {
    const DistributedDataParallelOptions tiny =
        DistributedDataParallelOptions().bucket_cap_mb(1e-6);
    for (const auto& options : {DistributedDataParallelOptions(), tiny,
                                DistributedDataParallelOptions(tiny).gradient_as_bucket_view(true),
                                DistributedDataParallelOptions().gradient_as_bucket_view(true)}) {
      if (int rc = trains_like_full_batch(rank, world, options)) return rc;
    }
    return 0;
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, DistributedDataParallelWorld, ::testing::Values(2, 4));

TEST(DistributedDataParallel, TrainsOnASubgroup) {
  run_world(3, [](int rank) {
    auto sub = dist::new_group({1, 2});  // rank 1 is the subgroup's first: its weights win
    if (rank == 0) {
      nn::Sequential model = make_mlp(1);
      try {
        DistributedDataParallel ddp(model, DistributedDataParallelOptions().process_group(sub));
      } catch (const ValueError& e) {
        return std::string(e.what()).find("not a member") != std::string::npos ? 0 : 1;
      }
      return 1;
    }
    return trains_like_full_batch(rank - 1, 2, DistributedDataParallelOptions().process_group(sub));
  });
}

TEST(DistributedDataParallel, BucketsReduceInOrderWhileBackwardRuns) {
  run_world(2, [](int rank) {
    nn::Sequential model = make_mlp(7);
    DistributedDataParallel ddp(model, DistributedDataParallelOptions().bucket_cap_mb(1e-6));
    const auto params = model->parameters();  // 3 weights and 3 biases
    // One parameter per bucket, last parameter first.
    const std::vector<std::vector<size_t>> want = {{5}, {4}, {3}, {2}, {1}, {0}};
    DIST_CHILD_CHECK(ddp.bucket_indices() == want);
    std::vector<size_t> order;
    std::vector<bool> first_grad_pending;
    ddp.register_comm_hook([&](dist::GradBucket& bucket) {
      order.push_back(bucket.index());
      // The first layer's weight is the last gradient backward computes.
      first_grad_pending.push_back(!params[0].grad().defined());
      if (bucket.parameters().size() != 1 ||
          !bucket.parameters()[0].is_same(params[5 - bucket.index()]))
        order.push_back(999);
      if (bucket.is_last() != (bucket.index() == 5)) order.push_back(998);
      return dist::all_reduce(bucket.buffer(), dist::ReduceOp::AVG, nullptr, /*async_op=*/true);
    });
    nn::Sequential ref = make_mlp(7);
    for (int r = 0; r < 2; ++r)
      F::mse_loss(ref->forward(inputs(6 * r, 6 * r + 6)), targets(6 * r, 6 * r + 6)).backward();
    for (const auto& p : ref->parameters()) p.grad().div_(2);
    F::mse_loss(ddp(inputs(6 * rank, 6 * rank + 6)), targets(6 * rank, 6 * rank + 6)).backward();
    DIST_CHILD_CHECK((order == std::vector<size_t>{0, 1, 2, 3, 4, 5}));
    DIST_CHILD_CHECK(ddp.launched_buckets() == order);
    // Buckets 0..4 started before backward reached the first layer: communication overlapped.
    DIST_CHILD_CHECK(
        (first_grad_pending == std::vector<bool>{true, true, true, true, true, false}));
    DIST_CHILD_CHECK(close(grads(params), grads(ref->parameters()), "gradient"));
    return 0;
  });
}

TEST(DistributedDataParallel, FirstBucketIsSmallAndTheRestFillTheCap) {
  run_world(2, [](int) {
    manual_seed(1);
    // float64 400x400 weights are 1.22 MiB each: the first bucket (at least 1 MiB) closes after
    // the last layer's bias and weight; everything else fits in one 25 MiB bucket.
    nn::Sequential model(nn::Linear(400, 400), nn::Linear(400, 400), nn::Linear(400, 400));
    model->to(kFloat64);
    DistributedDataParallel ddp(model);
    const std::vector<std::vector<size_t>> want = {{5, 4}, {3, 2, 1, 0}};
    DIST_CHILD_CHECK(ddp.bucket_indices() == want);
    DistributedDataParallel small(model, DistributedDataParallelOptions().bucket_cap_mb(1.0));
    const std::vector<std::vector<size_t>> want_small = {{5, 4}, {3, 2}, {1, 0}};
    DIST_CHILD_CHECK(small.bucket_indices() == want_small);
    return 0;
  });
}

TEST(DistributedDataParallel, NoSyncAccumulatesLocally) {
  run_world(2, [](int rank) {
    // Rank r's micro-batch m: rows 6r + 2m, 6r + 2m + 1.
    auto loss_of = [](nn::Sequential& m, int r, int mb) {
      const int64_t b = 6 * r + 2 * mb;
      return F::mse_loss(m->forward(inputs(b, b + 2)), targets(b, b + 2));
    };
    nn::Sequential model = make_mlp(3);
    DistributedDataParallel ddp(model);
    nn::Sequential local = make_mlp(3), global = make_mlp(3);
    {
      auto guard = ddp.no_sync();
      DIST_CHILD_CHECK(!ddp.require_backward_grad_sync());
      for (int mb = 0; mb < 2; ++mb) {
        const int64_t b = 6 * rank + 2 * mb;
        F::mse_loss(ddp(inputs(b, b + 2)), targets(b, b + 2)).backward();
        loss_of(local, rank, mb).backward();
      }
    }
    DIST_CHILD_CHECK(ddp.require_backward_grad_sync());
    // Nothing was communicated: each rank holds its own sum.
    DIST_CHILD_CHECK(close(grads(model->parameters()), grads(local->parameters()), "local"));
    const int64_t b = 6 * rank + 4;
    F::mse_loss(ddp(inputs(b, b + 2)), targets(b, b + 2)).backward();
    for (int r = 0; r < 2; ++r)
      for (int mb = 0; mb < 3; ++mb) loss_of(global, r, mb).backward();
    for (const auto& p : global->parameters()) p.grad().div_(2);
    DIST_CHILD_CHECK(close(grads(model->parameters()), grads(global->parameters()), "synced"));
    return 0;
  });
}

// Two heads; `u` joins the output only when use_u is set.
struct TwoHeadsImpl : nn::Module {
  explicit TwoHeadsImpl(uint64_t seed) {
    manual_seed(seed);
    a = register_module("a", nn::Linear(4, 3));
    u = register_module("u", nn::Linear(4, 3));
    to(kFloat64);
  }
  Tensor forward(const Tensor& x) {
    Tensor y = a->forward(x);
    return use_u ? y + u->forward(x) : y;
  }
  nn::Linear a{nullptr}, u{nullptr};
  bool use_u = false;
};
EMBER_MODULE(TwoHeads);

Tensor head_input(int rank) { return inputs(3 * rank, 3 * rank + 3).narrow(1, 0, 4); }

TEST(DistributedDataParallel, UnusedParameterIsAnErrorOnTheNextIteration) {
  run_world(2, [](int rank) {
    TwoHeads model(5);
    DistributedDataParallel ddp(model);
    ddp(head_input(rank)).sum().backward();  // u gets no gradient: the bucket never fills
    DIST_CHILD_CHECK(!model->u->weight.grad().defined());
    std::string msg;
    try {
      ddp(head_input(rank));
    } catch (const RuntimeError& e) {
      msg = e.what();
    }
    DIST_CHILD_CHECK(msg.find("[DistributedDataParallel] Expected to have finished reduction in "
                              "the prior iteration") == 0);
    DIST_CHILD_CHECK(msg.find("find_unused_parameters=True") != std::string::npos);
    DIST_CHILD_CHECK(msg.find("for rank " + std::to_string(rank) + ": 2 3 (u.weight, u.bias)") !=
                     std::string::npos);
    // With every parameter used, training goes on.
    model->use_u = true;
    model->zero_grad();
    ddp(head_input(rank)).sum().backward();
    DIST_CHILD_CHECK(model->u->weight.grad().defined());
    return 0;
  });
}

TEST(DistributedDataParallel, FindUnusedParameters) {
  run_world(2, [](int rank) {
    TwoHeads model(5), ref(5);
    DistributedDataParallel ddp(model,
                                DistributedDataParallelOptions().find_unused_parameters(true));
    const auto params = model->parameters();
    for (int it = 0; it < 2; ++it) {
      // u unused on every rank: its .grad stays undefined, a's is averaged.
      model->zero_grad();
      ref->zero_grad();
      ddp(head_input(rank)).pow(2).sum().backward();
      ref->use_u = false;
      for (int r = 0; r < 2; ++r) ref->forward(head_input(r)).pow(2).sum().backward();
      DIST_CHILD_CHECK(!model->u->weight.grad().defined() && !model->u->bias.grad().defined());
      DIST_CHILD_CHECK(close({params[0].grad(), params[1].grad()},
                             {ref->a->weight.grad() / 2, ref->a->bias.grad() / 2}, "a"));
      // u used on rank 0 only: rank 1 contributes zeros to the average.
      model->zero_grad();
      ref->zero_grad();
      model->use_u = rank == 0;
      ddp(head_input(rank)).pow(2).sum().backward();
      for (int r = 0; r < 2; ++r) {
        ref->use_u = r == 0;
        ref->forward(head_input(r)).pow(2).sum().backward();
      }
      model->use_u = false;
      for (const auto& p : ref->parameters()) p.grad().div_(2);
      DIST_CHILD_CHECK(close(grads(params), grads(ref->parameters()), "partly used"));
    }
    return 0;
  });
}

TEST(DistributedDataParallel, MismatchedModelsAreAnErrorOnEveryRank) {
  run_world(3, [](int rank) {
    auto error_of = [](const std::shared_ptr<nn::Module>& m) -> std::string {
      try {
        DistributedDataParallel ddp(m);
      } catch (const RuntimeError& e) {
        return e.what();
      }
      return "";
    };
    // Rank 2 has one parameter more.
    nn::Linear count(nn::LinearOptions(4, 3).bias(rank == 2));
    const std::string c = error_of(count.ptr());
    DIST_CHILD_CHECK(c.find("DDP expects same model across all ranks, but Rank " +
                            std::to_string(rank) + " has " + (rank == 2 ? "2" : "1") +
                            " params, while rank " + (rank == 2 ? "0" : "2") +
                            " has inconsistent " + (rank == 2 ? "1" : "2") + " params.") !=
                     std::string::npos);
    // Same element count, transposed on rank 1.
    nn::Linear shape(nn::LinearOptions(rank == 1 ? 3 : 4, rank == 1 ? 4 : 3).bias(false));
    const std::string s = error_of(shape.ptr());
    DIST_CHILD_CHECK(s.find("params[0] (weight) in process 1 with sizes [4, 3] appears not to "
                            "match sizes of the same param in process 0 ([3, 4]") !=
                     std::string::npos);
    // Different element counts.
    nn::Linear numel(nn::LinearOptions(4, rank == 1 ? 2 : 3).bias(false));
    DIST_CHILD_CHECK(error_of(numel.ptr()).find("in process 1 with 2 dims and 8 elements") !=
                     std::string::npos);
    // The ranks are still in step: a matching model works.
    nn::Linear same(nn::LinearOptions(4, 3));
    DIST_CHILD_CHECK(error_of(same.ptr()).empty());
    return 0;
  });
}

// The same weight twice (as a weight-tied language-model head).
struct TiedImpl : nn::Module {
  explicit TiedImpl(uint64_t seed) {
    manual_seed(seed);
    a = register_module("a", nn::Linear(4, 4));
    register_parameter("head", a->weight);
    to(kFloat64);
  }
  Tensor forward(const Tensor& x) { return a->forward(x).tanh().matmul(a->weight.t()); }
  nn::Linear a{nullptr};
};
EMBER_MODULE(Tied);

TEST(DistributedDataParallel, TiedParameterIsReducedOnce) {
  run_world(2, [](int rank) {
    Tied model(9), ref(9);
    DistributedDataParallel ddp(model);
    const std::vector<std::vector<size_t>> want = {{1, 0}};  // a.weight, a.bias; not head again
    DIST_CHILD_CHECK(ddp.bucket_indices() == want);
    ddp(head_input(rank)).pow(2).sum().backward();
    for (int r = 0; r < 2; ++r) ref->forward(head_input(r)).pow(2).sum().backward();
    for (const auto& p : ref->parameters()) p.grad().div_(2);
    DIST_CHILD_CHECK(close(grads(model->parameters()), grads(ref->parameters()), "tied"));
    return 0;
  });
}

// A module with a buffer that forward reads, so that its broadcast is visible in the output.
struct ScaledImpl : nn::Module {
  ScaledImpl() {
    lin = register_module("lin", nn::Linear(4, 2));
    scale = register_buffer("scale", ones({2}, kFloat64));
    to(kFloat64);
  }
  Tensor forward(const Tensor& x) { return lin->forward(x) * scale; }
  nn::Linear lin{nullptr};
  Tensor scale;
};
EMBER_MODULE(Scaled);

TEST(DistributedDataParallel, BroadcastsRankZerosBuffers) {
  run_world(2, [](int rank) {
    for (bool broadcast : {true, false}) {
      Scaled model;
      model->scale.fill_(rank + 2.0);
      DistributedDataParallel ddp(model,
                                  DistributedDataParallelOptions().broadcast_buffers(broadcast));
      DIST_CHILD_CHECK(holds(model->scale, {2, 2}, "scale at construction"));
      model->scale.fill_(rank + 5.0);  // e.g. running statistics that drifted apart
      Tensor y = ddp(head_input(rank));
      const double want = broadcast ? 5 : rank + 5.0;
      DIST_CHILD_CHECK(holds(model->scale, {want, want}, "scale after forward"));
      y.sum().backward();
    }
    return 0;
  });
}

TEST(DistributedDataParallel, ArgumentErrors) {
  run_world(1, [](int) {
    nn::Sequential model = make_mlp(1);
    bool bad_cap = false, no_params = false, twice = false;
    try {
      DistributedDataParallel ddp(model, DistributedDataParallelOptions().bucket_cap_mb(0));
    } catch (const ValueError&) {
      bad_cap = true;
    }
    for (auto& p : model->parameters()) p.requires_grad_(false);
    try {
      DistributedDataParallel ddp(model);
    } catch (const RuntimeError& e) {
      no_params = std::string(e.what()).find(
                      "doesn't have any parameter that requires a "
                      "gradient") != std::string::npos;
    }
    for (auto& p : model->parameters()) p.requires_grad_(true);
    DistributedDataParallel ddp(model);
    auto hook = [](dist::GradBucket& b) { return dist::all_reduce(b.buffer()); };
    ddp.register_comm_hook(hook);
    try {
      ddp.register_comm_hook(hook);
    } catch (const RuntimeError&) {
      twice = true;
    }
    DIST_CHILD_CHECK(bad_cap && no_params && twice);
    return 0;
  });
}

}  // namespace

TEST(DDPBucketAssignment, ClosesBucketsAtTheLimitsPerDtype) {
  auto f32 = [](int64_t n) { return empty({n}, kFloat32); };
  auto f64 = [](int64_t n) { return empty({n}, kFloat64); };
  // 400, 800 | 1200, 200 bytes with limits 1000 then 2000.
  using Buckets = std::vector<std::vector<size_t>>;
  EXPECT_EQ(dist::compute_bucket_assignment_by_size({f32(100), f32(200), f32(300), f32(50)},
                                                    {1000, 2000}),
            (Buckets{{0, 1}, {2, 3}}));
  // float32: 1200 | 40; float64: 800 + 1600; ordered by first position, then mapped.
  EXPECT_EQ(dist::compute_bucket_assignment_by_size({f32(300), f64(100), f32(10), f64(200)},
                                                    {1000, 2000}),
            (Buckets{{0}, {1, 3}, {2}}));
  EXPECT_EQ(dist::compute_bucket_assignment_by_size({f32(300), f64(100), f32(10), f64(200)},
                                                    {1000, 2000}, {13, 12, 11, 10}),
            (Buckets{{13}, {12, 10}, {11}}));
  EXPECT_THROW(dist::compute_bucket_assignment_by_size({f32(1)}, {}), ValueError);
  EXPECT_THROW(dist::compute_bucket_assignment_by_size({f32(1)}, {10}, {1, 2}), ValueError);
}
