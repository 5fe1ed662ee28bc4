// libtorch's torch::data API on Ember: MNIST from small generated IDX files, Normalize, Stack,
// Lambda transforms, samplers and make_data_loader, written as pytorch/examples' cpp/mnist does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "data_test_util.h"
#include "ember/ember.h"
#include "opdb.h"

namespace torch = ember;  // as ember/torch.h does

namespace ember::test {
namespace {

constexpr int64_t kRows = 4, kCols = 5;

uint8_t pixel(int64_t i, int64_t r, int64_t c) {
  return static_cast<uint8_t>((i * 37 + r * 11 + c * 3) % 256);
}

// A small MNIST-layout data set in `dir`: n images of 4x5 and labels (i * 3) % 10. The training
// files are written by hand (raw IDX bytes), the test files through write_idx with gzip.
void write_mnist(const TempDir& dir, int64_t n_train, int64_t n_test) {
  auto images = idx_header(0x08, {uint32_t(n_train), uint32_t(kRows), uint32_t(kCols)});
  auto labels = idx_header(0x08, {uint32_t(n_train)});
  for (int64_t i = 0; i < n_train; ++i) {
    for (int64_t r = 0; r < kRows; ++r)
      for (int64_t c = 0; c < kCols; ++c) images.push_back(pixel(i, r, c));
    labels.push_back(static_cast<unsigned char>((i * 3) % 10));
  }
  write_bytes(dir.file("train-images-idx3-ubyte"), images);
  write_bytes(dir.file("train-labels-idx1-ubyte"), labels);
  std::vector<uint8_t> img(n_test * kRows * kCols), lab(n_test);
  for (int64_t i = 0; i < n_test; ++i) {
    for (int64_t r = 0; r < kRows; ++r)
      for (int64_t c = 0; c < kCols; ++c) img[(i * kRows + r) * kCols + c] = pixel(i, r, c);
    lab[i] = static_cast<uint8_t>((i * 3) % 10);
  }
  data::write_idx(ember::from_blob(img.data(), {n_test, kRows, kCols}, kUInt8),
                  dir.file("t10k-images-idx3-ubyte.gz"));
  data::write_idx(ember::from_blob(lab.data(), {n_test}, kUInt8),
                  dir.file("t10k-labels-idx1-ubyte.gz"));
}

TEST(DataTorchMNIST, ReadsImagesAndTargets) {
  TempDir dir;
  write_mnist(dir, 12, 7);
  for (auto mode :
       {torch::data::datasets::MNIST::Mode::kTrain, torch::data::datasets::MNIST::Mode::kTest}) {
    torch::data::datasets::MNIST mnist(dir.str(), mode);
    const int64_t n = mode == torch::data::datasets::MNIST::Mode::kTrain ? 12 : 7;
    EXPECT_EQ(mnist.is_train(), n == 12);
    ASSERT_EQ(mnist.size(), std::optional<size_t>(n));
    EXPECT_EQ(mnist.images().sizes(), (std::vector<int64_t>{n, 1, kRows, kCols}));
    EXPECT_EQ(mnist.images().dtype(), kFloat32);
    EXPECT_EQ(mnist.targets().dtype(), kInt64);
    for (int64_t i = 0; i < n; ++i) {
      torch::data::Example<> e = mnist.get(static_cast<size_t>(i));
      ASSERT_EQ(e.data.sizes(), (std::vector<int64_t>{1, kRows, kCols}));
      const auto v = values(e.data);
      for (int64_t r = 0; r < kRows; ++r)
        for (int64_t c = 0; c < kCols; ++c)
          EXPECT_NEAR(v[r * kCols + c], pixel(i, r, c) / 255.0, 1e-7);
      EXPECT_EQ(e.target.item<int64_t>(), (i * 3) % 10);
    }
    EXPECT_THROW(mnist.get(static_cast<size_t>(n)), IndexError);
  }
}

TEST(DataTorchMNIST, Errors) {
  TempDir dir;
  expect_errors<RuntimeError>({{"missing files", [&] { torch::data::datasets::MNIST m(dir.str()); },
                                "Error opening images file at"}});
  write_mnist(dir, 5, 3);
  // Labels that disagree with the images in number; labels in place of images.
  auto four_labels = idx_header(0x08, {4});
  four_labels.insert(four_labels.end(), {1, 2, 3, 4});
  write_bytes(dir.file("t10k-labels-idx1-ubyte"), four_labels);  // found before the .gz
  TempDir swapped;
  write_bytes(swapped.file("train-images-idx3-ubyte"),
              read_bytes(dir.file("train-labels-idx1-ubyte")));
  write_bytes(swapped.file("train-labels-idx1-ubyte"),
              read_bytes(dir.file("train-labels-idx1-ubyte")));
  expect_errors<ValueError>({
      {"count mismatch",
       [&] {
         torch::data::datasets::MNIST m(dir.str(), torch::data::datasets::MNIST::Mode::kTest);
       },
       "has 3 images but the labels file has 4 labels"},
      {"labels as images", [&] { torch::data::datasets::MNIST m(swapped.str()); },
       "expected uint8 images with 3 dimensions"},
  });
}

TEST(DataTorch, MnistNormalizeStackLoader) {
  TempDir dir;
  write_mnist(dir, 10, 4);
  const double mean = 0.1307, stddev = 0.3081;
  // As pytorch/examples cpp/mnist writes it.
  auto train_dataset = torch::data::datasets::MNIST(dir.str())
                           .map(torch::data::transforms::Normalize<>(mean, stddev))
                           .map(torch::data::transforms::Stack<>());
  const size_t train_dataset_size = train_dataset.size().value();
  EXPECT_EQ(train_dataset_size, 10u);
  for (size_t workers : {0, 2}) {
    for (bool drop_last : {false, true}) {
      auto train_loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
          train_dataset,
          torch::data::DataLoaderOptions().batch_size(4).workers(workers).drop_last(drop_last));
      for (int epoch = 0; epoch < 2; ++epoch) {
        size_t batch_idx = 0;
        int64_t seen = 0;
        for (auto& batch : *train_loader) {
          auto data = batch.data.to(torch::kFloat32), targets = batch.target;
          const int64_t b = data.size(0);
          EXPECT_EQ(b, batch_idx < 2 ? 4 : 2);
          EXPECT_EQ(data.sizes(), (std::vector<int64_t>{b, 1, kRows, kCols}));
          EXPECT_EQ(targets.sizes(), (std::vector<int64_t>{b}));
          const auto dv = values(data), tv = values(targets);
          for (int64_t j = 0; j < b; ++j) {
            const int64_t i = seen + j;  // sequential order
            EXPECT_EQ(tv[j], (i * 3) % 10);
            for (int64_t p = 0; p < kRows * kCols; ++p)
              EXPECT_NEAR(dv[j * kRows * kCols + p],
                          (pixel(i, p / kCols, p % kCols) / 255.0 - mean) / stddev, 1e-5);
          }
          seen += b;
          ++batch_idx;
        }
        EXPECT_EQ(batch_idx, drop_last ? 2u : 3u);
        EXPECT_EQ(seen, drop_last ? 8 : 10);
      }
    }
  }
  // The default RandomSampler visits every image once; batch_size given directly.
  ember::manual_seed(3);
  auto test_loader = torch::data::make_data_loader(
      torch::data::datasets::MNIST(dir.str(), torch::data::datasets::MNIST::Mode::kTest)
          .map(torch::data::transforms::Stack<>()),
      3);
  std::vector<int64_t> order;
  for (auto& batch : *test_loader) {
    const auto dv = values(batch.data);
    for (int64_t j = 0; j < batch.data.size(0); ++j) {
      // The first pixel identifies the image: pixel(i, 0, 0) = 37 i.
      const auto i = static_cast<int64_t>(std::lround(dv[j * kRows * kCols] * 255 / 37));
      EXPECT_EQ(values(batch.target)[j], (i * 3) % 10);
      order.push_back(i);
    }
  }
  std::sort(order.begin(), order.end());
  EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(DataTorch, LambdaTransformsAndTensorDataset) {
  Tensor x = make_tensor({6, 2}, kFloat32, -3, 3, 4);
  auto ds =
      torch::data::datasets::TensorDataset(x)
          .map(torch::data::transforms::Lambda<torch::data::TensorExample>(
              [](torch::data::TensorExample e) { return torch::data::TensorExample(e.data * 2); }))
          .map(torch::data::transforms::Stack<torch::data::TensorExample>());
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(ds), torch::data::DataLoaderOptions(4));
  std::vector<double> got;
  for (auto& batch : *loader) {
    const auto v = values(batch.data);
    got.insert(got.end(), v.begin(), v.end());
  }
  auto xv = values(x);
  for (double& v : xv) v *= 2;
  EXPECT_EQ(got, xv);

