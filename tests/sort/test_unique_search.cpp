// unique, unique_consecutive, unique(dim), bincount, histc, searchsorted, bucketize against plain
// loops.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "indexing/index_testing.h"

namespace ember::test {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();

std::vector<ScalarType> without_bool() {
  std::vector<ScalarType> v;
  for (ScalarType t : all_dtypes()) {
    if (t != kBool) v.push_back(t);
  }
  return v;
}

bool lt_nan(double a, double b) { return (!std::isnan(a) && std::isnan(b)) || a < b; }

// ---- unique: {x, params{dim or -99 for none}}
constexpr int64_t kNoDim = -99;
std::vector<Sample> unique_samples_all(ScalarType dt, bool by_dim) {
  std::vector<Sample> s;
  auto add = [&](const Tensor& x, int64_t dim, const std::string& d) {
    s.push_back({{x, params({dim})}, d + (dim == kNoDim ? "" : " dim=" + std::to_string(dim))});
  };
  if (!by_dim) {
    add(rand_ints({20}, -3, 3, 1, dt), kNoDim, "1-d");
    add(rand_ints({4, 5}, -2, 2, 2, dt), kNoDim, "2-d");
    add(rand_ints({}, -2, 2, 3, dt), kNoDim, "0-d");
    add(rand_ints({0}, -2, 2, 4, dt), kNoDim, "empty");
    add(make_noncontiguous(rand_ints({3, 4}, -2, 2, 5, dt)), kNoDim, "non-contiguous");
    add(rand_ints({5000}, -50, 50, 6, dt), kNoDim, "large");
    if (is_floating_point(dt)) {
      add(from_values({7}, {1, kNan, -0.5, 1, kNan, -0.5, 1}, dt), kNoDim, "nan");
    }
  } else {
    add(rand_ints({6, 3}, 0, 1, 7, dt), 0, "rows");
    add(rand_ints({3, 6}, 0, 1, 8, dt), 1, "columns");
    add(rand_ints({2, 5, 2}, 0, 1, 9, dt), -2, "3-d");
    add(make_noncontiguous(rand_ints({5, 4}, 0, 1, 10, dt)), 0, "non-contiguous");
  }
  return s;
}
std::vector<Sample> unique_samples(ScalarType dt, bool by_dim) {
  return trim_large(unique_samples_all(dt, by_dim), dt);
}

struct UniqueRef {
  std::vector<int64_t> shape;  // values' shape
  std::vector<double> values, inverse, counts;
};

UniqueRef unique_ref(const Tensor& x, int64_t dim_in, bool consecutive) {
  std::vector<double> xv = values(x);
  std::vector<std::vector<double>> rows;  // the items compared: elements or slices along dim
  std::vector<int64_t> shape = {static_cast<int64_t>(xv.size())};
  int64_t dim = 0;
  if (dim_in == kNoDim) {
    for (double v : xv) rows.push_back({v});
  } else {
    dim = wrap(dim_in, x.dim());
    shape = x.sizes();
    std::vector<int64_t> one = x.sizes();
    one[dim] = 1;
    for (int64_t j = 0; j < x.sizes()[dim]; ++j) {
      std::vector<double> row;
      for_each_index(one, [&](const Coord& c) {
        Coord e = c;
        e[dim] = j;
        row.push_back(xv[ravel(e, x.sizes())]);
      });
      rows.push_back(row);
    }
  }
  const int64_t n = static_cast<int64_t>(rows.size());
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  auto row_lt = [&](int64_t a, int64_t b) {
    return std::lexicographical_compare(rows[a].begin(), rows[a].end(), rows[b].begin(),
                                        rows[b].end(), lt_nan);
  };
  auto row_eq = [&](int64_t a, int64_t b) {
    for (size_t t = 0; t < rows[a].size(); ++t) {
      if (!(rows[a][t] == rows[b][t])) return false;
    }
    return true;
  };
  if (!consecutive) std::stable_sort(order.begin(), order.end(), row_lt);
  UniqueRef r;
  std::vector<int64_t> firsts;
  r.inverse.assign(n, 0);
  for (int64_t j = 0; j < n; ++j) {
    if (j == 0 || !row_eq(order[j - 1], order[j])) {
      firsts.push_back(order[j]);
      r.counts.push_back(0);
    }
    r.counts.back() += 1;
    r.inverse[order[j]] = static_cast<double>(firsts.size() - 1);
  }
  const int64_t m = static_cast<int64_t>(firsts.size());
  if (dim_in == kNoDim) {
    r.shape = {m};
    for (int64_t f : firsts) r.values.push_back(rows[f][0]);
  } else {
    r.shape = shape;
    r.shape[dim] = m;
    r.values.resize(static_cast<size_t>(numel_of(r.shape)));
    std::vector<int64_t> one = x.sizes();
    one[dim] = 1;
    for (int64_t g = 0; g < m; ++g) {
      size_t t = 0;
      for_each_index(one, [&](const Coord& c) {
        Coord e = c;
        e[dim] = g;
        r.values[ravel(e, r.shape)] = rows[firsts[g]][t++];
      });
    }
  }
  return r;
}

OpInfo unique_info(const std::string& name, bool consecutive, bool by_dim, int which) {
  OpInfo o;
  o.name = name;
  o.dtypes = all_dtypes();
  o.samples = [by_dim](ScalarType dt) { return unique_samples(dt, by_dim); };
  // PyTorch: _unique2, unique_consecutive and unique_dim have self: not_implemented(...), and
  // their inverse and counts are int64.
  o.not_differentiable = which == 0 ? "PyTorch does not implement the derivative of unique's values"
                                    : "int64 result: PyTorch's integral outputs carry no gradient";
  o.op = [consecutive, which](const std::vector<Tensor>& in) {
    const int64_t d = read_params(in[1])[0];
    std::optional<int64_t> dim = d == kNoDim ? std::nullopt : std::optional<int64_t>(d);
    auto t = consecutive ? unique_consecutive(in[0], which == 1, which == 2, dim)
                         : in[0].unique(true, which == 1, which == 2, dim);
    // The outputs not asked for are empty.
    if (which != 1) {
      EXPECT_EQ(std::get<1>(t).numel(), 0);
    }
    if (which != 2) {
      EXPECT_EQ(std::get<2>(t).numel(), 0);
    }
    return which == 0 ? std::get<0>(t) : which == 1 ? std::get<1>(t) : std::get<2>(t);
  };
  o.arg_inputs = {1};
  o.reference = [consecutive, which](const std::vector<Tensor>& in) {
    const int64_t d = read_params(in[1])[0];
    UniqueRef r = unique_ref(in[0], d, consecutive);
    if (which == 0) return Reference{r.shape, r.values, in[0].dtype()};
    if (which == 2) return Reference{{static_cast<int64_t>(r.counts.size())}, r.counts, kInt64};
    std::vector<int64_t> ishape =
        d == kNoDim ? in[0].sizes() : std::vector<int64_t>{in[0].sizes()[wrap(d, in[0].dim())]};
    return Reference{ishape, r.inverse, kInt64};
  };
  return o;
}

// ---- bincount: {x, weights, params{minlength, weighted}}
std::vector<Sample> bincount_samples_all(ScalarType dt, ScalarType wdt) {
  return {
      {{rand_ints({20}, 0, 7, 1, dt), make_tensor({20}, wdt, -2, 2, 2), params({0})}, "1-d"},
      {{rand_ints({20}, 0, 7, 1, dt), make_tensor({20}, wdt, -2, 2, 2), params({12})}, "minlength"},
      {{rand_ints({0}, 0, 7, 3, dt), make_tensor({0}, wdt, -2, 2, 4), params({5})}, "empty"},
      {{make_noncontiguous(rand_ints({1, 9}, 0, 30, 5, dt)).reshape({-1}),
        make_tensor({9}, wdt, -2, 2, 6), params({0})},
       "non-contiguous"},
      {{rand_ints({100000}, 0, 99, 7, dt), make_tensor({100000}, wdt, 0, 1, 8), params({0})},
       "large"},
  };
}
std::vector<Sample> bincount_samples(ScalarType dt, ScalarType wdt) {
  return trim_large(bincount_samples_all(dt, wdt), dt);
}
Reference bincount_ref(const std::vector<Tensor>& in, bool weighted, ScalarType out_dt) {
  std::vector<double> x = values(in[0]), w = values(in[1]);
  int64_t len = read_params(in[2])[0];
  for (double v : x) len = std::max(len, static_cast<int64_t>(v) + 1);
  std::vector<double> out(len, 0);
  for (size_t i = 0; i < x.size(); ++i) out[static_cast<int64_t>(x[i])] += weighted ? w[i] : 1;
  return {{len}, out, out_dt};
}

// ---- histc: {x, params{bins, min, max}}
std::vector<Sample> histc_samples_all(ScalarType dt) {
  std::vector<Sample> s = {
      {{make_tensor({50}, dt, -5, 5, 1), params({10, -4, 4})}, "range"},
      {{make_tensor({6, 7}, dt, -5, 5, 2), params({7, 0, 0})}, "data range"},
      {{make_tensor({}, dt, -5, 5, 3), params({3, 0, 0})}, "0-d (min == max)"},
      {{make_tensor({0}, dt, -5, 5, 4), params({4, 0, 0})}, "empty"},
      {{make_noncontiguous(make_tensor({4, 6}, dt, -5, 5, 5)), params({5, -3, 3})},
       "non-contiguous"},
      {{make_tensor({100000}, dt, -5, 5, 6), params({100, -5, 5})}, "large"},
  };
  s.push_back({{from_values({6}, {kNan, 1, 2, 2, 3, -1}, dt), params({4, 0, 4})}, "nan ignored"});
  return s;
}
std::vector<Sample> histc_samples(ScalarType dt) { return trim_large(histc_samples_all(dt), dt); }
Reference histc_ref(const std::vector<Tensor>& in) {
  auto p = read_params(in[1]);
  const int64_t bins = p[0];
  std::vector<double> x = values(in[0]);
  double lo = static_cast<double>(p[1]), hi = static_cast<double>(p[2]);
  if (lo == hi && !x.empty()) {
    lo = *std::min_element(x.begin(), x.end());
    hi = *std::max_element(x.begin(), x.end());
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  const bool in_float = in[0].dtype() != kFloat64;  // PyTorch computes in the input's type
  std::vector<double> out(bins, 0);
  for (double v : x) {
    if (!(v >= lo && v <= hi)) continue;
    int64_t pos = in_float ? static_cast<int64_t>((static_cast<float>(v) - static_cast<float>(lo)) *
                                                  static_cast<float>(bins) /
                                                  (static_cast<float>(hi) - static_cast<float>(lo)))
                           : static_cast<int64_t>((v - lo) * bins / (hi - lo));
    pos = std::min(std::max<int64_t>(pos, 0), bins - 1);
    out[pos] += 1;
  }
  return {{bins}, out, in[0].dtype()};
}

// ---- searchsorted: {boundaries, values, params{right, out_int32}, sorter?}
std::vector<Sample> search_samples_all(ScalarType dt, int64_t right, int64_t i32) {
  Tensor b1 = from_values({6}, {0, 1, 1, 2, 4, 4}, dt);
  Tensor b2 = from_values({2, 5}, {0, 0, 1, 3, 5, 1, 2, 2, 2, 4}, dt);
  auto v = [&](std::vector<int64_t> s, uint64_t seed) { return make_tensor(s, dt, 0, 6, seed); };
  std::vector<Sample> s = {
      {{b1, v({3, 4}, 1), params({right, i32})}, "1-d boundaries"},
      {{b1, from_values({6}, {0, 1, 2, 4, 5, 3}, dt), params({right, i32})}, "exact hits"},
      {{b2, v({2, 3}, 2), params({right, i32})}, "n-d boundaries"},
      {{b1, v({}, 3), params({right, i32})}, "0-d value"},
      {{b1, v({0}, 4), params({right, i32})}, "empty values"},
      {{b1, make_noncontiguous(v({2, 4}, 5)), params({right, i32})}, "non-contiguous values"},
      {{from_values({6}, {4, 1, 0, 4, 2, 1}, dt), v({7}, 6), params({right, i32}),
        ints({6}, {2, 1, 5, 4, 0, 3})},
       "sorter"},
      {{b1, v({50000}, 7), params({right, i32})}, "large"},
  };
  if (is_floating_point(dt)) {
    s.push_back({{b1, from_values({3}, {kNan, -1, 10}, dt), params({right, i32})}, "nan value"});
  }
  return s;
}
std::vector<Sample> search_samples(ScalarType dt, int64_t right, int64_t i32) {
  return trim_large(search_samples_all(dt, right, i32), dt);
}
Reference search_ref(const std::vector<Tensor>& in) {
  auto p = read_params(in[2]);
  const bool right = p[0] != 0;
  std::vector<double> b = values(in[0]);
  if (in.size() > 3) {
    std::vector<double> sorter = values(in[3]), sorted;
    for (double i : sorter) sorted.push_back(b[static_cast<int64_t>(i)]);
    b = sorted;
  }
  const int64_t m = in[0].sizes().back();
  std::vector<double> x = values(in[1]);
  const int64_t per_row =
      in[0].dim() == 1 ? std::max<int64_t>(1, in[1].numel()) : in[1].sizes().back();
  std::vector<double> out;
  for (size_t e = 0; e < x.size(); ++e) {
    const int64_t base = (static_cast<int64_t>(e) / per_row) * m;
    int64_t c = 0;
    if (std::isnan(x[e])) {
      c = m;
    } else {
      for (int64_t j = 0; j < m; ++j) c += right ? b[base + j] <= x[e] : b[base + j] < x[e];
    }
    out.push_back(static_cast<double>(c));
  }
  return {in[1].sizes(), out, p[1] ? kInt32 : kInt64};
}

std::vector<OpInfo> unique_search_ops() {
  std::vector<OpInfo> ops;
  const char* what[] = {"values", "inverse", "counts"};
  for (int w = 0; w < 3; ++w) {
    ops.push_back(unique_info(std::string("unique_") + what[w], false, false, w));
    ops.push_back(unique_info(std::string("unique_consecutive_") + what[w], true, false, w));
    ops.push_back(unique_info(std::string("unique_dim_") + what[w], false, true, w));
    ops.push_back(unique_info(std::string("unique_consecutive_dim_") + what[w], true, true, w));
  }
  for (int weighted = 0; weighted < 3; ++weighted) {
    // 0: counts (int64); 1: float32 weights (float32); 2: int weights (summed as float64)
    const ScalarType wdt = weighted == 1 ? kFloat32 : weighted == 2 ? kInt32 : kFloat64;
    const ScalarType odt = weighted == 0 ? kInt64 : weighted == 1 ? kFloat32 : kFloat64;
    OpInfo o;
    o.name = std::string("bincount") + (weighted == 0   ? ""
                                        : weighted == 1 ? "_f32_weights"
                                                        : "_int_weights");
    o.dtypes = integral_dtypes(false);
    o.rejected_dtypes = {kBool, kFloat16, kBFloat16, kFloat32, kFloat64};
    o.samples = [wdt](ScalarType dt) { return bincount_samples(dt, wdt); };
    o.not_differentiable = "PyTorch does not implement bincount's derivative (weights included)";
    o.op = [weighted](const std::vector<Tensor>& in) {
      const int64_t minlength = read_params(in[2])[0];
      return weighted ? bincount(in[0], in[1], minlength) : in[0].bincount(std::nullopt, minlength);
    };
    o.arg_inputs = {2};
    o.reference = [weighted, odt](const std::vector<Tensor>& in) {
      return bincount_ref(in, weighted != 0, odt);
    };
    ops.push_back(o);
  }
  {
    OpInfo o;
    o.name = "histc";
    o.dtypes = float_dtypes();
    o.rejected_dtypes = {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64};
    o.samples = histc_samples;
    o.not_differentiable = "PyTorch does not implement histc's derivative";
    o.op = [](const std::vector<Tensor>& in) {
      auto p = read_params(in[1]);
      return histc(in[0], p[0], p[1], p[2]);
    };
    o.arg_inputs = {1};
    o.reference = histc_ref;
    ops.push_back(o);
  }
  for (int64_t right : {0, 1}) {
    for (int64_t i32 : {0, 1}) {
      OpInfo o;
      o.name = std::string("searchsorted") + (right ? "_right" : "_left") + (i32 ? "_int32" : "");
      o.dtypes = without_bool();
      o.rejected_dtypes = {kBool};
      o.samples = [right, i32](ScalarType dt) { return search_samples(dt, right, i32); };
      o.not_differentiable = "integral result: PyTorch's integral outputs carry no gradient";
      o.op = [](const std::vector<Tensor>& in) {
        auto p = read_params(in[2]);
        std::optional<Tensor> sorter;
        if (in.size() > 3) sorter = in[3];
        // side overrides right: pass the side string for one of the two spellings.
        if (p[0]) return searchsorted(in[0], in[1], p[1] != 0, false, "right", sorter);
        return searchsorted(in[0], in[1], p[1] != 0, false, std::nullopt, sorter);
      };
      o.arg_inputs = {2};
      o.reference = search_ref;
      ops.push_back(o);
    }
  }
  {
    OpInfo o;
    o.name = "bucketize_right";
    o.dtypes = without_bool();
    o.rejected_dtypes = {kBool};
    o.not_differentiable = "int64 result: PyTorch's integral outputs carry no gradient";
    o.samples = [](ScalarType dt) {
      std::vector<Sample> s;
      for (auto& smp : search_samples(dt, 1, 0)) {
        if (smp.inputs[0].dim() == 1 && smp.inputs.size() == 3) s.push_back(smp);
      }
      return s;
    };
    o.op = [](const std::vector<Tensor>& in) { return bucketize(in[1], in[0], false, true); };
    o.reference = search_ref;
    ops.push_back(o);
  }
  return ops;
}

INSTANTIATE_TEST_SUITE_P(UniqueSearch, OpTest, ::testing::ValuesIn(unique_search_ops()),
                         op_test_name);

TEST(UniqueSearch, TupleAndScalarForms) {
  Tensor x = ints({6}, {3, 1, 3, 3, 2, 1});
  auto [v, inv, cnt] = unique(x, true, true, true);
  EXPECT_EQ(values(v), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(values(inv), (std::vector<double>{2, 0, 2, 2, 1, 0}));
  EXPECT_EQ(values(cnt), (std::vector<double>{2, 1, 3}));
  auto [cv, cinv, ccnt] = unique_consecutive(x, true, true);
  EXPECT_EQ(values(cv), (std::vector<double>{3, 1, 3, 2, 1}));
  EXPECT_EQ(values(ccnt), (std::vector<double>{1, 1, 2, 1, 1}));
  EXPECT_EQ(std::get<0>(_unique2(x)).numel(), 3);
  EXPECT_EQ(std::get<0>(unique_dim(ints({2, 2}, {1, 2, 1, 2}), 0)).sizes(),
            (std::vector<int64_t>{1, 2}));
  Tensor b = from_values({3}, {1, 2, 3});
  EXPECT_EQ(searchsorted(b, Scalar(2.5)).item<int64_t>(), 2);
  EXPECT_EQ(searchsorted(b, Scalar(2), false, true).item<int64_t>(), 2);
  EXPECT_EQ(bucketize(Scalar(0), b).item<int64_t>(), 0);
  EXPECT_EQ(bucketize(Scalar(2), b, true).dtype(), kInt32);
  // int64 values against float64 boundaries promote (as binary ops do).
  EXPECT_EQ(values(searchsorted(b, ints({2}, {2, 5}))), (std::vector<double>{1, 3}));
}

TEST(UniqueSearch, Errors) {
  Tensor b = from_values({3}, {1, 2, 3});
  expect_errors<RuntimeError>({
      {"bincount negative",
       [&] {
         bincount(ints({2}, {1, -1}));
       },
       "bincount only supports 1-d non-negative integral inputs."},
      {"bincount 2-d",
       [&] {
         bincount(ints({1, 2}, {1, 1}));
       },
       "[bincount]"},
      {"bincount minlength",
       [&] {
         bincount(ints({2}, {1, 1}), std::nullopt, -1);
       },
       "minlength should be >= 0"},
      {"bincount weights",
       [&] {
         bincount(ints({2}, {1, 1}), from_values({3}, {1, 1, 1}));
       },
       "weights should be 1-d and have the same length as input"},
      {"histc bins", [&] { histc(b, 0); }, "bins must be > 0"},
      {"histc min > max", [&] { histc(b, 3, 2, 1); }, "max must be larger than min"},
      {"histc inf", [&] { histc(b, 3, 0, std::numeric_limits<double>::infinity()); },
       "is not finite"},
      {"histc data range with inf (the kernel takes it)",
       [&] {
         histc(from_values({3}, {1, std::numeric_limits<double>::infinity(), 2}));
       },
       "range of [1, inf] is not finite"},
      {"histc data range with nan",
       [&] {
         histc(from_values({2}, {kNan, 2}));
       },
       "range of [nan, nan] is not finite"},
      {"searchsorted side", [&] { searchsorted(b, b, false, false, "middle"); },
       "side can only be 'left' or 'right'"},
      {"searchsorted opposite", [&] { searchsorted(b, b, false, true, "left"); },
       "side and right can't be set to opposites"},
      {"searchsorted shapes",
       [&] {
         searchsorted(zeros({2, 3}), zeros({3, 3}));
       },
       "first N-1 dimensions of boundaries tensor and input value tensor must match"},
      {"searchsorted 0-d boundaries", [&] { searchsorted(zeros({}), zeros({2})); },
       "boundaries tensor should have positive dimension"},
      {"searchsorted sorter dtype",
       [&] {
         searchsorted(b, b, false, false, std::nullopt, ints({3}, {0, 1, 2}, kInt32));
       },
       "sorter must be a tensor of long dtype"},
      {"searchsorted sorter range",
       [&] {
         searchsorted(b, b, false, false, std::nullopt, ints({3}, {0, 1, 3}));
       },
       "sorter index out of range"},
      {"bucketize 2-d",
       [&] {
         bucketize(b, zeros({2, 2}));
       },
       "boundaries tensor must be 1 dimension, but got dim(2)"},
  });
  expect_errors<IndexError>({
      {"unique bad dim",
       [&] {
         unique(zeros({2, 2}), true, false, false, 2);
       },
       "[unique_dim]"},
  });
}

}  // namespace
}  // namespace ember::test
