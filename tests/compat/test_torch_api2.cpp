// libtorch compatibility, round 2: assignment to temporaries, deeply nested torch::tensor braces,
// ATen's top-level and method forms (rsub, threshold, xlogy, float_power, lerp_, clamp with
// tensor bounds, fills with a 0-d tensor value) and autograd node names. Expected values are
// closed forms or were printed by libtorch 1.13 (Debian's libtorch-dev) for the same snippets.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>

#include "ember/torch.h"
#include "opdb.h"

namespace ember {
namespace {

using test::expect_errors;

bool close(const Tensor& a, const Tensor& b) { return allclose(a, b, 1e-5, 1e-6); }
std::string node(const Tensor& t) { return t.grad_fn()->name(); }

TEST(TorchApi2, AssignmentToTemporariesWritesIntoTheView) {
  // As libtorch prints for the same statements: [[5, 5], [2, 3]].
  Tensor z = torch::zeros({2, 2});
  z[0] = 5;
  z.index({1}) = torch::tensor({1.0, 2.0});
  z[1] += 1;
  EXPECT_TRUE(z.equal(torch::tensor({{5.0f, 5.0f}, {2.0f, 3.0f}})));
  z[0][1] -= 2;
  z.index({torch::indexing::Slice(), 0}) *= 4;  // column 0: 5 * 4, 2 * 4
  z[1] /= 2;
  EXPECT_TRUE(z.equal(torch::tensor({{20.0f, 3.0f}, {4.0f, 1.5f}})));
  // A 0-d tensor broadcasts into the view; a double source converts to the view's dtype.
  z.index({torch::indexing::Slice(), 1}) = torch::tensor(7.0, torch::kFloat64);
  EXPECT_TRUE(z.equal(torch::tensor({{20.0f, 7.0f}, {4.0f, 7.0f}})));
  Tensor i = torch::arange(4, torch::kInt64);
  i[2] = 9;
  EXPECT_TRUE(i.equal(torch::tensor({0, 1, 9, 3}, torch::kInt64)));

  // Assigning to a named tensor still rebinds the handle and leaves the old storage alone.
  Tensor a = torch::zeros(2);
  Tensor b = a;
  b = torch::ones(2);
  EXPECT_EQ(a.sum().item<float>(), 0.0f);
  EXPECT_EQ(b.sum().item<float>(), 2.0f);
  Tensor moved = std::move(b);
  EXPECT_EQ(moved.sum().item<float>(), 2.0f);

  // t.grad().data() = g writes the gradient (libtorch prints [7, 8]); so does t.data() = v.
  Tensor w = torch::ones(2, torch::requires_grad());
  (w * 3).sum().backward();
  w.grad().data() = torch::tensor({7.0, 8.0});
  EXPECT_TRUE(w.grad().equal(torch::tensor({7.0f, 8.0f})));
  w.data() = torch::tensor({-1.0, 2.0});
  EXPECT_TRUE(w.detach().equal(torch::tensor({-1.0f, 2.0f})));
  EXPECT_TRUE(w.requires_grad());

  expect_errors<RuntimeError>(
      {{"shape mismatch", [&] { z[0] = torch::ones(3); }, "[copy_]"},
       {"int overflow", [&] { torch::zeros(2, torch::kInt8)[0] = 300; }, "[fill_]"}});
}

TEST(TorchApi2, TensorFromDeeplyNestedBraces) {
  Tensor four = torch::tensor({{{{1, 2}}, {{3, 4}}}});
  EXPECT_EQ(four.sizes(), (std::vector<int64_t>{1, 2, 1, 2}));  // as libtorch prints
  EXPECT_EQ(four.dtype(), torch::kInt64);
  EXPECT_TRUE(four.flatten().equal(torch::arange(1, 5, torch::kInt64)));
  Tensor five = torch::tensor({{{{{1.5}, {2.5}}}}}, torch::kFloat64);
  EXPECT_EQ(five.sizes(), (std::vector<int64_t>{1, 1, 1, 2, 1}));
  EXPECT_EQ(five.sum().item<double>(), 4.0);
  Tensor six = torch::tensor({{{{{{true, false, true}}}}}});
  EXPECT_EQ(six.sizes(), (std::vector<int64_t>{1, 1, 1, 1, 1, 3}));
  EXPECT_EQ(six.dtype(), torch::kBool);
  // Element (i, j, k, l) of a 2x2x2x2 literal is 8 i + 4 j + 2 k + l.
  Tensor full = torch::tensor({{{{0.0f, 1.0f}, {2.0f, 3.0f}}, {{4.0f, 5.0f}, {6.0f, 7.0f}}},
                               {{{8.0f, 9.0f}, {10.0f, 11.0f}}, {{12.0f, 13.0f}, {14.0f, 15.0f}}}});
  EXPECT_TRUE(full.equal(torch::arange(16, torch::kFloat32).reshape({2, 2, 2, 2})));
  EXPECT_EQ(full.index({1, 0, 1, 0}).item<float>(), 10.0f);
  // The 2- and 3-level forms are unchanged.
  EXPECT_EQ(torch::tensor({{1, 2, 3}}).sizes(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(torch::tensor({{{1.0}, {2.0}}}).sizes(), (std::vector<int64_t>{1, 2, 1}));
  expect_errors<ValueError>({{"ragged dim 3",
                              [] {
                                (void)torch::tensor({{{{1, 2}}, {{3}}}});
                              },
                              "[tensor] expected sequence of length 2 at dim 3 (got 1)"},
                             {"ragged dim 1",
                              [] {
                                (void)torch::tensor({{{{1}}, {{2}}}, {{{3}}}});
                              },
                              "[tensor] expected sequence of length 2 at dim 1 (got 1)"},
                             {"ragged dim 1 of 2-d",
                              [] {
                                (void)torch::tensor({{1, 2}, {3}});
                              },
                              "[tensor] expected sequence of length 2 at dim 1 (got 1)"}});
}

TEST(TorchApi2, RsubThresholdXlogyFloatPower) {
  Tensor i = torch::tensor({1, 2, 3});
  // other - alpha * self, with sub's promotion (libtorch: float [1.5, 0.5, -0.5]; long [1, 0, -1]).
  EXPECT_TRUE(torch::rsub(i, 2.5).equal(torch::tensor({1.5f, 0.5f, -0.5f})));
  EXPECT_TRUE(torch::rsub(i, 2).equal(torch::tensor({1, 0, -1})));
  EXPECT_TRUE(torch::rsub(i, i, 2).equal(torch::tensor({-1, -2, -3})));
  Tensor x = torch::tensor({1.0, 2.0}, torch::requires_grad());
  Tensor y = torch::tensor({5.0, 7.0}, torch::requires_grad());
  Tensor r = torch::rsub(x, y, 3);  // y - 3 x
  EXPECT_TRUE(close(r, torch::tensor({2.0, 1.0})));
  EXPECT_EQ(node(r), "RsubBackward0");
  EXPECT_EQ(node(torch::rsub(x, 2)), "RsubBackward1");
  r.sum().backward();
  EXPECT_TRUE(close(x.grad(), torch::full(2, -3.0)));
  EXPECT_TRUE(close(y.grad(), torch::full(2, 1.0)));

  // threshold: x <= threshold becomes value (libtorch on ints: [7, 2, 3]).
  EXPECT_TRUE(torch::threshold(i, 1.5, 7).equal(torch::tensor({7, 2, 3})));
  Tensor f = torch::tensor({-1.0, 0.5, 2.0});
  EXPECT_TRUE(close(torch::threshold(f, 0.5, -9.0), torch::tensor({-9.0, -9.0, 2.0})));
  torch::threshold_(f, 0.0, 0.25);
  EXPECT_TRUE(close(f, torch::tensor({0.25, 0.5, 2.0})));

  // xlogy: 0 where x == 0 unless y is NaN (libtorch: [0, nan, log 2], float for ints).
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor xl =
      torch::xlogy(torch::tensor({0.0, 0.0, 1.0, 3.0}), torch::tensor({0.0, nan, 2.0, 0.5}));
  EXPECT_EQ(xl[0].item<float>(), 0.0f);
  EXPECT_TRUE(std::isnan(xl[1].item<float>()));
  EXPECT_NEAR(xl[2].item<float>(), std::log(2.0), 1e-6);
  EXPECT_NEAR(xl[3].item<float>(), 3 * std::log(0.5), 1e-6);
  EXPECT_EQ(torch::xlogy(i, i).dtype(), torch::kFloat32);
  EXPECT_EQ(torch::xlogy(i.to(torch::kFloat64), 2).dtype(), torch::kFloat64);
  EXPECT_TRUE(
      close(torch::xlogy(2, torch::tensor({1.0, std::exp(1.0)})), torch::tensor({0.0, 2.0})));
  EXPECT_TRUE(close(torch::tensor({2.0, 3.0}).xlogy(std::exp(2.0)), torch::tensor({4.0, 6.0})));
  // Broadcasting, and the gradients log(y) (0 where x == 0) and x / y.
  Tensor a = torch::tensor({{0.0}, {2.0}}, torch::requires_grad());
  Tensor b = torch::tensor({1.0, 4.0}, torch::requires_grad());
  Tensor ab = torch::xlogy(a, b);
  EXPECT_EQ(ab.sizes(), (std::vector<int64_t>{2, 2}));
  ab.sum().backward();
  EXPECT_TRUE(close(a.grad(), torch::tensor({{0.0}, {std::log(4.0)}})));
  EXPECT_TRUE(close(b.grad(), torch::tensor({2.0, 0.5})));
  Tensor inplace = torch::tensor({1.0, 2.0});
  inplace.xlogy_(torch::tensor({std::exp(1.0), 1.0}));
  EXPECT_TRUE(close(inplace, torch::tensor({1.0, 0.0})));

  // float_power computes in double (libtorch: double for int and float operands).
  Tensor p = torch::float_power(i, 2);
  EXPECT_EQ(p.dtype(), torch::kFloat64);
  EXPECT_TRUE(p.equal(torch::tensor({1.0, 4.0, 9.0}, torch::kFloat64)));
  EXPECT_EQ(torch::float_power(torch::ones(2), torch::ones(2)).dtype(), torch::kFloat64);
  EXPECT_TRUE(torch::float_power(2, i).equal(torch::tensor({2.0, 4.0, 8.0}, torch::kFloat64)));
  EXPECT_TRUE(i.float_power(-1).equal(torch::tensor({1.0, 0.5, 1.0 / 3}, torch::kFloat64)));
  Tensor fp = torch::tensor({3.0f}, torch::requires_grad());
  Tensor fpp = fp.float_power(2);
  EXPECT_EQ(node(fpp), "PowBackward0");
  fpp.sum().backward();
  EXPECT_EQ(fp.grad().dtype(), torch::kFloat32);
  EXPECT_TRUE(close(fp.grad(), torch::tensor({6.0f})));
  Tensor d = torch::tensor({2.0, 3.0}, torch::kFloat64);
  d.float_power_(2);
  EXPECT_TRUE(d.equal(torch::tensor({4.0, 9.0}, torch::kFloat64)));
  expect_errors<RuntimeError>(
      {{"float_power_ on float", [] { torch::ones(2).float_power_(2); },
        "[float_power_] the base given to float_power_ has dtype Float but the operation's result "
        "requires dtype Double"},
       {"xlogy_ into long", [&] { i.clone().xlogy_(i); },
        "can't be cast to the desired output type Long"},
       {"rsub of bools",
        [] { (void)torch::rsub(torch::ones(2, torch::kBool), torch::ones(2, torch::kBool)); },
        "with two bool tensors is not supported"}});
}

TEST(TorchApi2, LerpInPlaceClampWithTensorBoundsFillsWithTensorValue) {
  Tensor s = torch::tensor({0.0, 10.0});
  s.lerp_(torch::tensor({10.0, 20.0}), 0.25);
  EXPECT_TRUE(close(s, torch::tensor({2.5, 12.5})));
  s.lerp_(torch::tensor({2.5, 22.5}), torch::tensor({0.0, 0.5}));
  EXPECT_TRUE(close(s, torch::tensor({2.5, 17.5})));
  Tensor leaf = torch::tensor({1.0, 3.0}, torch::requires_grad());
  Tensor l = leaf.clone();
  l.lerp_(torch::zeros(2), 0.5);
  EXPECT_EQ(node(l), "LerpBackward0");
  l.sum().backward();
  EXPECT_TRUE(close(leaf.grad(), torch::full(2, 0.5)));

  Tensor x = torch::tensor({-2.0, 0.5, 3.0}, torch::requires_grad());
  Tensor lo = torch::tensor({0.0, 1.0, 0.0});
  Tensor hi = torch::tensor({1.0});
  EXPECT_TRUE(close(x.clamp_min(lo), torch::tensor({0.0, 1.0, 3.0})));
  EXPECT_TRUE(close(torch::clamp_max(x, hi), torch::tensor({-2.0, 0.5, 1.0})));
  EXPECT_TRUE(close(x.clamp(lo, hi), torch::tensor({0.0, 1.0, 1.0})));
  EXPECT_EQ(node(x.clamp_min(lo)), "ClampMinBackward1");
  EXPECT_EQ(node(x.clamp_max(hi)), "ClampMaxBackward1");
  EXPECT_EQ(node(x.clamp_min(0)), "ClampMinBackward0");
  EXPECT_EQ(node(x.clamp_max(0)), "ClampMaxBackward0");
  EXPECT_EQ(node(x.clamp(lo, hi)), "ClampBackward0");
  EXPECT_EQ(node(x.clamp(0, 1)), "ClampBackward1");
  Tensor c = x.detach().clone();
  c.clamp_(lo, hi);
  EXPECT_TRUE(close(c, torch::tensor({0.0, 1.0, 1.0})));
  c = x.detach().clone();
  c.clamp_min_(lo).clamp_max_(2.0);
  EXPECT_TRUE(close(c, torch::tensor({0.0, 1.0, 2.0})));
  c.clamp_max_(hi).clamp_min_(0.5);
  EXPECT_TRUE(close(c, torch::tensor({0.5, 1.0, 1.0})));
  // The gradient passes where the bound did not bite.
  x.clamp_min(lo).sum().backward();
  EXPECT_TRUE(close(x.grad(), torch::tensor({0.0, 0.0, 1.0})));

  // Fills with a 0-d tensor value; its gradient is the sum over the filled positions.
  Tensor v = torch::tensor(2.0, torch::requires_grad());
  Tensor base = torch::zeros({2, 3});
  Tensor mask = torch::tensor({{true, false, true}, {false, false, true}});
  Tensor mf = base.masked_fill(mask, v);
  EXPECT_TRUE(close(mf, mask.to(torch::kFloat32) * 2));
  Tensor idx = torch::tensor({0, 2}, torch::kInt64);
  Tensor ifl = base.index_fill(1, idx, v);
  EXPECT_TRUE(close(ifl, torch::tensor({{2.0, 0.0, 2.0}, {2.0, 0.0, 2.0}})));
  (mf.sum() + ifl.sum()).backward();
  EXPECT_EQ(v.grad().item<float>(), 3.0f + 4.0f);
  // fill_ with a value that needs a gradient: the value gets the sum of the tensor's gradient.
  Tensor fv = torch::tensor(3.0, torch::requires_grad());
  Tensor target = torch::zeros({2, 2});
  target.fill_(fv);
  EXPECT_TRUE(target.requires_grad());
  EXPECT_TRUE(close(target, torch::full({2, 2}, 3.0)));
  (target * torch::tensor({{1.0, 2.0}, {3.0, 4.0}})).sum().backward();
  EXPECT_EQ(fv.grad().item<float>(), 10.0f);
  EXPECT_EQ(node(leaf.clone().fill_(2.0)), "FillBackward2");
  Tensor filled = torch::zeros(3);
  filled.fill_(torch::tensor(4, torch::kInt64));
  EXPECT_TRUE(close(filled, torch::full(3, 4.0)));
  filled.masked_fill_(torch::tensor({true, false, false}), torch::tensor(1.0));
  filled.index_fill_(0, torch::tensor({2}, torch::kInt64), torch::tensor(-1.0));
  EXPECT_TRUE(close(filled, torch::tensor({1.0, 4.0, -1.0})));
  expect_errors<RuntimeError>(
      {{"fill_ with a 1-d value", [&] { filled.fill_(torch::ones(2)); },
        "fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions"},
       {"lerp_ broadcasting self",
        [] {
          torch::zeros(2).lerp_(torch::zeros({3, 2}), 0.5);
        },
        "doesn't match the broadcast shape"}});
}

// As libtorch 1.13 names the same expressions.
TEST(TorchApi2, ReductionNodesCarryLibtorchOverloadNumbers) {
  Tensor x = torch::ones({2, 3}, torch::requires_grad());
  EXPECT_EQ(node(x.sum()), "SumBackward0");
  EXPECT_EQ(node(x.sum({1})), "SumBackward1");
  EXPECT_EQ(node(x.sum(torch::kFloat64)), "SumBackward0");
  EXPECT_EQ(node(x.sum({1}, false, torch::kFloat64)), "SumBackward1");
  EXPECT_EQ(node(x.sum({0, 1}, /*keepdim=*/true)), "SumBackward1");
  EXPECT_EQ(node(x.mean()), "MeanBackward0");
  EXPECT_EQ(node(x.mean({1})), "MeanBackward1");
  EXPECT_EQ(node(x.prod()), "ProdBackward0");
  EXPECT_EQ(node(x.prod(1)), "ProdBackward1");
  EXPECT_EQ(node(x.norm()), "NormBackward0");
  EXPECT_EQ(node(x.norm(1)), "NormBackward0");
  EXPECT_EQ(node(x.norm(2, {1})), "NormBackward1");
  EXPECT_EQ(node(x.max()), "MaxBackward1");
  EXPECT_EQ(node(x.min()), "MinBackward1");
  EXPECT_EQ(node(std::get<0>(x.max(1))), "MaxBackward0");
  EXPECT_EQ(node(x.amax({1})), "AmaxBackward0");
  EXPECT_EQ(node(x.nansum({1})), "NansumBackward0");
  // The names leave the gradients alone: d(sum + mean over dim 1 + max) / dx.
  (x.sum() + x.mean({1}).sum()).backward();
  EXPECT_TRUE(close(x.grad(), torch::full({2, 3}, 1.0 + 1.0 / 3)));
}

TEST(TorchApi2, SerializeArchivesAndModuleSaveLoad) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ember_archive_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "archive.pt").string();

  torch::serialize::OutputArchive out;
  Tensor w = torch::arange(6, torch::kFloat32).reshape({2, 3});
  out.write("w", w);
  torch::serialize::OutputArchive inner;
  inner.write("b", torch::full(2, 0.5));
  out.write("sub", inner);
  out.save_to(path);

  torch::serialize::InputArchive in;
  in.load_from(path);
  EXPECT_EQ(in.keys(), (std::vector<std::string>{"w", "sub.b"}));
  Tensor fresh;
  in.read("w", fresh);
  EXPECT_TRUE(fresh.equal(w));
  Tensor existing = torch::zeros({2, 3}, torch::requires_grad());
  Tensor alias = existing;
  in.read("w", existing);  // copied into the tensor's own storage, outside autograd
  EXPECT_TRUE(alias.detach().equal(w));
  EXPECT_TRUE(existing.is_leaf());
  torch::serialize::InputArchive sub;
  in.read("sub", sub);
  Tensor b;
  EXPECT_TRUE(sub.try_read("b", b));
  EXPECT_TRUE(b.equal(torch::full(2, 0.5)));
  EXPECT_FALSE(sub.try_read("c", b));

  // Streams carry the same bytes.
  std::stringstream bytes;
  out.save_to(bytes);
  torch::serialize::InputArchive from_stream;
  from_stream.load_from(bytes);
  EXPECT_EQ(from_stream.keys(), in.keys());

  // A module's parameters and buffers, recursively, through Module::save / Module::load; a file
  // from torch::save(module, path) reads back the same way.
  auto make = [] {
    return torch::nn::Sequential(torch::nn::Linear(3, 2), torch::nn::ReLU(),
                                 torch::nn::BatchNorm1d(2));
  };
  torch::nn::Sequential model = make();
  model->forward(torch::randn({4, 3}));  // moves the batch norm's running statistics
  torch::serialize::OutputArchive model_out;
  model->save(model_out);
  EXPECT_TRUE(model_out.tensors().contains("0.weight"));
  EXPECT_TRUE(model_out.tensors().contains("2.running_mean"));
  model_out.save_to(path);
  torch::nn::Sequential copy = make();
  torch::serialize::InputArchive model_in;
  model_in.load_from(path);
  copy->load(model_in);
  const auto expected = model->state_dict();
  const auto loaded = copy->state_dict();
  ASSERT_EQ(loaded.size(), expected.size());
  for (const auto& item : expected) EXPECT_TRUE(loaded[item.key()].equal(item.value()));
  torch::save(model, (dir / "saved.pt").string());
  torch::nn::Sequential third = make();
  torch::serialize::InputArchive saved;
  saved.load_from((dir / "saved.pt").string());
  third->load(saved);
  EXPECT_TRUE(third->state_dict()["0.bias"].equal(expected["0.bias"]));

  Tensor wrong = torch::zeros(3);
  expect_errors<IndexError>({{"missing tensor", [&] { in.read("missing", fresh); },
                              "[InputArchive.read] No such serialized tensor 'missing'"},
                             {"missing submodule", [&] { in.read("nope", sub); },
                              "[InputArchive.read] No such serialized submodule: 'nope'"},
                             {"module from another archive",
                              [&] {
                                auto other = torch::nn::Linear(3, 2);
                                other->load(sub);
                              },
                              "No such serialized tensor 'weight'"}});
  expect_errors<ValueError>(
      {{"wrong shape", [&] { in.read("w", wrong); },
        "'w' has shape [2, 3] in the archive, but the tensor read into has shape [3]"},
       {"written twice", [&] { out.write("w", w); }, "'w' was already written"},
       {"undefined", [&] { out.write("u", Tensor()); }, "the tensor 'u' is undefined"}});
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ember
