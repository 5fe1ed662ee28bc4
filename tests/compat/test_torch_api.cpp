// libtorch-style snippets against ember/torch.h: the API shapes that typical libtorch programs
// (pytorch/examples' cpp/ folder among them) use, each checked against a closed form.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <type_traits>

#include "ember/torch.h"
#include "opdb.h"

namespace compat_snippets {

using namespace torch;  // NOLINT: as libtorch programs write it

// `using namespace torch;` then nn::, optim::, data::, autograd:: must each name one namespace.
double namespaces_resolve() {
  nn::Linear lin(nn::LinearOptions(3, 2).bias(false));
  optim::SGD opt(lin->parameters(), optim::SGDOptions(0.1));
  data::Example<> example(ones({1, 3}), zeros({1}));
  Tensor x = tensor({1.0, 2.0, 3.0}, requires_grad());
  Tensor g = autograd::grad({(x * x).sum()}, {x})[0];  // 2 x
  opt.zero_grad();
  return g.sum().item<double>() + static_cast<double>(lin(example.data).size(1));
}

// LinearFunction from pytorch/examples' cpp/autograd: bias is optional, backward always returns
// three gradients.
class LinearFunction : public autograd::Function<LinearFunction> {
 public:
  static Tensor forward(autograd::AutogradContext* ctx, Tensor input, Tensor weight,
                        Tensor bias = Tensor()) {
    ctx->save_for_backward({input, weight, bias});
    auto output = input.mm(weight.t());
    if (bias.defined()) output += bias.unsqueeze(0).expand_as(output);
    return output;
  }
  static autograd::tensor_list backward(autograd::AutogradContext* ctx,
                                        autograd::tensor_list grad_outputs) {
    auto saved = ctx->get_saved_variables();
    auto grad_output = grad_outputs[0];
    Tensor grad_bias;
    if (saved[2].defined()) grad_bias = grad_output.sum(0);
    return {grad_output.mm(saved[1]), grad_output.t().mm(saved[0]), grad_bias};
  }
};

class MulConstant : public autograd::Function<MulConstant> {
 public:
  static Tensor forward(autograd::AutogradContext* ctx, Tensor t, double constant) {
    ctx->saved_data["constant"] = constant;
    return t * constant;
  }
  static autograd::tensor_list backward(autograd::AutogradContext* ctx,
                                        autograd::tensor_list grad_outputs) {
    return {grad_outputs[0] * ctx->saved_data["constant"].toDouble(), Tensor()};
  }
};

// Too many gradients that are defined is still an error.
class TooManyGrads : public autograd::Function<TooManyGrads> {
 public:
  static Tensor forward(autograd::AutogradContext*, Tensor t) { return t * 2; }
  static autograd::tensor_list backward(autograd::AutogradContext*, autograd::tensor_list g) {
    return {g[0] * 2, g[0]};
  }
};

// From pytorch/examples' cpp/custom-dataset: a Sequential of Functional(torch::fn, args...) and a
// dataset whose size() returns torch::optional.
struct NetworkImpl : torch::nn::SequentialImpl {
  NetworkImpl() {
    using namespace torch::nn;
    auto stride = torch::ExpandingArray<2>({2, 2});
    torch::ExpandingArray<2> shape({-1, 4});
    push_back(Functional(torch::relu));
    push_back(Functional(torch::max_pool2d, 3, stride, 0, 1, true));
    push_back(Functional(torch::reshape, shape));
  }
};
TORCH_MODULE(Network);

class BytesDataset : public torch::data::datasets::Dataset<BytesDataset> {
 public:
  explicit BytesDataset(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
  torch::data::Example<> get(size_t index) override {
    auto image = torch::from_blob(&bytes_[2 * index], {2}, torch::kUInt8).to(torch::kFloat);
    return {image, torch::tensor(static_cast<int64_t>(index), torch::kLong)};
  }
  torch::optional<size_t> size() const override { return bytes_.size() / 2; }

 private:
  std::vector<uint8_t> bytes_;
};

// Printing sizes from code outside namespace ember, as a libtorch program does.
std::string sizes_text(const Tensor& x) {
  std::ostringstream out;
  out << x.sizes();
  return out.str();
}

}  // namespace compat_snippets

namespace ember {
namespace {

namespace fs = std::filesystem;
using test::expect_errors;

bool close(const Tensor& a, const Tensor& b) { return allclose(a, b, 1e-5, 1e-6); }

// A (1, 1, n, n) image from its n * n values in row-major order.
Tensor grid(std::vector<double> values) {
  const auto n = static_cast<int64_t>(std::lround(std::sqrt(static_cast<double>(values.size()))));
  return torch::tensor(values).reshape({1, 1, n, n});
}

TEST(TorchApi, NamespacesResolveAfterUsingNamespaceTorch) {
  // 2 * (1 + 2 + 3) from autograd::grad plus the Linear's 2 output features.
  EXPECT_EQ(compat_snippets::namespaces_resolve(), 14.0);
  static_assert(std::is_same_v<torch::autograd::tensor_list, std::vector<Tensor>>);
  static_assert(std::is_same_v<torch::autograd::IValue, ember::IValue>);
}

TEST(TorchApi, SingleIntegerSizesInFactories) {
  Tensor x = torch::randn(3, torch::requires_grad());
  EXPECT_EQ(x.sizes(), (std::vector<int64_t>{3}));
  EXPECT_TRUE(x.requires_grad());
  Tensor batch = torch::ones({4, 2});
  Tensor z = torch::zeros(batch.size(0), torch::Device(torch::kCPU));
  EXPECT_EQ(z.sizes(), (std::vector<int64_t>{4}));
  EXPECT_EQ(z.sum().item<float>(), 0.0f);
  EXPECT_EQ(torch::ones(2, torch::kInt64).sum().item<int64_t>(), 2);
  EXPECT_EQ(torch::full(3, 1.5).sum().item<float>(), 4.5f);
  EXPECT_EQ(torch::empty(5).numel(), 5);
  EXPECT_EQ(torch::rand(size_t{6}).numel(), 6);
  // Braced lists keep their meaning: {} is a 0-d tensor, {2, 3} a matrix.
  EXPECT_EQ(torch::zeros({}).dim(), 0);
  EXPECT_EQ(torch::ones({2, 3}).numel(), 6);
}

TEST(TorchApi, CustomFunctionDropsTrailingUndefinedGradients) {
  using compat_snippets::LinearFunction;
  Tensor x = torch::tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}).requires_grad_();
  Tensor w = torch::arange(12, torch::kFloat32).reshape({4, 3}).requires_grad_();
  LinearFunction::apply(x, w).sum().backward();  // bias not given: 3 gradients for 2 inputs
  // d sum(x W^T) / dx = 1 W (every row: W's column sums); / dW = 1^T x (every row: x's column
  // sums).
  EXPECT_TRUE(close(x.grad(), w.detach().sum(0).expand({2, 3})));
  EXPECT_TRUE(close(w.grad(), x.detach().sum(0).expand({4, 3})));

