// Tensor indexing: x.index({...}) and x.index_put_({...}, v) against hand-written references.
#include <gtest/gtest.h>

#include <functional>

#include "ember/ember.h"
#include "opdb.h"
#include "shape/shape_util.h"

using namespace ember;
using test::Coord;
using test::for_each_index;
using test::values;

namespace {

// x[a, b, c] = a * 20 + b * 5 + c: every element holds its own flat index.
Tensor base345() {
  std::vector<double> v(60);
  for (int i = 0; i < 60; ++i) v[i] = i;
  return test::from_values({3, 4, 5}, v, kFloat64);
}
double flat345(const Coord& c) { return static_cast<double>(c[0] * 20 + c[1] * 5 + c[2]); }

Tensor ints(const std::vector<int64_t>& shape, const std::vector<double>& v,
            ScalarType dt = kInt64) {
  return test::from_values(shape, v, dt);
}
Tensor mask(const std::vector<int64_t>& shape, const std::vector<double>& v) {
  return test::from_values(shape, v, kBool);
}

struct IndexCase {
  std::string desc;
  std::function<std::vector<TensorIndex>()> indices;
  std::vector<int64_t> shape;              // expected result shape
  std::function<Coord(const Coord&)> src;  // result position -> source coordinate in x
  bool view;                               // basic indexing: the result aliases x
};

// Mask [[1,0,1,0],[0,0,0,1],[1,1,0,0]] over dims (0, 1): nonzero at (0,0) (0,2) (1,3) (2,0) (2,1).
const std::vector<Coord> kMask2dNz = {{0, 0}, {0, 2}, {1, 3}, {2, 0}, {2, 1}};
Tensor mask2d() { return mask({3, 4}, {1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0}); }

std::vector<IndexCase> index_cases() {
  using I = std::vector<TensorIndex>;
  const std::vector<int64_t> i3 = {2, 0, 2};
  return {
      {"x[1]",
       [] { return I{1}; },
       {4, 5},
       [](const Coord& o) {
         return Coord{1, o[0], o[1]};
       },
       true},
      {"x[-1]",
       [] { return I{-1}; },
       {4, 5},
       [](const Coord& o) {
         return Coord{2, o[0], o[1]};
       },
       true},
      {"x[1, 2]",
       [] {
         return I{1, 2};
       },
       {5},
       [](const Coord& o) {
         return Coord{1, 2, o[0]};
       },
       true},
      {"x[1, -2, 3]",
       [] {
         return I{1, -2, 3};
       },
       {},
       [](const Coord&) {
         return Coord{1, 2, 3};
       },
       true},
      {"x[:, 1]",
       [] {
         return I{Slice(), 1};
       },
       {3, 5},
       [](const Coord& o) {
         return Coord{o[0], 1, o[1]};
       },
       true},
      {"x[1:, ::2]",
       [] {
         return I{Slice(1, None), Slice(None, None, 2)};
       },
       {2, 2, 5},
       [](const Coord& o) {
         return Coord{1 + o[0], 2 * o[1], o[2]};
       },
       true},
      {"x[:-1, 1:4:2, -3:]",
       [] {
         return I{Slice(None, -1), Slice(1, 4, 2), Slice(-3)};
       },
       {2, 2, 3},
       [](const Coord& o) {
         return Coord{o[0], 1 + 2 * o[1], 2 + o[2]};
       },
       true},
      {"x[10:20]", [] { return I{Slice(10, 20)}; }, {0, 4, 5}, nullptr, true},
      {"x[-100:2]",
       [] { return I{Slice(-100, 2)}; },
       {2, 4, 5},
       [](const Coord& o) {
         return Coord{o[0], o[1], o[2]};
       },
       true},
      {"x[..., 1]",
       [] {
         return I{Ellipsis, 1};
       },
       {3, 4},
       [](const Coord& o) {
         return Coord{o[0], o[1], 1};
       },
       true},
      {"x['...', ::3]",
       [] {
         return I{"...", Slice(None, None, 3)};
       },
       {3, 4, 2},
       [](const Coord& o) {
         return Coord{o[0], o[1], 3 * o[2]};
       },
       true},
      {"x[1, ..., 2]",
       [] {
         return I{1, Ellipsis, 2};
       },
       {4},
       [](const Coord& o) {
         return Coord{1, o[0], 2};
       },
       true},
      {"x[...]", [] { return I{Ellipsis}; }, {3, 4, 5}, [](const Coord& o) { return o; }, true},
      {"x[()]", [] { return I{}; }, {3, 4, 5}, [](const Coord& o) { return o; }, true},
      {"x[None]",
       [] { return I{None}; },
       {1, 3, 4, 5},
       [](const Coord& o) {
         return Coord{o[1], o[2], o[3]};
       },
       true},
      {"x[:, None, 2]",
       [] {
         return I{Slice(), None, 2};
       },
       {3, 1, 5},
       [](const Coord& o) {
         return Coord{o[0], 2, o[2]};
       },
       true},
      {"x[..., None]",
       [] {
         return I{Ellipsis, None};
       },
       {3, 4, 5, 1},
       [](const Coord& o) {
         return Coord{o[0], o[1], o[2]};
       },
       true},
      {"x[0-d int64 tensor 2]",
       [] { return I{ints({}, {2})}; },
       {4, 5},
       [](const Coord& o) {
         return Coord{2, o[0], o[1]};
       },
       true},
      // Advanced indexing from here on: copies.
      {"x[True]",
       [] { return I{true}; },
       {1, 3, 4, 5},
       [](const Coord& o) {
         return Coord{o[1], o[2], o[3]};
       },
       false},
      {"x[False]", [] { return I{false}; }, {0, 3, 4, 5}, nullptr, false},
      {"x[0, True, 1:3]",
       [] {
         return I{0, true, Slice(1, 3)};
       },
       {1, 2, 5},
       [](const Coord& o) {
         return Coord{0, 1 + o[1], o[2]};
       },
       false},
      {"x[0-d bool tensor True]",
       [] { return I{mask({}, {1})}; },
       {1, 3, 4, 5},
       [](const Coord& o) {
         return Coord{o[1], o[2], o[3]};
       },
       false},
      {"x[[2, 0, 2]]",
       [=] {
         return I{ints({3}, {2, 0, 2})};
       },
       {3, 4, 5},
       [=](const Coord& o) {
         return Coord{i3[o[0]], o[1], o[2]};
       },
       false},
      {"x[[-1, 0]]",
       [] {
         return I{ints({2}, {-1, 0})};
       },
       {2, 4, 5},
       [](const Coord& o) {
         return Coord{o[0] == 0 ? 2 : 0, o[1], o[2]};
       },
       false},
      {"x[[1, 2]] int32",
       [] {
         return I{ints({2}, {1, 2}, kInt32)};
       },
       {2, 4, 5},
       [](const Coord& o) {
         return Coord{1 + o[0], o[1], o[2]};
       },
       false},
      {"x[[]]", [] { return I{ints({0}, {})}; }, {0, 4, 5}, nullptr, false},
      {"x[:, [3, 1]]",
       [] {
         return I{Slice(), ints({2}, {3, 1})};
       },
       {3, 2, 5},
       [](const Coord& o) {
         return Coord{o[0], o[1] == 0 ? 3 : 1, o[2]};
       },
       false},
      {"x[:, [0, 2], [1, 3]] adjacent",
       [] {
         return I{Slice(), ints({2}, {0, 2}), ints({2}, {1, 3})};
       },
       {3, 2},
       [](const Coord& o) {
         return Coord{o[0], 2 * o[1], 1 + 2 * o[1]};
       },
       false},
      {"x[[0, 2], :, [1, 3]] separated",
       [] {
         return I{ints({2}, {0, 2}), Slice(), ints({2}, {1, 3})};
       },
       {2, 4},
       [](const Coord& o) {
         return Coord{2 * o[0], o[1], 1 + 2 * o[0]};
       },
       false},
      {"x[[0, 2], 1, [1, 3]] int between",
       [] {
         return I{ints({2}, {0, 2}), 1, ints({2}, {1, 3})};
       },
       {2},
       [](const Coord& o) {
         return Coord{2 * o[0], 1, 1 + 2 * o[0]};
       },
       false},
      {"x[[[0, 1], [2, 0]]] 2-d index",
       [] {
         return I{ints({2, 2}, {0, 1, 2, 0})};
       },
       {2, 2, 4, 5},
       [](const Coord& o) {
         const int64_t v[2][2] = {{0, 1}, {2, 0}};
         return Coord{v[o[0]][o[1]], o[2], o[3]};
       },
       false},
      {"x[[[0], [2]], :, [1, 3, 4]] broadcast + separated",
       [] {
         return I{ints({2, 1}, {0, 2}), Slice(), ints({3}, {1, 3, 4})};
       },
       {2, 3, 4},
       [](const Coord& o) {
         const int64_t c[3] = {1, 3, 4};
         return Coord{2 * o[0], o[2], c[o[1]]};
       },
       false},
      {"x[1, :, [0, 4]] select then index",
       [] {
         return I{1, Slice(), ints({2}, {0, 4})};
       },
       {4, 2},
       [](const Coord& o) {
         return Coord{1, o[0], 4 * o[1]};
       },
       false},
      {"x[None, [0, 1], None, [2, 3]]",
       [] {
         return I{None, ints({2}, {0, 1}), None, ints({2}, {2, 3})};
       },
       {2, 1, 1, 5},
       [](const Coord& o) {
         return Coord{o[0], 2 + o[0], o[3]};
       },
       false},
      {"x[::2, [1]]",
       [] {
         return I{Slice(None, None, 2), ints({1}, {1})};
       },
       {2, 1, 5},
       [](const Coord& o) {
         return Coord{2 * o[0], 1, o[2]};
       },
       false},
      {"x[:, mask[1,0,1,1]]",
       [] {
         return I{Slice(), mask({4}, {1, 0, 1, 1})};
       },
       {3, 3, 5},
       [](const Coord& o) {
         const int64_t nz[3] = {0, 2, 3};
         return Coord{o[0], nz[o[1]], o[2]};
       },
       false},
      {"x[mask2d]",
       [] { return I{mask2d()}; },
       {5, 5},
       [](const Coord& o) {
         return Coord{kMask2dNz[o[0]][0], kMask2dNz[o[0]][1], o[1]};
       },
       false},
      {"x[mask2d, ::2] (a 2-d mask consumes two dims)",
       [] {
         return I{mask2d(), Slice(None, None, 2)};
       },
       {5, 3},
       [](const Coord& o) {
         return Coord{kMask2dNz[o[0]][0], kMask2dNz[o[0]][1], 2 * o[1]};
       },
       false},
      {"x[..., mask[0,1,0,0,1]]",
       [] {
         return I{Ellipsis, mask({5}, {0, 1, 0, 0, 1})};
       },
       {3, 4, 2},
       [](const Coord& o) {
         return Coord{o[0], o[1], o[2] == 0 ? 1 : 4};
       },
       false},
      {"x[uint8 mask[1,0,1]]",
       [] {
         return I{ints({3}, {1, 0, 1}, kUInt8)};
       },
       {2, 4, 5},
       [](const Coord& o) {
         return Coord{2 * o[0], o[1], o[2]};
       },
       false},
      {"x[all-false mask]",
       [] {
         return I{mask({3}, {0, 0, 0})};
       },
       {0, 4, 5},
       nullptr,
       false},
      {"x[mask, [1, 3]] mask and index broadcast",
       [] {
         return I{mask({3}, {1, 0, 1}), ints({2}, {1, 3})};
       },
       {2, 5},
       [](const Coord& o) {
         return Coord{2 * o[0], 1 + 2 * o[0], o[1]};
       },
       false},
  };
}

class IndexTable : public ::testing::TestWithParam<ScalarType> {};

}  // namespace

