#include <gtest/gtest.h>

#include "ember/ember.h"
#include "opdb.h"

using namespace ember;
using test::values;

namespace {
Tensor seq(std::vector<int64_t> shape) {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(i);
  return test::from_values(shape, v, kFloat32);
}
}  // namespace

TEST(Views, ViewAndReshapeShareOrCopy) {
  Tensor x = seq({2, 3, 4});
  Tensor v = x.view({4, -1});
  EXPECT_EQ(v.sizes(), (std::vector<int64_t>{4, 6}));
  EXPECT_TRUE(v.is_alias_of(x));
  EXPECT_EQ(values(v), values(x));
  // A transposed tensor cannot be viewed flat; reshape copies in row-major order.
  Tensor tr = x.transpose(1, 2);
  EXPECT_THROW(tr.view({-1}), RuntimeError);
  Tensor r = tr.reshape({-1});
  EXPECT_FALSE(r.is_alias_of(x));
  std::vector<double> expect;
  for (int a = 0; a < 2; ++a)
    for (int c = 0; c < 4; ++c)
      for (int b = 0; b < 3; ++b) expect.push_back(a * 12 + b * 4 + c);
  EXPECT_EQ(values(r), expect);
  // Splitting a dim of a permuted tensor is still a view.
  Tensor p = x.permute({2, 0, 1});
  Tensor pv = p.view({2, 2, 2, 3});
  EXPECT_TRUE(pv.is_alias_of(x));
  EXPECT_EQ(values(pv), values(p));
  EXPECT_THROW(x.view({5, -1}), RuntimeError);
  EXPECT_THROW(x.view({-1, -1}), RuntimeError);
}

TEST(Views, SelectNarrowSliceDiagonal) {
  Tensor x = seq({3, 4});
  EXPECT_EQ(values(x.select(1, -1)), (std::vector<double>{3, 7, 11}));
  EXPECT_EQ(values(x.narrow(0, 1, 2)), (std::vector<double>{4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(values(x.slice(1, 0, std::nullopt, 2)), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(values(x.diagonal()), (std::vector<double>{0, 5, 10}));
  EXPECT_EQ(values(x.diagonal(1)), (std::vector<double>{1, 6, 11}));
  EXPECT_EQ(values(x.diagonal(-1)), (std::vector<double>{4, 9}));
  EXPECT_EQ(x.diagonal(5).numel(), 0);
  EXPECT_THROW(x.select(0, 3), IndexError);
  EXPECT_THROW(x.select(2, 0), IndexError);
  EXPECT_THROW(x.narrow(1, 2, 3), RuntimeError);
}

TEST(Views, ExpandSqueezeUnsqueezeMovedim) {
  Tensor x = seq({3, 1});
  Tensor e = x.expand({2, 3, 4});
  EXPECT_EQ(e.strides(), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(values(e)[5], 1.0);
  EXPECT_THROW(x.expand({2, 4}), RuntimeError);
  EXPECT_EQ(x.unsqueeze(0).sizes(), (std::vector<int64_t>{1, 3, 1}));
  EXPECT_EQ(x.unsqueeze(-1).sizes(), (std::vector<int64_t>{3, 1, 1}));
  EXPECT_EQ(x.squeeze().sizes(), (std::vector<int64_t>{3}));
  EXPECT_EQ(x.squeeze(0).sizes(), (std::vector<int64_t>{3, 1}));
  Tensor y = seq({2, 3, 4});
  EXPECT_EQ(y.movedim(0, -1).sizes(), (std::vector<int64_t>{3, 4, 2}));
  EXPECT_EQ(y.movedim({0, 1}, {2, 0}).sizes(), (std::vector<int64_t>{3, 4, 2}));
  EXPECT_EQ(y.flatten(1).sizes(), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(y.mT().sizes(), (std::vector<int64_t>{2, 4, 3}));
  EXPECT_THROW(y.t(), RuntimeError);
  EXPECT_THROW(y.permute({0, 0, 1}), RuntimeError);
  EXPECT_THROW(y.permute({0, 1}), RuntimeError);
  EXPECT_THROW(y.transpose(0, 3), IndexError);
}

TEST(Views, AsStridedChecksBounds) {
  Tensor x = seq({6});
  EXPECT_EQ(values(x.as_strided({2, 2}, {1, 2})), (std::vector<double>{0, 2, 1, 3}));
  EXPECT_THROW(x.as_strided({3, 3}, {3, 1}), RuntimeError);
  EXPECT_THROW(x.as_strided({2}, {-1}), RuntimeError);
}

TEST(Views, WritesThroughViewsBumpSharedVersion) {
  Tensor x = seq({2, 2});
  Tensor row = x.select(0, 1);
  row.fill_(7);
  EXPECT_EQ(values(x), (std::vector<double>{0, 1, 7, 7}));
  EXPECT_EQ(x._version(), row._version());
  EXPECT_THROW(x.expand({3, 2, 2}).fill_(1), RuntimeError);
}
