// The reduction kernels' code paths (src/backend/cpu/reduce_*): contiguous runs of every length
// around the lane counts and the chunk size, vertical (outer-dim) blocks, NaN and infinity in
// every position of a lane group, signed zeros, strided and transposed inputs, 16-bit inputs
// (accumulated in float), and integer and bool sums (int64 results). References are plain loops
// in double over the values read back from the tensor.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ember/ember.h"

namespace ember {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::vector<double> values(const Tensor& t) {
  const Tensor d = t.to(kFloat64).contiguous();
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

// Row-major [rows, cols] values summed (or maxed) along one dim, in double.
std::vector<double> ref_along(const std::vector<double>& v, int64_t rows, int64_t cols, int dim,
                              bool max) {
  const int64_t n_out = dim == 0 ? cols : rows, n_red = dim == 0 ? rows : cols;
  std::vector<double> out(n_out, max ? -kInf : 0.0);
  for (int64_t o = 0; o < n_out; ++o) {
    for (int64_t r = 0; r < n_red; ++r) {
      const double x = dim == 0 ? v[r * cols + o] : v[o * cols + r];
      if (max) {
        out[o] = (std::isnan(out[o]) || std::isnan(x)) ? kNan : std::max(out[o], x);
      } else {
        out[o] += x;
      }
    }
  }
  return out;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double rtol,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " [" << i << "]";
    } else {
      EXPECT_NEAR(got[i], want[i], rtol * (1 + std::abs(want[i]))) << what << " [" << i << "]";
    }
  }
}

TEST(ReduceKernels, ContiguousLengthsAroundLanesAndChunks) {
  for (int64_t n :
       {1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 95, 32767, 32768, 32769, 65537, 1048577}) {
    manual_seed(n);
    const Tensor x64 = rand({n}, kFloat64) * 4 - 1;
    for (ScalarType dt : {kFloat32, kFloat64, kBFloat16}) {
      const Tensor x = x64.to(dt);
      const std::vector<double> v = values(x);
      double s = 0, m = -kInf, mn = kInf;
      for (double e : v) {
        s += e;
        m = std::max(m, e);
        mn = std::min(mn, e);
      }
      const std::string what = std::string(dtype_name(dt)) + " n=" + std::to_string(n);
      // float and bfloat16 accumulate in double and float: one rounding of the result each.
      const double rtol = dt == kFloat64 ? 1e-12 : dt == kFloat32 ? 1e-6 : 1e-2;
      expect_close(values(x.sum()), {s}, rtol, "sum " + what);
      expect_close(values(x.mean()), {s / n}, rtol, "mean " + what);
      EXPECT_EQ(values(x.amax())[0], m) << what;
      EXPECT_EQ(values(x.amin())[0], mn) << what;
    }
  }
}

TEST(ReduceKernels, OuterAndInnerDimsOfOddShapes) {
  for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{
           {5, 4}, {3, 7}, {33, 1023}, {7, 1025}, {4099, 5}, {1001, 2051}, {70001, 3}}) {
    manual_seed(rows * cols);
    const Tensor x64 = rand({rows, cols}, kFloat64) * 4 - 1;
    for (ScalarType dt : {kFloat32, kFloat64, kBFloat16}) {
      const Tensor x = x64.to(dt);
      const std::vector<double> v = values(x);
      const double rtol = dt == kFloat64 ? 1e-12 : dt == kFloat32 ? 1e-6 : 1e-2;
      for (int dim : {0, 1}) {
        const std::string what = std::string(dtype_name(dt)) + " [" + std::to_string(rows) + ", " +
                                 std::to_string(cols) + "] dim " + std::to_string(dim);
        expect_close(values(x.sum({dim})), ref_along(v, rows, cols, dim, false), rtol,
                     "sum " + what);
        expect_close(values(x.amax({dim})), ref_along(v, rows, cols, dim, true), 0, "amax " + what);
        // The transposed view reduces the same values through the other path.
        const Tensor t = x.t();
        expect_close(values(t.sum({1 - dim})), ref_along(v, rows, cols, dim, false), rtol,
                     "sum of transpose " + what);
        expect_close(values(t.amax({1 - dim})), ref_along(v, rows, cols, dim, true), 0,
                     "amax of transpose " + what);
      }
    }
  }
}

TEST(ReduceKernels, NanAndInfinityInEveryLanePosition) {
  for (int64_t n : {40, 100, 70000}) {
    for (int64_t pos : {int64_t{0}, int64_t{1}, int64_t{31}, int64_t{32}, int64_t{33}, n - 1}) {
      for (ScalarType dt : {kFloat32, kFloat64, kBFloat16}) {
        const std::string what =
            std::string(dtype_name(dt)) + " n=" + std::to_string(n) + " at " + std::to_string(pos);
        Tensor x = linspace(-1, 1, n, kFloat64).to(dt);
        x.index_put_({pos}, kInf);
        EXPECT_EQ(x.amax().item<double>(), kInf) << what;
        EXPECT_EQ(x.sum().item<double>(), kInf) << what;
        x.index_put_({pos}, -kInf);
        EXPECT_EQ(x.amin().item<double>(), -kInf) << what;
        x.index_put_({pos}, kNan);
        EXPECT_TRUE(std::isnan(x.amax().item<double>())) << what;
        EXPECT_TRUE(std::isnan(x.amin().item<double>())) << what;
        EXPECT_TRUE(std::isnan(x.sum().item<double>())) << what;
        EXPECT_EQ(x.argmax().item<int64_t>(), pos) << what;  // NaN is the maximum
        // In a column of an outer reduction, after and before larger values.
        const Tensor m = x.reshape({n, 1}).expand({n, 9}).contiguous();
        const std::vector<double> cm = values(m.amax({0})), cn = values(m.amin({0}));
        for (int64_t j = 0; j < 9; ++j) {
          EXPECT_TRUE(std::isnan(cm[j]) && std::isnan(cn[j])) << what << " column " << j;
        }
      }
    }
  }
}