TEST(Indexing, TableMatchesHandWrittenReference) {
  Tensor x = base345();
  for (const auto& c : index_cases()) {
    SCOPED_TRACE(c.desc);
    Tensor r;
    try {
      r = x.index(c.indices());
    } catch (const std::exception& e) {
      ADD_FAILURE() << "threw " << e.what();
      continue;
    }
    std::vector<double> expect;
    if (c.src)
      for_each_index(c.shape, [&](const Coord& o) { expect.push_back(flat345(c.src(o))); });
    EXPECT_TRUE(test::close(r, c.shape, expect, 0, 0));
    EXPECT_EQ(r.dtype(), kFloat64);
    EXPECT_EQ(r.is_alias_of(x), c.view) << "basic indexing aliases, advanced indexing copies";
  }
}

TEST(Indexing, IndexPutTableWritesExactlyTheIndexedElements) {
  for (const auto& c : index_cases()) {
    SCOPED_TRACE(c.desc);
    Tensor x = base345();
    int64_t n = 1;
    for (auto s : c.shape) n *= s;
    std::vector<double> vals(n);
    for (int64_t i = 0; i < n; ++i) vals[i] = 1000 + i;
    Tensor v = test::from_values(c.shape, vals, kFloat64);
    std::vector<double> expect = values(x);
    if (c.src) {
      int64_t k = 0;  // in row-major order, so that with repeated positions the last one wins
      for_each_index(c.shape, [&](const Coord& o) { expect[flat345(c.src(o))] = vals[k++]; });
    }
    const uint32_t version = x._version();
    try {
      const Tensor& r = x.index_put_(c.indices(), v);
      EXPECT_TRUE(r.is_same(x));
    } catch (const std::exception& e) {
      ADD_FAILURE() << "threw " << e.what();
      continue;
    }
    EXPECT_EQ(values(x), expect);
    if (n > 0) {
      EXPECT_GT(x._version(), version);
    }
  }
}

