// Note [Inference] for the primitives whose output sizes come from parameters or from geometry
// rules: inference alone (no kernel), against sizes worked out by hand from PyTorch's formulas.
#include <gtest/gtest.h>

#include "dispatch/primitive.h"
#include "opdb.h"
#include "primitives/conv.h"
#include "primitives/index.h"
#include "primitives/linalg.h"
#include "primitives/pool.h"
#include "primitives/sort.h"

namespace ember::test {
namespace {

TensorMeta meta(SymShape sizes, ScalarType dtype = kFloat32) {
  return TensorMeta::contiguous(std::move(sizes), dtype, kCPU);
}

std::vector<int64_t> sizes_of(const TensorMeta& m) {
  std::vector<int64_t> r;
  for (const SymInt& s : m.sizes) r.push_back(s.guard_int());
  return r;
}

using Sizes = std::vector<int64_t>;

TEST(InferParams, PoolingCeilModeKeepsTheLastWindowInside) {
  // pooling_output_shape with kernel [3, 2], stride 2, padding 1 on a 6 x 5 input.
  Pool2dParams p;
  p.kernel_h = 3, p.kernel_w = 2, p.stride_h = p.stride_w = 2, p.pad_h = p.pad_w = 1;
  const TensorMeta x = meta({1, 3, 6, 5});
  // floor((6 + 2 - 3) / 2) + 1 = 3 and floor((5 + 2 - 2) / 2) + 1 = 3.
  MetaList floor = Pooling("max_pool2d", PoolOp::MaxForward, p).infer({&x, 1});
  ASSERT_EQ(floor.size(), 2u);
  EXPECT_EQ(sizes_of(floor[0]), (Sizes{1, 3, 3, 3}));
  EXPECT_EQ(sizes_of(floor[1]), (Sizes{1, 3, 3, 3}));
  EXPECT_EQ(floor[1].dtype, kInt64);
  p.ceil_mode = true;
  // Rounding up gives 4 and 4; W's last window would start at 3 * 2 = 6 >= 5 + 1, past the input
  // and its left padding, so W keeps 3.
  MetaList ceil = Pooling("avg_pool2d", PoolOp::AvgForward, p).infer({&x, 1});
  ASSERT_EQ(ceil.size(), 1u);
  EXPECT_EQ(sizes_of(ceil[0]), (Sizes{1, 3, 4, 3}));
}

TEST(InferParams, SizesTheInputsDoNotDetermineAreParameters) {
  const TensorMeta gy = meta({2, 4, 3, 3}, kFloat64), w = meta({4, 3, 3, 3}, kFloat64);
  Conv2dParams c;
  c.stride_h = c.stride_w = 2;
  // conv_transpose: H = (3-1)*2 + 3 = 7, or 8 with output_padding 1; only the parameter says.
  const TensorMeta bi[] = {gy, w};
  for (int64_t h : {7, 8}) {
    MetaList r = Convolution("conv_transpose2d", ConvOp::BackwardInput, c, {h, 7}).infer(bi);
    EXPECT_EQ(sizes_of(r[0]), (Sizes{2, 3, h, 7}));
    EXPECT_EQ(r[0].dtype, kFloat64);
  }
  const TensorMeta x = meta({2, 3, 7, 7}, kFloat64);
  const TensorMeta bw[] = {gy, x};
  EXPECT_EQ(sizes_of(Convolution("c", ConvOp::BackwardWeight, c, {3, 3}).infer(bw)[0]),
            (Sizes{4, 3, 3, 3}));
  const TensorMeta y = meta({2, 3, 5, 4});
  EXPECT_EQ(sizes_of(Pooling("p", PoolOp::AdaptiveAvgForward, {}, {2, 7}).infer({&y, 1})[0]),
            (Sizes{2, 3, 2, 7}));
  EXPECT_EQ(
      sizes_of(Upsample("u", ResampleOp::Nearest, false, false, std::nullopt, std::nullopt, {10, 8})
                   .infer({&y, 1})[0]),
      (Sizes{2, 3, 10, 8}));
  const TensorMeta cols = meta({2, 12, 20});
  EXPECT_EQ(sizes_of(SlidingWindow(false, 2, 2, Conv2dParams{}, {5, 6}).infer({&cols, 1})[0]),
            (Sizes{2, 3, 5, 6}));
}

TEST(InferParams, MissingOutputSizeRaises) {
  const TensorMeta y = meta({2, 3, 5, 4});
  test::expect_errors<RuntimeError>({
      {"adaptive pooling",
       [&] {
         Pooling("adaptive_avg_pool2d", PoolOp::AdaptiveAvgForward).infer({&y, 1});
       },
       "[adaptive_avg_pool2d] output_hw must hold the output's 2 spatial sizes, got 0"},
      {"col2im",
       [&] {
         SlidingWindow(false, 2, 2, Conv2dParams{}).infer({&y, 1});
       },
       "[col2im] output_hw must hold"},
  });
}

TEST(InferParams, IndexingSortingAndLinalgShapes) {
  // x[i, :, j] with i, j broadcasting to [4, 2]: separated dims put B first.
  const TensorMeta ins[] = {meta({5, 6, 7}), meta({4, 1}, kInt64), meta({2}, kInt64)};
  EXPECT_EQ(sizes_of(Index({0, 2}).infer(ins)[0]), (Sizes{4, 2, 6}));
  // x[:, i, j]: adjacent dims are replaced in place.
  EXPECT_EQ(sizes_of(Index({1, 2}).infer(ins)[0]), (Sizes{5, 4, 2}));
  const TensorMeta x = meta({3, 4, 5});
  EXPECT_EQ(sizes_of(SortSelect(SortOp::KthValue, 1, false, 2, false, true).infer({&x, 1})[0]),
            (Sizes{3, 1, 5}));
  MetaList med = SortSelect(SortOp::Median, 1).infer({&x, 1});
  EXPECT_EQ(sizes_of(med[1]), (Sizes{3, 5}));
  EXPECT_EQ(med[1].dtype, kInt64);
  EXPECT_EQ(sizes_of(SortSelect(SortOp::TopK, 2, true, 2).infer({&x, 1})[0]), (Sizes{3, 4, 2}));
  MetaList qr = LinalgQr(QrMode::Complete).infer({&x, 1});
  EXPECT_EQ(sizes_of(qr[0]), (Sizes{3, 4, 4}));
  EXPECT_EQ(sizes_of(qr[1]), (Sizes{3, 4, 5}));
  MetaList svd = LinalgSvd(false).infer({&x, 1});
  EXPECT_EQ(sizes_of(svd[0]), (Sizes{3, 4, 4}));
  EXPECT_EQ(sizes_of(svd[1]), (Sizes{3, 4}));
  EXPECT_EQ(sizes_of(svd[2]), (Sizes{3, 4, 5}));
  MetaList lu = LinalgLuFactor().infer({&x, 1});
  EXPECT_EQ(sizes_of(lu[1]), (Sizes{3, 4}));
  EXPECT_EQ(lu[1].dtype, kInt32);
}

}  // namespace
}  // namespace ember::test
