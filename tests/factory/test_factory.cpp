// Factories: empty/zeros/ones/full, arange/linspace/logspace, eye, the *_like forms, from_blob and
// ember::tensor(...). Expected values are closed forms written out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "opdb.h"

using namespace ember;
using test::values;

namespace {

using Shape = std::vector<int64_t>;
using Values = std::vector<double>;

// Restores the default dtype when a test that changes it ends (also on failure).
struct DefaultDtypeGuard {
  explicit DefaultDtypeGuard(ScalarType t) : saved(get_default_dtype()) { set_default_dtype(t); }
  ~DefaultDtypeGuard() { set_default_dtype(saved); }
  ScalarType saved;
};

Values repeat(double v, size_t n) { return Values(n, v); }

// The *_like ops as op-database entries: same shape and dtype as the input, constant values.
std::vector<test::OpInfo> like_ops() {
  auto constant = [](double c) {
    return [c](const std::vector<Tensor>& in) {
      const double v = in[0].dtype() == kBool ? (c != 0) : c;
      return test::Reference{in[0].sizes(), repeat(v, in[0].numel()), in[0].dtype()};
    };
  };
  auto samples = [](ScalarType dt) { return test::elementwise_samples(dt, 1); };
  std::vector<test::OpInfo> ops = {
      {"zeros_like", test::all_dtypes(), samples,
       [](const std::vector<Tensor>& in) { return zeros_like(in[0]); }, constant(0)},
      {"ones_like", test::all_dtypes(), samples,
       [](const std::vector<Tensor>& in) { return ones_like(in[0]); }, constant(1)},
      {"full_like", test::all_dtypes(), samples,
       [](const std::vector<Tensor>& in) { return full_like(in[0], 3); }, constant(3)},
  };
  for (auto& op : ops) {
    op.not_differentiable =
        "a factory: its values do not depend on the input's (PyTorch's results require no grad)";
  }
  return ops;
}

}  // namespace

namespace ember::test {
INSTANTIATE_TEST_SUITE_P(Factory, OpTest, ::testing::ValuesIn(like_ops()), op_test_name);
}  // namespace ember::test

TEST(Factory, EmptyShapeDtypeAndOptions) {
  Tensor t = empty({2, 3});
  EXPECT_EQ(t.sizes(), (Shape{2, 3}));
  EXPECT_EQ(t.strides(), (Shape{3, 1}));
  EXPECT_EQ(t.dtype(), kFloat32);
  EXPECT_EQ(empty({4}, kInt16).dtype(), kInt16);
  EXPECT_EQ(empty({}, kFloat64).dim(), 0);
  EXPECT_EQ(empty({}, kFloat64).numel(), 1);
  EXPECT_EQ(empty({0, 5}).numel(), 0);
  EXPECT_EQ(empty({2}, TensorOptions().dtype(kUInt8).device("cpu")).dtype(), kUInt8);
  // requires_grad is accepted; autograd will record it.
  EXPECT_NO_THROW(empty({2}, TensorOptions().requires_grad(true)));
  EXPECT_NO_THROW(zeros({2}, ember::requires_grad()));
  DefaultDtypeGuard guard(kFloat64);
  EXPECT_EQ(empty({1}).dtype(), kFloat64);
  EXPECT_EQ(zeros({1}).dtype(), kFloat64);
}

TEST(Factory, ZerosOnesEveryDtype) {
  for (ScalarType dt : test::all_dtypes()) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor z = zeros({2, 3}, dt);
    EXPECT_EQ(z.dtype(), dt);
    EXPECT_EQ(values(z), repeat(0, 6));
    Tensor o = ones({3}, dt);
    EXPECT_EQ(values(o), repeat(1, 3));
    EXPECT_EQ(values(ones({}, dt)), repeat(1, 1));
  }
  EXPECT_EQ(zeros({0, 4}).numel(), 0);
}

