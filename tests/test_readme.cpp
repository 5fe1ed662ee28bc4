// The README's code sample, compiled and checked, so the README stays true.
#include <gtest/gtest.h>

#include <sstream>

#include "ember/ember.h"
#include "opdb.h"

TEST(Readme, FirstScreenSample) {
  ember::manual_seed(0);
  ember::Tensor x = ember::randn({4, 3});
  ember::Tensor w = ember::tensor({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
  ember::Tensor y = (x.matmul(w) + 1).relu().sum(/*dim=*/1, /*keepdim=*/true);
  std::ostringstream out;
  out << y.index({ember::Slice(0, 2)});
  EXPECT_EQ(out.str().rfind("tensor([[", 0), 0u) << out.str();

  // Same numbers by plain loops.
  auto xv = ember::test::values(x);
  const double wv[3][2] = {{1, 2}, {3, 4}, {5, 6}};
  auto yv = ember::test::values(y);
  ASSERT_EQ(y.sizes(), (std::vector<int64_t>{4, 1}));
  for (int i = 0; i < 4; ++i) {
    double s = 0;
    for (int j = 0; j < 2; ++j) {
      double v = 1;
      for (int k = 0; k < 3; ++k) v += xv[i * 3 + k] * wv[k][j];
      s += v > 0 ? v : 0;
    }
    EXPECT_NEAR(yv[i], s, 1e-5);
  }
}
