// Philox4x32-10, the generator, and the random ops: known answers, determinism across thread
// counts, statistics of 1e5 samples, ranges, permutations and error messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <optional>
#include <set>

#include "dispatch/dispatch.h"
#include "ember/ember.h"
#include "opdb.h"
#include "ops/util.h"
#include "primitives/random.h"

using namespace ember;
using test::values;

namespace {

using Values = std::vector<double>;

double mean(const Values& v) { return std::accumulate(v.begin(), v.end(), 0.0) / v.size(); }
double variance(const Values& v) {
  const double m = mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / (v.size() - 1);
}

// Raw bytes of a contiguous tensor: "bit-exact" comparisons must not go through doubles.
std::vector<uint8_t> bytes(const Tensor& t) {
  const auto* p = static_cast<const uint8_t*>(t.data_ptr());
  return std::vector<uint8_t>(p, p + t.nbytes());
}

struct ThreadGuard {
  ThreadGuard() : saved(get_num_threads()) {}
  ~ThreadGuard() { set_num_threads(saved); }
  int saved;
};

constexpr int64_t kSamples = 100000;

}  // namespace

// Random123's kat_vectors for philox4x32 with 10 rounds (counter words, key words -> output).
TEST(Philox, KnownAnswerVectors) {
  using Ctr = std::array<uint32_t, 4>;
  using Key = std::array<uint32_t, 2>;
  EXPECT_EQ(Generator::philox(Ctr{0, 0, 0, 0}, Key{0, 0}),
            (Ctr{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(Generator::philox(Ctr{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                              Key{0xffffffff, 0xffffffff}),
            (Ctr{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(Generator::philox(Ctr{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                              Key{0xa4093822, 0x299f31d0}),
            (Ctr{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
  // The 64-bit form: counter in the low words, key = seed split low word first.
  EXPECT_EQ(Generator::philox(uint64_t{0}, uint64_t{0}), Generator::philox(Ctr{}, Key{}));
  EXPECT_EQ(Generator::philox(0x299f31d0a4093822ULL, 0x85a308d3243f6a88ULL),
            Generator::philox(Ctr{0x243f6a88, 0x85a308d3, 0, 0}, Key{0xa4093822, 0x299f31d0}));
}

TEST(Generator, SeedOffsetAndState) {
  Generator g(42);
  EXPECT_EQ(g.initial_seed(), 42u);
  EXPECT_EQ(g.offset(), 0u);
  EXPECT_EQ(g.reserve(5), 0u);  // 5 draws round up to 2 blocks
  EXPECT_EQ(g.offset(), 2u);
  EXPECT_EQ(g.reserve(4), 2u);
  EXPECT_EQ(g.offset(), 3u);
  EXPECT_EQ(g.reserve(0), 3u);
  EXPECT_EQ(g.offset(), 3u);
  g.manual_seed(7);
  EXPECT_EQ(g.initial_seed(), 7u);
  EXPECT_EQ(g.offset(), 0u);
  EXPECT_EQ(Generator().initial_seed(), 67280421310721ULL);  // PyTorch's default seed

  // get_state/set_state replays a stream.
  auto state = g.get_state();
  Tensor a = rand({10}, g);
  g.set_state(state);
  Tensor b = rand({10}, g);
  EXPECT_EQ(bytes(a), bytes(b));
  Tensor c = rand({10}, g);
  EXPECT_NE(bytes(a), bytes(c));
}

TEST(Generator, ManualSeedReproducesDefaultStream) {
  manual_seed(1234);
  EXPECT_EQ(default_generator().initial_seed(), 1234u);
  Tensor a = rand({100});
  Tensor an = randn({7});
  manual_seed(1234);
  Tensor b = rand({100});
  Tensor bn = randn({7});
  EXPECT_EQ(bytes(a), bytes(b));
  EXPECT_EQ(bytes(an), bytes(bn));
  Tensor c = rand({100});
  EXPECT_NE(bytes(a), bytes(c));
  manual_seed(1235);
  EXPECT_NE(bytes(a), bytes(rand({100})));
}

// Note [Deterministic random]: element i of a float sample is lane i % 4 of block offset + i / 4;
// a float64 sample takes lanes 2i and 2i + 1.
TEST(Random, SamplesFollowThePhiloxStream) {
  Generator g(99);
  g.reserve(8);  // start at block 2
  Tensor f = rand({10}, g);
  for (int64_t i = 0; i < 10; ++i) {
    const uint32_t r = Generator::philox(99, 2 + i / 4)[i % 4];
    EXPECT_EQ(f.data_ptr<float>()[i], uniform_float(r)) << i;
  }
  EXPECT_EQ(g.offset(), 5u);  // 10 draws -> 3 blocks
  Tensor d = rand({3}, g, kFloat64);
  for (uint64_t i = 0; i < 3; ++i) {
    const uint64_t j = 2 * i;
    const uint32_t hi = Generator::philox(99, 5 + j / 4)[j % 4];
    const uint32_t lo = Generator::philox(99, 5 + (j + 1) / 4)[(j + 1) % 4];
    EXPECT_EQ(d.data_ptr<double>()[i], uniform_double(hi, lo)) << i;
  }
  EXPECT_EQ(g.offset(), 7u);
}

TEST(Random, DeterministicForAnyThreadCount) {
  ThreadGuard guard;
  const int64_t n = 100003;  // several parallel chunks and a ragged tail
  auto sample_all = [&] {
    Generator g(2024);
    std::vector<std::vector<uint8_t>> out;
    out.push_back(bytes(rand({n}, g)));
    out.push_back(bytes(rand({n}, g, kFloat64)));
    out.push_back(bytes(randn({n}, g)));
    out.push_back(bytes(randn({n}, g, kFloat64)));
    out.push_back(bytes(bernoulli(full({n}, 0.3), g)));
    out.push_back(bytes(randperm(50000, g)));
    Tensor u = empty({n}, kBFloat16);
    out.push_back(bytes(uniform_(u, -1, 1, g)));
    manual_seed(77);
    out.push_back(bytes(randint(-50, 1000, {n})));
    out.push_back(bytes(randint(0, int64_t{1} << 40, {n})));
    return out;
  };
  set_num_threads(1);
  auto one = sample_all();
  set_num_threads(2);
  auto two = sample_all();
  set_num_threads(3);
  auto three = sample_all();
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i], two[i]) << "sample " << i;
    EXPECT_EQ(one[i], three[i]) << "sample " << i;
  }
}

TEST(Random, UniformStatistics) {
  for (ScalarType dt : test::float_dtypes()) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor t = rand({kSamples}, dt);
    EXPECT_EQ(t.dtype(), dt);
    auto v = values(t);
    EXPECT_GE(*std::min_element(v.begin(), v.end()), 0.0);
    EXPECT_LT(*std::max_element(v.begin(), v.end()), 1.0);
    // Standard error of the mean is 0.289 / sqrt(1e5) ~ 0.0009.
    EXPECT_NEAR(mean(v), 0.5, 0.005);
    EXPECT_NEAR(variance(v), 1.0 / 12, 0.003);
  }
  Tensor u = empty({kSamples}, kFloat64);
  uniform_(u, -2, 3, default_generator());
  auto v = values(u);
  EXPECT_GE(*std::min_element(v.begin(), v.end()), -2.0);
  EXPECT_LT(*std::max_element(v.begin(), v.end()), 3.0);
  EXPECT_NEAR(mean(v), 0.5, 0.03);
  EXPECT_NEAR(variance(v), 25.0 / 12, 0.05);
  // Half keeps 11 random bits so that values never round up to `to`.
  Tensor h = rand({kSamples}, kFloat16);
  for (double x : values(h)) ASSERT_LT(x, 1.0);
  Tensor like = rand_like(test::make_tensor({50, 40}, kFloat64));
  EXPECT_EQ(like.dtype(), kFloat64);
  EXPECT_EQ(like.sizes(), (std::vector<int64_t>{50, 40}));
}

TEST(Random, NormalStatistics) {
  for (ScalarType dt : test::float_dtypes()) {
    SCOPED_TRACE(dtype_name(dt));
    auto v = values(randn({kSamples}, dt));
    EXPECT_NEAR(mean(v), 0.0, 0.02);
    EXPECT_NEAR(variance(v), 1.0, 0.03);
    // The shape, not only the moments: P(|z| < 1) = 0.6827, P(|z| < 2) = 0.9545.
    double within1 = 0, within2 = 0;
    for (double x : v) {
      within1 += std::fabs(x) < 1;
      within2 += std::fabs(x) < 2;
      ASSERT_TRUE(std::isfinite(x));
    }
    EXPECT_NEAR(within1 / v.size(), 0.6827, 0.01);
    EXPECT_NEAR(within2 / v.size(), 0.9545, 0.005);
  }
  auto n = values(normal(3, 2, {kSamples}, kFloat64));
  EXPECT_NEAR(mean(n), 3.0, 0.04);
  EXPECT_NEAR(std::sqrt(variance(n)), 2.0, 0.04);
  Tensor t = empty({kSamples});
  t.normal_(-1, 0.5);
  auto tv = values(t);
  EXPECT_NEAR(mean(tv), -1.0, 0.01);
  EXPECT_NEAR(std::sqrt(variance(tv)), 0.5, 0.01);
  auto z = values(normal(5, 0, {10}));
  EXPECT_EQ(z, Values(10, 5.0));
  EXPECT_EQ(randn_like(test::make_tensor({3}, kFloat16)).dtype(), kFloat16);
  EXPECT_EQ(randn({1}).numel(), 1);  // an odd count leaves one half of a Box-Muller pair unused
}

TEST(Random, RandintCoversRangeAndStaysInside) {
  Tensor t = randint(3, 10, {kSamples});
  EXPECT_EQ(t.dtype(), kInt64);
  std::vector<int64_t> counts(7, 0);
  for (double x : values(t)) {
    ASSERT_GE(x, 3);
    ASSERT_LT(x, 10);
    ASSERT_EQ(x, std::floor(x));
    ++counts[static_cast<int>(x) - 3];
  }
  for (int64_t c : counts) EXPECT_NEAR(c, kSamples / 7.0, kSamples / 7.0 * 0.05);
  auto low0 = values(randint(4, {1000}));
  EXPECT_EQ(*std::min_element(low0.begin(), low0.end()), 0);
  EXPECT_EQ(*std::max_element(low0.begin(), low0.end()), 3);
  struct Case {
    ScalarType dt;
    int64_t lo, hi;
  };
  for (const Case& c :
       {Case{kInt8, -128, 128}, Case{kUInt8, 0, 256}, Case{kInt16, -5, 5},
        Case{kInt32, -1000, 1000}, Case{kBool, 0, 2}, Case{kFloat32, -3, 4},
        Case{kFloat16, 0, 2048}, Case{kBFloat16, -10, 10}, Case{kFloat64, 100, 110}}) {
    SCOPED_TRACE(dtype_name(c.dt));
    Tensor r = randint(c.lo, c.hi, {20000}, c.dt);
    EXPECT_EQ(r.dtype(), c.dt);
    std::set<double> seen;
    for (double x : values(r)) {
      ASSERT_GE(x, c.lo);
      ASSERT_LT(x, c.hi);
      ASSERT_EQ(x, std::floor(x));
      seen.insert(x);
    }
    if (c.hi - c.lo <= 256) {
      EXPECT_EQ(static_cast<int64_t>(seen.size()), c.hi - c.lo);
    }
  }
  // A range wider than 2^32 draws 64 bits per element.
  const double span = std::ldexp(1.0, 40);
  auto w = values(randint(0, int64_t{1} << 40, {kSamples}));
  for (double x : w) ASSERT_TRUE(x >= 0 && x < span);
  EXPECT_NEAR(mean(w) / span, 0.5, 0.005);
  Tensor like = randint_like(test::make_tensor({4, 5}, kInt16), 1, 3);
  EXPECT_EQ(like.dtype(), kInt16);
  for (double x : values(like)) EXPECT_TRUE(x == 1 || x == 2);
}

TEST(Random, RandomInPlace) {
  Tensor a = empty({5000}, kInt8);
  a.random_(-5, 5);
  for (double x : values(a)) ASSERT_TRUE(x >= -5 && x < 5);
  Tensor b = empty({5000}, kUInt8);
  b.random_(0);  // [0, 255]
  auto bv = values(b);
  EXPECT_EQ(*std::max_element(bv.begin(), bv.end()), 255);
  EXPECT_EQ(*std::min_element(bv.begin(), bv.end()), 0);
  Tensor h = empty({5000}, kFloat16);
  h.random_(0);  // [0, 2^11]
  for (double x : values(h)) ASSERT_TRUE(x >= 0 && x <= 2048 && x == std::floor(x));
  Tensor flags = empty({1000}, kBool);
  flags.random_(0);
  std::set<double> fs;
  for (double x : values(flags)) fs.insert(x);
  EXPECT_EQ(fs, (std::set<double>{0, 1}));
  Tensor big = empty({1000}, kInt64);
  big.random_(std::numeric_limits<int64_t>::min(), std::nullopt);  // the full 64-bit range
  auto bigv = values(big);
  EXPECT_LT(*std::min_element(bigv.begin(), bigv.end()), -1e18);
  EXPECT_GT(*std::max_element(bigv.begin(), bigv.end()), 1e18);
}

TEST(Random, RandpermIsAPermutation) {
  for (int64_t n : {0, 1, 2, 10, 1000}) {
    for (ScalarType dt : {kInt64, kInt32, kInt16, kFloat32, kFloat64, kFloat16, kBFloat16}) {
      if (dt == kBFloat16 && n > 256) continue;
      SCOPED_TRACE(std::to_string(n) + " " + dtype_name(dt));
      Tensor p = randperm(n, dt);
      EXPECT_EQ(p.dtype(), dt);
      EXPECT_EQ(p.sizes(), (std::vector<int64_t>{n}));
      auto v = values(p);
      std::sort(v.begin(), v.end());
      Values expect(n);
      std::iota(expect.begin(), expect.end(), 0.0);
      EXPECT_EQ(v, expect);
    }
  }
  EXPECT_EQ(randperm(5, TensorOptions()).dtype(), kInt64);  // int64 unless a dtype is given
  Generator g1(1), g2(2);
  EXPECT_NE(bytes(randperm(100, g1)), bytes(randperm(100, g2)));
  // Every position is uniform: element 0 lands everywhere over many shuffles.
  std::vector<int> where(5, 0);
  Generator g(5);
  for (int trial = 0; trial < 5000; ++trial) {
    auto v = values(randperm(5, g));
    ++where[std::find(v.begin(), v.end(), 0.0) - v.begin()];
  }
  for (int c : where) EXPECT_NEAR(c, 1000, 150);
}

TEST(Random, Bernoulli) {
  Tensor p = full({kSamples}, 0.3);
  Tensor b = bernoulli(p);
  EXPECT_EQ(b.dtype(), kFloat32);
  auto v = values(b);
  for (double x : v) ASSERT_TRUE(x == 0 || x == 1);
  EXPECT_NEAR(mean(v), 0.3, 0.007);
  EXPECT_NEAR(mean(values(bernoulli(full({kSamples}, 0.8, kFloat64)))), 0.8, 0.007);
  EXPECT_EQ(values(bernoulli(zeros({100}))), Values(100, 0.0));
  EXPECT_EQ(values(bernoulli(ones({100}, kBFloat16))), Values(100, 1.0));
  // Per-element probabilities, read through a non-contiguous view.
  Tensor probs = test::make_noncontiguous(test::from_values({2, 2}, {0, 1, 1, 0}, kFloat32));
  EXPECT_EQ(values(bernoulli(probs)), (Values{0, 1, 1, 0}));
  for (ScalarType dt : test::all_dtypes()) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor t = empty({20000}, dt);
    bernoulli_(t, 0.25, default_generator());
    auto tv = values(t);
    for (double x : tv) ASSERT_TRUE(x == 0 || x == 1);
    EXPECT_NEAR(mean(tv), 0.25, 0.02);
  }
  Tensor all = empty({50}, kInt32);
  all.bernoulli_(1.0);
  EXPECT_EQ(values(all), Values(50, 1.0));
}

TEST(Random, InPlaceSamplersRespectStridesAndBumpVersion) {
  std::vector<float> buf(48, -7.0f);
  Tensor strided = from_blob(buf.data(), {4, 6}, {12, 2});  // every other element
  const uint32_t v0 = strided._version();
  uniform_(strided, 0, 1, default_generator());
  EXPECT_EQ(strided._version(), v0 + 1);
  for (size_t i = 0; i < buf.size(); ++i) {
    if (i % 2 == 1) {
      EXPECT_EQ(buf[i], -7.0f) << i;  // untouched gaps
    } else {
      EXPECT_TRUE(buf[i] >= 0 && buf[i] < 1) << i;
    }
  }
  // A strided output gets the same values as a contiguous one from the same stream.
  Generator g1(3), g2(3);
  Tensor contiguous = rand({4, 6}, g1);
  normal_(strided, 0, 1, g2);
  Generator g3(3);
  Tensor n = randn({4, 6}, g3);
  EXPECT_EQ(values(strided), values(n));
  (void)contiguous;
  Tensor t = zeros({3});
  t.uniform_();
  t.normal_();
  t.bernoulli_();
  t.random_(0, 3);
  EXPECT_EQ(t._version(), 5u);  // zeros' fill + four samplers
}

// Random ops go through dispatch as Random primitives that are pure functions of their inputs:
// the generator's (seed, offset) arrives as the last input (Note [Functional randomness]).
TEST(Random, GoesThroughDispatch) {
  struct Recorder : DispatchMode {
    std::vector<std::string> names;
    std::vector<std::shared_ptr<const Primitive>> prims;
    std::vector<Tensor> states;
    void handle(OpCall& call, const DispatchNext& next) override {
      names.push_back(call.prim.name());
      if (dynamic_cast<const Random*>(&call.prim)) {
        prims.push_back(call.prim.clone());
        states.push_back(call.inputs.back().clone());
      }
      next(call);
    }
  } rec;
  std::optional<DispatchModeGuard> guard(std::in_place, rec);
  Generator g(11);
  Tensor u = rand({9}, g);
  Tensor u2 = rand({9}, g);
  Tensor n = randn({9}, g);
  Tensor ri = randint(0, 4, {9});
  Tensor rp = randperm(9, g);
  Tensor b = bernoulli(full({9}, 0.5), g);
  guard.reset();
  for (const char* name : {"uniform_", "normal_", "random_", "randperm", "bernoulli"}) {
    EXPECT_NE(std::find(rec.names.begin(), rec.names.end(), name), rec.names.end()) << name;
  }
  ASSERT_GE(rec.prims.size(), 3u);
  // The state: seed 11, then offsets 0 and 3 (9 float draws take 3 Philox blocks).
  EXPECT_EQ(rec.states[0].dtype(), kInt64);
  EXPECT_EQ(rec.states[0].sizes(), (std::vector<int64_t>{2}));
  EXPECT_EQ(rec.states[0].data_ptr<int64_t>()[0], 11);
  EXPECT_EQ(rec.states[0].data_ptr<int64_t>()[1], 0);
  EXPECT_EQ(rec.states[1].data_ptr<int64_t>()[1], 3);
  // Two draws are one primitive (equal, same hash, no seed in its description) with other
  // numbers: the state is an input, not a constant of the primitive.
  EXPECT_TRUE(rec.prims[0]->equals(*rec.prims[1]));
  EXPECT_EQ(rec.prims[0]->hash(), rec.prims[1]->hash());
  EXPECT_EQ(rec.prims[0]->describe().find("seed"), std::string::npos);
  EXPECT_NE(bytes(u), bytes(u2));
  // Replaying the recorded primitive with the recorded state reproduces each sample; with a
  // fresh state from the generator it draws new numbers.
  auto replay = [&](const Tensor& state) { return dispatch(*rec.prims[0], {state})[0]; };
  EXPECT_EQ(bytes(replay(rec.states[0])), bytes(u));
  EXPECT_EQ(bytes(replay(rec.states[1])), bytes(u2));
  Generator fresh(12);
  const Tensor other = replay(ops::philox_state(fresh, 9, kCPU));
  EXPECT_NE(bytes(other), bytes(u));
  Generator same(12);
  EXPECT_EQ(bytes(other), bytes(rand({9}, same)));
  // A state that is not an int64 [2] tensor is refused by the kernel.
  EXPECT_THROW(replay(zeros({3}, kInt64)), ValueError);
}

// Attention's dropout takes its stream the same way: two calls are one primitive.
TEST(Random, AttentionDropoutStateIsAnInput) {
  struct Recorder : DispatchMode {
    std::vector<std::shared_ptr<const Primitive>> prims;
    std::vector<Tensor> last_inputs;
    void handle(OpCall& call, const DispatchNext& next) override {
      if (std::string(call.prim.name()) == "scaled_dot_product_attention") {
        prims.push_back(call.prim.clone());
        last_inputs.push_back(call.inputs.back());
      }
      next(call);
    }
  } rec;
  manual_seed(3);
  Tensor q = randn({1, 2, 4, 8}), k = randn({1, 2, 4, 8}), v = randn({1, 2, 4, 8});
  std::optional<DispatchModeGuard> guard(std::in_place, rec);
  Tensor a = scaled_dot_product_attention(q, k, v, {}, 0.5);
  Tensor b = scaled_dot_product_attention(q, k, v, {}, 0.5);
  guard.reset();
  ASSERT_EQ(rec.prims.size(), 2u);
  EXPECT_TRUE(rec.prims[0]->equals(*rec.prims[1]));
  EXPECT_EQ(rec.last_inputs[0].dtype(), kInt64);
  EXPECT_EQ(rec.last_inputs[0].sizes(), (std::vector<int64_t>{2}));
  EXPECT_NE(bytes(a), bytes(b));
}

TEST(Random, Errors) {
  Tensor ints = zeros({3}, kInt64);
  Tensor flags = zeros({3}, kBool);
  Tensor f = zeros({3});
  test::expect_errors<TypeError>({
      {"rand int64", [] { rand({2}, kInt64); },
       "[rand] \"check_uniform_bounds\" not implemented for 'int64'"},
      {"rand bool", [] { rand({2}, kBool); }, "'bool'"},
      {"randn int32", [] { randn({2}, kInt32); },
       "[randn] \"normal_kernel_cpu\" not implemented for 'int32'"},
      {"normal uint8", [] { normal(0, 1, {2}, kUInt8); }, "'uint8'"},
      {"rand_like int", [&] { rand_like(ints); }, "[rand_like] \"check_uniform_bounds\""},
      {"randn_like bool", [&] { randn_like(flags); }, "'bool'"},
      {"uniform_ int", [&] { ints.uniform_(); },
       "[uniform_] \"check_uniform_bounds\" not "
       "implemented for 'int64'"},
      {"normal_ bool", [&] { flags.normal_(); }, "[normal_] \"normal_kernel_cpu\""},
      {"bernoulli int p", [&] { bernoulli(ints); },
       "[bernoulli] \"bernoulli_tensor_cpu_p_\" not implemented for 'int64'"},
      {"randperm bool", [] { randperm(3, kBool); }, "'bool'"},
      {"rand complex", [] { rand({2}, kComplexFloat); }, "complex64"},
  });
  test::expect_errors<RuntimeError>({
      {"randint low == high", [] { randint(5, 5, {3}); },
       "[randint] random_ expects 'from' to be less than 'to', but got from=5 >= to=5"},
      {"randint low > high", [] { randint(6, 5, {3}); }, "but got from=6 >= to=5"},
      {"randint high 0", [] { randint(0, {3}); }, "from=0 >= to=0"},
      {"randint uint8 bound", [] { randint(0, 300, {2}, kUInt8); },
       "[randint] to - 1 is out of bounds for uint8"},
      {"randint bool bound", [] { randint(-1, 2, {2}, kBool); },
       "[randint] from is out of bounds for bool"},
      {"randint half bound", [] { randint(0, 100000, {2}, kFloat16); },
       "to - 1 is out of bounds for float16"},
      {"random_ empty range", [&] { f.random_(3, 3); }, "[random_] random_ expects 'from'"},
      {"bernoulli p > 1", [] { bernoulli(full({3}, 1.5)); },
       "[bernoulli] Expected p_in >= 0 && p_in <= 1 to be true, but got false."},
      {"bernoulli p < 0", [] { bernoulli(full({3}, -0.1, kFloat64)); }, "p_in >= 0"},
      {"bernoulli p nan", [] { bernoulli(full({3}, std::nan(""))); }, "p_in >= 0"},
      {"bernoulli_ p", [&] { f.bernoulli_(1.5); },
       "[bernoulli_] bernoulli_ expects p to be in [0, 1], but got p=1.5"},
      {"bernoulli_ nan", [&] { f.bernoulli_(std::nan("")); }, "expects p to be in [0, 1]"},
      {"normal std", [] { normal(0, -1, {2}); },
       "[normal] normal expects std >= 0.0, but found std -1"},
      {"normal_ std", [&] { f.normal_(0, -2); }, "[normal_] normal expects std >= 0.0"},
      {"uniform_ from > to", [&] { f.uniform_(1, 0); },
       "[uniform_] uniform_ expects to return a [from, to) range, but found from=1 > to=0"},
      {"uniform_ half bound",
       [] {
         Tensor h = zeros({2}, kFloat16);
         h.uniform_(0, 1e6);
       },
       "[uniform_] to is out of bounds for float16"},
      {"randperm negative", [] { randperm(-1); }, "[randperm] n must be non-negative, got -1"},
      {"randperm int8", [] { randperm(300, kInt8); },
       "[randperm] n is too large for result tensor type: 'int8'"},
      {"randperm half", [] { randperm(3000, kFloat16); },
       "[randperm] n cannot be greater than 2049 for Half type."},
      {"overlapping output",
       [] {
         Tensor e = test::make_expanded(zeros({1, 4}), {3, 4});
         e.uniform_();
       },
       "[uniform_] unsupported operation: more than one element"},
      {"overlapping bernoulli_",
       [] {
         Tensor e = test::make_expanded(zeros({1, 4}), {3, 4});
         e.bernoulli_(0.5);
       },
       "[bernoulli_] unsupported operation"},
  });
  // A failed check consumes no random numbers.
  Generator g(8);
  EXPECT_THROW(rand({2}, g, kInt64), TypeError);
  EXPECT_EQ(g.offset(), 0u);
  // Empty tensors are fine and draw nothing.
  EXPECT_EQ(rand({0, 3}, g).numel(), 0);
  EXPECT_EQ(g.offset(), 0u);
}