TEST(Factory, FullInfersDtypeFromFillValue) {
  EXPECT_EQ(full({2}, true).dtype(), kBool);
  EXPECT_EQ(full({2}, 7).dtype(), kInt64);
  EXPECT_EQ(full({2}, int64_t{-3}).dtype(), kInt64);
  EXPECT_EQ(full({2}, 2.5).dtype(), kFloat32);
  EXPECT_EQ(full({2}, 2.5f).dtype(), kFloat32);
  EXPECT_EQ(values(full({2, 2}, 7)), repeat(7, 4));
  EXPECT_EQ(values(full({3}, true)), repeat(1, 3));
  EXPECT_EQ(values(full({2}, 2.5)), repeat(2.5, 2));
  // An explicit dtype wins; float -> int truncates as a C cast.
  EXPECT_EQ(full({2}, 3, kFloat64).dtype(), kFloat64);
  EXPECT_EQ(values(full({3}, 2.7, kInt32)), repeat(2, 3));
  EXPECT_EQ(values(full({1}, 0.5, kBool)), repeat(1, 1));
  DefaultDtypeGuard guard(kFloat64);
  EXPECT_EQ(full({1}, 2.5).dtype(), kFloat64);
  EXPECT_EQ(full({1}, 2).dtype(), kInt64);
}

