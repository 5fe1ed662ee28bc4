// ember::multinomial against the distributions it samples: category frequencies of 1e5 draws
// within 5 standard deviations of the closed-form probabilities (with replacement, and the first
// two draws without replacement), distinct categories without replacement, zero weights never
// drawn, reproducibility from a seed, and PyTorch's error messages.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "ember/ember.h"
#include "opdb.h"

using namespace ember;
using test::values;

namespace {

// Expects the frequencies of the categories in `draws` to match `p` (binomial standard errors).
void expect_frequencies(const std::vector<double>& draws, const std::vector<double>& p) {
  std::vector<double> count(p.size(), 0.0);
  for (double d : draws) {
    ASSERT_GE(d, 0);
    ASSERT_LT(d, static_cast<double>(p.size()));
    count[static_cast<size_t>(d)] += 1;
  }
  const double n = static_cast<double>(draws.size());
  for (size_t i = 0; i < p.size(); ++i) {
    const double sigma = std::sqrt(n * p[i] * (1 - p[i]));
    EXPECT_LE(std::abs(count[i] - n * p[i]), 5 * sigma + 1e-9) << "category " << i;
  }
}

}  // namespace

TEST(Multinomial, WithReplacementFollowsTheWeights) {
  // Unnormalised weights, a zero among them, in several dtypes.
  const std::vector<double> w = {1, 2, 0, 3, 4};
  const std::vector<double> p = {0.1, 0.2, 0.0, 0.3, 0.4};
  for (ScalarType dt : {kFloat32, kFloat64, kBFloat16}) {
    SCOPED_TRACE(dtype_name(dt));
    manual_seed(7);
    Tensor s = multinomial(test::from_values({5}, w, dt), 100000, true);
    EXPECT_EQ(s.dtype(), kInt64);
    EXPECT_EQ(s.sizes(), (std::vector<int64_t>{100000}));
    expect_frequencies(values(s), p);
  }
  // One draw per row goes through the exponential race instead.
  manual_seed(8);
  Tensor rows = test::from_values({1, 5}, w).expand({50000, 5});
  Tensor one = multinomial(rows, 1, true);
  EXPECT_EQ(one.sizes(), (std::vector<int64_t>{50000, 1}));
  expect_frequencies(values(one), p);
}

TEST(Multinomial, WithoutReplacement) {
  // First draw ~ p; second ~ sum_i p_i p_j / (1 - p_i) over i != j.
  const std::vector<double> p = {0.1, 0.2, 0.3, 0.4};
  std::vector<double> second(4, 0.0);
  for (size_t j = 0; j < 4; ++j)
    for (size_t i = 0; i < 4; ++i)
      if (i != j) second[j] += p[i] * p[j] / (1 - p[i]);
  manual_seed(9);
  Tensor rows = test::from_values({1, 4}, p).expand({40000, 4});
  Tensor s = multinomial(rows, 4);
  EXPECT_EQ(s.sizes(), (std::vector<int64_t>{40000, 4}));
  expect_frequencies(values(s.select(1, 0)), p);
  expect_frequencies(values(s.select(1, 1)), second);
  // Every row is a permutation of the categories.
  const auto v = values(s);
  for (size_t r = 0; r < 40000; ++r) {
    std::set<double> seen(v.begin() + r * 4, v.begin() + r * 4 + 4);
    ASSERT_EQ(seen.size(), 4u) << r;
  }
  // Zero weights are never drawn while positive ones remain.
  Tensor z = test::from_values({4}, {0, 10, 3, 0}, kFloat32);
  for (int i = 0; i < 200; ++i) {
    auto d = values(multinomial(z, 2));
    EXPECT_EQ(std::set<double>(d.begin(), d.end()), (std::set<double>{1, 2}));
  }
}

TEST(Multinomial, SeededAndExplicitGenerator) {
  Tensor w = test::from_values({3, 6}, std::vector<double>(18, 1.0));
  Generator a(123), b(123);
  EXPECT_EQ(values(multinomial(w, 4, false, a)), values(multinomial(w, 4, false, b)));
  EXPECT_EQ(values(multinomial(w, 9, true, a)), values(multinomial(w, 9, true, b)));
  manual_seed(5);
  Tensor x = w.multinomial(3);
  manual_seed(5);
  EXPECT_EQ(values(x), values(multinomial(w, 3)));
  EXPECT_EQ(multinomial(zeros({0, 3}), 2).sizes(), (std::vector<int64_t>{0, 2}));
}

TEST(Multinomial, Errors) {
  Tensor w = ones({4});
  test::expect_errors<TypeError>({
      {"int weights", [] { multinomial(ones({3}, kInt64), 1); },
       "[multinomial] multinomial only supports floating-point dtypes for input, got: "},
  });
  test::expect_errors<RuntimeError>({
      {"3-d",
       [] {
         multinomial(ones({2, 2, 2}), 1);
       },
       "[multinomial] prob_dist must be 1 or 2 dim"},
      {"0-d", [] { multinomial(ones({}), 1); }, "prob_dist must be 1 or 2 dim"},
      {"zero samples", [&] { multinomial(w, 0); }, "cannot sample n_sample <= 0 samples"},
      {"too many", [&] { multinomial(w, 5); },
       "cannot sample n_sample > prob_dist.size(-1) samples without replacement"},
      {"negative",
       [] {
         multinomial(test::from_values({2}, {1, -1}), 1);
       },
       "probability tensor contains either `inf`, `nan` or element < 0"},
      {"nan",
       [] {
         multinomial(test::from_values({2}, {1, NAN}), 2, true);
       },
       "probability tensor contains either `inf`, `nan` or element < 0"},
      {"inf",
       [] {
         multinomial(test::from_values({2}, {1, INFINITY}), 1);
       },
       "probability tensor contains either `inf`, `nan` or element < 0"},
      {"zero row",
       [] {
         multinomial(test::from_values({2, 2}, {1, 1, 0, 0}), 1);
       },
       "invalid multinomial distribution (sum of probabilities <= 0)"},
  });
}
