// DistributedSampler against closed-form index lists (PyTorch's torch.utils.data semantics).
#include <algorithm>
#include <numeric>

#include "distributed/dist_test_util.h"
#include "ember/data.h"

using namespace ember;
using ember::data::DistributedSampler;
using Indices = std::vector<size_t>;

namespace {

Indices all_of(DistributedSampler& s, size_t batch_size) {
  Indices out;
  while (auto batch = s.next(batch_size)) {
    EXPECT_LE(batch->size(), batch_size);
    out.insert(out.end(), batch->begin(), batch->end());
  }
  return out;
}

// PyTorch's recipe written out: the epoch's order, padded with its head, every R-th from rank.
Indices expected(const Indices& order, size_t total, size_t rank, size_t replicas) {
  Indices out;
  for (size_t k = rank; k < total; k += replicas) out.push_back(order[k % order.size()]);
  return out;
}

Indices permutation(uint64_t seed, int64_t n) {
  Generator g(seed);
  const auto p = randperm(n, g).tolist<int64_t>();
  return Indices(p.begin(), p.end());
}

}  // namespace

TEST(DistributedSampler, SequentialPadsWithTheHead) {
  // 10 samples on 3 replicas: 4 each, the last two positions repeat 0 and 1.
  const std::vector<Indices> want = {{0, 3, 6, 9}, {1, 4, 7, 0}, {2, 5, 8, 1}};
  for (int64_t r = 0; r < 3; ++r) {
    DistributedSampler s(10, 3, r, /*shuffle=*/false);
    EXPECT_EQ(s.size(), 4u);
    EXPECT_EQ(s.indices(), want[r]);
    EXPECT_EQ(all_of(s, 3), want[r]);
    EXPECT_FALSE(s.next(3).has_value());
    s.reset();
    EXPECT_EQ(all_of(s, 1), want[r]);
  }
  // More padding than samples: 2 samples on 5 replicas cycle through 0, 1, 0, 1, 0.
  for (int64_t r = 0; r < 5; ++r) {
    DistributedSampler s(2, 5, r, false);
    EXPECT_EQ(s.indices(), (Indices{static_cast<size_t>(r % 2)}));
  }
}

TEST(DistributedSampler, DropLastCutsTheTail) {
  const std::vector<Indices> want = {{0, 3, 6}, {1, 4, 7}, {2, 5, 8}};
  for (int64_t r = 0; r < 3; ++r) {
    DistributedSampler s(10, 3, r, false, 0, /*drop_last=*/true);
    EXPECT_EQ(s.size(), 3u);
    EXPECT_EQ(all_of(s, 2), want[r]);
  }
  DistributedSampler few(2, 3, 2, false, 0, true);  // fewer samples than replicas: none
  EXPECT_EQ(few.size(), 0u);
  EXPECT_FALSE(few.next(4).has_value());
  DistributedSampler even(9, 3, 1, false, 0, true);  // divisible: nothing dropped
  EXPECT_EQ(even.indices(), (Indices{1, 4, 7}));
  DistributedSampler empty_set(0, 2, 1, false);
  EXPECT_EQ(empty_set.size(), 0u);
}

TEST(DistributedSampler, ShuffleIsDeterministicPerSeedAndEpoch) {
  constexpr size_t n = 11, replicas = 4;  // 3 each, one index repeated
  for (size_t r = 0; r < replicas; ++r) {
    DistributedSampler s(n, replicas, static_cast<int64_t>(r), true, /*seed=*/7);
    EXPECT_EQ(s.indices(), expected(permutation(7, n), 12, r, replicas));
    EXPECT_EQ(s.epoch(), 0u);
    s.set_epoch(3);
    EXPECT_EQ(s.indices(), expected(permutation(7, n), 12, r, replicas));  // until reset
    s.reset();
    EXPECT_EQ(all_of(s, 2), expected(permutation(10, n), 12, r, replicas));
    DistributedSampler again(n, replicas, static_cast<int64_t>(r), true, 7);
    again.set_epoch(3);
    again.reset();
    EXPECT_EQ(again.indices(), s.indices());
  }
  EXPECT_NE(permutation(7, n), permutation(10, n));
  // Without padding the replicas partition the dataset.
  Indices all;
  for (int64_t r = 0; r < 3; ++r) {
    DistributedSampler s(12, 3, r, true, 5);
    all.insert(all.end(), s.indices().begin(), s.indices().end());
  }
  std::sort(all.begin(), all.end());
  Indices iota(12);
  std::iota(iota.begin(), iota.end(), size_t{0});
  EXPECT_EQ(all, iota);
}

TEST(DistributedSampler, ResetTakesANewSize) {
  DistributedSampler s(10, 2, 1, false);
  s.reset(5);
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(s.indices(), (Indices{1, 3, 0}));
}

TEST(DistributedSampler, BadArguments) {
  auto message = [](auto make) -> std::string {
    try {
      make();
    } catch (const ValueError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(message([] { DistributedSampler(10, 3, 3); }),
            "[DistributedSampler] Invalid rank 3, rank should be in the interval [0, 2]");
  EXPECT_EQ(message([] { DistributedSampler(10, 3, -1); }),
            "[DistributedSampler] Invalid rank -1, rank should be in the interval [0, 2]");
  EXPECT_EQ(message([] { DistributedSampler(10, 0, 0); }),
            "[DistributedSampler] num_replicas should be a positive integer value, but got "
            "num_replicas=0");
  // num_replicas and rank come from the default group, which does not exist here.
  EXPECT_THROW(DistributedSampler(10), RuntimeError);
}

TEST(DistributedSamplerWorld, DefaultsFromTheDefaultGroup) {
  ember::testing_dist::run_world(3, [](int rank) {
    DistributedSampler s(7, std::nullopt, std::nullopt, false);
    DIST_CHILD_CHECK(s.num_replicas() == 3 && s.rank() == rank);
    const std::vector<Indices> want = {{0, 3, 6}, {1, 4, 0}, {2, 5, 1}};
    DIST_CHILD_CHECK(s.indices() == want[rank]);
    return 0;
  });
}
