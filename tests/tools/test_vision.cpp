// tools/cli/vision: the image classifiers of `ember train --model mlp|cnn` and their input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "cli/config.h"
#include "cli/vision.h"
#include "ember/core/error.h"
#include "ember/data/readers.h"
#include "ember/ember.h"
#include "ember/optim.h"

namespace {

int64_t count_parameters(const ember::nn::Sequential& model) {
  int64_t n = 0;
  for (const auto& p : model->parameters()) n += p.numel();
  return n;
}

}  // namespace

TEST(Vision, MlpShapeAndParameterCount) {
  ember::manual_seed(0);
  auto model = ember::cli::make_image_model("mlp");
  const ember::Tensor out = model->forward(ember::randn({4, 1, 28, 28}));
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{4, 10}));
  // Linear(784, 256) + Linear(256, 10), weights and biases.
  EXPECT_EQ(count_parameters(model), 784 * 256 + 256 + 256 * 10 + 10);
}

TEST(Vision, CnnShapeAndParameterCount) {
  ember::manual_seed(0);
  auto model = ember::cli::make_image_model("cnn");
  const ember::Tensor out = model->forward(ember::randn({3, 1, 28, 28}));
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{3, 10}));
  model->eval();  // BatchNorm with running statistics: same shape, one image at a time works
  const ember::Tensor one = model->forward(ember::randn({1, 1, 28, 28}));
  EXPECT_EQ(one.sizes(), (std::vector<int64_t>{1, 10}));
  // conv 3×3 (no bias) + BatchNorm (weight, bias) per block; 28 -> 14 -> 7 after two poolings.
  const int64_t c1 = 16, c2 = 32, hidden = 128;
  const int64_t expected = (c1 * 1 * 9 + 2 * c1) + (c2 * c1 * 9 + 2 * c2) +
                           (c2 * 7 * 7 * hidden + hidden) + (hidden * 10 + 10);
  EXPECT_EQ(count_parameters(model), expected);
}

TEST(Vision, UnknownKindIsValueError) {
  EXPECT_THROW(ember::cli::make_image_model("resnet"), ember::ValueError);
  EXPECT_THROW(ember::cli::make_image_model(""), ember::ValueError);
  EXPECT_THROW(ember::cli::make_image_model("CNN"), ember::ValueError);
}

TEST(Vision, NormalizeImagesScalesThenStandardises) {
  ember::Tensor images = ember::zeros({2, 28, 28}, ember::kUInt8);
  auto* p = images.data_ptr<uint8_t>();
  for (int64_t i = 0; i < images.numel(); ++i) p[i] = static_cast<uint8_t>((i * 37) % 256);
  const ember::Tensor x = ember::cli::normalize_images(images);
  EXPECT_EQ(x.scalar_type(), ember::kFloat32);
  EXPECT_EQ(x.sizes(), (std::vector<int64_t>{2, 1, 28, 28}));
  const ember::Tensor xc = x.contiguous();
  const float* q = xc.data_ptr<float>();
  for (int64_t i = 0; i < images.numel(); ++i) {
    const double expected = (static_cast<double>(p[i]) / 255.0 - 0.2860) / 0.3530;
    ASSERT_NEAR(q[i], expected, 1e-5) << "element " << i << " value " << int(p[i]);
  }
  EXPECT_NEAR(q[0], -0.2860 / 0.3530, 1e-6);  // pixel 0
}

TEST(Vision, NormalizeImagesRejectsOtherInputs) {
  EXPECT_THROW(ember::cli::normalize_images(ember::zeros({2, 28, 28}, ember::kFloat32)),
               ember::TypeError);
  EXPECT_THROW(ember::cli::normalize_images(ember::zeros({2, 1, 28, 28}, ember::kUInt8)),
               ember::ValueError);
  EXPECT_THROW(ember::cli::normalize_images(ember::zeros({2, 28, 27}, ember::kUInt8)),
               ember::ValueError);
}

TEST(Vision, FashionMnistClassNames) {
  const auto& names = ember::cli::fashion_mnist_classes();
  ASSERT_EQ(names.size(), 10u);
  EXPECT_EQ(names[0], "T-shirt/top");
  EXPECT_EQ(names[1], "Trouser");
  EXPECT_EQ(names[5], "Sandal");
  EXPECT_EQ(names[9], "Ankle boot");
}

// A short run on the embedded data: the MLP learns well past chance (10%) in a second.
TEST(Vision, MlpLearnsFashionMnistQuickly) {
  namespace fs = std::filesystem;
  // The embedded data, found as `ember train` finds it.
  const fs::path root = fs::path(ember::cli::default_data_root()) / "fashion-mnist";
  ASSERT_TRUE(fs::exists(root / "train-images-idx3-ubyte.gz")) << root;
  ember::manual_seed(0);
  const ember::Tensor x = ember::cli::normalize_images(
      ember::data::read_idx((root / "train-images-idx3-ubyte.gz").string()));
  const ember::Tensor y =
      ember::data::read_idx((root / "train-labels-idx1-ubyte.gz").string()).to(ember::kInt64);
  const ember::Tensor xt = ember::cli::normalize_images(
      ember::data::read_idx((root / "t10k-images-idx3-ubyte.gz").string()));
  const ember::Tensor yt =
      ember::data::read_idx((root / "t10k-labels-idx1-ubyte.gz").string()).to(ember::kInt64);
  auto model = ember::cli::make_image_model("mlp");
  ember::optim::AdamW opt(model->parameters(), ember::optim::AdamWOptions(2e-3));
  const int64_t batch = 128;
  for (int64_t step = 0; step < 100; ++step) {
    const int64_t begin = (step * batch) % (x.size(0) - batch);
    const ember::Tensor loss = ember::nn::functional::cross_entropy(
        model->forward(x.slice(0, begin, begin + batch)), y.slice(0, begin, begin + batch));
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
  ember::NoGradGuard no_grad;
  model->eval();
  const double accuracy =
      model->forward(xt).argmax(1).eq(yt).to(ember::kFloat64).mean().item<double>();
  EXPECT_GT(accuracy, 0.75) << "test accuracy";  // 0.84 measured
}
