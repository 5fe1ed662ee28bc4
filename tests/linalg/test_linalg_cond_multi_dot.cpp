// linalg.cond of singular matrices (inf, as PyTorch's inv_ex-based helper, instead of an error)
// and linalg.multi_dot's multiplication order (PyTorch's cost rule for three matrices, the
// matrix-chain programme for more), shown bit for bit in float32 against explicit products.
#include <functional>
#include <limits>

#include "linalg/linalg_test_util.h"

namespace ember {
namespace {

namespace la = ember::linalg;
const double kInf = std::numeric_limits<double>::infinity();

// Closed forms for the regular matrix R = [[2, 1], [1, 3]], R^{-1} = [[3, -1], [-1, 2]] / 5.
struct CondCase {
  std::optional<double> p;
  std::string s;  // "fro" / "nuc" when set
  double regular;
};

Tensor cond_of(const Tensor& A, const CondCase& c) {
  return c.s.empty() ? la::cond(A, c.p) : la::cond(A, c.s);
}

TEST(LinalgCond, SingularMatrixInBatchGivesInf) {
  const std::vector<CondCase> cases = {
      {1.0, "", 4 * 0.8},          // column sums 3, 4 and 0.8, 0.6
      {-1.0, "", 3 * 0.6},         //
      {kInf, "", 4 * 0.8},         // row sums (R is symmetric)
      {-kInf, "", 3 * 0.6},        //
      {std::nullopt, "fro", 3.0},  // sqrt(15) * sqrt(0.6)
      {std::nullopt, "nuc", 5.0},  // (l1 + l2) (1 / l1 + 1 / l2), l1 + l2 = l1 l2 = 5
  };
  for (ScalarType dt : {kFloat32, kFloat64}) {
    for (const CondCase& c : cases) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + (c.s.empty() ? std::to_string(*c.p) : c.s));
      // [[1, 2], [2, 4]] is exactly singular under partial pivoting (LU info > 0); diag(1, 0) has
      // an exactly zero singular value (the nuclear-norm path divides by the singular values).
      const std::vector<double> singular =
          c.s == "nuc" ? std::vector<double>{1, 0, 0, 0} : std::vector<double>{1, 2, 2, 4};
      std::vector<double> v = singular;
      for (double x : {2.0, 1.0, 1.0, 3.0}) v.push_back(x);
      Tensor A = test::from_values({2, 2, 2}, v, dt);
      Tensor r;
      ASSERT_NO_THROW(r = cond_of(A, c));
      EXPECT_EQ(r.dtype(), dt);
      const auto got = test::values(r);
      ASSERT_EQ(got.size(), 2u);
      EXPECT_EQ(got[0], kInf);
      EXPECT_NEAR(got[1], c.regular, 1e-5 * c.regular);
      // A single singular matrix, unbatched.
      EXPECT_EQ(cond_of(test::from_values({2, 2}, singular, dt), c).item<double>(), kInf);
    }
    // The zero matrix: 0 * inf is inf, as NumPy.
    Tensor Z = zeros({2, 2}, TensorOptions().dtype(dt));
    for (double p : {1.0, -1.0, kInf, -kInf}) EXPECT_EQ(la::cond(Z, p).item<double>(), kInf);
    EXPECT_EQ(la::cond(Z, "fro").item<double>(), kInf);
    // Empty inputs: zeros of the batch shape.
    Tensor E = zeros({3, 0, 0}, TensorOptions().dtype(dt));
    for (std::optional<double> p : {std::optional<double>{}, std::optional<double>{1.0}}) {
      EXPECT_TRUE(test::close(la::cond(E, p), {3}, {0, 0, 0}, 0, 0));
    }
    EXPECT_TRUE(test::close(la::cond(E, "nuc"), {3}, {0, 0, 0}, 0, 0));
  }
  test::expect_errors<RuntimeError>(
      {{"ord 3", [] { la::cond(eye(2), 3.0); }, "invalid norm type"},
       {"ord 'abc'", [] { la::cond(eye(2), "abc"); }, "invalid norm type"}});
}

// ---- multi_dot order

Tensor f32(std::vector<int64_t> shape, uint64_t seed) {
  return test::make_tensor(shape, kFloat32, -1, 1, seed);
}

bool bit_equal(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && test::values(a) == test::values(b);
}

