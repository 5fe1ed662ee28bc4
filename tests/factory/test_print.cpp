// operator<< against PyTorch's repr. Every expected string is written out by hand from the rules
// of torch/_tensor_str.py (precision 4, threshold 1000, edgeitems 3, linewidth 80) or copied from
// PyTorch's documented outputs; none is produced by running Ember.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "ember/ember.h"
#include "opdb.h"

using namespace ember;

namespace {

std::string str(const Tensor& t) {
  std::ostringstream ss;
  ss << t;
  return ss.str();
}

// Concatenation by appends (GCC 12 warns, falsely, on "literal" + std::string with -Wrestrict).
template <typename... Parts>
std::string cat(const Parts&... parts) {
  std::string r;
  (r.append(parts), ...);
  return r;
}

// n copies of `item` joined by ", ".
std::string items(int n, const std::string& item) {
  std::string r;
  for (int i = 0; i < n; ++i) r.append(i ? ", " : "").append(item);
  return r;
}

struct DefaultDtypeGuard {
  explicit DefaultDtypeGuard(ScalarType t) : saved(get_default_dtype()) { set_default_dtype(t); }
  ~DefaultDtypeGuard() { set_default_dtype(saved); }
  ScalarType saved;
};

}  // namespace

TEST(Print, DocumentedExamples) {
  // Outputs shown in PyTorch's documentation of torch.zeros, torch.arange, torch.linspace,
  // torch.eye, torch.full and torch.tensor.
  EXPECT_EQ(str(zeros({2, 3})), "tensor([[0., 0., 0.],\n        [0., 0., 0.]])");
  EXPECT_EQ(str(arange(5)), "tensor([0, 1, 2, 3, 4])");
  EXPECT_EQ(str(arange(1, 2.5, 0.5)), "tensor([1.0000, 1.5000, 2.0000])");
  EXPECT_EQ(str(linspace(3, 10, 5)), "tensor([ 3.0000,  4.7500,  6.5000,  8.2500, 10.0000])");
  EXPECT_EQ(str(linspace(-10, 10, 5)), "tensor([-10.,  -5.,   0.,   5.,  10.])");
  EXPECT_EQ(str(eye(3)), "tensor([[1., 0., 0.],\n        [0., 1., 0.],\n        [0., 0., 1.]])");
  EXPECT_EQ(str(full({2, 3}, 3.141592)),
            "tensor([[3.1416, 3.1416, 3.1416],\n        [3.1416, 3.1416, 3.1416]])");
  EXPECT_EQ(str(ember::tensor({{1., -1.}, {1., -1.}})),
            "tensor([[ 1., -1.],\n        [ 1., -1.]])");
  EXPECT_EQ(str(ember::tensor({1.12345})), "tensor([1.1235])");
}

TEST(Print, FloatModes) {
  // Fixed point with four decimals, padded to the widest element.
  EXPECT_EQ(str(ember::tensor({{1.5, 2.25}, {3.0, -4.125}})),
            "tensor([[ 1.5000,  2.2500],\n        [ 3.0000, -4.1250]])");
  // Integer-valued floats print as "1."; the width counts the dot.
  EXPECT_EQ(str(ember::tensor({{1.0, 2.0}, {3.0, 4.0}})), "tensor([[1., 2.],\n        [3., 4.]])");
  EXPECT_EQ(str(ember::tensor({1.0, -1.0})), "tensor([ 1., -1.])");
  EXPECT_EQ(str(ember::tensor({-0.0, 1.0})), "tensor([-0., 1.])");
  // Scientific notation: a max/min ratio above 1000, a max above 1e8 or a min below 1e-4.
  EXPECT_EQ(str(logspace(-10, 10, 5)),
            "tensor([1.0000e-10, 1.0000e-05, 1.0000e+00, 1.0000e+05, 1.0000e+10])");
  EXPECT_EQ(str(ember::tensor({1e-5, 1.0})), "tensor([1.0000e-05, 1.0000e+00])");
  EXPECT_EQ(str(ember::tensor({-1e-5, 1.0})), "tensor([-1.0000e-05,  1.0000e+00])");
  EXPECT_EQ(str(ember::tensor({1e10, 1.0})), "tensor([1.0000e+10, 1.0000e+00])");
  EXPECT_EQ(str(ember::tensor({123456789.0})), "tensor([1.2346e+08])");
  EXPECT_EQ(str(ember::tensor({0.00001234})), "tensor([1.2340e-05])");
  EXPECT_EQ(str(ember::tensor({0.5, 400.0})), "tensor([  0.5000, 400.0000])");
  EXPECT_EQ(str(ember::tensor({0.5, 600.0})), "tensor([5.0000e-01, 6.0000e+02])");
  // Zeros are ignored when choosing the mode.
  EXPECT_EQ(str(ember::tensor({0.0, 1e-5})), "tensor([0.0000e+00, 1.0000e-05])");
}