TEST(Factory, EmptyStrided) {
  Tensor t = empty_strided({2, 3}, {1, 2});
  EXPECT_EQ(t.sizes(), (Shape{2, 3}));
  EXPECT_EQ(t.strides(), (Shape{1, 2}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.impl()->storage()->nbytes(), 6u * 4u);
  Tensor padded = empty_strided({2, 2}, {4, 1}, kFloat64);  // rows padded to 4 elements
  EXPECT_EQ(padded.impl()->storage()->nbytes(), 6u * 8u);
  EXPECT_EQ(empty_strided({0, 3}, {3, 1}).numel(), 0);
  EXPECT_EQ(empty_strided({}, {}).numel(), 1);
  test::expect_errors<RuntimeError>({
      {"length mismatch",
       [] {
         empty_strided({2, 3}, {1});
       },
       "[empty_strided] mismatch in length"},
      {"negative size", [] { empty_strided({-2}, {1}); },
       "[empty_strided] Trying to create tensor with negative dimension -2: [-2]"},
      {"negative stride", [] { empty_strided({2}, {-1}); }, "[empty_strided] Negative strides"},
      {"overflow",
       [] {
         empty_strided({int64_t{1} << 62, 4}, {4, int64_t{1} << 62});
       },
       "[empty_strided]"},
  });
}

TEST(Factory, ArangeValuesAndDtypeInference) {
  Tensor a = arange(5);
  EXPECT_EQ(a.dtype(), kInt64);
  EXPECT_EQ(values(a), (Values{0, 1, 2, 3, 4}));
  EXPECT_EQ(values(arange(1, 4)), (Values{1, 2, 3}));
  Tensor f = arange(1, 2.5, 0.5);
  EXPECT_EQ(f.dtype(), kFloat32);
  EXPECT_EQ(values(f), (Values{1, 1.5, 2}));
  EXPECT_EQ(arange(0., 1., 0.1).numel(), 10);  // ceil((1 - 0) / 0.1)
  EXPECT_EQ(values(arange(10, 0, -3)), (Values{10, 7, 4, 1}));
  EXPECT_EQ(values(arange(-3, 3, 2, kFloat64)), (Values{-3, -1, 1}));
  EXPECT_EQ(arange(0, 0).numel(), 0);
  EXPECT_EQ(arange(2.5).numel(), 3);
  // A float bound gives the float size formula even for integer dtypes: ceil(2.5) elements.
  EXPECT_EQ(values(arange(0, 2.5, 1, kInt32)), (Values{0, 1, 2}));
  EXPECT_EQ(values(arange(0, 2.5, 1, kInt64)), (Values{0, 1, 2}));
  // int64 ranges are exact beyond 2^53.
  const int64_t big = int64_t{1} << 53;
  Tensor b = arange(big, big + 3);
  const int64_t* pb = b.data_ptr<int64_t>();
  EXPECT_EQ(b.numel(), 3);
  EXPECT_EQ(pb[0], big);
  EXPECT_EQ(pb[1], big + 1);
  EXPECT_EQ(pb[2], big + 2);
  for (ScalarType dt : test::all_dtypes()) {
    if (dt == kBool) continue;
    SCOPED_TRACE(dtype_name(dt));
    Tensor t = arange(0, 9, 2, dt);
    EXPECT_EQ(t.dtype(), dt);
    EXPECT_EQ(values(t), (Values{0, 2, 4, 6, 8}));
  }
  // Closed form start + i * step for a long float range.
  Tensor r = arange(-1.0, 1.0, 0.001, kFloat64);
  ASSERT_EQ(r.numel(), 2000);
  auto rv = values(r);
  for (int64_t i = 0; i < 2000; ++i) ASSERT_NEAR(rv[i], -1.0 + 0.001 * i, 1e-12) << i;
  DefaultDtypeGuard guard(kFloat64);
  EXPECT_EQ(arange(0.5, 2).dtype(), kFloat64);
  EXPECT_EQ(arange(3).dtype(), kInt64);
}

TEST(Factory, ArangeErrors) {
  test::expect_errors<RuntimeError>({
      {"zero step", [] { arange(0, 5, 0); }, "[arange] step must be nonzero"},
      {"zero float step", [] { arange(0., 5., 0.); }, "[arange] step must be nonzero"},
      {"float step truncated to 0 for int64", [] { arange(0, 5, 0.5, kInt64); },
       "[arange] step must be nonzero"},
      {"negative step upward", [] { arange(0, 5, -1); },
       "[arange] upper bound and larger bound inconsistent with step sign"},
      {"positive step downward", [] { arange(5., 0., 1.); },
       "[arange] upper bound and larger bound inconsistent with step sign"},
      {"nan end", [] { arange(0., std::nan("")); }, "[arange] unsupported range: 0 -> nan"},
      {"inf end", [] { arange(0., INFINITY); }, "[arange] unsupported range"},
      {"nan for int dtype", [] { arange(0., std::nan(""), 1, kInt32); },
       "[arange] unsupported range"},
      {"too many elements", [] { arange(0., 1e30, 1e-30); },
       "[arange] invalid size, possible overflow?"},
  });
  test::expect_errors<TypeError>({
      {"bool", [] { arange(3, kBool); }, "'bool'"},
      {"complex", [] { arange(3, kComplexFloat); }, "complex64"},
  });
  test::expect_errors<NotImplementedError>({
      {"cuda", [] { arange(3, TensorOptions().device("cuda:0")); }, "[arange]"},
  });
}

TEST(Factory, LinspaceAndLogspace) {
  Tensor l = linspace(3, 10, 5);
  EXPECT_EQ(l.dtype(), kFloat32);
  EXPECT_TRUE(test::close(l, {5}, {3, 4.75, 6.5, 8.25, 10}, 0, 0));
  EXPECT_EQ(values(linspace(-10, 10, 5)), (Values{-10, -5, 0, 5, 10}));
  EXPECT_EQ(values(linspace(2, 7, 1)), (Values{2}));
  EXPECT_EQ(linspace(0, 1, 0).numel(), 0);
  // Both endpoints are exact: the second half is computed from `end` backwards.
  Tensor e = linspace(0.1, 0.7, 7, kFloat64);
  auto ev = values(e);
  EXPECT_EQ(ev.front(), 0.1);
  EXPECT_EQ(ev.back(), 0.7);
  for (int i = 0; i < 7; ++i) EXPECT_NEAR(ev[i], 0.1 + 0.1 * i, 1e-15);
  // Integer dtypes truncate start + i * step (step 2.5 here).
  EXPECT_EQ(values(linspace(0, 10, 5, kInt64)), (Values{0, 2, 5, 7, 10}));
  EXPECT_EQ(values(linspace(10, 0, 5, kInt32)), (Values{10, 7, 5, 2, 0}));
  for (ScalarType dt : test::all_dtypes()) {
    if (dt == kBool) continue;
    SCOPED_TRACE(dtype_name(dt));
    EXPECT_EQ(values(linspace(0, 4, 5, dt)), (Values{0, 1, 2, 3, 4}));
    EXPECT_EQ(values(logspace(0, 2, 3, 2.0, dt)), (Values{1, 2, 4}));
  }
  Tensor g = logspace(-10, 10, 5);
  EXPECT_EQ(g.dtype(), kFloat32);
  EXPECT_TRUE(test::close(g, {5}, {1e-10, 1e-5, 1, 1e5, 1e10}, 1e-6, 0));
  EXPECT_EQ(values(logspace(0, 3, 4, 2.0)), (Values{1, 2, 4, 8}));
  EXPECT_EQ(values(logspace(2, 2, 1, 2.0)), (Values{4}));
  EXPECT_TRUE(test::close(logspace(0.1, 1.0, 1), {1}, {std::pow(10.0, 0.1)}, 1e-6, 0));
  test::expect_errors<RuntimeError>({
      {"linspace negative steps", [] { linspace(0, 1, -1); },
       "[linspace] number of steps must be non-negative"},
      {"logspace negative steps", [] { logspace(0, 1, -2); },
       "[logspace] number of steps must be non-negative"},
  });
  test::expect_errors<TypeError>({
      {"linspace bool", [] { linspace(0, 1, 3, kBool); }, "'bool'"},
      {"logspace bool", [] { logspace(0, 1, 3, 10.0, kBool); }, "'bool'"},
  });
}

TEST(Factory, Eye) {
  EXPECT_EQ(values(eye(3)), (Values{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(eye(3).dtype(), kFloat32);
  Tensor r = eye(2, 4, kInt32);
  EXPECT_EQ(r.sizes(), (Shape{2, 4}));
  EXPECT_EQ(r.dtype(), kInt32);
  EXPECT_EQ(values(r), (Values{1, 0, 0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(values(eye(3, 2)), (Values{1, 0, 0, 1, 0, 0}));
  EXPECT_EQ(eye(0).numel(), 0);
  EXPECT_EQ(eye(3, 0).sizes(), (Shape{3, 0}));
  for (ScalarType dt : test::all_dtypes()) {
    auto v = values(eye(5, dt));
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j) EXPECT_EQ(v[i * 5 + j], i == j ? 1 : 0) << dtype_name(dt);
  }
  test::expect_errors<RuntimeError>({
      {"negative n", [] { eye(-1); }, "[eye] n must be greater or equal to 0, got -1"},
      {"negative m", [] { eye(2, -3); }, "[eye] m must be greater or equal to 0, got -3"},
  });
}

TEST(Factory, LikeFormsKeepShapeAndDtype) {
  Tensor src = test::make_tensor({2, 3}, kInt32);
  EXPECT_EQ(empty_like(src).dtype(), kInt32);
  EXPECT_EQ(empty_like(src).sizes(), (Shape{2, 3}));
  EXPECT_EQ(zeros_like(src, kFloat64).dtype(), kFloat64);
  EXPECT_EQ(values(ones_like(src, kBool)), repeat(1, 6));
  // full_like keeps the input's dtype whatever the fill value's kind.
  Tensor fl = full_like(src, 2.7);
  EXPECT_EQ(fl.dtype(), kInt32);
  EXPECT_EQ(values(fl), repeat(2, 6));
  // torch.preserve_format: a dense permuted layout keeps its strides, anything else is
  // contiguous.
  Tensor transposed = empty_strided({3, 2}, {1, 3});
  EXPECT_EQ(empty_like(transposed).strides(), (Shape{1, 3}));
  EXPECT_EQ(zeros_like(transposed).strides(), (Shape{1, 3}));
  EXPECT_EQ(values(zeros_like(transposed)), repeat(0, 6));
  Tensor gappy = test::make_noncontiguous(test::make_tensor({3, 4}, kFloat32));
  EXPECT_EQ(empty_like(gappy).strides(), (Shape{4, 1}));
  Tensor expanded = test::make_expanded(test::make_tensor({1, 4}, kFloat32), {3, 4});
  EXPECT_EQ(ones_like(expanded).strides(), (Shape{4, 1}));
  EXPECT_EQ(values(ones_like(expanded)), repeat(1, 12));
  EXPECT_THROW(empty_like(Tensor()), RuntimeError);
  EXPECT_THROW(zeros_like(src, TensorOptions().device("cuda")), NotImplementedError);
}

TEST(Factory, FromBlobAliasesMemory) {
  float buf[6] = {1, 2, 3, 4, 5, 6};
  Tensor t = from_blob(buf, {2, 3});
  EXPECT_EQ(t.dtype(), kFloat32);
  EXPECT_EQ(t.data_ptr(), static_cast<void*>(buf));
  EXPECT_EQ(values(t), (Values{1, 2, 3, 4, 5, 6}));
  buf[4] = 50;  // no copy: the tensor sees the change
  EXPECT_EQ(values(t)[4], 50);
  t.fill_(7);  // and writes land in the buffer
  EXPECT_EQ(buf[0], 7);
  EXPECT_EQ(buf[5], 7);

  double col[6] = {1, 2, 3, 4, 5, 6};
  Tensor tr = from_blob(col, {3, 2}, {1, 3}, kFloat64);
  EXPECT_EQ(tr.strides(), (Shape{1, 3}));
  EXPECT_EQ(values(tr), (Values{1, 4, 2, 5, 3, 6}));

  int32_t ints[3] = {-1, 0, 9};
  EXPECT_EQ(values(from_blob(ints, {3}, kInt32)), (Values{-1, 0, 9}));
  EXPECT_EQ(from_blob(nullptr, {0, 3}).numel(), 0);
}

TEST(Factory, FromBlobDeleterRunsWhenLastUserDies) {
  int calls = 0;
  double* mem = new double[4]{1, 2, 3, 4};
  void* seen = nullptr;
  {
    Tensor t = from_blob(
        mem, {4},
        [&](void* p) {
          ++calls;
          seen = p;
          delete[] static_cast<double*>(p);
        },
        kFloat64);
    Tensor view = t.detach();  // an alias sharing the storage
    Tensor copy = t;
    EXPECT_EQ(values(view), (Values{1, 2, 3, 4}));
    t = Tensor();
    copy = Tensor();
    EXPECT_EQ(calls, 0) << "the view still uses the memory";
  }
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, static_cast<void*>(mem));

  // With strides and a deleter.
  int calls2 = 0;
  float* mem2 = new float[4]{1, 2, 3, 4};
  {
    Tensor t = from_blob(mem2, {2, 2}, {1, 2}, [&](void* p) {
      ++calls2;
      delete[] static_cast<float*>(p);
    });
    EXPECT_EQ(values(t), (Values{1, 3, 2, 4}));
  }
  EXPECT_EQ(calls2, 1);

  // A rejected call does not take ownership: the deleter never runs.
  int calls3 = 0;
  float local[2] = {0, 0};
  EXPECT_THROW(from_blob(local, {-2}, [&](void*) { ++calls3; }), RuntimeError);
  EXPECT_EQ(calls3, 0);
}

TEST(Factory, FromBlobErrors) {
  float buf[4] = {};
  test::expect_errors<RuntimeError>({
      {"null data", [] { from_blob(nullptr, {2}); }, "[from_blob] data pointer is null"},
      {"negative size",
       [&] {
         from_blob(buf, {-1, 2});
       },
       "[from_blob] Trying to create tensor with negative dimension -1: [-1, 2]"},
      {"stride length",
       [&] {
         from_blob(buf, {2, 2}, {1});
       },
       "[from_blob] mismatch in length"},
      {"negative stride", [&] { from_blob(buf, {2}, {-1}); }, "[from_blob] Negative strides"},
  });
  test::expect_errors<NotImplementedError>({
      {"cuda", [&] { from_blob(buf, {2}, TensorOptions().device("cuda:0")); }, "[from_blob]"},
  });
  test::expect_errors<TypeError>({
      {"reserved dtype", [&] { from_blob(buf, {2}, kComplexFloat); }, "complex64"},
  });
}

TEST(Factory, TensorFromInitializerLists) {
  Tensor f = ember::tensor({1.0, 2.0});
  EXPECT_EQ(f.dtype(), kFloat32);
  EXPECT_EQ(values(f), (Values{1, 2}));
  Tensor i = ember::tensor({1, 2});
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_EQ(values(i), (Values{1, 2}));
  Tensor s = ember::tensor(3.5);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.dtype(), kFloat32);
  EXPECT_EQ(s.item<double>(), 3.5);
  EXPECT_EQ(ember::tensor(7).dtype(), kInt64);
  EXPECT_EQ(ember::tensor(true).dtype(), kBool);
  EXPECT_EQ(ember::tensor(1.5f).dtype(), kFloat32);
  EXPECT_EQ(ember::tensor(Half(1.5f)).dtype(), kFloat16);
  EXPECT_EQ(ember::tensor(Half(1.5f)).item<float>(), 1.5f);
  Tensor b = ember::tensor({true, false, true});
  EXPECT_EQ(b.dtype(), kBool);
  EXPECT_EQ(values(b), (Values{1, 0, 1}));
  EXPECT_EQ(ember::tensor({1.5f, 2.5f}).dtype(), kFloat32);
  Tensor fm = ember::tensor({{1.5f, 2.5f}, {3.5f, 4.5f}});
  EXPECT_EQ(fm.dtype(), kFloat32);
  EXPECT_EQ(values(fm), (Values{1.5, 2.5, 3.5, 4.5}));
  EXPECT_EQ(ember::tensor(std::vector<float>{0.25f}).dtype(), kFloat32);
  EXPECT_EQ(ember::tensor({{{true, false}}}).sizes(), (Shape{1, 1, 2}));
  Tensor m = ember::tensor({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(m.sizes(), (Shape{2, 3}));
  EXPECT_EQ(m.dtype(), kInt64);
  EXPECT_EQ(values(m), (Values{1, 2, 3, 4, 5, 6}));
  Tensor bm = ember::tensor({{true}, {false}});
  EXPECT_EQ(bm.sizes(), (Shape{2, 1}));
  EXPECT_EQ(bm.dtype(), kBool);
  Tensor c = ember::tensor({{{1.0}, {2.0}}, {{3.0}, {4.0}}});
  EXPECT_EQ(c.sizes(), (Shape{2, 2, 1}));
  EXPECT_EQ(values(c), (Values{1, 2, 3, 4}));
  Tensor v = ember::tensor(std::vector<double>{0.5, -0.5});
  EXPECT_EQ(v.dtype(), kFloat32);
  EXPECT_EQ(values(v), (Values{0.5, -0.5}));
  EXPECT_EQ(values(ember::tensor(std::vector<bool>{true, false})), (Values{1, 0}));
  EXPECT_EQ(ember::tensor(std::vector<int32_t>{4, 5}).dtype(), kInt64);
  Tensor e = ember::tensor(std::vector<double>{});
  EXPECT_EQ(e.sizes(), (Shape{0}));
  EXPECT_EQ(e.dtype(), kFloat32);
  // Explicit dtypes convert.
  Tensor cd = ember::tensor({1, 2}, kFloat64);
  EXPECT_EQ(cd.dtype(), kFloat64);
  EXPECT_EQ(values(cd), (Values{1, 2}));
  EXPECT_EQ(values(ember::tensor({1.7, -1.7}, kInt32)), (Values{1, -1}));
  // Big int64 values survive exactly.
  const int64_t big = (int64_t{1} << 60) + 1;
  EXPECT_EQ(ember::tensor({big}).data_ptr<int64_t>()[0], big);
  {
    DefaultDtypeGuard guard(kFloat64);
    EXPECT_EQ(ember::tensor(3.5).dtype(), kFloat64);
    EXPECT_EQ(ember::tensor({1.0f}).dtype(), kFloat32);
  }
  test::expect_errors<ValueError>({
      {"ragged rows",
       [] {
         ember::tensor({{1, 2}, {3}});
       },
       "[tensor] expected sequence of length 2 at dim 1 (got 1)"},
      {"ragged blocks",
       [] {
         ember::tensor({{{1, 2}}, {{3, 4}, {5, 6}}});
       },
       "[tensor]"},
  });
  test::expect_errors<NotImplementedError>({
      {"cuda", [] { ember::tensor({1.0}, TensorOptions().device("cuda:0")); }, "[tensor]"},
  });
}

TEST(Factory, NegativeSizesOverflowAndDevices) {
  const int64_t huge = std::numeric_limits<int64_t>::max();
  test::expect_errors<RuntimeError>({
      {"empty",
       [] {
         empty({-1, 2});
       },
       "[empty] Trying to create tensor with negative dimension -1: [-1, 2]"},
      {"zeros",
       [] {
         zeros({2, -3});
       },
       "[zeros] Trying to create tensor with negative dimension -3: [2, -3]"},
      {"ones", [] { ones({-1}); }, "[ones] Trying to create tensor with negative dimension -1"},
      {"full", [] { full({-4}, 1.0); }, "[full] Trying to create tensor with negative dimension"},
      {"rand", [] { rand({-1}); }, "Trying to create tensor with negative dimension -1: [-1]"},
      {"randn",
       [] {
         randn({3, -1});
       },
       "Trying to create tensor with negative dimension"},
      {"randint", [] { randint(0, 5, {-2}); }, "Trying to create tensor with negative dimension"},
      {"numel overflow",
       [] {
         empty({huge, 4});
       },
       "[empty] numel of the requested size overflows"},
      {"byte overflow", [] { empty({int64_t{1} << 62}, kFloat64); }, "[empty]"},
      {"zeros overflow",
       [] {
         zeros({int64_t{1} << 32, int64_t{1} << 32});
       },
       "[zeros]"},
  });
  test::expect_errors<NotImplementedError>({
      {"empty", [] { empty({2}, TensorOptions().device("cuda:0")); }, "[empty] device 'cuda:0'"},
      {"zeros", [] { zeros({2}, Device("cuda:0")); }, "[zeros]"},
      {"ones", [] { ones({2}, Device("cuda")); }, "[ones]"},
      {"full", [] { full({2}, 1, Device("cuda:0")); }, "[full]"},
      {"empty_strided", [] { empty_strided({2}, {1}, Device("cuda:0")); }, "[empty_strided]"},
      {"linspace", [] { linspace(0, 1, 3, Device("cuda:0")); }, "[linspace]"},
      {"eye", [] { eye(2, Device("cuda:0")); }, "[eye]"},
      {"rand", [] { rand({2}, Device("cuda:0")); }, "cuda:0"},
      {"randperm", [] { randperm(3, Device("cuda:0")); }, "[randperm]"},
  });
  test::expect_errors<TypeError>({
      {"reserved dtype", [] { zeros({2}, kComplexFloat); }, "complex64"},
      {"float8", [] { ones({2}, kFloat8_e4m3fn); }, "float8_e4m3fn"},
  });
}