TEST(LinalgMultiDot, ThreeMatricesTakeTheCheaperOrder) {
  // (2 x 50)(50 x 40)(40 x 1): (AB)C costs 2*40*(50+1) = 4080, A(BC) 50*1*(2+40) = 2100.
  {
    Tensor A = f32({2, 50}, 1), B = f32({50, 40}, 2), C = f32({40, 1}, 3);
    Tensor right = mm(A, mm(B, C)), left = mm(mm(A, B), C);
    ASSERT_FALSE(bit_equal(right, left)) << "the two orders must round differently";
    EXPECT_TRUE(bit_equal(la::multi_dot({A, B, C}), right));
  }
  // (1 x 50)(50 x 40)(40 x 30): (AB)C costs 1*40*(50+30) = 3200, A(BC) 50*30*(1+40) = 61500.
  {
    Tensor A = f32({1, 50}, 4), B = f32({50, 40}, 5), C = f32({40, 30}, 6);
    Tensor right = mm(A, mm(B, C)), left = mm(mm(A, B), C);
    ASSERT_FALSE(bit_equal(right, left));
    EXPECT_TRUE(bit_equal(la::multi_dot({A, B, C}), left));
  }
  // A 1-D first tensor counts as a row (1 x 50): (aB)C again, the result 1-D.
  {
    Tensor a = f32({50}, 7), B = f32({50, 40}, 8), C = f32({40, 30}, 9);
    Tensor left = mm(mm(a.unsqueeze(0), B), C).squeeze(0);
    Tensor right = mm(a.unsqueeze(0), mm(B, C)).squeeze(0);
    ASSERT_FALSE(bit_equal(right, left));
    EXPECT_TRUE(bit_equal(la::multi_dot({a, B, C}), left));
  }
  // A 1-D last tensor counts as a column (50 x 1): A(Bc), although left to right is the
  // order of the list.
  {
    Tensor A = f32({30, 40}, 10), B = f32({40, 50}, 11), c = f32({50}, 12);
    Tensor right = mm(A, mm(B, c.unsqueeze(1))).squeeze(1);
    Tensor left = mm(mm(A, B), c.unsqueeze(1)).squeeze(1);
    ASSERT_FALSE(bit_equal(right, left));
    Tensor got = la::multi_dot({A, B, c});
    EXPECT_EQ(got.sizes(), (std::vector<int64_t>{30}));
    EXPECT_TRUE(bit_equal(got, right));
  }
}

TEST(LinalgMultiDot, FourMatricesTakeTheCheapestParenthesisation) {
  // Every parenthesisation of ABCD with its cost, enumerated by hand (independent of the
  // dynamic programme); the cheapest must be the one multi_dot computes, bit for bit.
  const std::vector<std::vector<int64_t>> dims = {
      {10, 30, 5, 60, 2}, {2, 60, 5, 30, 10}, {40, 3, 40, 3, 8}};
  uint64_t seed = 20;
  for (const auto& p : dims) {
    Tensor A = f32({p[0], p[1]}, seed++), B = f32({p[1], p[2]}, seed++);
    Tensor C = f32({p[2], p[3]}, seed++), D = f32({p[3], p[4]}, seed++);
    const auto c = [&](int i, int j, int k) { return p[i] * p[j] * p[k]; };
    struct Order {
      int64_t cost;
      std::function<Tensor()> product;
    };
    std::vector<Order> orders = {
        {c(0, 1, 2) + c(0, 2, 3) + c(0, 3, 4), [&] { return mm(mm(mm(A, B), C), D); }},
        {c(1, 2, 3) + c(0, 1, 3) + c(0, 3, 4), [&] { return mm(mm(A, mm(B, C)), D); }},
        {c(0, 1, 2) + c(2, 3, 4) + c(0, 2, 4), [&] { return mm(mm(A, B), mm(C, D)); }},
        {c(1, 2, 3) + c(1, 3, 4) + c(0, 1, 4), [&] { return mm(A, mm(mm(B, C), D)); }},
        {c(2, 3, 4) + c(1, 2, 4) + c(0, 1, 4), [&] { return mm(A, mm(B, mm(C, D))); }},
    };
    size_t best = 0;
    for (size_t i = 1; i < orders.size(); ++i)
      if (orders[i].cost < orders[best].cost) best = i;
    SCOPED_TRACE("cheapest order " + std::to_string(best));
    for (size_t i = 0; i < orders.size(); ++i) {
      if (i != best) {
        ASSERT_LT(orders[best].cost, orders[i].cost) << "the minimum must be unique";
      }
    }
    Tensor expected = orders[best].product();
    bool some_order_differs = false;
    for (size_t i = 0; i < orders.size(); ++i)
      some_order_differs |= !bit_equal(orders[i].product(), expected);
    ASSERT_TRUE(some_order_differs);
    EXPECT_TRUE(bit_equal(la::multi_dot({A, B, C, D}), expected));
  }
}

TEST(LinalgMultiDot, MatchesFloat64Reference) {
  // Long chain with mixed shapes: every entry against a plain-loop left-to-right product.
  const std::vector<int64_t> p = {7, 3, 9, 2, 8, 4};
  std::vector<Tensor> ts;
  for (size_t i = 0; i + 1 < p.size(); ++i)
    ts.push_back(test::make_tensor({p[i], p[i + 1]}, kFloat64, -1, 1, 40 + i));
  ts.front() = ts.front().select(0, 0);  // 1-D first: (3)
  std::vector<double> r = test::values(ts[0]);
  int64_t cols = p[1];
  for (size_t i = 1; i < ts.size(); ++i) {
    const auto m = test::values(ts[i]);
    const int64_t n = ts[i].size(1);
    std::vector<double> next(n, 0);
    for (int64_t l = 0; l < cols; ++l)
      for (int64_t j = 0; j < n; ++j) next[j] += r[l] * m[l * n + j];
    r = next;
    cols = n;
  }
  EXPECT_TRUE(test::close(la::multi_dot(ts), {p.back()}, r, 1e-12, 1e-12));
}

}  // namespace
}  // namespace ember
