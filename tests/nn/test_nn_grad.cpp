// Gradients of the convolution, pooling, resampling and padding ops (their vjps call the backward
// kernels) against central finite differences in float64, on small inputs.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "opdb.h"

namespace ember {
namespace {

namespace F = nn::functional;

Tensor input(std::vector<int64_t> shape, uint64_t seed) {
  return test::make_tensor(shape, kFloat64, -1, 1, seed).requires_grad_();
}

bool check(const autograd::DifferentiableFn& fn, const std::vector<Tensor>& in) {
  return autograd::gradcheck(fn, in);
}

TEST(NnGrad, Convolutions) {
  Tensor x = input({1, 2, 4, 4}, 1), w = input({3, 2, 2, 2}, 2), b = input({3}, 3);
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{F::conv2d(in[0], in[1], in[2], /*stride=*/2, /*padding=*/1)};
      },
      {x, w, b}));
  Tensor wg = input({2, 1, 3, 3}, 4);
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{F::conv2d(in[0], in[1], Tensor(), 1, 1, /*dilation=*/1,
                                             /*groups=*/2)};
      },
      {x, wg}));
  Tensor wt = input({2, 3, 2, 2}, 5);
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{F::conv_transpose2d(in[0], in[1], in[2], /*stride=*/2)};
      },
      {input({1, 2, 2, 2}, 6), wt, input({3}, 7)}));
  Tensor x1 = input({1, 2, 5}, 8), w1 = input({2, 2, 3}, 9);
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{F::conv1d(in[0], in[1], Tensor(), 1, 1)};
      },
      {x1, w1}));
}

TEST(NnGrad, PoolingPaddingResampling) {
  Tensor x = input({1, 2, 4, 4}, 11);
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{F::max_pool2d(in[0], F::MaxPool2dFuncOptions(2))};
      },
      {x}));
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{
            F::avg_pool2d(in[0], F::AvgPool2dFuncOptions(3).stride(1).padding(1))};
      },
      {x}));
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{
            F::adaptive_avg_pool2d(in[0], F::AdaptiveAvgPool2dFuncOptions(3))};
      },
      {x}));
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{F::pad(in[0], F::PadFuncOptions({1, 2, 0, 1}).mode(kReflect))};
      },
      {x}));
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{F::interpolate(in[0], F::InterpolateFuncOptions()
                                                             .size(std::vector<int64_t>{3, 5})
                                                             .mode(kBilinear)
                                                             .align_corners(false))};
      },
      {x}));
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

TEST(NnGrad, ScaledDotProductAttention) {
  Tensor q = input({1, 2, 3, 4}, 21), k = input({1, 2, 5, 4}, 22), v = input({1, 2, 5, 3}, 23);
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{F::scaled_dot_product_attention(in[0], in[1], in[2])};
      },
      {q, k, v}));
  Tensor mask = test::make_tensor({3, 5}, kFloat64, 0, 1, 24) > 0.3;
  EXPECT_TRUE(check(
      [&](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{F::scaled_dot_product_attention(in[0], in[1], in[2], mask)};
      },
      {q, k, v}));
  EXPECT_TRUE(check(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{F::scaled_dot_product_attention(in[0], in[1], in[2], Tensor(),
                                                                   0.0, /*is_causal=*/true)};
      },
      {q, k, v}));
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

// Double backward through the backward kernels (each is the adjoint of a forward kernel), and
// the sliding-window and 1-D resampling ops.
TEST(NnGrad, DoubleBackward) {
  auto check2 = [](const autograd::DifferentiableFn& fn, const std::vector<Tensor>& in) {
    EXPECT_TRUE(autograd::gradcheck(fn, in));
    EXPECT_TRUE(autograd::gradgradcheck(fn, in));
  };
  Tensor x = input({1, 2, 4, 4}, 31), w = input({2, 2, 2, 2}, 32);
  check2(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{F::conv2d(in[0], in[1], Tensor(), /*stride=*/2, /*padding=*/1)};
      },
      {x, w});
  check2(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{F::conv_transpose2d(in[0], in[1], Tensor(), /*stride=*/2)};
      },
      {input({1, 2, 2, 2}, 33), w});
  Tensor p = input({1, 1, 4, 4}, 34);
  check2(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{F::max_pool2d(in[0], F::MaxPool2dFuncOptions(2))};
      },
      {p});
  check2(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{
            F::avg_pool2d(in[0], F::AvgPool2dFuncOptions(3).stride(1).padding(1))};
      },
      {p});
  check2(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{
            F::adaptive_avg_pool2d(in[0], F::AdaptiveAvgPool2dFuncOptions(3))};
      },
      {p});
  check2(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{F::pad(in[0], F::PadFuncOptions({1, 2, 0, 1}).mode(kReplicate))};
      },
      {p});
  check2(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{F::interpolate(in[0], F::InterpolateFuncOptions()
                                                             .size(std::vector<int64_t>{3, 5})
                                                             .mode(kBilinear)
                                                             .align_corners(true))};
      },
      {p});
  check2(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{F::interpolate(
            in[0], F::InterpolateFuncOptions().size(std::vector<int64_t>{7}).mode(kLinear))};
      },
      {input({1, 2, 3}, 35)});
  check2(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{
            F::unfold(in[0], F::UnfoldFuncOptions({2, 3}).stride(1).padding(1))};
      },
      {input({1, 2, 3, 3}, 36)});
  check2(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{F::fold(in[0], F::FoldFuncOptions({3, 3}, {2, 2}))};
      },
      {input({1, 8, 4}, 37)});
}

}  // namespace
}  // namespace ember