TEST(ReduceKernels, SignedZerosAndAllInfinite) {
  for (int64_t n : {3, 64, 100}) {
    const Tensor neg = full({n}, -0.0, kFloat32), pos = zeros({n}, kFloat32);
    EXPECT_TRUE(std::signbit(neg.amax().item<float>())) << n;
    EXPECT_TRUE(std::signbit(neg.amin().item<float>())) << n;
    EXPECT_FALSE(std::signbit(pos.amax().item<float>())) << n;
    EXPECT_TRUE(
        std::signbit(neg.reshape({n, 1}).expand({n, 8}).contiguous().amax({0})[3].item<float>()))
        << n;
    // Mixed zeros: a zero either way (PyTorch's sign here depends on its vector path).
    const Tensor mixed = cat({neg, pos});
    EXPECT_EQ(mixed.amax().item<float>(), 0.0f);
    EXPECT_EQ(mixed.amin().item<float>(), 0.0f);
    EXPECT_EQ(full({n}, -kInf, kFloat32).amax().item<float>(),
              -std::numeric_limits<float>::infinity());
  }
}

TEST(ReduceKernels, SixteenBitInputsAccumulateInFloat) {
  // bfloat16 has 8 significant bits: accumulating in bfloat16 would stop at 256.
  for (ScalarType dt : {kBFloat16, kFloat16}) {
    EXPECT_EQ(ones({4096}, dt).sum().item<double>(), 4096) << dtype_name(dt);
    EXPECT_EQ(ones({4096}, dt).mean().item<double>(), 1) << dtype_name(dt);
    EXPECT_EQ(ones({4096, 8}, dt).sum({0}).to(kFloat64).min().item<double>(), 4096);
    EXPECT_EQ(ones({8, 4096}, dt).sum({1}).to(kFloat64).max().item<double>(), 4096);
    EXPECT_EQ(ones({8, 4096}, dt).sum().dtype(), dt);
  }
}

TEST(ReduceKernels, IntegerAndBoolSumsAreInt64) {
  const Tensor b = arange(70007, kInt64).remainder(3).eq(0);
  EXPECT_EQ(b.sum().dtype(), kInt64);
  EXPECT_EQ(b.sum().item<int64_t>(), 23336);
  EXPECT_EQ(b.reshape({7, 10001}).sum({0}).dtype(), kInt64);
  const Tensor i8 = full({70000}, 100, kInt8);
  EXPECT_EQ(i8.sum().dtype(), kInt64);
  EXPECT_EQ(i8.sum().item<int64_t>(), 7000000);  // no int8 overflow
  const Tensor i32 = arange(100003, kInt32).reshape({100003, 1}).expand({100003, 5}).contiguous();
  const Tensor s = i32.sum({0});
  EXPECT_EQ(s.dtype(), kInt64);
  EXPECT_EQ(s[4].item<int64_t>(), int64_t{100002} * 100003 / 2);
  EXPECT_EQ(i32.amax({0})[2].item<int32_t>(), 100002);
}

TEST(ReduceKernels, KeepdimEmptyAndStrided) {
  const Tensor x = arange(2 * 3 * 1030, kFloat32).reshape({2, 3, 1030});
  EXPECT_EQ(x.sum({1}, true).sizes(), (std::vector<int64_t>{2, 1, 1030}));
  EXPECT_EQ(x.amax({0, 2}, true).sizes(), (std::vector<int64_t>{1, 3, 1}));
  // A strided slice (every other element of the last dim) summed along the first dim.
  using indexing::Slice;
  const Tensor sl = x.index({Slice(), Slice(), Slice(0, indexing::None, 2)});
  const std::vector<double> got = values(sl.sum({0}));
  for (int64_t k = 0; k < 3 * 515; ++k) {
    const int64_t j = k / 515, c = 2 * (k % 515);
    EXPECT_EQ(got[k], double(j * 1030 + c) + double(3 * 1030 + j * 1030 + c)) << k;
  }
  const Tensor e = zeros({0, 5}, kFloat32);
  EXPECT_EQ(e.sum({0}).sizes(), (std::vector<int64_t>{5}));
  EXPECT_EQ(e.sum({0}).abs().max().item<float>(), 0.0f);
  EXPECT_TRUE(std::isnan(e.mean({0})[0].item<float>()));
  EXPECT_EQ(e.sum({1}).sizes(), (std::vector<int64_t>{0}));
}

}  // namespace
}  // namespace ember