  Tensor b = torch::zeros(4, torch::requires_grad());
  LinearFunction::apply(x.detach(), w.detach(), b).sum().backward();
  EXPECT_TRUE(close(b.grad(), torch::full(4, 2.0)));

  Tensor t = torch::ones(2, torch::requires_grad());
  compat_snippets::MulConstant::apply(t, 5.5).sum().backward();
  EXPECT_TRUE(close(t.grad(), torch::full(2, 5.5)));

  Tensor u = torch::ones(2, torch::requires_grad());
  expect_errors<RuntimeError>({{"too many defined gradients",
                                [&] { compat_snippets::TooManyGrads::apply(u).sum().backward(); },
                                "incorrect number of gradients (expected 1, got 2)"}});
}

TEST(TorchApi, StrSaveLoadAndConstInPlace) {
  EXPECT_EQ(torch::str("step ", 3, ", loss ", 0.5), "step 3, loss 0.5");
  EXPECT_EQ(c10::str(torch::tensor({1, 2})), torch::tensor({1, 2}).toString());

  const fs::path dir = fs::temp_directory_path() / ("ember_torch_api_" + std::to_string(getpid()));
  fs::create_directories(dir);
  Tensor t = torch::arange(6, torch::kFloat64).reshape({2, 3});
  torch::save(t, (dir / "t.pt").string());
  Tensor back;
  torch::load(back, (dir / "t.pt").string());
  EXPECT_TRUE(back.equal(t));
  std::vector<Tensor> list{torch::ones(2), torch::arange(3)};
  torch::save(list, (dir / "l.pt").string());
  std::vector<Tensor> list_back;
  torch::load(list_back, (dir / "l.pt").string());
  ASSERT_EQ(list_back.size(), 2u);
  EXPECT_TRUE(list_back[1].equal(torch::arange(3)));
  expect_errors<ValueError>(
      {{"two tensors into one", [&] { torch::load(back, (dir / "l.pt").string()); },
        "expected one tensor, found 2"}});
  fs::remove_all(dir);

  // In-place methods on a const Tensor& (in ATen a Tensor is a handle; its methods are const).
  Tensor x = torch::ones(3, torch::requires_grad());
  (x * x).sum().backward();
  x.grad().zero_();
  EXPECT_EQ(x.grad().abs().sum().item<float>(), 0.0f);
  const Tensor c = torch::ones(2);
  c.add_(1).mul_(3);
  EXPECT_TRUE(c.equal(torch::full(2, 6.0)));
}

TEST(TorchApi, BracedListsIntoOptionalListParameters) {
  Tensor x = torch::tensor({{3.0, 4.0}, {6.0, 8.0}});
  EXPECT_TRUE(close(torch::linalg::vector_norm(x, 2, {1}), torch::tensor({5.0, 10.0})));
  EXPECT_TRUE(close(torch::linalg::vector_norm(x, 2, {0, 1}), torch::tensor(std::sqrt(125.0))));
  EXPECT_TRUE(close(torch::linalg::vector_norm(x, 2, {}), torch::tensor(std::sqrt(125.0))));
  EXPECT_TRUE(close(torch::linalg::norm(x, std::nullopt, {1}), torch::tensor({5.0, 10.0})));
}

TEST(TorchApi, AtenLossFunctionsWithReductionCodes) {
  using torch::Reduction::Mean;
  using torch::Reduction::None;
  using torch::Reduction::Sum;
  Tensor in = torch::tensor({0.0, 1.0, 4.0});
  Tensor tg = torch::tensor({0.5, 1.0, 1.0});  // differences -0.5, 0, 3
  EXPECT_TRUE(close(torch::mse_loss(in, tg, None), torch::tensor({0.25, 0.0, 9.0})));
  EXPECT_TRUE(close(torch::l1_loss(in, tg, Sum), torch::tensor(3.5)));
  // smooth L1 with beta 1: 0.5 d^2 / beta below beta, |d| - beta / 2 above.
  EXPECT_TRUE(close(torch::smooth_l1_loss(in, tg, Sum, 1.0), torch::tensor(0.125 + 2.5)));
  EXPECT_TRUE(
      close(torch::smooth_l1_loss(in, tg, Mean, 0.25), torch::tensor((0.375 + 0.0 + 2.875) / 3)));
  // Huber with delta 2: 0.5 d^2 below delta, delta (|d| - delta / 2) above.
  EXPECT_TRUE(close(torch::huber_loss(in, tg, None, 2.0), torch::tensor({0.125, 0.0, 4.0})));
  Tensor p = torch::tensor({0.5, 0.25});
  Tensor y = torch::tensor({1.0, 0.0});
  const double bce = -(std::log(0.5) + std::log(0.75));
  EXPECT_TRUE(close(torch::binary_cross_entropy(p, y, {}, Sum), torch::tensor(bce)));
  EXPECT_TRUE(close(torch::binary_cross_entropy(p, y, torch::tensor({2.0, 0.0}), Sum),
                    torch::tensor(-2 * std::log(0.5))));
  Tensor logits = torch::tensor({0.0, 0.0});
  EXPECT_TRUE(close(torch::binary_cross_entropy_with_logits(logits, y, {}, {}, Mean),
                    torch::tensor(std::log(2.0))));
  Tensor logp = torch::log(torch::tensor({0.5, 0.5}));
  Tensor q = torch::tensor({0.25, 0.75});
  const double kl = 0.25 * std::log(0.5) + 0.75 * std::log(1.5);
  EXPECT_TRUE(close(torch::kl_div(logp, q, Sum), torch::tensor(kl)));
  Tensor scores = torch::tensor({{0.0, 0.0}, {0.0, 0.0}});
  Tensor labels = torch::tensor({0, 1}, torch::kInt64);
  EXPECT_TRUE(
      close(torch::cross_entropy_loss(scores, labels, {}, Sum), torch::tensor(2 * std::log(2.0))));
  expect_errors<ValueError>({{"bad reduction", [&] { (void)torch::mse_loss(in, tg, 5); },
                              "reduction must be Reduction::None, Mean or Sum"}});
}

TEST(TorchApi, ArgsortStableFormAndOptionalCorrection) {
  Tensor x = torch::tensor({2, 1, 2, 1, 3});
  // Stable, descending: ties keep their order.
  EXPECT_TRUE(torch::argsort(x, /*stable=*/true, /*dim=*/0, /*descending=*/true)
                  .equal(torch::tensor({4, 0, 2, 1, 3}, torch::kInt64)));
  EXPECT_TRUE(x.argsort(/*stable=*/true, 0).equal(torch::tensor({1, 3, 0, 2, 4}, torch::kInt64)));
  // The older (dim, descending) form is unchanged.
  EXPECT_EQ(x.argsort(0, true)[0].item<int64_t>(), 4);

  Tensor v = torch::tensor({{1.0, 2.0, 3.0, 4.0}});  // mean 2.5, squared deviations sum 5
  EXPECT_TRUE(close(v.var(1, std::optional<int64_t>(0)), torch::tensor({1.25})));
  EXPECT_TRUE(close(torch::var(v, {1}, std::optional<int64_t>(1)), torch::tensor({5.0 / 3})));
  EXPECT_TRUE(close(torch::std(v, std::nullopt, std::nullopt), torch::tensor(std::sqrt(5.0 / 3))));
  EXPECT_TRUE(
      close(v.std({1}, std::optional<torch::Scalar>(2), true), torch::tensor({{std::sqrt(2.5)}})));
}

TEST(TorchApi, AtenPoolingAndDropoutForms) {
  Tensor x = torch::arange(16, torch::kFloat32).reshape({1, 1, 4, 4});  // x[i][j] = 4 i + j
  EXPECT_TRUE(close(torch::max_pool2d(x, 2), grid({5.0, 7.0, 13.0, 15.0})));
  // Kernel 2, stride 1: each output is its window's bottom-right element, 4 (i + 1) + j + 1.
  EXPECT_TRUE(close(torch::max_pool2d(x, {2}, {1}),
                    grid({5.0, 6.0, 7.0, 9.0, 10.0, 11.0, 13.0, 14.0, 15.0})));
  // Kernel 3, stride 2: one window in floor mode, two per dim with ceil_mode.
  EXPECT_TRUE(close(torch::max_pool2d(x, {3, 3}, {2, 2}), grid({10.0})));
  EXPECT_TRUE(
      close(torch::max_pool2d(x, 3, 2, 0, 1, /*ceil_mode=*/true), grid({10.0, 11.0, 14.0, 15.0})));
  EXPECT_TRUE(close(torch::avg_pool2d(x, 2), grid({2.5, 4.5, 10.5, 12.5})));
  // Padding 1: the first row's windows see x[0][0], x[0][1..2], x[0][3] and padding.
  Tensor with_pad = torch::avg_pool2d(x, {2}, {}, 1, false, /*count_include_pad=*/true);
  Tensor without_pad = torch::avg_pool2d(x, {2}, {}, 1, false, /*count_include_pad=*/false);
  EXPECT_TRUE(close(with_pad[0][0][0], torch::tensor({0.0, 0.75, 0.75})));
  EXPECT_TRUE(close(without_pad[0][0][0], torch::tensor({0.0, 1.5, 3.0})));
  EXPECT_TRUE(close(torch::avg_pool2d(x, 2, {}, 0, false, true, /*divisor_override=*/1),
                    grid({10.0, 18.0, 42.0, 50.0})));
  Tensor y = torch::tensor({{{1.0, 3.0, 2.0, 5.0, 4.0}}});
  EXPECT_TRUE(close(torch::max_pool1d(y, 2), torch::tensor({{{3.0, 5.0}}})));
  EXPECT_TRUE(close(torch::max_pool1d(y, 3, 1), torch::tensor({{{3.0, 5.0, 5.0}}})));
  EXPECT_TRUE(close(torch::avg_pool1d(y, 2), torch::tensor({{{2.0, 3.5}}})));

  Tensor ones = torch::ones(1000);
  EXPECT_TRUE(torch::dropout(ones, 0.5, /*train=*/false).equal(ones));
  Tensor dropped = torch::dropout(ones, 0.5, /*train=*/true);  // each element 0 or 1 / (1 - p)
  EXPECT_EQ((dropped.eq(0) | dropped.eq(2)).sum().item<int64_t>(), 1000);
  EXPECT_GT(dropped.eq(0).sum().item<int64_t>(), 0);
  EXPECT_GT(dropped.eq(2).sum().item<int64_t>(), 0);

  expect_errors<RuntimeError>(
      {{"three kernel sizes",
        [&] {
          (void)torch::max_pool2d(x, {2, 2, 2});
        },
        "[max_pool2d] kernel_size must either be a single int, or a tuple of 2 ints, got 3"},
       {"two strides in 1-d",
        [&] {
          (void)torch::max_pool1d(y, 2, {1, 1});
        },
        "[max_pool1d] stride must either be a single int, or a tuple of 1 ints, got 2"},
       {"empty padding", [&] { (void)torch::avg_pool2d(x, 2, {}, std::vector<int64_t>{}); },
        "[avg_pool2d] padding must either be a single int, or a tuple of 2 ints, got 0"}});
}

TEST(TorchApi, FunctionalModulesOptionalAndExpandingArrayLists) {
  static_assert(std::is_same_v<torch::optional<size_t>, std::optional<size_t>>);
  EXPECT_FALSE(torch::optional<int>(torch::nullopt).has_value());
  torch::IntArrayRef three = torch::ExpandingArray<3>(5);
  EXPECT_EQ(three.vec(), (std::vector<int64_t>{5, 5, 5}));
  SymIntList sym = torch::ExpandingArray<2>({2, -1});
  EXPECT_EQ(sym.concrete(), (std::vector<int64_t>{2, -1}));

  // relu, then 3x3 max pools at stride 2 with ceil_mode (two windows per dim, as above), then a
  // reshape to (-1, 4).
  compat_snippets::Network net;
  Tensor x = torch::arange(32, torch::kFloat32).reshape({2, 1, 4, 4}) - 16;
  Tensor out = net->forward(x);
  EXPECT_TRUE(close(out, torch::tensor({{0.0, 0.0, 0.0, 0.0}, {10.0, 11.0, 14.0, 15.0}})));

  // The dataset of custom-dataset's shape through Stack and a sequential loader.
  auto set =
      compat_snippets::BytesDataset({1, 2, 3, 4, 5, 6}).map(torch::data::transforms::Stack<>());
  ASSERT_EQ(set.size().value(), 3u);
  auto loader =
      torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(std::move(set), 2);
  std::vector<int64_t> batch_sizes;
  Tensor first;
  for (auto& batch : *loader) {
    batch_sizes.push_back(batch.data.size(0));
    if (!first.defined()) first = batch.data;
  }
  EXPECT_EQ(batch_sizes, (std::vector<int64_t>{2, 1}));
  EXPECT_TRUE(close(first, torch::tensor({{1.0, 2.0}, {3.0, 4.0}})));
}

TEST(TorchApi, PrintingSizesModuleHoldersAndShortDtypeNames) {
  // As c10's ArrayRef prints: std::cout << x.sizes().
  std::ostringstream sizes;
  sizes << torch::zeros({8, 3}).sizes() << torch::zeros({}).sizes();
  EXPECT_EQ(sizes.str(), "[8, 3][]");
  EXPECT_EQ(compat_snippets::sizes_text(torch::zeros({2, 1, 5})), "[2, 1, 5]");
  // A holder prints its module, as std::cout << *holder does.
  torch::nn::Linear lin(3, 4);
  std::ostringstream held, direct;
  held << lin;
  direct << *lin;
  EXPECT_EQ(held.str(), direct.str());
  EXPECT_NE(held.str().find("in_features=3, out_features=4"), std::string::npos) << held.str();
  static_assert(std::is_same_v<c10::IValue, ember::IValue>);
  // libtorch's short dtype names.
  static_assert(torch::kF32 == ScalarType::Float32 && torch::kF64 == ScalarType::Float64 &&
                torch::kF16 == ScalarType::Float16 && torch::kU8 == ScalarType::UInt8 &&
                torch::kI8 == ScalarType::Int8 && torch::kI16 == ScalarType::Int16 &&
                torch::kI32 == ScalarType::Int32 && torch::kI64 == ScalarType::Int64);
  EXPECT_EQ(torch::ones(2, torch::kU8).to(torch::kF32).dtype(), torch::kFloat32);
}

// Expected names printed by libtorch 1.13 (Debian's libtorch-dev) for the same expressions.
TEST(TorchApi, TensorScalarNodesCarryLibtorchOverloadNumbers) {
  Tensor x = torch::ones(2, torch::requires_grad());
  auto name = [](const Tensor& t) { return t.grad_fn()->name(); };
  EXPECT_EQ(name(x * x), "MulBackward0");
  EXPECT_EQ(name(x * 2), "MulBackward1");
  EXPECT_EQ(name(x.mul(2.5)), "MulBackward1");
  EXPECT_EQ(name(2 * x), "MulBackward1");
  EXPECT_EQ(name(x + x), "AddBackward0");
  EXPECT_EQ(name(x + 2), "AddBackward1");
  EXPECT_EQ(name(2 + x), "AddBackward1");
  EXPECT_EQ(name(x.add(x, 2)), "AddBackward0");
  EXPECT_EQ(name(x - 2), "SubBackward1");
  EXPECT_EQ(name(2 - x), "SubBackward0");
  EXPECT_EQ(name(x / 2), "DivBackward1");
  EXPECT_EQ(name(2 / x), "DivBackward0");
  EXPECT_EQ(name(x / x), "DivBackward0");
  EXPECT_EQ(name(x.div(x, "trunc")), "DivBackward2");
  EXPECT_EQ(name(x.div(2, "floor")), "DivBackward3");
  EXPECT_EQ(name(x.pow(2)), "PowBackward0");
  EXPECT_EQ(name(x.pow(x)), "PowBackward1");
  EXPECT_EQ(name(torch::pow(2, x)), "PowBackward2");
  EXPECT_EQ(name(x.remainder(2)), "RemainderBackward0");
  EXPECT_EQ(name(x.remainder(x)), "RemainderBackward1");
  EXPECT_EQ(name(x.fmod(x)), "FmodBackward1");
  EXPECT_EQ(name(x.atan2(x)), "Atan2Backward0");
  EXPECT_EQ(name(x.clone().mul_(2)), "MulBackward1");
  Tensor c = x.clone();
  EXPECT_EQ(name(c -= 2), "SubBackward1");
  EXPECT_EQ(name(x.clone().pow_(x)), "PowBackward1");
  EXPECT_EQ(name(x.clamp(0, 1)), "ClampBackward1");
  EXPECT_EQ(name(x.clone().clamp_(0, 1)), "ClampBackward1");
  EXPECT_EQ(name(x.clamp(torch::zeros(2), torch::ones(2))), "ClampBackward0");
  EXPECT_EQ(name(x.lerp(x * 2, 0.5)), "LerpBackward0");
  EXPECT_EQ(name(x.lerp(x * 2, torch::full(2, 0.5))), "LerpBackward1");
  Tensor index = torch::tensor({0}, torch::kInt64);
  EXPECT_EQ(name(x.scatter(0, index, x)), "ScatterBackward0");
  EXPECT_EQ(name(x.scatter(0, index, 2.0)), "ScatterBackward1");
  EXPECT_EQ(name(x.clone().scatter_(0, index, 2.0)), "ScatterBackward1");
  // The names do not change the gradients: d(3 x - 2 + x^2) / dx = 3 + 2 x.
  (x * 3 - 2 + x.pow(2)).sum().backward();
  EXPECT_TRUE(close(x.grad(), torch::full(2, 5.0)));
}

}  // namespace
}  // namespace ember