TEST(Indexing, NonContiguousAndExpandedSources) {
  // A transposed view: y[i, j] = x[j, i] with x 3x4 = 0..11.
  std::vector<double> v(12);
  for (int i = 0; i < 12; ++i) v[i] = i;
  Tensor x = test::from_values({3, 4}, v, kFloat32);
  Tensor y = x.t();  // 4x3
  Tensor r = y.index({ints({2}, {3, 0}), Slice(1, None)});
  EXPECT_EQ(r.sizes(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values(r), (std::vector<double>{7, 11, 4, 8}));  // y[3,1:] = x[1:,3]; y[0,1:] = x[1:,0]
  Tensor m = y.index({mask({4, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0})});
  EXPECT_EQ(values(m), (std::vector<double>{0, 5, 10}));
  // An expanded (stride-0) source.
  Tensor e = test::make_expanded(test::from_values({1, 3}, {1, 2, 3}, kInt16), {4, 3});
  Tensor re = e.index({ints({3}, {3, 0, 1}), ints({3}, {2, 2, 0})});
  EXPECT_EQ(re.dtype(), kInt16);
  EXPECT_EQ(values(re), (std::vector<double>{3, 3, 1}));
  // Non-contiguous index tensors.
  Tensor idx = test::make_noncontiguous(ints({2, 2}, {0, 2, 1, 0}));
  Tensor ri = x.index({Slice(), idx});  // shape [3, 2, 2]
  EXPECT_EQ(values(ri), (std::vector<double>{0, 2, 1, 0, 4, 6, 5, 4, 8, 10, 9, 8}));
}

TEST(Indexing, EveryDtypeGathersAndScatters) {
  for (ScalarType dt : test::all_dtypes()) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor x = test::make_tensor({4, 3}, dt, -20, 20, 7);
    auto xv = values(x);
    Tensor r = x.index({ints({3}, {3, -4, 1}), Slice(None, None, 2)});
    EXPECT_EQ(r.dtype(), dt);
    EXPECT_EQ(values(r), (std::vector<double>{xv[9], xv[11], xv[0], xv[2], xv[3], xv[5]}));
    Tensor b = x.index({mask({4}, {0, 1, 0, 1}), -1});
    EXPECT_EQ(values(b), (std::vector<double>{xv[5], xv[11]}));
    Tensor y = x.clone();
    Tensor val = test::make_tensor({2}, dt, -20, 20, 8);
    y.index_put_({ints({2}, {2, 0}), 1}, val);
    auto expect = xv;
    expect[7] = values(val)[0];
    expect[1] = values(val)[1];
    EXPECT_EQ(values(y), expect);
  }
}

