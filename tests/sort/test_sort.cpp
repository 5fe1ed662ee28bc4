// sort, argsort, msort, topk, kthvalue, median, nanmedian, mode against stable sorts written in
// the test (NaN as the largest value; ties by the lower index first).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "indexing/index_testing.h"

namespace ember::test {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::vector<ScalarType> without_bool() {
  std::vector<ScalarType> v;
  for (ScalarType t : all_dtypes()) {
    if (t != kBool) v.push_back(t);
  }
  return v;
}

bool lt_nan(double a, double b) { return (!std::isnan(a) && std::isnan(b)) || a < b; }
bool gt_nan(double a, double b) { return (std::isnan(a) && !std::isnan(b)) || a > b; }

// Row positions 0..n-1 of `row` in stable sorted order.
std::vector<int64_t> stable_order(const std::vector<double>& row, bool descending) {
  std::vector<int64_t> p(row.size());
  std::iota(p.begin(), p.end(), 0);
  std::stable_sort(p.begin(), p.end(), [&](int64_t a, int64_t b) {
    return descending ? gt_nan(row[a], row[b]) : lt_nan(row[a], row[b]);
  });
  return p;
}

// Samples: {x, params{dim, flag, k}}; k is computed per sample from the size along dim.
std::vector<Sample> sort_samples_all(ScalarType dt, bool nonempty_dim, int64_t flag,
                                     bool nan_inf = true) {
  auto mk = [&](std::vector<int64_t> s, uint64_t seed) { return make_tensor(s, dt, -5, 5, seed); };
  std::vector<Sample> s;
  auto add = [&](const Tensor& x, int64_t dim, const std::string& desc) {
    const int64_t wd = wrap(dim, x.dim());
    const int64_t n = x.dim() == 0 ? 1 : x.sizes()[wd];
    if (nonempty_dim && (n == 0 || x.numel() == 0)) return;
    const int64_t k = std::max<int64_t>(1, (n + 1) / 2);
    s.push_back({{x, params({dim, flag, std::min(k, n)})}, desc + " dim=" + std::to_string(dim)});
  };
  add(mk({7}, 1), 0, "1-d");
  add(mk({3, 5}, 2), 1, "2-d");
  add(mk({3, 5}, 2), 0, "2-d");
  add(mk({2, 3, 4}, 3), -2, "3-d");
  add(mk({}, 4), 0, "0-d");
  add(mk({}, 4), -1, "0-d");
  add(mk({0, 3}, 5), 1, "empty rows");
  add(mk({3, 0}, 5), 1, "empty dim");
  add(make_noncontiguous(mk({4, 6}, 6)), 1, "non-contiguous");
  add(make_noncontiguous(mk({4, 6}, 6)), 0, "non-contiguous");
  add(make_expanded(mk({1, 5}, 7), {3, 5}), 0, "expanded");
  add(mk({40, 900}, 8), 1, "large");
  add(mk({1, 1, 1}, 9), 1, "single");
  if (nan_inf && is_floating_point(dt)) {
    add(from_values({2, 6}, {3, kNan, 1, 3, -kInf, 1, kNan, 2, 2, kNan, 0, kInf}, dt), 1,
        "nan ties inf");
    add(from_values({2, 3}, {kNan, kNan, kNan, 1, kNan, 1}, dt), 1, "all nan");
  }
  return s;
}
std::vector<Sample> sort_samples(ScalarType dt, bool nonempty_dim, int64_t flag) {
  return trim_large(sort_samples_all(dt, nonempty_dim, flag), dt);
}

struct Args {
  int64_t dim, flag, k;
};
Args args(const std::vector<Tensor>& in) {
  auto p = read_params(in[1]);
  return {p[0], p[1], p[2]};
}

// Applies `row_fn` (row values -> (values, indices) of length out_len) along dim.
Reference along_dim(const Tensor& x, int64_t dim_in, int64_t out_len, bool reduce, bool keepdim,
                    bool want_indices,
                    const std::function<std::pair<std::vector<double>, std::vector<double>>(
                        const std::vector<double>&)>& row_fn) {
  const int64_t dim = wrap(dim_in, x.dim());
  std::vector<double> xv = values(x);
  std::vector<int64_t> out_shape = x.sizes();
  if (x.dim() > 0) out_shape[dim] = out_len;
  auto in_rows = rows_along(x.sizes(), dim);
  auto out_rows = rows_along(out_shape, dim);
  std::vector<double> out(static_cast<size_t>(numel_of(out_shape)));
  if (x.numel() > 0) {
    for (size_t r = 0; r < in_rows.size(); ++r) {
      std::vector<double> row;
      for (int64_t i : in_rows[r]) row.push_back(xv[i]);
      auto [v, ix] = row_fn(row);
      const auto& res = want_indices ? ix : v;
      for (size_t j = 0; j < res.size(); ++j) out[out_rows[r][j]] = res[j];
    }
  }
  if (reduce && !keepdim && x.dim() > 0) out_shape.erase(out_shape.begin() + dim);
  return {out_shape, out, want_indices ? kInt64 : x.dtype()};
}

using RowFn = std::function<std::pair<std::vector<double>, std::vector<double>>(
    const std::vector<double>&, const Args&)>;

std::pair<std::vector<double>, std::vector<double>> pick(const std::vector<double>& row,
                                                         const std::vector<int64_t>& order,
                                                         size_t count) {
  std::vector<double> v, ix;
  for (size_t j = 0; j < count; ++j) {
    v.push_back(row[order[j]]);
    ix.push_back(static_cast<double>(order[j]));
  }
  return {v, ix};
}

std::pair<std::vector<double>, std::vector<double>> one(double v, int64_t i) {
  return {{v}, {static_cast<double>(i)}};
}

std::pair<std::vector<double>, std::vector<double>> median_row(const std::vector<double>& row,
                                                               bool ignore_nan) {
  int64_t first_nan = -1, nans = 0;
  for (size_t j = 0; j < row.size(); ++j) {
    if (std::isnan(row[j])) {
      if (first_nan < 0) first_nan = static_cast<int64_t>(j);
      ++nans;
    }
  }
  const int64_t n = static_cast<int64_t>(row.size());
  if (first_nan >= 0 && (!ignore_nan || nans == n)) return one(kNan, first_nan);
  auto order = stable_order(row, false);  // NaNs last
  const int64_t m = (n - nans - 1) / 2;
  return one(row[order[m]], order[m]);
}

std::pair<std::vector<double>, std::vector<double>> mode_row(const std::vector<double>& row) {
  auto order = stable_order(row, false);
  int64_t best = 0, best_at = 0, run = 0;
  const int64_t n = static_cast<int64_t>(row.size());
  for (int64_t j = 0; j < n; ++j) {
    ++run;
    if (j == n - 1 || !(row[order[j]] == row[order[j + 1]])) {
      if (run > best) {
        best = run;
        best_at = j;
      }
      run = 0;
    }
  }
  return one(row[order[best_at]], order[best_at]);
}

const char* const kIndices = "int64 indices: PyTorch's integral outputs carry no gradient";

OpInfo sel_op(std::string name, std::vector<ScalarType> dtypes, bool nonempty, int64_t flag,
              std::function<Tensor(const Tensor&, const Args&)> call,
              std::function<Reference(const Tensor&, const Args&)> ref,
              std::vector<ScalarType> rejected = {}) {
  OpInfo o;
  o.name = std::move(name);
  o.dtypes = std::move(dtypes);
  o.samples = [nonempty, flag](ScalarType dt) { return sort_samples(dt, nonempty, flag); };
  o.grad_samples = [nonempty, flag] {
    return trim_large(sort_samples_all(kFloat64, nonempty, flag, /*nan_inf=*/false), kFloat64);
  };
  o.nondifferentiable_at_ties = true;
  o.op = [call](const std::vector<Tensor>& in) { return call(in[0], args(in)); };
  o.arg_inputs = {1};
  o.reference = [ref](const std::vector<Tensor>& in) { return ref(in[0], args(in)); };
  o.rejected_dtypes = std::move(rejected);
  return o;
}

std::vector<OpInfo> sort_ops() {
  std::vector<OpInfo> ops;
  for (int64_t desc : {0, 1}) {
    const std::string sfx = desc ? "_descending" : "";
    for (bool want_idx : {false, true}) {
      ops.push_back(sel_op(
          std::string("sort") + (want_idx ? "_indices" : "_values") + sfx, all_dtypes(), false,
          desc,
          [want_idx](const Tensor& x, const Args& a) {
            auto [v, i] = sort(x, a.dim, a.flag != 0);
            return want_idx ? i : v;
          },
          [want_idx](const Tensor& x, const Args& a) {
            const int64_t n = x.dim() == 0 ? 1 : x.sizes()[wrap(a.dim, x.dim())];
            return along_dim(x, a.dim, n, false, false, want_idx,
                             [&](const std::vector<double>& r) {
                               return pick(r, stable_order(r, a.flag != 0), r.size());
                             });
          }));
      if (want_idx) ops.back().not_differentiable = kIndices;
      ops.push_back(sel_op(
          std::string("topk") + (want_idx ? "_indices" : "_values") +
              (desc ? "_largest" : "_smallest"),
          without_bool(), false, desc,
          [want_idx](const Tensor& x, const Args& a) {
            auto [v, i] = topk(x, a.k, a.dim, a.flag != 0);
            return want_idx ? i : v;
          },
          [want_idx](const Tensor& x, const Args& a) {
            return along_dim(x, a.dim, a.k, false, false, want_idx,
                             [&](const std::vector<double>& r) {
                               return pick(r, stable_order(r, a.flag != 0), a.k);
                             });
          },
          {kBool}));
      if (want_idx) ops.back().not_differentiable = kIndices;
    }
  }
  ops.push_back(sel_op(
      "argsort_stable_descending", all_dtypes(), false, 1,
      [](const Tensor& x, const Args& a) { return x.argsort(a.dim, true, true); },
      [](const Tensor& x, const Args& a) {
        const int64_t n = x.dim() == 0 ? 1 : x.sizes()[wrap(a.dim, x.dim())];
        return along_dim(x, a.dim, n, false, false, true, [&](const std::vector<double>& r) {
          return pick(r, stable_order(r, true), r.size());
        });
      }));
  ops.back().not_differentiable = kIndices;
  ops.push_back(sel_op(
      "msort", all_dtypes(), false, 0, [](const Tensor& x, const Args&) { return msort(x); },
      [](const Tensor& x, const Args&) {
        const int64_t n = x.dim() == 0 ? 1 : x.sizes()[0];
        return along_dim(x, 0, n, false, false, false, [&](const std::vector<double>& r) {
          return pick(r, stable_order(r, false), r.size());
        });
      }));
  // Reductions along dim; flag = keepdim.
  struct Red {
    std::string name;
    std::function<std::tuple<Tensor, Tensor>(const Tensor&, const Args&)> call;
    std::function<std::pair<std::vector<double>, std::vector<double>>(const std::vector<double>&,
                                                                      const Args&)>
        row;
    std::vector<ScalarType> dtypes, rejected;
  };
  std::vector<Red> reds = {
      {"kthvalue",
       [](const Tensor& x, const Args& a) { return kthvalue(x, a.k, a.dim, a.flag != 0); },
       [](const std::vector<double>& r, const Args& a) {
         auto o = stable_order(r, false);
         return one(r[o[a.k - 1]], o[a.k - 1]);
       },
       without_bool(),
       {kBool}},
      {"median_dim",
       [](const Tensor& x, const Args& a) { return median(x, a.dim, a.flag != 0); },
       [](const std::vector<double>& r, const Args&) { return median_row(r, false); },
       without_bool(),
       {kBool}},
      {"nanmedian_dim",
       [](const Tensor& x, const Args& a) { return x.nanmedian(a.dim, a.flag != 0); },
       [](const std::vector<double>& r, const Args&) { return median_row(r, true); },
       without_bool(),
       {kBool}},
      {"mode",
       [](const Tensor& x, const Args& a) { return mode(x, a.dim, a.flag != 0); },
       [](const std::vector<double>& r, const Args&) { return mode_row(r); },
       all_dtypes(),
       {}},
  };
  for (const auto& rd : reds) {
    for (int64_t keep : {0, 1}) {
      for (bool want_idx : {false, true}) {
        ops.push_back(sel_op(
            rd.name + (want_idx ? "_indices" : "_values") + (keep ? "_keepdim" : ""), rd.dtypes,
            true, keep,
            [call = rd.call, want_idx](const Tensor& x, const Args& a) {
              auto [v, i] = call(x, a);
              return want_idx ? i : v;
            },
            [row = rd.row, want_idx](const Tensor& x, const Args& a) {
              return along_dim(x, a.dim, 1, true, a.flag != 0, want_idx,
                               [&](const std::vector<double>& r) { return row(r, a); });
            },
            rd.rejected));
        if (want_idx) ops.back().not_differentiable = kIndices;
      }
    }
  }
  for (bool ignore_nan : {false, true}) {
    ops.push_back(sel_op(
        ignore_nan ? "nanmedian_all" : "median_all", without_bool(), true, 0,
        [ignore_nan](const Tensor& x, const Args&) {
          return ignore_nan ? nanmedian(x) : x.median();
        },
        [ignore_nan](const Tensor& x, const Args&) {
          Reference r{{}, {median_row(values(x), ignore_nan).first[0]}, x.dtype()};
          return r;
        },
        {kBool}));
  }
  return ops;
}

INSTANTIATE_TEST_SUITE_P(Sort, OpTest, ::testing::ValuesIn(sort_ops()), op_test_name);

TEST(Sort, StableWithTiesAndNanPlacement) {
  Tensor x = from_values({8}, {2, kNan, 1, 2, kNan, 1, -kInf, 2}, kFloat32);
  auto [v, i] = sort(x);
  EXPECT_TRUE(close(v, {8}, {-kInf, 1, 1, 2, 2, 2, kNan, kNan}, 0, 0));
  EXPECT_EQ(values(i), (std::vector<double>{6, 2, 5, 0, 3, 7, 1, 4}));
  auto [vd, id] = x.sort(std::optional<bool>(true), 0, true);
  EXPECT_TRUE(close(vd, {8}, {kNan, kNan, 2, 2, 2, 1, 1, -kInf}, 0, 0));
  EXPECT_EQ(values(id), (std::vector<double>{1, 4, 0, 3, 7, 2, 5, 6}));
  auto [tv, ti] = topk(x, 3);
  EXPECT_TRUE(close(tv, {3}, {kNan, kNan, 2}, 0, 0));
  EXPECT_EQ(values(ti), (std::vector<double>{1, 4, 0}));
}

TEST(Sort, MedianIsLowerMedian) {
  Tensor x = from_values({4}, {4, 1, 3, 2});
  EXPECT_EQ(median(x).item<double>(), 2);
  auto [v, i] = median(from_values({2, 4}, {4, 1, 3, 2, kNan, 5, kNan, 0}), 1);
  EXPECT_TRUE(close(v, {2}, {2, kNan}, 0, 0));
  EXPECT_EQ(values(i), (std::vector<double>{3, 0}));
  auto [nv, ni] = nanmedian(from_values({2, 4}, {4, 1, 3, 2, kNan, 5, kNan, 0}), 1);
  EXPECT_EQ(values(nv), (std::vector<double>{2, 0}));
  EXPECT_EQ(values(ni), (std::vector<double>{3, 3}));
  EXPECT_TRUE(std::isnan(median(zeros({0}, kFloat32)).item<double>()));
  auto [mv, mi] = mode(from_values({7}, {3, 1, 3, 1, 2, 2, 5}));
  EXPECT_EQ(mv.item<double>(), 1);   // the smallest of the most frequent
  EXPECT_EQ(mi.item<int64_t>(), 3);  // its last occurrence
}

TEST(Sort, ZeroDimTopkAndEmpty) {
  Tensor x = from_values({}, {4.5});
  auto [v, i] = topk(x, 0);
  EXPECT_EQ(v.dim(), 0);
  EXPECT_EQ(v.item<double>(), 4.5);
  EXPECT_EQ(i.item<int64_t>(), 0);
  auto [ev, ei] = topk(zeros({2, 3}), 0, 1);
  EXPECT_EQ(ev.sizes(), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(ei.dtype(), kInt64);
}

TEST(Sort, Errors) {
  Tensor x = zeros({3, 4}, kFloat32);
  expect_errors<RuntimeError>({
      {"topk k > size", [&] { topk(x, 5, 1); }, "[topk] selected index k out of range"},
      {"topk k < 0", [&] { topk(x, -1); }, "selected index k out of range"},
      {"kthvalue k = 0", [&] { kthvalue(x, 0); }, "[kthvalue] selected index k out of range"},
      {"kthvalue k > size", [&] { kthvalue(x, 5, 1); }, "selected index k out of range"},
      {"kthvalue empty", [&] { kthvalue(zeros({0}, kFloat32), 1); },
       "cannot perform reduction function kthvalue"},
      {"median empty ints", [&] { median(zeros({0}, kInt64)); }, "[median]"},
  });
  expect_errors<IndexError>({
      {"sort dim", [&] { sort(x, 2); }, "[sort] Dimension out of range"},
      {"topk dim", [&] { topk(x, 1, -3); }, "[topk] Dimension out of range"},
      {"median empty dim",
       [&] {
         median(zeros({2, 0}, kFloat32), 1);
       },
       "Expected reduction dim 1 to have non-zero size"},
      {"mode empty dim",
       [&] {
         mode(zeros({0, 2}, kFloat32), 0);
       },
       "[mode]"},
  });
  expect_errors<TypeError>({
      {"topk bool", [&] { topk(zeros({3}, kBool), 1); }, "Bool"},
      {"median bool", [&] { median(zeros({3}, kBool)); }, "Bool"},
  });
}

}  // namespace
}  // namespace ember::test