TEST(Print, NanAndInf) {
  const double NaN = std::nan(""), Inf = HUGE_VAL;
  EXPECT_EQ(str(ember::tensor({1.5, NaN, Inf})), "tensor([1.5000,    nan,    inf])");
  EXPECT_EQ(str(ember::tensor({1.0, NaN})), "tensor([1., nan])");
  EXPECT_EQ(str(ember::tensor({-Inf, 2.0})), "tensor([-inf, 2.])");
  EXPECT_EQ(str(ember::tensor({NaN, NaN})), "tensor([nan, nan])");
  EXPECT_EQ(str(ember::tensor({1e-5, -Inf})), "tensor([1.0000e-05,       -inf])");
}

TEST(Print, IntegersAndBools) {
  EXPECT_EQ(str(ember::tensor({true, false})), "tensor([ True, False])");
  EXPECT_EQ(str(ember::tensor({-1, 100}, kInt8)), "tensor([ -1, 100], dtype=torch.int8)");
  EXPECT_EQ(str(ember::tensor({{1, 22}, {333, 4}})), "tensor([[  1,  22],\n        [333,   4]])");
  const int64_t big = int64_t{1} << 62;
  EXPECT_EQ(str(ember::tensor({big})), "tensor([4611686018427387904])");
  EXPECT_EQ(str(ember::tensor({7, 8}, kUInt8)), "tensor([7, 8], dtype=torch.uint8)");
}

TEST(Print, DtypeSuffix) {
  EXPECT_EQ(str(ember::tensor({1, 2}, kInt32)), "tensor([1, 2], dtype=torch.int32)");
  EXPECT_EQ(str(ember::tensor({1.5}, kFloat64)), "tensor([1.5000], dtype=torch.float64)");
  EXPECT_EQ(str(ember::tensor({1.5, 2.0}, kFloat16)),
            "tensor([1.5000, 2.0000], dtype=torch.float16)");
  EXPECT_EQ(str(ember::tensor({1.0, 2.0}, kBFloat16)), "tensor([1., 2.], dtype=torch.bfloat16)");
  EXPECT_EQ(str(ember::tensor({1, 2}, kInt16)), "tensor([1, 2], dtype=torch.int16)");
  // float32, int64 and bool are the defaults of their kinds: no suffix.
  EXPECT_EQ(str(ember::tensor({1.5f})), "tensor([1.5000])");
  DefaultDtypeGuard guard(kFloat64);
  EXPECT_EQ(str(ember::tensor({1.5})), "tensor([1.5000])");
  EXPECT_EQ(str(ember::tensor({1.5f})), "tensor([1.5000], dtype=torch.float32)");
  EXPECT_EQ(str(zeros({0}, kFloat32)), "tensor([], dtype=torch.float32)");
}

TEST(Print, ZeroDimAndEmpty) {
  EXPECT_EQ(str(ember::tensor(3.5)), "tensor(3.5000)");
  EXPECT_EQ(str(ember::tensor(-0.5)), "tensor(-0.5000)");
  EXPECT_EQ(str(ember::tensor(2.0)), "tensor(2.)");
  EXPECT_EQ(str(ember::tensor(3)), "tensor(3)");
  EXPECT_EQ(str(ember::tensor(true)), "tensor(True)");
  EXPECT_EQ(str(ember::tensor(7, kInt32)), "tensor(7, dtype=torch.int32)");
  EXPECT_EQ(str(ember::tensor(1e-6)), "tensor(1.0000e-06)");
  EXPECT_EQ(str(ember::tensor(std::vector<double>{})), "tensor([])");
  EXPECT_EQ(str(zeros({0, 3})), "tensor([], size=(0, 3))");
  // With no elements the dtype must be shown, even int64.
  EXPECT_EQ(str(zeros({0}, kInt64)), "tensor([], dtype=torch.int64)");
  EXPECT_EQ(str(zeros({2, 0}, kInt32)), "tensor([], size=(2, 0), dtype=torch.int32)");
  EXPECT_EQ(str(zeros({0, 1, 2}, kBool)), "tensor([], size=(0, 1, 2), dtype=torch.bool)");
  EXPECT_EQ(str(Tensor()), "[ Tensor (undefined) ]");
}

