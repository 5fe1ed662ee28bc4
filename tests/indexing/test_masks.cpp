// masked_select, masked_scatter, take, take_along_dim, nonzero/argwhere against plain loops.
#include <cmath>
#include <limits>

#include "indexing/index_testing.h"

namespace ember::test {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();

// x's element at coordinate c of the broadcast shape `out` (right-aligned, size-1 dims repeat).
double at_broadcast(const Nd& x, const Coord& c) {
  Coord s(x.shape.size());
  const size_t off = c.size() - x.shape.size();
  for (size_t d = 0; d < x.shape.size(); ++d) s[d] = x.shape[d] == 1 ? 0 : c[off + d];
  return x.shape.empty() ? x.v[0] : x.at(s);
}

std::vector<int64_t> bshape(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> r(n, 1);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    r[i] = da == 1 ? db : da;
  }
  return r;
}

Tensor bool_mask(const std::vector<int64_t>& s, uint64_t seed) {
  return rand_ints(s, 0, 1, seed, kBool);
}

// ---- masked_select: {x, mask}
std::vector<Sample> masked_select_samples(ScalarType dt) {
  auto mk = [&](std::vector<int64_t> s, uint64_t seed) { return make_tensor(s, dt, -5, 5, seed); };
  return {
      {{mk({3, 4}, 1), bool_mask({3, 4}, 2)}, "same shape"},
      {{mk({3, 4}, 3), bool_mask({4}, 4)}, "mask broadcast"},
      {{mk({3, 1}, 5), bool_mask({3, 4}, 6)}, "self broadcast"},
      {{mk({}, 7), ints({}, {1}, kBool)}, "0-d true"},
      {{mk({}, 7), ints({}, {0}, kBool)}, "0-d false"},
      {{mk({0, 4}, 8), bool_mask({0, 4}, 9)}, "empty"},
      {{make_noncontiguous(mk({4, 6}, 10)), make_noncontiguous(bool_mask({4, 6}, 11))},
       "non-contiguous"},
  };
}
Reference masked_select_ref(const std::vector<Tensor>& in) {
  Nd x(in[0]), m(in[1]);
  std::vector<double> out;
  auto shape = bshape(in[0].sizes(), in[1].sizes());
  for_each_index(shape, [&](const Coord& c) {
    if (at_broadcast(m, c) != 0) out.push_back(at_broadcast(x, c));
  });
  return {{static_cast<int64_t>(out.size())}, out, in[0].dtype()};
}

// ---- masked_scatter: {x, mask, source}
std::vector<Sample> masked_scatter_samples(ScalarType dt) {
  auto mk = [&](std::vector<int64_t> s, uint64_t seed) { return make_tensor(s, dt, -5, 5, seed); };
  return {
      {{mk({3, 4}, 1), bool_mask({3, 4}, 2), mk({12}, 3)}, "same shape"},
      {{mk({3, 4}, 4), bool_mask({4}, 5), mk({4, 5}, 6)}, "mask broadcast, 2-d source"},
      {{mk({}, 7), ints({}, {1}, kBool), mk({2}, 8)}, "0-d"},
      {{mk({0, 4}, 9), bool_mask({0, 4}, 10), mk({0}, 11)}, "empty"},
      {{make_noncontiguous(mk({4, 6}, 12)), bool_mask({4, 6}, 13),
        make_noncontiguous(mk({4, 6}, 14))},
       "non-contiguous"},
  };
}
Reference masked_scatter_ref(const std::vector<Tensor>& in) {
  Nd x(in[0]), m(in[1]);
  std::vector<double> src = values(in[2]);
  auto shape = bshape(in[0].sizes(), in[1].sizes());
  size_t k = 0;
  return generate(shape, in[0].dtype(), [&](const Coord& c) {
    return at_broadcast(m, c) != 0 ? src[k++] : at_broadcast(x, c);
  });
}

// ---- take: {x, index}
std::vector<Sample> take_samples_all(ScalarType dt) {
  auto mk = [&](std::vector<int64_t> s, uint64_t seed) { return make_tensor(s, dt, -5, 5, seed); };
  return {
      {{mk({3, 4}, 1), rand_ints({5}, -12, 11, 2)}, "negative indices"},
      {{mk({3, 4}, 3), rand_ints({2, 3}, 0, 11, 4)}, "2-d index"},
      {{mk({}, 5), ints({}, {-1})}, "0-d"},
      {{mk({3, 4}, 6), rand_ints({0}, 0, 11, 7)}, "empty index"},
      {{make_noncontiguous(mk({4, 6}, 8)), make_noncontiguous(rand_ints({3, 4}, -24, 23, 9))},
       "non-contiguous"},
      {{mk({100, 100}, 10), rand_ints({50000}, -10000, 9999, 11)}, "large"},
  };
}
std::vector<Sample> take_samples(ScalarType dt) { return trim_large(take_samples_all(dt), dt); }
Reference take_ref(const std::vector<Tensor>& in) {
  std::vector<double> x = values(in[0]);
  Nd idx(in[1]);
  const int64_t n = static_cast<int64_t>(x.size());
  return generate(in[1].sizes(), in[0].dtype(), [&](const Coord& c) {
    int64_t i = static_cast<int64_t>(c.empty() ? idx.v[0] : idx.at(c));
    return x[i < 0 ? i + n : i];
  });
}

