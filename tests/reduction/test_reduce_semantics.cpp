// Targeted checks of PyTorch semantics: result dtypes, ties and NaN, empty identities, shapes,
// numerical stability, integer wrap-around, and that reductions pass through dispatch.
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "dispatch/dispatch.h"
#include "opdb.h"

namespace ember::test {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
using Shape = std::vector<int64_t>;

TEST(ReductionSemantics, ResultDtypes) {
  Tensor i8 = make_tensor({3}, kInt8), b = make_tensor({3}, kBool), u8 = make_tensor({3}, kUInt8);
  Tensor h = make_tensor({3}, kFloat16), f = make_tensor({3}, kFloat32);
  EXPECT_EQ(i8.sum().dtype(), kInt64);
  EXPECT_EQ(b.sum().dtype(), kInt64);
  EXPECT_EQ(b.prod().dtype(), kInt64);
  EXPECT_EQ(i8.cumsum(0).dtype(), kInt64);
  EXPECT_EQ(b.cumprod(0).dtype(), kInt64);
  EXPECT_EQ(i8.sum(kInt16).dtype(), kInt16);
  EXPECT_EQ(h.sum().dtype(), kFloat16);
  EXPECT_EQ(h.mean(kFloat32).dtype(), kFloat32);
  EXPECT_EQ(i8.mean(kFloat64).dtype(), kFloat64);
  EXPECT_EQ(u8.all().dtype(), kUInt8);
  EXPECT_EQ(u8.any(0).dtype(), kUInt8);
  EXPECT_EQ(i8.all().dtype(), kBool);
  EXPECT_EQ(f.any().dtype(), kBool);
  EXPECT_EQ(f.count_nonzero().dtype(), kInt64);
  EXPECT_EQ(i8.argmax().dtype(), kInt64);
  EXPECT_EQ(std::get<1>(f.max(0)).dtype(), kInt64);
  EXPECT_EQ(std::get<1>(f.cummax(0)).dtype(), kInt64);
  EXPECT_EQ(i8.logsumexp(0).dtype(), kFloat32);
  EXPECT_EQ(b.amax().dtype(), kBool);
  EXPECT_EQ(h.norm(2, {}, false, kFloat64).dtype(), kFloat64);
}

TEST(ReductionSemantics, TiesAndNaN) {
  Tensor x = from_values({6}, {1, 3, 3, 2, 3, 0}, kFloat32);
  EXPECT_EQ(x.argmax().item<int64_t>(), 1);  // first occurrence
  EXPECT_EQ(x.argmin().item<int64_t>(), 5);
  EXPECT_EQ(std::get<1>(x.max(0)).item<int64_t>(), 1);
  // cummax moves to the later index on ties, as PyTorch's.
  EXPECT_EQ(std::get<1>(x.cummax(0)).tolist<int64_t>(), (std::vector<int64_t>{0, 1, 2, 2, 4, 4}));
  Tensor n = from_values({5}, {1, kNan, 5, kNan, -1}, kFloat64);
  EXPECT_EQ(n.argmax().item<int64_t>(), 1);  // NaN is the maximum, first one wins
  EXPECT_EQ(n.argmin().item<int64_t>(), 1);  // and the minimum
  EXPECT_TRUE(std::isnan(n.max().item<double>()));
  EXPECT_TRUE(std::isnan(n.amin().item<double>()));
  auto [mn, mx] = n.aminmax();
  EXPECT_TRUE(std::isnan(mn.item<double>()) && std::isnan(mx.item<double>()));
  EXPECT_EQ(std::get<1>(n.cummax(0)).tolist<int64_t>(), (std::vector<int64_t>{0, 1, 1, 3, 3}));
  EXPECT_EQ(n.nansum().item<double>(), 5);
  EXPECT_EQ(n.nanmean().item<double>(), 5.0 / 3);
  EXPECT_EQ(n.count_nonzero().item<int64_t>(), 5);  // NaN is non-zero
  EXPECT_TRUE(n.all().item<bool>());
  // Integer ties: the first index.
  Tensor xi = from_values({2, 4}, {7, 7, 1, 7, 2, 9, 9, 0}, kInt32);
  EXPECT_EQ(xi.argmax(1).tolist<int64_t>(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(std::get<1>(xi.min(1)).tolist<int64_t>(), (std::vector<int64_t>{2, 3}));
}

TEST(ReductionSemantics, EmptyIdentities) {
  Tensor e = make_tensor({0, 3}, kFloat32);
  EXPECT_TRUE(close(e.sum(), {}, {0}, 0, 0));
  EXPECT_TRUE(close(e.sum(0), {3}, {0, 0, 0}, 0, 0));
  EXPECT_TRUE(close(e.prod(0), {3}, {1, 1, 1}, 0, 0));
  EXPECT_TRUE(close(e.mean(0), {3}, {kNan, kNan, kNan}, 0, 0));
  EXPECT_TRUE(close(e.var(0), {3}, {kNan, kNan, kNan}, 0, 0));
  EXPECT_TRUE(close(e.logsumexp(0), {3}, {-kInf, -kInf, -kInf}, 0, 0));
  EXPECT_TRUE(close(e.norm(), {}, {0}, 0, 0));
  EXPECT_TRUE(close(e.all(), {}, {1}, 0, 0));
  EXPECT_TRUE(close(e.any(), {}, {0}, 0, 0));
  EXPECT_TRUE(close(e.count_nonzero(0), {3}, {0, 0, 0}, 0, 0));
  EXPECT_TRUE(close(make_tensor({0}, kInt32).sum(), {}, {0}, 0, 0));
  EXPECT_EQ(e.cumsum(0).sizes(), (Shape{0, 3}));
  EXPECT_EQ(std::get<1>(e.cummin(1)).sizes(), (Shape{0, 3}));
}

TEST(ReductionSemantics, VarianceCorrections) {
  Tensor one = from_values({1}, {4}, kFloat64);
  EXPECT_TRUE(std::isnan(one.var().item<double>()));  // 0 / 0
  EXPECT_EQ(one.var({}, 0).item<double>(), 0);
  Tensor two = from_values({2}, {1, 3}, kFloat32);
  EXPECT_EQ(two.var().item<double>(), 2);
  EXPECT_EQ(two.var({}, 0).item<double>(), 1);
  EXPECT_EQ(two.var({}, 2).item<double>(), kInf);  // dof <= 0
  EXPECT_FLOAT_EQ(two.std({}, 0.5).item<float>(), static_cast<float>(std::sqrt(2 / 1.5)));
  auto [v, m] = std_mean(two);
  EXPECT_EQ(m.item<double>(), 2);
  EXPECT_FLOAT_EQ(v.item<float>(), static_cast<float>(std::sqrt(2.0)));
}

TEST(ReductionSemantics, LogSumExpIsStable) {
  Tensor big = from_values({2, 2}, {1000, 1000, -1000, -1000}, kFloat32);
  EXPECT_TRUE(
      close(big.logsumexp(1), {2}, {1000 + std::log(2.0), -1000 + std::log(2.0)}, 1e-6, 1e-3));
  Tensor inf = from_values({3, 2}, {-kInf, -kInf, kInf, 1, kInf, kInf}, kFloat64);
  EXPECT_TRUE(close(inf.logsumexp(1), {3}, {-kInf, kInf, kInf}, 0, 0));
  Tensor lc = from_values({4}, {-kInf, 0, 1000, -kInf}, kFloat64);
  EXPECT_TRUE(close(lc.logcumsumexp(0), {4}, {-kInf, 0, 1000, 1000}, 1e-12, 0));
  EXPECT_TRUE(close(from_values({2}, {1, 2}, kInt64).logsumexp(0), {},
                    {std::log(std::exp(1.0) + std::exp(2.0))}, 1e-6, 0));
}

TEST(ReductionSemantics, Shapes) {
  Tensor x = make_tensor({2, 3, 4}, kFloat32);
  EXPECT_EQ(x.sum({0, 2}, true).sizes(), (Shape{1, 3, 1}));
  EXPECT_EQ(x.sum({0, 2}).sizes(), (Shape{3}));
  EXPECT_EQ(x.sum({}, true).sizes(), (Shape{1, 1, 1}));  // empty list: every dim
  EXPECT_EQ(x.mean(-1, true).sizes(), (Shape{2, 3, 1}));
  EXPECT_EQ(x.argmax(std::nullopt, true).sizes(), (Shape{1, 1, 1}));
  EXPECT_EQ(std::get<0>(x.aminmax(std::nullopt, true)).sizes(), (Shape{1, 1, 1}));
  EXPECT_EQ(std::get<0>(x.aminmax()).sizes(), Shape{});
  EXPECT_EQ(x.count_nonzero({0, 1}).sizes(), (Shape{4}));
  Tensor s = from_values({}, {2.5}, kFloat32);
  EXPECT_EQ(s.sum(0).sizes(), Shape{});
  EXPECT_EQ(s.sum(-1, true).sizes(), Shape{});
  auto [v, i] = s.max(0, true);
  EXPECT_EQ(v.item<float>(), 2.5f);
  EXPECT_EQ(i.item<int64_t>(), 0);
  EXPECT_EQ(s.cumsum(-1).item<float>(), 2.5f);
  EXPECT_EQ(s.argmax(0).item<int64_t>(), 0);
}

TEST(ReductionSemantics, IntegerWrapAndExactness) {
  // 2^53 + 1 is not a double: int64 sums stay exact.
  Tensor x = make_tensor({2}, kInt64);
  x.data_ptr<int64_t>()[0] = 9007199254740992;  // 2^53
  x.data_ptr<int64_t>()[1] = 1;
  EXPECT_EQ(x.sum().item<int64_t>(), 9007199254740993);
  Tensor w = make_tensor({2}, kInt64);
  w.data_ptr<int64_t>()[0] = std::numeric_limits<int64_t>::max();
  w.data_ptr<int64_t>()[1] = 1;
  EXPECT_EQ(w.sum().item<int64_t>(), std::numeric_limits<int64_t>::min());  // wraps, as PyTorch
  EXPECT_EQ(w.cumsum(0).tolist<int64_t>()[1], std::numeric_limits<int64_t>::min());
  Tensor u = from_values({3}, {200, 100, 50}, kUInt8);
  EXPECT_EQ(u.sum().item<int64_t>(), 350);  // accumulates in int64
  EXPECT_EQ(u.sum(kUInt8).item<int64_t>(), 350 % 256);
}

TEST(ReductionSemantics, HalfAccumulatesInFloat) {
  // 4096 ones in float16: a float16 accumulator would stop at 2048.
  Tensor h = from_values({4096}, std::vector<double>(4096, 1.0), kFloat16);
  EXPECT_EQ(h.sum().item<float>(), 4096.0f);
  EXPECT_EQ(h.mean().item<float>(), 1.0f);
  EXPECT_EQ(h.cumsum(0).tolist<float>().back(), 4096.0f);
  Tensor bf = from_values({1000}, std::vector<double>(1000, 0.1), kBFloat16);
  EXPECT_NEAR(bf.sum().item<float>(), 1000 * static_cast<float>(BFloat16(0.1f)), 4);
}

TEST(ReductionSemantics, FloatSumIsAccurate) {
  // Alternating huge and small values: a float accumulator loses the small ones.
  std::vector<double> v;
  for (int i = 0; i < 10000; ++i) v.push_back(i % 2 ? 1e8 : 1.0);
  for (int i = 0; i < 5000; ++i) v.push_back(-1e8);
  Tensor x = from_values({static_cast<int64_t>(v.size())}, v, kFloat32);
  EXPECT_EQ(x.sum().item<double>(), 5000.0);
}

class RecordNames : public DispatchMode {
 public:
  void handle(OpCall& call, const DispatchNext& next) override {
    names.push_back(call.prim.name());
    next(call);
  }
  std::vector<std::string> names;
};

TEST(ReductionSemantics, GoesThroughDispatch) {
  RecordNames mode;
  Tensor x = make_tensor({3, 4}, kFloat32);
  std::optional<DispatchModeGuard> guard(std::in_place, mode);
  x.sum();
  x.var(1);
  var_mean(x);
  x.argmax();
  x.cummax(0);
  x.logcumsumexp(1);
  x.max();
  make_tensor({3}, kInt32).nansum();
  guard.reset();
  EXPECT_EQ(mode.names, (std::vector<std::string>{"sum", "var", "var_mean", "argmax", "cummax",
                                                  "logcumsumexp", "max", "nansum"}));
}

}  // namespace
}  // namespace ember::test