TEST(Print, HigherDimsAndStrides) {
  EXPECT_EQ(str(zeros({2, 1, 2})), "tensor([[[0., 0.]],\n\n        [[0., 0.]]])");
  EXPECT_EQ(str(ember::tensor({{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}})),
            "tensor([[[1, 2],\n         [3, 4]],\n\n        [[5, 6],\n         [7, 8]]])");
  float buf[6] = {1, 2, 3, 4, 5, 6};
  Tensor transposed = from_blob(buf, {3, 2}, {1, 3});
  EXPECT_EQ(str(transposed), "tensor([[1., 4.],\n        [2., 5.],\n        [3., 6.]])");
  EXPECT_EQ(transposed.toString(), str(transposed));
}

TEST(Print, LineWrapping) {
  // Width 2 -> 4 columns per element; (80 - 7) / 4 = 18 elements per line.
  EXPECT_EQ(str(arange(30)),
            "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
            "        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29])");
  // Rows of a matrix are indented one more and continue at column 9. With no nonzero finite
  // value the formatter keeps its initial width of 1 (as PyTorch's does, although "0." takes
  // two columns), so (80 - 8) / (1 + 2) = 24 elements go on a line.
  const std::string row = cat("[", items(24, "0."), ",\n         ", items(6, "0."), "]");
  EXPECT_EQ(str(zeros({2, 30})), cat("tensor([", row, ",\n        ", row, "])"));
  // Exactly 1000 elements are printed in full: width 3, (80 - 7) / 5 = 14 per line, 72 lines.
  const std::string full = str(arange(1000));
  EXPECT_EQ(full.find("..."), std::string::npos);
  EXPECT_EQ(std::count(full.begin(), full.end(), '\n'), 71);
  EXPECT_EQ(full.substr(0, 23), "tensor([  0,   1,   2, ");
  EXPECT_EQ(full.substr(full.size() - 11), " 998, 999])");
  // One nonzero value sets the width to 2: (80 - 8) / 4 = 18 per line.
  Tensor m = zeros({1, 30});
  m.data_ptr<float>()[0] = 1;
  EXPECT_EQ(str(m), cat("tensor([[1., ", items(17, "0."), ",\n         ", items(12, "0."), "]])"));
}

TEST(Print, SuffixWrapping) {
  // "tensor([...]" of 59 characters still fits ", dtype=torch.int32)" on the line; 63 does not.
  EXPECT_EQ(str(arange(10, 23, 1, kInt32)),
            "tensor([10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22], dtype=torch.int32)");
  EXPECT_EQ(str(arange(10, 24, 1, kInt32)),
            "tensor([10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23],\n"
            "       dtype=torch.int32)");
  EXPECT_EQ(str(arange(20, kInt32)),
            "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
            "        18, 19], dtype=torch.int32)");
}

TEST(Print, Summarization) {
  // More than 1000 elements: three items at each end; the width comes from the shown items.
  EXPECT_EQ(str(arange(2000)), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
  EXPECT_EQ(str(arange(1001)), "tensor([   0,    1,    2,  ...,  998,  999, 1000])");
  const std::string row = "[0., 0., 0.,  ..., 0., 0., 0.]";
  const std::string sep = ",\n        ";
  EXPECT_EQ(str(zeros({100, 100})), cat("tensor([", row, sep, row, sep, row, sep, "...", sep, row,
                                        sep, row, sep, row, "])"));
  // Only the shown elements decide the format: the hidden 1e-9 would force scientific notation.
  Tensor t = linspace(1, 2, 2001, kFloat64);
  t.data_ptr<double>()[1000] = 1e-9;
  EXPECT_EQ(str(t),
            "tensor([1.0000, 1.0005, 1.0010,  ..., 1.9990, 1.9995, 2.0000],\n"
            "       dtype=torch.float64)");
  // A summarised 3-D tensor with a short middle dimension.
  const std::string r3 = "[0, 0, 0,  ..., 0, 0, 0]";
  const std::string block = cat("[", r3, ",\n         ", r3, "]");
  const std::string gap = ",\n\n        ";
  EXPECT_EQ(str(zeros({7, 2, 100}, kInt64)), cat("tensor([", block, gap, block, gap, block, gap,
                                                 "...", gap, block, gap, block, gap, block, "])"));
}