// ---- take_along_dim: {x, indices, params{has_dim, dim}}
std::vector<Sample> take_along_samples(ScalarType dt) {
  auto mk = [&](std::vector<int64_t> s, uint64_t seed) { return make_tensor(s, dt, -5, 5, seed); };
  return {
      {{mk({3, 4}, 1), rand_ints({3, 2}, 0, 3, 2), params({1, 1})}, "dim 1"},
      {{mk({3, 4}, 3), rand_ints({2, 4}, 0, 2, 4), params({1, 0})}, "dim 0"},
      {{mk({3, 4}, 5), rand_ints({1, 6}, 0, 3, 6), params({1, -1})}, "indices broadcast"},
      {{mk({3, 1}, 7), rand_ints({3, 2}, 0, 0, 8), params({1, 0})}, "self broadcast"},
      {{mk({3, 4}, 9), rand_ints({5}, 0, 11, 10), params({0, 0})}, "no dim (flattened)"},
      {{make_noncontiguous(mk({4, 6}, 11)), rand_ints({4, 3}, 0, 5, 12), params({1, 1})},
       "non-contiguous"},
  };
}
Reference take_along_ref(const std::vector<Tensor>& in) {
  auto p = read_params(in[2]);
  Nd x(in[0]), idx(in[1]);
  if (p[0] == 0) {
    return generate({in[1].numel()}, in[0].dtype(),
                    [&](const Coord& c) { return x.v[static_cast<int64_t>(idx.v[c[0]])]; });
  }
  const int64_t dim = wrap(p[1], in[0].dim());
  std::vector<int64_t> xs = in[0].sizes(), is = in[1].sizes();
  xs[dim] = 1;
  is[dim] = 1;
  std::vector<int64_t> shape = bshape(xs, is);
  shape[dim] = in[1].sizes()[dim];
  return generate(shape, in[0].dtype(), [&](const Coord& c) {
    Coord ci = c, cx = c;
    for (size_t d = 0; d < c.size(); ++d) {
      if (idx.shape[d] == 1) ci[d] = 0;
      if (x.shape[d] == 1) cx[d] = 0;
    }
    cx[dim] = static_cast<int64_t>(idx.at(ci));
    return x.at(cx);
  });
}

// ---- nonzero: {x}
std::vector<Sample> nonzero_samples_all(ScalarType dt) {
  auto mk = [&](std::vector<int64_t> s, uint64_t seed) { return rand_ints(s, -1, 1, seed, dt); };
  std::vector<Sample> s = {
      {{mk({3, 4}, 1)}, "2-d"},          {{mk({2, 3, 4}, 2)}, "3-d"},
      {{ints({}, {0}, dt)}, "0-d zero"}, {{ints({}, {1}, dt)}, "0-d nonzero"},
      {{mk({0, 3}, 3)}, "empty"},        {{make_noncontiguous(mk({4, 6}, 4))}, "non-contiguous"},
      {{mk({300, 200}, 5)}, "large"},
  };
  if (is_floating_point(dt))
    s.push_back({{from_values({5}, {kNan, -0.0, 0.0, 1e-3, -2}, dt)}, "nan and -0"});
  return s;
}
std::vector<Sample> nonzero_samples(ScalarType dt) {
  return trim_large(nonzero_samples_all(dt), dt);
}
Reference nonzero_ref(const std::vector<Tensor>& in) {
  Nd x(in[0]);
  std::vector<double> out;
  int64_t count = 0;
  for_each_index(in[0].sizes(), [&](const Coord& c) {
    const double v = c.empty() ? x.v[0] : x.at(c);
    if (v != 0) {
      ++count;
      for (int64_t d : c) out.push_back(static_cast<double>(d));
    }
  });
  return {{count, in[0].dim()}, out, kInt64};
}