  // TensorLambda on the data and a BatchLambda collation.
  std::vector<Tensor> rows;
  for (int i = 0; i < 5; ++i) rows.push_back(ember::full({3}, i, kFloat32));
  struct Pairs : torch::data::datasets::Dataset<Pairs> {
    std::vector<Tensor> rows;
    explicit Pairs(std::vector<Tensor> r) : rows(std::move(r)) {}
    torch::data::Example<> get(size_t i) override {
      return {rows[i], ember::tensor(static_cast<int64_t>(i))};
    }
    std::optional<size_t> size() const override { return rows.size(); }
  };
  auto mapped = Pairs(rows)
                    .map(torch::data::transforms::TensorLambda<>([](Tensor t) { return t + 10; }))
                    .map(torch::data::transforms::Collate<torch::data::Example<>>(
                        [](std::vector<torch::data::Example<>> b) {
                          std::vector<Tensor> d, t;
                          for (auto& e : b) d.push_back(e.data), t.push_back(e.target);
                          return torch::data::Example<>(ember::cat(d), ember::stack(t));
                        }));
  auto l2 = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      mapped, torch::data::DataLoaderOptions().batch_size(2).workers(2));
  std::vector<double> d, t;
  for (auto& batch : *l2) {
    auto dv = values(batch.data), tv = values(batch.target);
    d.insert(d.end(), dv.begin(), dv.end());
    t.insert(t.end(), tv.begin(), tv.end());
  }
  std::vector<double> want_d;
  for (int i = 0; i < 5; ++i) want_d.insert(want_d.end(), 3, 10 + i);
  EXPECT_EQ(d, want_d);
  EXPECT_EQ(t, (std::vector<double>{0, 1, 2, 3, 4}));
}

