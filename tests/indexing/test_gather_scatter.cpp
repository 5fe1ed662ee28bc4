// index_select, gather, scatter (src/value/reduce), scatter_add, scatter_reduce, index_add,
// index_copy, index_fill against plain-loop references over test::values.
#include <cmath>
#include <limits>
#include <string>

#include "indexing/index_testing.h"

namespace ember::test {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

std::vector<ScalarType> dtypes_without_bool() {
  std::vector<ScalarType> v;
  for (ScalarType t : all_dtypes()) {
    if (t != kBool) v.push_back(t);
  }
  return v;
}

// ---- gather: inputs {x, index, params{dim}}
std::vector<Sample> gather_samples_all(ScalarType dt) {
  auto mk = [&](std::vector<int64_t> s, uint64_t seed) { return make_tensor(s, dt, -5, 5, seed); };
  return {
      {{mk({3, 4}, 1), rand_ints({2, 4}, 0, 2, 2), params({0})}, "2-d dim 0"},
      {{mk({3, 4}, 1), rand_ints({3, 6}, 0, 3, 3), params({1})}, "2-d dim 1, longer index"},
      {{mk({2, 3, 4}, 4), rand_ints({2, 2, 3}, 0, 3, 5), params({-1})}, "3-d dim -1, smaller"},
      {{mk({2, 3, 4}, 4), rand_ints({1, 5, 2}, 0, 2, 6), params({1})}, "3-d dim 1"},
      {{mk({}, 7), ints({}, {0}), params({0})}, "0-d"},
      {{mk({3, 4}, 8), rand_ints({0, 4}, 0, 2, 9), params({0})}, "empty index"},
      {{make_noncontiguous(mk({4, 6}, 10)), make_noncontiguous(rand_ints({4, 3}, 0, 5, 11)),
        params({1})},
       "non-contiguous"},
      {{mk({64, 500}, 12), rand_ints({64, 900}, 0, 499, 13), params({1})}, "large (parallel)"},
  };
}
std::vector<Sample> gather_samples(ScalarType dt) { return trim_large(gather_samples_all(dt), dt); }

Reference gather_ref(const std::vector<Tensor>& in) {
  Nd x(in[0]), idx(in[1]);
  const int64_t dim = wrap(read_params(in[2])[0], in[0].dim());
  return generate(in[1].sizes(), in[0].dtype(), [&](const Coord& c) {
    if (c.empty()) return x.v[static_cast<int64_t>(idx.v[0])];
    Coord s = c;
    s[dim] = static_cast<int64_t>(idx.at(c));
    return x.at(s);
  });
}

// ---- scatter family: inputs {x, index, src, params{dim}}
std::vector<Sample> scatter_samples_all(ScalarType dt, bool short_rows) {
  auto mk = [&](std::vector<int64_t> s, uint64_t seed) { return make_tensor(s, dt, -5, 5, seed); };
  std::vector<Sample> s = {
      {{mk({3, 5}, 1), rand_ints({2, 5}, 0, 2, 2), mk({2, 5}, 3), params({0})}, "2-d dim 0"},
      {{mk({3, 5}, 1), rand_ints({3, 2}, 0, 4, 4), mk({4, 6}, 5), params({1})},
       "2-d dim 1, larger src"},
      {{mk({2, 3, 4}, 6), rand_ints({2, 2, 2}, 0, 3, 7), mk({2, 3, 6}, 8), params({-1})},
       "3-d dim -1"},
      {{mk({}, 9), ints({}, {0}), mk({}, 10), params({0})}, "0-d"},
      {{mk({3, 5}, 11), rand_ints({0, 5}, 0, 2, 12), mk({2, 5}, 13), params({0})}, "empty index"},
      {{make_noncontiguous(mk({4, 6}, 14)), make_noncontiguous(rand_ints({4, 2}, 0, 5, 15)),
        make_noncontiguous(mk({4, 4}, 16)), params({1})},
       "non-contiguous"},
  };
  if (!short_rows) {
    s.push_back({{mk({5, 4}, 17), rand_ints({9, 4}, 0, 4, 18), mk({9, 4}, 19), params({0})},
                 "many duplicates"});
    s.push_back(
        {{mk({64, 500}, 20), rand_ints({64, 800}, 0, 499, 21), mk({64, 800}, 22), params({1})},
         "large (parallel)"});
  }
  return s;
}
std::vector<Sample> scatter_samples(ScalarType dt, bool short_rows) {
  return trim_large(scatter_samples_all(dt, short_rows), dt);
}

enum class Red { Set, Sum, Prod, Mean, Max, Min };

// Plain-loop scatter: contributions in row-major order of index, each step rounded to the dtype.
Reference scatter_ref(const std::vector<Tensor>& in, Red red, bool include_self,
                      std::optional<double> value = std::nullopt) {
  const Tensor& xt = in[0];
  const ScalarType dt = xt.dtype();
  Nd idx(in[1]), src(in[2]);
  const int64_t dim = wrap(read_params(in[3])[0], xt.dim());
  std::vector<double> out = values(xt);
  std::vector<int64_t> count(out.size(), include_self ? 1 : 0);
  std::vector<bool> touched(out.size(), false);
  const bool is_float = is_floating_point(dt);
  for_each_index(in[1].sizes(), [&](const Coord& c) {
    Coord t = c;
    int64_t ti;
    if (c.empty()) {
      ti = 0;
    } else {
      t[dim] = static_cast<int64_t>(idx.at(c));
      ti = ravel(t, xt.sizes());
    }
    const double v = value ? as_dtype(dt, *value) : (c.empty() ? src.v[0] : src.at(c));
    double& d = out[ti];
    if (!touched[ti] && !include_self && red != Red::Set) {
      d = red == Red::Prod ? 1 : red == Red::Max ? -kInf : red == Red::Min ? kInf : 0;
      if (!is_float && red == Red::Max) d = -1e300;
      if (!is_float && red == Red::Min) d = 1e300;
    }
    touched[ti] = true;
    ++count[ti];
    switch (red) {
      case Red::Set:
        d = v;
        break;
      case Red::Sum:
      case Red::Mean:
        d = as_dtype(dt, d + v);
        break;
      case Red::Prod:
        d = as_dtype(dt, d * v);
        break;
      case Red::Max:
        d = std::isnan(d) || std::isnan(v) ? std::nan("") : std::max(d, v);
        break;
      case Red::Min:
        d = std::isnan(d) || std::isnan(v) ? std::nan("") : std::min(d, v);
        break;
    }
  });
  if (red == Red::Mean) {
    for (size_t i = 0; i < out.size(); ++i) {
      if (!touched[i] || count[i] == 0) continue;
      out[i] = is_float ? as_dtype(dt, out[i] / count[i]) : std::floor(out[i] / count[i]);
    }
  }
  return {xt.sizes(), out, dt};
}

OpInfo scatter_reduce_info(const std::string& reduce, Red red, bool include_self) {
  const bool is_prod = red == Red::Prod;
  return {"scatter_reduce_" + reduce + (include_self ? "" : "_exclude_self"), dtypes_without_bool(),
          [is_prod](ScalarType dt) { return scatter_samples(dt, is_prod); },
          [reduce, include_self](const std::vector<Tensor>& in) {
            return scatter_reduce(in[0], read_params(in[3])[0], in[1], in[2], reduce, include_self);
          },
          [red, include_self](const std::vector<Tensor>& in) {
            return scatter_ref(in, red, include_self);
          }};
}

// ---- index_select: inputs {x, index, params{dim}}
std::vector<Sample> index_select_samples_all(ScalarType dt) {
  auto mk = [&](std::vector<int64_t> s, uint64_t seed) { return make_tensor(s, dt, -5, 5, seed); };
  return {
      {{mk({4, 5}, 1), rand_ints({6}, 0, 3, 2), params({0})}, "dim 0, repeats"},
      {{mk({4, 5}, 1), rand_ints({3}, 0, 4, 3, kInt32), params({1})}, "dim 1, int32 index"},
      {{mk({2, 3, 4}, 4), rand_ints({5}, 0, 3, 5), params({-1})}, "3-d dim -1"},
      {{mk({2, 3, 4}, 4), ints({}, {2}), params({1})}, "0-d index"},
      {{mk({}, 6), ints({1}, {0}), params({0})}, "0-d self"},
      {{mk({4, 5}, 7), rand_ints({0}, 0, 3, 8), params({0})}, "empty index"},
      {{mk({0, 5}, 7), rand_ints({2}, 0, 4, 8), params({1})}, "empty self"},
      {{make_noncontiguous(mk({4, 6}, 9)),
        make_noncontiguous(rand_ints({1, 5}, 0, 5, 10)).reshape({-1}), params({1})},
       "non-contiguous"},
      {{mk({300, 200}, 11), rand_ints({400}, 0, 299, 12), params({0})}, "large"},
  };
}
std::vector<Sample> index_select_samples(ScalarType dt) {
  return trim_large(index_select_samples_all(dt), dt);
}

Reference index_select_ref(const std::vector<Tensor>& in) {
  Nd x(in[0]);
  std::vector<double> idx = values(in[1]);
  const int64_t dim = wrap(read_params(in[2])[0], in[0].dim());
  std::vector<int64_t> shape = in[0].sizes();
  if (!shape.empty()) shape[dim] = static_cast<int64_t>(idx.size());
  return generate(shape, in[0].dtype(), [&](const Coord& c) {
    if (c.empty()) return x.v[0];
    Coord s = c;
    s[dim] = static_cast<int64_t>(idx[c[dim]]);
    return x.at(s);
  });
}

// ---- index_add / index_copy: inputs {x, index, source, params{dim}}
std::vector<Sample> index_update_samples_all(ScalarType dt, bool unique_index) {
  auto mk = [&](std::vector<int64_t> s, uint64_t seed) { return make_tensor(s, dt, -5, 5, seed); };
  auto idx = [&](int64_t n, int64_t size, uint64_t seed, ScalarType it = kInt64) {
    if (!unique_index) return rand_ints({n}, 0, size - 1, seed, it);
    std::vector<double> v;  // a fixed permutation prefix
    for (int64_t j = 0; j < n; ++j) v.push_back(static_cast<double>((j * 3 + 1) % size));
    return ints({n}, v, it);
  };
  return {
      {{mk({5, 3}, 1), idx(4, 5, 2), mk({4, 3}, 3), params({0})}, "dim 0"},
      {{mk({3, 5}, 4), idx(unique_index ? 5 : 7, 5, 5, unique_index ? kInt64 : kInt32),
        mk({3, unique_index ? 5 : 7}, 6), params({1})},
       "dim 1"},
      {{mk({2, 3, 4}, 7), idx(2, 4, 8), mk({2, 3, 2}, 9), params({-1})}, "3-d dim -1"},
      {{mk({}, 10), ints({1}, {0}), mk({}, 11), params({0})}, "0-d"},
      {{mk({4, 3}, 12), rand_ints({0}, 0, 3, 13), mk({0, 3}, 14), params({0})}, "empty index"},
      {{make_noncontiguous(mk({4, 6}, 15)), idx(4, 4, 16), make_noncontiguous(mk({4, 6}, 17)),
        params({0})},
       "non-contiguous"},
      {{mk({40, 2000}, 18), idx(30, 40, 19), mk({30, 2000}, 20), params({0})}, "large"},
  };
}
std::vector<Sample> index_update_samples(ScalarType dt, bool unique_index) {
  return trim_large(index_update_samples_all(dt, unique_index), dt);
}

Reference index_update_ref(const std::vector<Tensor>& in, bool add, double alpha) {
  const ScalarType dt = in[0].dtype();
  std::vector<double> out = values(in[0]);
  std::vector<double> idx = values(in[1]);
  Nd src(in[2]);
  const int64_t dim = wrap(read_params(in[3])[0], in[0].dim());
  const std::vector<int64_t> xs = in[0].sizes();
  for_each_index(in[2].sizes(), [&](const Coord& c) {
    int64_t ti = 0;
    double v = src.v.empty() ? 0 : src.v[0];
    if (!c.empty()) {
      Coord t = c;
      t[dim] = static_cast<int64_t>(idx[c[dim]]);
      ti = ravel(t, xs);
      v = src.at(c);
    }
    out[ti] = add ? as_dtype(dt, out[ti] + as_dtype(dt, alpha * v)) : v;
  });
  return {xs, out, dt};
}

// ---- index_fill: inputs {x, index, params{dim}}
std::vector<Sample> index_fill_samples(ScalarType dt) {
  auto mk = [&](std::vector<int64_t> s, uint64_t seed) { return make_tensor(s, dt, -5, 5, seed); };
  return {
      {{mk({4, 5}, 1), ints({3}, {-1, 0, 2}), params({0})}, "negative indices"},
      {{mk({4, 5}, 2), ints({2}, {4, 4}), params({-1})}, "repeated, dim -1"},
      {{mk({2, 3, 4}, 3), ints({}, {1}), params({1})}, "0-d index"},
      {{mk({}, 4), ints({1}, {0}), params({0})}, "0-d self"},
      {{mk({4, 5}, 5), rand_ints({0}, 0, 3, 6), params({0})}, "empty index"},
      {{make_noncontiguous(mk({4, 6}, 7)), ints({2}, {5, -6}), params({1})}, "non-contiguous"},
  };
}

Reference index_fill_ref(const std::vector<Tensor>& in, double value) {
  const ScalarType dt = in[0].dtype();
  Nd x(in[0]);
  std::vector<double> idx = values(in[1]);
  const int64_t dim = wrap(read_params(in[2])[0], in[0].dim());
  const int64_t size = in[0].dim() == 0 ? 1 : in[0].sizes()[dim];
  return generate(in[0].sizes(), dt, [&](const Coord& c) {
    const int64_t k = c.empty() ? 0 : c[dim];
    for (double i : idx) {
      if ((static_cast<int64_t>(i) + size) % size == k) return as_dtype(dt, value);
    }
    return c.empty() ? x.v[0] : x.at(c);
  });
}

std::vector<OpInfo> gather_scatter_ops() {
  std::vector<OpInfo> ops;
  ops.push_back(
      {"gather", all_dtypes(), gather_samples,
       [](const std::vector<Tensor>& in) { return gather(in[0], read_params(in[2])[0], in[1]); },
       gather_ref});
  ops.push_back(
      {"Tensor_gather",
       {kFloat32, kFloat64},
       gather_samples,
       [](const std::vector<Tensor>& in) { return in[0].gather(read_params(in[2])[0], in[1]); },
       gather_ref});
  ops.push_back({"scatter_src", all_dtypes(),
                 [](ScalarType dt) { return scatter_samples(dt, false); },
                 [](const std::vector<Tensor>& in) {
                   return scatter(in[0], read_params(in[3])[0], in[1], in[2]);
                 },
                 [](const std::vector<Tensor>& in) { return scatter_ref(in, Red::Set, true); }});
  ops.push_back(
      {"scatter_value", all_dtypes(), [](ScalarType dt) { return scatter_samples(dt, false); },
       [](const std::vector<Tensor>& in) {
         return scatter(in[0], read_params(in[3])[0], in[1], Scalar(3));
       },
       [](const std::vector<Tensor>& in) { return scatter_ref(in, Red::Set, true, 3.0); }});
  ops.push_back({"scatter_reduce_add", dtypes_without_bool(),
                 [](ScalarType dt) { return scatter_samples(dt, false); },
                 [](const std::vector<Tensor>& in) {
                   return scatter(in[0], read_params(in[3])[0], in[1], in[2], "add");
                 },
                 [](const std::vector<Tensor>& in) { return scatter_ref(in, Red::Sum, true); }});
  ops.push_back(
      {"scatter_value_multiply", dtypes_without_bool(),
       [](ScalarType dt) { return scatter_samples(dt, true); },
       [](const std::vector<Tensor>& in) {
         return scatter(in[0], read_params(in[3])[0], in[1], Scalar(2), "multiply");
       },
       [](const std::vector<Tensor>& in) { return scatter_ref(in, Red::Prod, true, 2.0); }});
  ops.push_back({"scatter_add", all_dtypes(),
                 [](ScalarType dt) { return scatter_samples(dt, false); },
                 [](const std::vector<Tensor>& in) {
                   return scatter_add(in[0], read_params(in[3])[0], in[1], in[2]);
                 },
                 [](const std::vector<Tensor>& in) { return scatter_ref(in, Red::Sum, true); }});
  ops.push_back({"scatter_add_inplace",
                 {kFloat32, kInt64, kFloat64},
                 [](ScalarType dt) { return scatter_samples(dt, false); },
                 [](const std::vector<Tensor>& in) {
                   Tensor x = in[0].clone();
                   const Tensor& r = x.scatter_add_(read_params(in[3])[0], in[1], in[2]);
                   EXPECT_TRUE(r.is_same(x));
                   return x;
                 },
                 [](const std::vector<Tensor>& in) { return scatter_ref(in, Red::Sum, true); }});
  for (bool inc : {true, false}) {
    ops.push_back(scatter_reduce_info("sum", Red::Sum, inc));
    ops.push_back(scatter_reduce_info("prod", Red::Prod, inc));
    ops.push_back(scatter_reduce_info("mean", Red::Mean, inc));
    ops.push_back(scatter_reduce_info("amax", Red::Max, inc));
    ops.push_back(scatter_reduce_info("amin", Red::Min, inc));
  }
  ops.push_back({"index_select", all_dtypes(), index_select_samples,
                 [](const std::vector<Tensor>& in) {
                   return index_select(in[0], read_params(in[2])[0], in[1]);
                 },
                 index_select_ref});
  ops.push_back({"index_add_alpha2", dtypes_without_bool(),
                 [](ScalarType dt) { return index_update_samples(dt, false); },
                 [](const std::vector<Tensor>& in) {
                   return index_add(in[0], read_params(in[3])[0], in[1], in[2], 2);
                 },
                 [](const std::vector<Tensor>& in) { return index_update_ref(in, true, 2); }});
  ops.push_back({"index_add_inplace",
                 {kFloat64, kBFloat16, kInt32},
                 [](ScalarType dt) { return index_update_samples(dt, false); },
                 [](const std::vector<Tensor>& in) {
                   Tensor x = in[0].clone();
                   x.index_add_(read_params(in[3])[0], in[1], in[2]);
                   return x;
                 },
                 [](const std::vector<Tensor>& in) { return index_update_ref(in, true, 1); }});
  ops.push_back({"index_copy", all_dtypes(),
                 [](ScalarType dt) { return index_update_samples(dt, true); },
                 [](const std::vector<Tensor>& in) {
                   return index_copy(in[0], read_params(in[3])[0], in[1], in[2]);
                 },
                 [](const std::vector<Tensor>& in) { return index_update_ref(in, false, 1); }});
  ops.push_back({"index_fill", all_dtypes(), index_fill_samples,
                 [](const std::vector<Tensor>& in) {
                   return index_fill(in[0], read_params(in[2])[0], in[1], 3);
                 },
                 [](const std::vector<Tensor>& in) { return index_fill_ref(in, 3); }});
  ops.push_back({"index_fill_tensor_value_inplace",
                 {kFloat32, kInt16, kFloat64},
                 index_fill_samples,
                 [](const std::vector<Tensor>& in) {
                   Tensor x = in[0].clone();
                   x.index_fill_(read_params(in[2])[0], in[1], full({}, -2, kFloat64));
                   return x;
                 },
                 [](const std::vector<Tensor>& in) { return index_fill_ref(in, -2); }});
  // Method and in-place variants run every dtype; their values are checked in the full entry.
  for (OpInfo& op : ops) {
    const std::string full = op.name == "Tensor_gather"                     ? "gather"
                             : op.name == "scatter_add_inplace"             ? "scatter_add"
                             : op.name == "index_add_inplace"               ? "index_add_alpha2"
                             : op.name == "index_fill_tensor_value_inplace" ? "index_fill"
                                                                            : "";
    if (full.empty()) continue;
    // index_fill_ refuses -2 into uint8 ("value cannot be converted ... without overflow").
    if (op.name == "index_fill_tensor_value_inplace") op.rejected_dtypes = {kUInt8};
    std::vector<ScalarType> known = op.dtypes;
    known.insert(known.end(), op.rejected_dtypes.begin(), op.rejected_dtypes.end());
    op.shape_only_dtypes = dtypes_except(known);
    op.values_checked_in = "the " + full + " entry";
  }
  for (OpInfo& op : ops) op.arg_inputs = {-1};  // every sample ends with its params({dim})
  return ops;
}

INSTANTIATE_TEST_SUITE_P(GatherScatter, OpTest, ::testing::ValuesIn(gather_scatter_ops()),
                         op_test_name);

// ---- semantics beyond the op database

TEST(GatherScatter, ScatterAddDuplicatesAccumulate) {
  Tensor x = zeros({4}, kFloat32);
  Tensor idx = ints({6}, {1, 1, 3, 1, 0, 3});
  Tensor src = from_values({6}, {1, 2, 4, 8, 16, 32}, kFloat32);
  EXPECT_EQ(values(scatter_add(x, 0, idx, src)), (std::vector<double>{16, 11, 0, 36}));
  EXPECT_EQ(values(index_add(x, 0, idx, src)), (std::vector<double>{16, 11, 0, 36}));
  EXPECT_EQ(values(index_add(x, 0, idx, src, 2)), (std::vector<double>{32, 22, 0, 72}));
}

TEST(GatherScatter, ScatterReduceIncludeSelf) {
  Tensor x = from_values({3}, {10, 20, 30}, kFloat32);
  Tensor idx = ints({4}, {0, 0, 2, 0});
  Tensor src = from_values({4}, {1, 2, 3, 6}, kFloat32);
  EXPECT_EQ(values(scatter_reduce(x, 0, idx, src, "mean")),
            (std::vector<double>{19.0 / 4, 20, 16.5}));
  EXPECT_EQ(values(scatter_reduce(x, 0, idx, src, "mean", false)), (std::vector<double>{3, 20, 3}));
  EXPECT_EQ(values(scatter_reduce(x, 0, idx, src, "amax", false)), (std::vector<double>{6, 20, 3}));
  EXPECT_EQ(values(scatter_reduce(x, 0, idx, src, "prod")), (std::vector<double>{120, 20, 90}));
  // Integer mean floors (PyTorch's floor division of the sum by the count).
  Tensor xi = ints({2}, {0, -7});
  EXPECT_EQ(values(scatter_reduce(xi, 0, ints({1}, {1}), ints({1}, {0}), "mean")),
            (std::vector<double>{0, -4}));
}

TEST(GatherScatter, InPlaceReturnsSelfAndWrites) {
  Tensor x = zeros({2, 3}, kFloat64);
  const Tensor& r = x.scatter_(1, ints({2, 1}, {2, 0}), 7.0);
  EXPECT_TRUE(r.is_same(x));
  EXPECT_EQ(values(x), (std::vector<double>{0, 0, 7, 7, 0, 0}));
  x.index_fill_(0, ints({1}, {-1}), -1);
  EXPECT_EQ(values(x), (std::vector<double>{0, 0, 7, -1, -1, -1}));
  x.index_copy_(1, ints({1}, {1}), from_values({2, 1}, {5, 6}));
  EXPECT_EQ(values(x), (std::vector<double>{0, 5, 7, -1, 6, -1}));
  x.scatter_reduce_(0, ints({1, 3}, {1, 1, 1}), from_values({1, 3}, {9, 9, 9}), "amin");
  EXPECT_EQ(values(x), (std::vector<double>{0, 5, 7, -1, 6, -1}));
  x.scatter_(0, ints({1, 1}, {0}), from_values({1, 1}, {3}), "multiply");
  EXPECT_EQ(values(x)[0], 0);
  // A view is written through.
  Tensor base = zeros({3, 3}, kFloat32);
  Tensor col = base.select(1, 1);
  col.index_fill_(0, ints({1}, {2}), 4);
  EXPECT_EQ(values(base)[7], 4);
}

TEST(GatherScatter, SourceAliasingSelfIsReadBeforeWrite) {
  Tensor x = from_values({4}, {1, 2, 3, 4});
  // src is x itself: the result uses x's values from before the op.
  x.index_copy_(0, ints({4}, {3, 2, 1, 0}), x);
  EXPECT_EQ(values(x), (std::vector<double>{4, 3, 2, 1}));
}

// ---- errors
TEST(GatherScatter, Errors) {
  Tensor x = zeros({3, 4}, kFloat32);
  Tensor i2 = ints({2, 4}, {0, 1, 2, 0, 1, 2, 0, 1});
  expect_errors<IndexError>({
      {"gather out of range",
       [&] {
         gather(x, 0, ints({1, 1}, {5}));
       },
       "index 5 is out of bounds for dimension 0 with size 3"},
      {"gather negative",
       [&] {
         gather(x, 1, ints({1, 1}, {-1}));
       },
       "index -1 is out of bounds for dimension 1 with size 4"},
      {"scatter out of range",
       [&] {
         scatter(x, 0, ints({1, 1}, {3}), 1.0);
       },
       "index 3 is out of bounds for dimension 0 with size 3"},
      {"scatter_add out of range",
       [&] {
         scatter_add(x, 1, ints({1, 1}, {4}), zeros({1, 1}, kFloat32));
       },
       "[scatter_add]"},
      {"index_select out of range",
       [&] {
         index_select(x, 0, ints({2}, {0, 3}));
       },
       "index out of range in self"},
      {"index_add out of range",
       [&] {
         index_add(x, 0, ints({1}, {3}), zeros({1, 4}, kFloat32));
       },
       "index 3 is out of bounds for dimension 0 with size 3"},
      {"index_copy out of range",
       [&] {
         index_copy(x, 1, ints({1}, {-5}), zeros({3, 1}, kFloat32));
       },
       "[index_copy] index -5 is out of bounds for dimension 1 with size 4"},
      {"index_fill out of range", [&] { index_fill(x, 1, ints({1}, {4}), 0); },
       "index 4 is out of bounds for dimension 1 with size 4"},
      {"bad dim", [&] { gather(x, 2, i2); }, "Dimension out of range"},
      {"bad dim scatter", [&] { scatter(x, -3, i2, 1.0); }, "Dimension out of range"},
      {"index_select 2-d index", [&] { index_select(x, 0, i2); },
       "Index is supposed to be a vector"},
  });
  expect_errors<RuntimeError>({
      {"gather int32 index",
       [&] {
         gather(x, 0, ints({1, 1}, {0}, kInt32));
       },
       "gather(): Expected dtype int64 for index"},
      {"scatter float index",
       [&] {
         scatter(x, 0, ints({1, 1}, {0}, kFloat32), 1.0);
       },
       "scatter(): Expected dtype int64 for index"},
      {"scatter src dtype",
       [&] {
         scatter(x, 0, i2, zeros({2, 4}, kFloat64));
       },
       "Expected self.dtype to be equal to src.dtype"},
      {"gather ndim",
       [&] {
         gather(x, 0, ints({4}, {0, 0, 0, 0}));
       },
       "Index tensor must have the same number of dimensions as input tensor"},
      {"gather size",
       [&] {
         gather(x, 0, zeros({1, 5}, kInt64));
       },
       "Size does not match at dimension 1"},
      {"scatter index larger than self",
       [&] {
         scatter(x, 0, zeros({1, 5}, kInt64), 1.0);
       },
       "to be smaller than self [3, 4] apart from dimension 0"},
      {"scatter index larger than src",
       [&] {
         scatter(x, 0, zeros({2, 4}, kInt64), zeros({2, 3}, kFloat32));
       },
       "to be smaller size than src"},
      {"scatter ndim", [&] { scatter_add(x, 0, zeros({4}, kInt64), zeros({4}, kFloat32)); },
       "Index tensor must have the same number of dimensions as self tensor"},
      {"scatter reduce name", [&] { scatter(x, 0, i2, 1.0, "max"); },
       "reduce argument must be either add or multiply"},
      {"scatter_reduce name",
       [&] {
         scatter_reduce(x, 0, i2, zeros({2, 4}, kFloat32), "max");
       },
       "reduce argument must be either sum, prod, mean, amax or amin, got max"},
      {"index_select float index", [&] { index_select(x, 0, zeros({1}, kFloat32)); },
       "Expected dtype int32 or int64 for index"},
      {"index_add source shape",
       [&] {
         index_add(x, 0, ints({1}, {0}), zeros({1, 3}, kFloat32));
       },
       "source tensor shape must match self tensor shape"},
      {"index_add count",
       [&] {
         index_add(x, 0, ints({2}, {0, 1}), zeros({1, 4}, kFloat32));
       },
       "Number of indices (2) should be equal to source.size(dim) (1)"},
      {"index_add dtype",
       [&] {
         index_add(x, 0, ints({1}, {0}), zeros({1, 4}, kFloat64));
       },
       "must have the same scalar type"},
      {"index_add float alpha on ints",
       [&] { index_add(zeros({3}, kInt64), 0, ints({1}, {0}), zeros({1}, kInt64), 1.5); },
       "alpha must not be a floating point number"},
      {"index_copy int32 index",
       [&] {
         index_copy(x, 0, ints({1}, {0}, kInt32), zeros({1, 4}, kFloat32));
       },
       "Expected a long tensor for index"},
      {"index_fill int32 index", [&] { index_fill(x, 0, ints({1}, {0}, kInt32), 1); },
       "Expected dtype int64 for index"},
      {"index_fill 1-d value", [&] { index_fill(x, 0, ints({1}, {0}), zeros({2}, kFloat32)); },
       "index_fill_ only supports a 0-dimensional value tensor"},
      {"scatter_ into expanded",
       [&] {
         Tensor e = zeros({1, 4}, kFloat32).expand({3, 4});
         e.scatter_(0, i2, 1.0);
       },
       "more than one element of the written-to tensor"},
  });
  // Nothing was written by a failed in-place scatter.
  Tensor y = zeros({3}, kFloat32);
  EXPECT_THROW(y.scatter_(0, ints({2}, {1, 7}), 5.0), IndexError);
  EXPECT_EQ(values(y), (std::vector<double>{0, 0, 0}));
}

}  // namespace
}  // namespace ember::test