std::vector<OpInfo> mask_ops() {
  std::vector<OpInfo> ops = {
      {"masked_select", all_dtypes(), masked_select_samples,
       [](const std::vector<Tensor>& in) { return masked_select(in[0], in[1]); },
       masked_select_ref},
      {"masked_scatter", all_dtypes(), masked_scatter_samples,
       [](const std::vector<Tensor>& in) { return masked_scatter(in[0], in[1], in[2]); },
       masked_scatter_ref},
      {"masked_scatter_inplace",
       {kFloat32, kBool, kFloat64},
       masked_scatter_samples,
       [](const std::vector<Tensor>& in) {
         Tensor x = in[0].clone();
         x.masked_scatter_(in[1], in[2]);
         return x;
       },
       masked_scatter_ref},
      {"take", all_dtypes(), take_samples,
       [](const std::vector<Tensor>& in) { return take(in[0], in[1]); }, take_ref},
      {"take_along_dim", all_dtypes(), take_along_samples,
       [](const std::vector<Tensor>& in) {
         auto p = read_params(in[2]);
         return p[0] ? take_along_dim(in[0], in[1], p[1]) : take_along_dim(in[0], in[1]);
       },
       take_along_ref},
      {"nonzero", all_dtypes(), nonzero_samples,
       [](const std::vector<Tensor>& in) { return nonzero(in[0]); }, nonzero_ref},
      {"argwhere", all_dtypes(), nonzero_samples,
       [](const std::vector<Tensor>& in) { return in[0].argwhere(); }, nonzero_ref},
  };
  for (OpInfo& op : ops) {
    if (op.name == "masked_scatter_inplace") {
      op.shape_only_dtypes = dtypes_except(op.dtypes);
      op.values_checked_in = "the masked_scatter entry";
    }
    if (op.name == "take_along_dim") op.arg_inputs = {2};
    if (op.name == "nonzero" || op.name == "argwhere") {
      op.not_differentiable = "int64 indices: PyTorch's integral outputs carry no gradient";
    }
  }
  return ops;
}

INSTANTIATE_TEST_SUITE_P(Masks, OpTest, ::testing::ValuesIn(mask_ops()), op_test_name);

TEST(Masks, NonzeroAsTuple) {
  Tensor x = from_values({2, 3}, {0, 1, 0, 2, 0, 3});
  auto t = nonzero(x, /*as_tuple=*/true);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(values(t[0]), (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(values(t[1]), (std::vector<double>{1, 0, 2}));
  EXPECT_EQ(t[0].dtype(), kInt64);
  auto s = nonzero_numpy(from_values({}, {5}));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(values(s[0]), (std::vector<double>{0}));
  EXPECT_EQ(x.nonzero_numpy().size(), 2u);
}

TEST(Masks, Errors) {
  Tensor x = zeros({3, 4}, kFloat32);
  expect_errors<RuntimeError>({
      {"masked_select uint8 mask",
       [&] {
         masked_select(x, zeros({3, 4}, kUInt8));
       },
       "expected BoolTensor for mask"},
      {"masked_select shape", [&] { masked_select(x, zeros({3}, kBool)); }, "[masked_select]"},
      {"masked_scatter dtype",
       [&] {
         masked_scatter(x, ones({3, 4}, kBool), zeros({12}, kFloat64));
       },
       "expected self and source to have same dtypes"},
      {"masked_scatter short source",
       [&] {
         masked_scatter(x, ones({3, 4}, kBool), zeros({11}, kFloat32));
       },
       "Number of elements of source < number of ones in mask"},
      {"masked_scatter_ broadcast self",
       [&] {
         Tensor y = zeros({4}, kFloat32);
         y.masked_scatter_(ones({3, 4}, kBool), zeros({12}, kFloat32));
       },
       "doesn't match the broadcast shape"},
      {"masked_scatter_ int mask",
       [&] {
         x.clone().masked_scatter_(zeros({3, 4}, kInt64), zeros({12}, kFloat32));
       },
       "only supports boolean masks"},
      {"take int32", [&] { take(x, ints({1}, {0}, kInt32)); }, "Expected a long tensor for index"},
      {"take_along_dim int32",
       [&] {
         take_along_dim(x, ints({3, 1}, {0, 0, 0}, kInt32), 1);
       },
       "dtype of indices should be Long"},
      {"take_along_dim ndim",
       [&] {
         take_along_dim(x, ints({3}, {0, 0, 0}), 1);
       },
       "should have the same number of dimensions"},
  });
  expect_errors<IndexError>({
      {"take out of range", [&] { take(x, ints({1}, {12})); },
       "out of range: tried to access index 12 on a tensor of 12 elements."},
      {"take negative out of range", [&] { take(x, ints({1}, {-13})); }, "index -13"},
      {"take_along_dim out of range",
       [&] {
         take_along_dim(x, ints({1, 1}, {4}), 1);
       },
       "index 4 is out of bounds for dimension 1 with size 4"},
  });
}

}  // namespace
}  // namespace ember::test