TEST(DataTorch, Samplers) {
  torch::data::samplers::SequentialSampler seq(5);
  EXPECT_EQ(seq.next(2), (std::optional<std::vector<size_t>>(std::vector<size_t>{0, 1})));
  EXPECT_EQ(seq.next(2), (std::optional<std::vector<size_t>>(std::vector<size_t>{2, 3})));
  EXPECT_EQ(seq.next(2), (std::optional<std::vector<size_t>>(std::vector<size_t>{4})));
  EXPECT_EQ(seq.next(2), std::nullopt);
  seq.reset(3);
  EXPECT_EQ(seq.next(10), (std::optional<std::vector<size_t>>(std::vector<size_t>{0, 1, 2})));
  EXPECT_EQ(seq.index(), 3u);

  // RandomSampler draws ember::randperm from the default generator on construction and reset.
  ember::manual_seed(11);
  const auto first = ember::randperm(9).tolist<int64_t>();
  const auto second = ember::randperm(9).tolist<int64_t>();
  ember::manual_seed(11);
  torch::data::samplers::RandomSampler rnd(9);
  std::vector<size_t> got;
  while (auto b = rnd.next(4)) got.insert(got.end(), b->begin(), b->end());
  EXPECT_EQ(std::vector<int64_t>(got.begin(), got.end()), first);
  rnd.reset();
  got.clear();
  while (auto b = rnd.next(4)) got.insert(got.end(), b->begin(), b->end());
  EXPECT_EQ(std::vector<int64_t>(got.begin(), got.end()), second);
  rnd.reset(4);
  auto small = rnd.next(10);
  ASSERT_TRUE(small.has_value());
  std::sort(small->begin(), small->end());
  EXPECT_EQ(*small, (std::vector<size_t>{0, 1, 2, 3}));
}

TEST(DataTorch, LoaderErrors) {
  struct Unsized : torch::data::datasets::Dataset<Unsized> {
    torch::data::Example<> get(size_t) override { return {}; }
    std::optional<size_t> size() const override { return std::nullopt; }
  };
  expect_errors<RuntimeError>(
      {{"unsized dataset", [] { torch::data::make_data_loader(Unsized(), 2); },
        "Expected the dataset to be sized"}});
  struct Failing : torch::data::datasets::Dataset<Failing> {
    torch::data::Example<> get(size_t i) override {
      EMBER_CHECK_INDEX(i != 5, "[Failing] sample ", i);
      return {ember::zeros({2}), ember::tensor(int64_t{0})};
    }
    std::optional<size_t> size() const override { return 8; }
  };
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      Failing().map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions().batch_size(2).workers(2));
  int good = 0;
  expect_errors<IndexError>({{"worker exception",
                              [&] {
                                for (auto& batch : *loader) good += batch.data.size(0) == 2;
                              },
                              "[Failing] sample 5"}});
  EXPECT_EQ(good, 2);
  expect_errors<ValueError>(
      {{"batch size 0",
        [] { torch::data::make_data_loader(Failing(), torch::data::DataLoaderOptions(0)); },
        "batch_size should be a positive integer"}});
}

}  // namespace
}  // namespace ember::test
