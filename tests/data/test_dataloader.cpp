// ember::data::Dataset / TensorDataset / DataLoader (PyTorch's torch.utils.data): indexing,
// batch shapes and contents, shuffling against a reference permutation, drop_last, workers,
// exceptions from workers, cancellation, the bounded prefetch queue and the profiler hook.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <numeric>
#include <set>
#include <thread>

#include "ember/data/dataloader.h"
#include "ember/ops/factory.h"
#include "ember/profiler.h"
#include "opdb.h"

namespace ember::test {
namespace {

using data::DataLoader;
using data::DataLoaderOptions;
using data::Sample;
using data::TensorDataset;

// x[i] = [3i, 3i + 1, 3i + 2] (float32), y[i] = i (int64).
std::shared_ptr<TensorDataset> rows_dataset(int64_t n) {
  Tensor x = ember::arange(3 * n, kFloat32).reshape({n, 3});
  Tensor y = ember::arange(n);
  return std::make_shared<TensorDataset>(std::vector<Tensor>{x, y});
}

// The sample indices of every batch, read back from the y field, with shape checks.
std::vector<std::vector<int64_t>> epoch_indices(DataLoader& loader) {
  std::vector<std::vector<int64_t>> out;
  for (auto& batch : loader) {
    EXPECT_EQ(batch.size(), 2u);
    const int64_t b = batch[1].size(0);
    EXPECT_EQ(batch[0].sizes(), (std::vector<int64_t>{b, 3}));
    EXPECT_EQ(batch[1].dtype(), kInt64);
    std::vector<int64_t> idx;
    const auto xv = values(batch[0]);
    for (double v : values(batch[1])) idx.push_back(static_cast<int64_t>(v));
    for (int64_t r = 0; r < b; ++r)
      for (int64_t c = 0; c < 3; ++c) EXPECT_EQ(xv[r * 3 + c], 3 * idx[r] + c);
    out.push_back(idx);
  }
  return out;
}

std::vector<int64_t> flat(const std::vector<std::vector<int64_t>>& batches) {
  std::vector<int64_t> v;
  for (const auto& b : batches) v.insert(v.end(), b.begin(), b.end());
  return v;
}

TEST(DataTensorDataset, IndexingMatchesSourceTensors) {
  Tensor x = make_tensor({5, 2, 3}, kFloat64, -5, 5, 1);
  Tensor y = make_tensor({5}, kInt32, 0, 9, 2);
  TensorDataset ds({x, y});
  EXPECT_EQ(ds.size(), 5);
  const auto xv = values(x), yv = values(y);
  for (int64_t i = -5; i < 5; ++i) {
    Sample s = ds.get(i);
    ASSERT_EQ(s.size(), 2u);
    const int64_t r = i < 0 ? i + 5 : i;
    EXPECT_EQ(s[0].sizes(), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(s[1].dim(), 0);
    EXPECT_EQ(s[1].dtype(), kInt32);
    EXPECT_EQ(values(s[0]), std::vector<double>(xv.begin() + r * 6, xv.begin() + r * 6 + 6));
    EXPECT_EQ(values(s[1]), std::vector<double>{yv[r]});
  }
  expect_errors<ValueError>({
      {"size mismatch",
       [] {
         TensorDataset({ember::zeros({3, 2}), ember::zeros({4})});
       },
       "Size mismatch between tensors"},
      {"no tensors", [] { TensorDataset(std::vector<Tensor>{}); }, "at least one tensor"},
  });
  expect_errors<IndexError>({
      {"index past the end", [&] { ds.get(5); }, "index 5 is out of bounds"},
      {"negative index past the start", [&] { ds.get(-6); }, "index -6 is out of bounds"},
      {"0-d tensor", [] { TensorDataset({ember::tensor(1.0)}); }, "0-dimensional"},
  });
}

TEST(DataLoader, SequentialBatchesAndDropLast) {
  auto ds = rows_dataset(10);
  DataLoader loader(ds, DataLoaderOptions().batch_size(4));
  EXPECT_EQ(loader.size(), 3);
  auto batches = epoch_indices(loader);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[0], (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(batches[1], (std::vector<int64_t>{4, 5, 6, 7}));
  EXPECT_EQ(batches[2], (std::vector<int64_t>{8, 9}));

  DataLoader dropped(ds, DataLoaderOptions().batch_size(4).drop_last(true));
  EXPECT_EQ(dropped.size(), 2);
  EXPECT_EQ(epoch_indices(dropped).size(), 2u);
  for (int64_t bs : {1, 2, 3, 5, 10, 11}) {
    for (bool drop : {false, true}) {
      DataLoader l(ds, DataLoaderOptions().batch_size(bs).drop_last(drop));
      const int64_t expected = drop ? 10 / bs : (10 + bs - 1) / bs;
      EXPECT_EQ(l.size(), expected) << bs << drop;
      auto b = epoch_indices(l);
      EXPECT_EQ(static_cast<int64_t>(b.size()), expected) << bs << drop;
      for (const auto& batch : b) {
        if (drop) {
          EXPECT_EQ(static_cast<int64_t>(batch.size()), bs);
        }
      }
    }
  }
  // The batch-size shorthand and an empty dataset.
  DataLoader by_size(*rows_dataset(6), 3);
  EXPECT_EQ(by_size.size(), 2);
  DataLoader empty(rows_dataset(0), 4);
  EXPECT_EQ(empty.size(), 0);
  EXPECT_TRUE(empty.begin() == empty.end());
}

TEST(DataLoader, ShuffleFollowsTheGeneratorsPermutation) {
  const int64_t n = 23;
  auto ds = rows_dataset(n);
  auto gen = std::make_shared<Generator>(1234);
  DataLoader loader(ds, DataLoaderOptions().batch_size(5).shuffle(true).generator(gen));
  Generator reference(1234);
  std::vector<int64_t> previous;
  for (int epoch = 0; epoch < 3; ++epoch) {
    const auto order = ember::randperm(n, reference).tolist<int64_t>();
    const auto batches = epoch_indices(loader);
    ASSERT_EQ(batches.size(), 5u);
    EXPECT_EQ(batches.back().size(), 3u);
    const auto got = flat(batches);
    EXPECT_EQ(got, order) << "epoch " << epoch;
    // Every sample exactly once.
    auto sorted = got;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int64_t> iota(n);
    std::iota(iota.begin(), iota.end(), 0);
    EXPECT_EQ(sorted, iota);
    EXPECT_NE(got, previous);  // a new order every epoch
    previous = got;
  }
  // The same seed gives the same order; another seed another one.
  auto order_for = [&](uint64_t seed, size_t workers) {
    DataLoader l(ds, DataLoaderOptions().batch_size(4).shuffle(true).workers(workers).generator(
                         std::make_shared<Generator>(seed)));
    return flat(epoch_indices(l));
  };
  EXPECT_EQ(order_for(7, 0), order_for(7, 0));
  EXPECT_NE(order_for(7, 0), order_for(8, 0));
  EXPECT_EQ(order_for(7, 0), order_for(7, 3));
  // Without a generator the default one is used: manual_seed makes it reproducible.
  ember::manual_seed(99);
  DataLoader d1(ds, DataLoaderOptions().batch_size(4).shuffle(true));
  const auto a = flat(epoch_indices(d1));
  ember::manual_seed(99);
  DataLoader d2(ds, DataLoaderOptions().batch_size(4).shuffle(true));
  EXPECT_EQ(flat(epoch_indices(d2)), a);
}

// Item i is {i, i * i} (int64 0-d tensors); counts calls and remembers the threads.
class CountingDataset : public data::Dataset {
 public:
  explicit CountingDataset(int64_t n, int64_t fail_at = -1,
                           std::chrono::milliseconds delay = std::chrono::milliseconds(0))
      : n_(n), fail_at_(fail_at), delay_(delay) {}
  int64_t size() const override { return n_; }
  Sample get(int64_t i) override {
    ++calls;
    if (std::this_thread::get_id() != main_) off_main_thread = true;
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    EMBER_CHECK_VALUE(i != fail_at_, "[CountingDataset] bad sample ", i);
    return {ember::tensor(i), ember::tensor(i * i)};
  }
  std::atomic<int> calls{0};
  std::atomic<bool> off_main_thread{false};

 private:
  int64_t n_, fail_at_;
  std::chrono::milliseconds delay_;
  std::thread::id main_ = std::this_thread::get_id();
};

std::vector<std::vector<double>> collect(DataLoader& loader) {
  std::vector<std::vector<double>> out;
  for (auto& batch : loader) {
    auto a = values(batch[0]), b = values(batch[1]);
    a.insert(a.end(), b.begin(), b.end());
    out.push_back(a);
  }
  return out;
}

TEST(DataLoader, WorkersGiveTheSameBatches) {
  auto seq_ds = std::make_shared<CountingDataset>(37);
  auto par_ds = std::make_shared<CountingDataset>(37);
  DataLoader seq(seq_ds, DataLoaderOptions().batch_size(4).shuffle(true).generator(
                             std::make_shared<Generator>(5)));
  DataLoader par(par_ds, DataLoaderOptions().batch_size(4).shuffle(true).num_workers(2).generator(
                             std::make_shared<Generator>(5)));
  for (int epoch = 0; epoch < 2; ++epoch) {
    auto a = collect(seq), b = collect(par);
    ASSERT_EQ(a.size(), 10u);
    EXPECT_EQ(a, b) << "epoch " << epoch;
    // Field 1 is field 0 squared: samples were collated field by field.
    for (const auto& batch : b) {
      const size_t k = batch.size() / 2;
      for (size_t i = 0; i < k; ++i) EXPECT_EQ(batch[k + i], batch[i] * batch[i]);
    }
  }
  EXPECT_FALSE(seq_ds->off_main_thread.load());
  EXPECT_TRUE(par_ds->off_main_thread.load());
  EXPECT_EQ(par_ds->calls.load(), 74);
}

TEST(DataLoader, WorkerExceptionsReachTheConsumer) {
  for (size_t workers : {0, 1, 3}) {
    auto ds = std::make_shared<CountingDataset>(20, /*fail_at=*/13);
    DataLoader loader(ds, DataLoaderOptions().batch_size(4).workers(workers));
    std::vector<double> firsts;
    bool thrown = false;
    auto it = loader.begin();
    try {
      for (; it != loader.end(); ++it) firsts.push_back(values((*it)[0])[0]);
    } catch (const ValueError& e) {
      thrown = true;
      EXPECT_NE(std::string(e.what()).find("bad sample 13"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(thrown) << workers;
    EXPECT_EQ(firsts, (std::vector<double>{0, 4, 8})) << workers;
    // The failed batch (12..15) is skipped; iteration can go on with the next one.
    ++it;
    ASSERT_TRUE(it != loader.end());
    EXPECT_EQ(values((*it)[0])[0], 16);
    ++it;
    EXPECT_TRUE(it == loader.end());
  }
  // A collate error (fields of different shapes) propagates too.
  class Ragged : public data::Dataset {
    int64_t size() const override { return 4; }
    Sample get(int64_t i) override { return {ember::zeros({i + 1})}; }
  };
  for (size_t workers : {0, 2}) {
    DataLoader loader(std::make_shared<Ragged>(),
                      DataLoaderOptions().batch_size(2).workers(workers));
    EXPECT_THROW(loader.begin(), RuntimeError);
  }
}

TEST(DataLoader, CustomCollate) {
  auto ds = rows_dataset(6);
  DataLoader loader(
      ds, DataLoaderOptions().batch_size(3).workers(2).collate_fn([](std::vector<Sample> samples) {
        Tensor total = ember::zeros({3}, kFloat32);
        for (auto& s : samples) total = total + s[0];
        return Sample{total};
      }));
  std::vector<std::vector<double>> got;
  for (auto& batch : loader) got.push_back(values(batch[0]));
  // Rows 0..2 sum to [9, 12, 15]; rows 3..5 to [36, 39, 42].
  EXPECT_EQ(got, (std::vector<std::vector<double>>{{9, 12, 15}, {36, 39, 42}}));
}

TEST(DataLoader, CancellationDoesNotHang) {
  using namespace std::chrono;
  const auto start = steady_clock::now();
  {
    auto ds = std::make_shared<CountingDataset>(400, -1, milliseconds(2));
    DataLoader loader(ds, DataLoaderOptions().batch_size(2).workers(3).max_jobs(6));
    for (auto& batch : loader) {
      (void)batch;
      break;  // leave with work pending
    }
    // A new epoch mid-epoch restarts from the first batch.
    auto it = loader.begin();
    EXPECT_EQ(values((*it)[0]), (std::vector<double>{0, 1}));
    ++it;
    EXPECT_EQ(values((*it)[0]), (std::vector<double>{2, 3}));
  }  // destroyed while workers are busy
  {
    auto ds = std::make_shared<CountingDataset>(400, -1, milliseconds(2));
    DataLoader loader(ds, DataLoaderOptions().batch_size(2).workers(2));
    loader.begin();
    EXPECT_LT(ds->calls.load(), 400);
  }
  EXPECT_LT(duration_cast<milliseconds>(steady_clock::now() - start).count(), 5000);
}

TEST(DataLoader, PrefetchQueueIsBounded) {
  auto ds = std::make_shared<CountingDataset>(100);
  DataLoader loader(ds, DataLoaderOptions().batch_size(1).workers(2).max_jobs(3));
  auto it = loader.begin();  // batch 0 consumed: jobs 1..3 may run, no more
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(ds->calls.load(), 4);
  ++it;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(ds->calls.load(), 5);
}

TEST(DataLoader, TimeoutAndBadOptions) {
  auto slow = std::make_shared<CountingDataset>(4, -1, std::chrono::milliseconds(300));
  DataLoader loader(
      slow, DataLoaderOptions().batch_size(1).workers(1).timeout(std::chrono::milliseconds(5)));
  expect_errors<RuntimeError>({{"timeout", [&] { loader.begin(); }, "Timeout in DataLoader"}});
  expect_errors<ValueError>({
      {"batch_size 0", [] { DataLoader(rows_dataset(3), DataLoaderOptions().batch_size(0)); },
       "batch_size should be a positive integer value"},
      {"null dataset", [] { DataLoader(std::shared_ptr<data::Dataset>(), 2); }, "null"},
  });
  DataLoader ok(rows_dataset(2), 2);
  auto it = ok.begin();
  ++it;
  expect_errors<RuntimeError>({
      {"dereference past the end", [&] { (void)*it; }, "past the end"},
      {"increment past the end", [&] { ++it; }, "past the end"},
      {"dereference the sentinel", [&] { (void)*ok.end(); }, "past the end"},
  });
}

TEST(DataLoader, ProfilerSeesEachWait) {
  namespace prof = ember::profiler;
  for (size_t workers : {0, 2}) {
    auto ds = rows_dataset(10);
    DataLoader loader(ds, DataLoaderOptions().batch_size(4).workers(workers));
    prof::profile p;
    p.start();
    int batches = 0;
    for (auto& batch : loader) batches += batch[0].size(0) > 0;
    p.stop();
    const std::string name = workers
                                 ? "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"
                                 : "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
    int n = 0;
    for (const auto& e : p.events()) n += e.name == name;
    EXPECT_EQ(batches, 3);
    EXPECT_EQ(n, 4) << name;  // three batches and the call that finds the end, as in Python
  }
}

}  // namespace
}  // namespace ember::test