TEST(Indexing, IndexPutValueBroadcastScalarAndDtype) {
  Tensor x = base345();
  // Scalar value through advanced indexing, converted to the tensor's dtype.
  x.index_put_({Slice(), ints({2}, {0, 3}), 4}, -1);
  for (int64_t a = 0; a < 3; ++a) {
    EXPECT_EQ(x.index({a, 0, 4}).item<double>(), -1);
    EXPECT_EQ(x.index({a, 3, 4}).item<double>(), -1);
    EXPECT_EQ(x.index({a, 1, 4}).item<double>(), a * 20 + 9);
  }
  // A value with leading size-1 dims broadcasts to the indexed shape; int32 converts to float64.
  Tensor y = base345();
  Tensor v = test::from_values({1, 1, 5}, {7, 8, 9, 10, 11}, kInt32);
  y.index_put_({ints({2}, {0, 2}), 1}, v);  // result shape [2, 5]
  EXPECT_EQ(values(y.index({0, 1})), (std::vector<double>{7, 8, 9, 10, 11}));
  EXPECT_EQ(values(y.index({2, 1})), (std::vector<double>{7, 8, 9, 10, 11}));
  EXPECT_EQ(values(y.index({1, 1})), (std::vector<double>{25, 26, 27, 28, 29}));
  // Basic indexing assignment: copy_, fill from a 0-d value, broadcast after dropping leading 1s.
  Tensor z = base345();
  z.index_put_({1, Slice(1, 3)}, test::from_values({1, 1, 5}, {0, 1, 2, 3, 4}, kFloat32));
  EXPECT_EQ(values(z.index({1, 1})), (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(values(z.index({1, 2})), (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(z.index({1, 3, 0}).item<double>(), 35);
  z.index_put_({Ellipsis, 0}, test::from_values({}, {-5}));
  EXPECT_EQ(values(z.index({Slice(), Slice(), 0})), std::vector<double>(12, -5));
  z.index_put_({2, 3, 4}, 2.5);
  EXPECT_EQ(z.index({2, 3, 4}).item<double>(), 2.5);
  // Bool masks of an integer tensor with a float value truncate like copy_.
  Tensor w = test::from_values({4}, {1, 2, 3, 4}, kInt64);
  w.index_put_({mask({4}, {1, 0, 0, 1})}, test::from_values({}, {9.75}));
  EXPECT_EQ(values(w), (std::vector<double>{9, 2, 3, 9}));
  // A lone false selects nothing and does not check the value's shape (as PyTorch).
  w.index_put_({false}, test::from_values({7}, {1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(values(w), (std::vector<double>{9, 2, 3, 9}));
}

TEST(Indexing, IndexPutWritesThroughViews) {
  Tensor base = base345();
  Tensor view = base.index({1});  // a view of row 1
  ASSERT_TRUE(view.is_alias_of(base));
  view.index_put_({ints({2}, {0, 3}), Slice(None, None, 4)}, 0);  // advanced put into the view
  EXPECT_EQ(base.index({1, 0, 0}).item<double>(), 0);
  EXPECT_EQ(base.index({1, 0, 4}).item<double>(), 0);
  EXPECT_EQ(base.index({1, 3, 4}).item<double>(), 0);
  EXPECT_EQ(base.index({1, 3, 3}).item<double>(), 38);
  EXPECT_EQ(base._version(), view._version());
  // Advanced results are copies: writing them leaves the source alone.
  Tensor copy = base.index({ints({1}, {2})});
  copy.fill_(-1);
  EXPECT_EQ(base.index({2, 0, 0}).item<double>(), 40);
  // Basic results are views: writing them writes the source.
  Tensor sl = base.index({Slice(), 2, Slice(None, None, 2)});
  sl.fill_(-7);
  EXPECT_EQ(base.index({0, 2, 2}).item<double>(), -7);
  EXPECT_EQ(base.index({2, 2, 4}).item<double>(), -7);
  EXPECT_EQ(base.index({2, 2, 3}).item<double>(), 53);
  // index_put_ on a transposed view.
  Tensor m = test::from_values({2, 3}, {0, 1, 2, 3, 4, 5});
  m.t().index_put_({ints({2}, {2, 0}), 1}, test::from_values({2}, {50, 30}));
  EXPECT_EQ(values(m), (std::vector<double>{0, 1, 2, 30, 4, 50}));
}

TEST(Indexing, ZeroDimAndEmpty) {
  Tensor s = test::from_values({}, {4});
  EXPECT_EQ(values(s.index({Ellipsis})), (std::vector<double>{4}));
  EXPECT_EQ(s.index({None}).sizes(), (std::vector<int64_t>{1}));
  EXPECT_EQ(s.index({true}).sizes(), (std::vector<int64_t>{1}));
  EXPECT_EQ(s.index({false}).sizes(), (std::vector<int64_t>{0}));
  EXPECT_EQ(s.index({mask({}, {1})}).sizes(), (std::vector<int64_t>{1}));
  s.index_put_({Ellipsis}, 3);
  EXPECT_EQ(s.item<double>(), 3);
  s.index_put_({mask({}, {1})}, 5);
  EXPECT_EQ(s.item<double>(), 5);
  Tensor e = test::make_tensor({0, 3}, kFloat32);
  EXPECT_EQ(e.index({Slice(), 1}).sizes(), (std::vector<int64_t>{0}));
  EXPECT_EQ(e.index({ints({0}, {})}).sizes(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(e.index({Slice(), ints({2}, {0, 2})}).sizes(), (std::vector<int64_t>{0, 2}));
  e.index_put_({Slice(), ints({2}, {0, 2})}, 1);  // nothing to write
}

TEST(Indexing, SliceAndTensorIndexConstruction) {
  Slice a;
  EXPECT_EQ(a.start(), 0);
  EXPECT_EQ(a.stop(), indexing::INDEX_MAX);
  EXPECT_EQ(a.step(), 1);
  Slice b(None, 3, 2);
  EXPECT_EQ(b.start(), 0);
  EXPECT_EQ(b.stop(), 3);
  EXPECT_EQ(b.step(), 2);
  Slice c(None, None, -1);  // accepted here, rejected when applied (as libtorch)
  EXPECT_EQ(c.start(), indexing::INDEX_MAX);
  EXPECT_EQ(c.stop(), indexing::INDEX_MIN);
  EXPECT_EQ(TensorIndex("...").kind(), TensorIndex::Kind::Ellipsis);
  EXPECT_EQ(TensorIndex(None).kind(), TensorIndex::Kind::None);
  EXPECT_EQ(TensorIndex(true).kind(), TensorIndex::Kind::Boolean);
  EXPECT_EQ(TensorIndex(int64_t{-3}).integer(), -3);
  EXPECT_EQ(TensorIndex(Slice(1)).slice().start(), 1);
  // Huge bounds and steps are clamped without overflow.
  Tensor x = base345();
  EXPECT_EQ(x.index({Slice(indexing::INDEX_MIN, indexing::INDEX_MAX, indexing::INDEX_MAX)}).sizes(),
            (std::vector<int64_t>{1, 4, 5}));
}

TEST(Indexing, Errors) {
  Tensor x = base345();
  Tensor v1 = test::from_values({3}, {1, 2, 3});
  test::expect_errors<IndexError>({
      {"int out of range", [&] { x.index({5}); },
       "[index] index 5 is out of bounds for dimension 0 with size 3"},
      {"negative int out of range",
       [&] {
         x.index({Slice(), -5});
       },
       "index -5 is out of bounds for dimension 1 with size 4"},
      {"too many indices",
       [&] {
         x.index({0, 0, 0, 0});
       },
       "[index] too many indices for tensor of dimension 3"},
      {"too many with mask",
       [&] {
         x.index({mask({3, 4}, std::vector<double>(12, 1)), 0, 0});
       },
       "too many indices for tensor of dimension 3"},
      {"0-d tensor", [&] { test::from_values({}, {1}).index({0}); },
       "too many indices for tensor of dimension 0"},
      {"mask shape",
       [&] {
         v1.index({mask({2}, {1, 0})});
       },
       "[index] The shape of the mask [2] at index 0 does not match the shape of the indexed "
       "tensor [3] at index 0"},
      {"2-d mask shape",
       [&] {
         x.index({Slice(), mask({4, 4}, std::vector<double>(16, 1))});
       },
       "The shape of the mask [4, 4] at index 1 does not match the shape of the indexed tensor [3, "
       "4, 5] at index 2"},
      {"index tensor out of range",
       [&] {
         x.index({ints({2}, {0, 3})});
       },
       "[index] index 3 is out of bounds for dimension 0 with size 3"},
      {"negative index tensor out of range",
       [&] {
         x.index({Slice(), ints({1}, {-5})});
       },
       "index -5 is out of bounds for dimension 1 with size 4"},
      {"int32 index out of range", [&] { x.index({ints({1}, {9}, kInt32)}); },
       "index 9 is out of bounds"},
      {"index into empty dim",
       [&] {
         test::make_tensor({0, 2}, kFloat32).index({ints({1}, {0})});
       },
       "index 0 is out of bounds for dimension 0 with size 0"},
      {"float index", [&] { x.index({test::from_values({1}, {0}, kFloat32)}); },
       "[index] tensors used as indices must be long, int, byte or bool tensors"},
      {"int16 index", [&] { x.index({ints({1}, {0}, kInt16)}); },
       "tensors used as indices must be long, int, byte or bool"},
      {"broadcast",
       [&] {
         x.index({ints({2}, {0, 1}), ints({3}, {0, 1, 2})});
       },
       "[index] shape mismatch: indexing tensors could not be broadcast together with shapes [2], "
       "[3]"},
      {"two ellipses",
       [&] {
         x.index({Ellipsis, 0, Ellipsis});
       },
       "an index can only have a single ellipsis"},
      {"put out of range", [&] { x.index_put_({ints({1}, {7})}, 0); },
       "[index_put_] index 7 is out of bounds for dimension 0 with size 3"},
      {"put too many",
       [&] {
         v1.index_put_({0, 0}, 1);
       },
       "[index_put_] too many indices for tensor of dimension 1"},
      {"put int out of range", [&] { v1.index_put_({3}, 1); },
       "[index_put_] index 3 is out of bounds for dimension 0 with size 3"},
      {"put mask shape",
       [&] {
         v1.index_put_({mask({4}, {1, 0, 0, 1})}, 1);
       },
       "[index_put_] The shape of the mask [4]"},
  });
  test::expect_errors<ValueError>({
      {"negative step", [&] { x.index({Slice(None, None, -1)}); },
       "[index] step must be greater than zero"},
      {"negative step put", [&] { x.index_put_({Slice(0, 2, -2)}, 1); },
       "[index_put_] step must be greater than zero"},
      {"zero step", [&] { Slice(0, 3, 0); }, "[Slice] slice step cannot be zero"},
      {"bad string",
       [&] {
         TensorIndex("...");
         TensorIndex("..");
       },
       "Expected \"...\" to represent an ellipsis index, but got \"..\""},
  });
  test::expect_errors<RuntimeError>({
      {"put value shape",
       [&] {
         x.index_put_({ints({3}, {0, 1, 2}), 0, 0}, test::from_values({2}, {1, 2}));
       },
       "[index_put_] shape mismatch: value tensor of shape [2] cannot be broadcast to indexing "
       "result of shape [3]"},
      {"put value too many dims",
       [&] {
         v1.index_put_({mask({3}, {1, 1, 0})}, test::from_values({2, 2}, {1, 2, 3, 4}));
       },
       "[index_put_] shape mismatch: value tensor of shape [2, 2] cannot be broadcast to indexing "
       "result of shape [2]"},
      {"basic put value shape",
       [&] {
         x.index_put_({0}, test::from_values({3}, {1, 2, 3}));
       },
       "[index_put_] shape mismatch: value tensor of shape [3] cannot be broadcast to indexing "
       "result of shape [4, 5]"},
      {"put into expanded",
       [&] {
         Tensor e = test::make_expanded(test::from_values({1, 3}, {1, 2, 3}), {4, 3});
         e.index_put_({ints({1}, {0})}, 0);
       },
       "[index_put_] unsupported operation: more than one element of the written-to tensor"},
      {"basic put into expanded",
       [&] {
         Tensor e = test::make_expanded(test::from_values({1, 3}, {1, 2, 3}), {4, 3});
         e.index_put_({Slice(), 0}, 0);
       },
       "[index_put_] unsupported operation"},
      {"value aliases self",
       [&] {
         Tensor y = base345();
         y.index_put_({ints({2}, {0, 1})}, y.index({Slice(1, 3)}));
       },
       "[index_put_] unsupported operation: some elements of the input tensor and the written-to "
       "tensor refer to a single memory location"},
      {"undefined value", [&] { x.index_put_({0}, Tensor()); }, "[index_put_]"},
      {"undefined index tensor", [&] { x.index({Tensor()}); }, "[TensorIndex]"},
  });
}
