// matmul, mm, bmm, mv, dot, vdot, outer/ger, addmm, addmv, baddbmm against loop references.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "backend/cpu/gemm.h"
#include "ember/ember.h"
#include "matmul/matmul_ref.h"
#include "opdb.h"

using namespace ember;
using test::EinsumRef;
using test::OpInfo;
using test::OpTest;
using test::Reference;
using test::Sample;

namespace {

const std::vector<ScalarType>& product_dtypes() {
  static const std::vector<ScalarType> v = {kFloat64, kFloat32, kFloat16, kBFloat16, kUInt8,
                                            kInt8,    kInt16,   kInt32,   kInt64};
  return v;
}

Tensor mk(std::vector<int64_t> shape, ScalarType dt, uint64_t seed) {
  const bool fl = is_floating_point(dt);
  return test::make_tensor(shape, dt, fl ? -2 : -5, fl ? 2 : 5, seed);
}

// The same kind of values with the last two dims transposed in memory (a .mT() view).
Tensor transposed(std::vector<int64_t> shape, ScalarType dt, uint64_t seed) {
  std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
  return mk(shape, dt, seed).mT();
}

// The longest sum in the samples below is 37 terms: tolerances scale with its square root.
const double kTolScale = std::sqrt(37.0);

// `large`: also the samples that exercise the GEMM providers and the parallel batch loop (too
// large for gradcheck's finite differences).
std::vector<Sample> matrix_samples(ScalarType dt, bool large) {
  std::vector<Sample> s = {
      {{mk({3, 4}, dt, 1), mk({4, 5}, dt, 2)}, "2d.2d"},
      {{mk({1, 1}, dt, 5), mk({1, 1}, dt, 6)}, "1x1"},
      {{transposed({3, 4}, dt, 7), transposed({4, 5}, dt, 8)}, "transposed"},
      {{mk({3, 4}, dt, 9), transposed({4, 5}, dt, 10)}, "b-transposed"},
      {{test::make_noncontiguous(mk({3, 4}, dt, 11)), test::make_noncontiguous(mk({4, 5}, dt, 12))},
       "strided"},
      {{test::make_expanded(mk({1, 4}, dt, 13), {3, 4}), mk({4, 2}, dt, 14)}, "expanded-stride0"},
      {{mk({3, 0}, dt, 15), mk({0, 4}, dt, 16)}, "k=0"},
      {{mk({0, 3}, dt, 17), mk({3, 4}, dt, 18)}, "m=0"},
      {{mk({3, 4}, dt, 19), mk({4, 0}, dt, 20)}, "n=0"},
  };
  if (large) {
    s.push_back({{mk({33, 37}, dt, 3), mk({37, 40}, dt, 4)}, "2d.2d-large"});
    // Products of >= 512 multiply-adds go to the providers (smaller ones to a plain loop).
    s.push_back({{transposed({20, 30}, dt, 21), transposed({30, 25}, dt, 22)}, "transposed-large"});
    s.push_back(
        {{test::make_noncontiguous(mk({20, 30}, dt, 23)), mk({30, 25}, dt, 24)}, "strided-large"});
  }
  return s;
}

std::vector<Sample> batch_samples(ScalarType dt, bool large) {
  std::vector<Sample> s = {
      {{mk({2, 3, 4}, dt, 1), mk({2, 4, 5}, dt, 2)}, "3d.3d"},
      {{transposed({2, 3, 4}, dt, 5), transposed({2, 4, 5}, dt, 6)}, "transposed"},
      {{test::make_noncontiguous(mk({2, 3, 4}, dt, 7)), mk({2, 4, 2}, dt, 8)}, "strided"},
      {{mk({0, 2, 3}, dt, 9), mk({0, 3, 2}, dt, 10)}, "batch=0"},
      {{mk({2, 3, 0}, dt, 11), mk({2, 0, 4}, dt, 12)}, "k=0"},
      {{mk({3, 2, 4, 5}, dt, 13).transpose(0, 1).select(0, 1), mk({3, 5, 2}, dt, 14)},
       "permuted-batch"},
  };
  if (large) {
    s.push_back({{mk({64, 4, 5}, dt, 3), mk({64, 5, 3}, dt, 4)}, "many-small-batches"});
    s.push_back({{transposed({3, 10, 12}, dt, 15), mk({3, 12, 9}, dt, 16)}, "batched-large"});
    s.push_back(
        {{mk({40, 10, 12}, dt, 17), transposed({40, 12, 9}, dt, 18)}, "many-large-batches"});
  }
  return s;
}

std::vector<Sample> matmul_samples(ScalarType dt, bool large) {
  std::vector<Sample> s = {
      {{mk({5}, dt, 1), mk({5}, dt, 2)}, "1d.1d"},
      {{mk({0}, dt, 1), mk({0}, dt, 2)}, "1d.1d-empty"},
      {{mk({3, 4}, dt, 3), mk({4}, dt, 4)}, "2d.1d"},
      {{mk({4}, dt, 5), mk({4, 3}, dt, 6)}, "1d.2d"},
      {{mk({2, 3, 4}, dt, 7), mk({4}, dt, 8)}, "3d.1d-folded"},
      {{mk({4}, dt, 9), mk({2, 4, 3}, dt, 10)}, "1d.3d-folded"},
      {{mk({2, 3, 4}, dt, 11), mk({4, 5}, dt, 12)}, "3d.2d-folded"},
      {{mk({3, 4}, dt, 13), mk({2, 4, 5}, dt, 14)}, "2d.3d"},
      {{mk({2, 1, 3, 4}, dt, 15), mk({3, 4, 2}, dt, 16)}, "batch-broadcast"},
      {{mk({1, 3, 4}, dt, 17), mk({5, 4, 2}, dt, 18)}, "batch-1-broadcast"},
      {{mk({2, 2, 3, 4}, dt, 19), mk({4}, dt, 20)}, "4d.1d"},
      {{mk({4}, dt, 21), mk({2, 2, 4, 3}, dt, 22)}, "1d.4d"},
      {{mk({large ? 3 : 2, 2, large ? 4 : 2, 5}, dt, 23).transpose(0, 1), mk({5, 3}, dt, 24)},
       "4d.2d-unfoldable"},
      {{test::make_noncontiguous(mk({2, 3, 4}, dt, 25)), mk({4, 2}, dt, 26)}, "3d-strided.2d"},
      {{mk({2, 0, 4}, dt, 27), mk({4, 3}, dt, 28)}, "3d-empty.2d"},
      {{mk({2, 3, 0}, dt, 29), mk({0}, dt, 30)}, "3d-k0.1d"},
  };
  for (auto& m : matrix_samples(dt, large)) s.push_back(m);
  for (auto& b : batch_samples(dt, large)) s.push_back(b);
  return s;
}

std::vector<Sample> mv_samples(ScalarType dt, bool large) {
  std::vector<Sample> s = {
      {{mk({3, 4}, dt, 1), mk({4}, dt, 2)}, "2d.1d"},
      {{transposed({3, 4}, dt, 5), mk({4}, dt, 6)}, "transposed-mat"},
      {{mk({3, 4}, dt, 7), test::make_noncontiguous(mk({4}, dt, 8))}, "strided-vec"},
      {{test::make_expanded(mk({1, 4}, dt, 9), {3, 4}), mk({4}, dt, 10)}, "expanded"},
      {{mk({3, 0}, dt, 11), mk({0}, dt, 12)}, "k=0"},
      {{mk({0, 4}, dt, 13), mk({4}, dt, 14)}, "m=0"},
  };
  if (large) s.push_back({{mk({40, 37}, dt, 3), mk({37}, dt, 4)}, "large"});
  return s;
}

std::vector<Sample> dot_samples(ScalarType dt, bool /*large*/) {
  return {
      {{mk({7}, dt, 1), mk({7}, dt, 2)}, "1d"},
      {{mk({37}, dt, 3), mk({37}, dt, 4)}, "long"},
      {{test::make_noncontiguous(mk({5}, dt, 5)), mk({5}, dt, 6)}, "strided"},
      {{test::make_expanded(mk({1}, dt, 7), {4}), mk({4}, dt, 8)}, "expanded"},
      {{mk({0}, dt, 9), mk({0}, dt, 10)}, "empty"},
  };
}

std::vector<Sample> outer_samples(ScalarType dt) {
  return {
      {{mk({3}, dt, 1), mk({4}, dt, 2)}, "1d"},
      {{mk({0}, dt, 3), mk({4}, dt, 4)}, "empty"},
      {{test::make_noncontiguous(mk({3}, dt, 5)), mk({2}, dt, 6)}, "strided"},
      {{mk({3}, dt, 7), mk({2}, kFloat64, 8)}, "promotes-with-float64"},
      {{mk({2}, kInt32, 9), mk({3}, dt, 10)}, "promotes-with-int32"},
  };
}

// Scales used by the *_scaled entries: fractional for floats, integers for integer dtypes.
std::pair<double, double> scales(ScalarType dt) {
  return is_floating_point(dt) ? std::pair{0.5, 2.0} : std::pair{2.0, 3.0};  // {beta, alpha}
}

std::vector<Sample> addmm_samples(ScalarType dt, bool large) {
  std::vector<Sample> s = {
      {{mk({3, 5}, dt, 1), mk({3, 4}, dt, 2), mk({4, 5}, dt, 3)}, "full-self"},
      {{mk({5}, dt, 4), mk({3, 4}, dt, 5), mk({4, 5}, dt, 6)}, "row-self"},
      {{mk({3, 1}, dt, 7), transposed({3, 4}, dt, 8), mk({4, 5}, dt, 9)}, "column-self"},
      {{mk({}, dt, 10), mk({3, 4}, dt, 11), transposed({4, 5}, dt, 12)}, "0d-self"},
      {{test::make_noncontiguous(mk({3, 5}, dt, 13)), mk({3, 0}, dt, 14), mk({0, 5}, dt, 15)},
       "k=0"},
  };
  if (large)
    s.push_back({{mk({33, 40}, dt, 16), mk({33, 37}, dt, 17), mk({37, 40}, dt, 18)}, "large"});
  return s;
}

std::vector<Sample> addmv_samples(ScalarType dt, bool /*large*/) {
  return {
      {{mk({3}, dt, 1), mk({3, 4}, dt, 2), mk({4}, dt, 3)}, "full-self"},
      {{mk({1}, dt, 4), transposed({3, 4}, dt, 5), mk({4}, dt, 6)}, "one-element-self"},
      {{mk({}, dt, 7), mk({3, 4}, dt, 8), test::make_noncontiguous(mk({4}, dt, 9))}, "0d-self"},
      {{mk({3}, dt, 10), mk({3, 0}, dt, 11), mk({0}, dt, 12)}, "k=0"},
  };
}

std::vector<Sample> baddbmm_samples(ScalarType dt, bool large) {
  std::vector<Sample> s = {
      {{mk({2, 3, 5}, dt, 1), mk({2, 3, 4}, dt, 2), mk({2, 4, 5}, dt, 3)}, "full-self"},
      {{mk({3, 5}, dt, 4), transposed({2, 3, 4}, dt, 5), mk({2, 4, 5}, dt, 6)}, "broadcast-self"},
      {{mk({}, dt, 7), mk({2, 3, 4}, dt, 8), mk({2, 4, 5}, dt, 9)}, "0d-self"},
      {{mk({2, 3, 5}, dt, 10), mk({2, 3, 0}, dt, 11), mk({2, 0, 5}, dt, 12)}, "k=0"},
  };
  if (large) {
    s.push_back(
        {{mk({40, 2, 2}, dt, 13), mk({40, 2, 3}, dt, 14), mk({40, 3, 2}, dt, 15)}, "many-batches"});
  }
  return s;
}

OpInfo product_op(std::string name, std::vector<Sample> (*samples)(ScalarType, bool),
                  std::function<Tensor(const std::vector<Tensor>&)> op,
                  std::function<Reference(const std::vector<Tensor>&)> ref) {
  OpInfo info{name, product_dtypes(), [samples](ScalarType dt) { return samples(dt, true); },
              std::move(op), std::move(ref)};
  info.grad_samples = [samples] { return samples(kFloat64, false); };
  info.tol_scale = kTolScale;
  info.rejected_dtypes = {kBool};
  return info;
}

Reference matmul_ref(const std::vector<Tensor>& in) {
  return EinsumRef{test::matmul_equation(in[0].dim(), in[1].dim()), in[0].dtype()}(in);
}

std::vector<OpInfo> matmul_ops() {
  std::vector<OpInfo> ops;
  ops.push_back(product_op(
      "matmul", matmul_samples, [](const auto& in) { return matmul(in[0], in[1]); }, matmul_ref));
  ops.push_back(product_op(
      "Tensor_matmul", matmul_samples, [](const auto& in) { return in[0].matmul(in[1]); },
      matmul_ref));
  ops.push_back(product_op(
      "mm", matrix_samples, [](const auto& in) { return mm(in[0], in[1]); }, matmul_ref));
  ops.push_back(product_op(
      "bmm", batch_samples, [](const auto& in) { return in[0].bmm(in[1]); }, matmul_ref));
  ops.push_back(product_op(
      "mv", mv_samples, [](const auto& in) { return in[0].mv(in[1]); }, matmul_ref));
  ops.push_back(product_op(
      "dot", dot_samples, [](const auto& in) { return dot(in[0], in[1]); }, matmul_ref));
  ops.push_back(product_op(
      "vdot", dot_samples, [](const auto& in) { return in[0].vdot(in[1]); }, matmul_ref));
  auto outer_ref = [](const std::vector<Tensor>& in) {
    return EinsumRef{"i,j->ij", promote_types(in[0].dtype(), in[1].dtype())}(in);
  };
  OpInfo outer_info{"outer", test::all_dtypes(), outer_samples,
                    [](const auto& in) { return in[0].outer(in[1]); }, outer_ref};
  ops.push_back(outer_info);
  OpInfo ger_info{"ger", test::all_dtypes(), outer_samples,
                  [](const auto& in) { return ger(in[0], in[1]); }, outer_ref};
  ops.push_back(ger_info);

  auto addmm_ref = [](bool scaled) {
    return [scaled](const std::vector<Tensor>& in) {
      auto [beta, alpha] = scaled ? scales(in[0].dtype()) : std::pair{1.0, 1.0};
      return EinsumRef{"nk,kp->np", in[0].dtype(), alpha, beta,
                       &in[0]}(std::vector<Tensor>{in[1], in[2]});
    };
  };
  ops.push_back(product_op(
      "addmm", addmm_samples, [](const auto& in) { return addmm(in[0], in[1], in[2]); },
      addmm_ref(false)));
  ops.push_back(product_op(
      "addmm_scaled", addmm_samples,
      [](const auto& in) {
        auto [beta, alpha] = scales(in[0].dtype());
        return is_floating_point(in[0].dtype())
                   ? in[0].addmm(in[1], in[2], beta, alpha)
                   : in[0].addmm(in[1], in[2], static_cast<int64_t>(beta),
                                 static_cast<int64_t>(alpha));
      },
      addmm_ref(true)));

  auto addmv_ref = [](bool scaled) {
    return [scaled](const std::vector<Tensor>& in) {
      auto [beta, alpha] = scaled ? scales(in[0].dtype()) : std::pair{1.0, 1.0};
      return EinsumRef{"nk,k->n", in[0].dtype(), alpha, beta,
                       &in[0]}(std::vector<Tensor>{in[1], in[2]});
    };
  };
  ops.push_back(product_op(
      "addmv", addmv_samples, [](const auto& in) { return addmv(in[0], in[1], in[2]); },
      addmv_ref(false)));
  ops.push_back(product_op(
      "addmv_scaled", addmv_samples,
      [](const auto& in) {
        auto [beta, alpha] = scales(in[0].dtype());
        return is_floating_point(in[0].dtype())
                   ? in[0].addmv(in[1], in[2], beta, alpha)
                   : in[0].addmv(in[1], in[2], static_cast<int64_t>(beta),
                                 static_cast<int64_t>(alpha));
      },
      addmv_ref(true)));

  auto baddbmm_ref = [](bool scaled) {
    return [scaled](const std::vector<Tensor>& in) {
      auto [beta, alpha] = scaled ? scales(in[0].dtype()) : std::pair{1.0, 1.0};
      return EinsumRef{"bnk,bkp->bnp", in[0].dtype(), alpha, beta,
                       &in[0]}(std::vector<Tensor>{in[1], in[2]});
    };
  };
  ops.push_back(product_op(
      "baddbmm", baddbmm_samples, [](const auto& in) { return baddbmm(in[0], in[1], in[2]); },
      baddbmm_ref(false)));
  ops.push_back(product_op(
      "baddbmm_scaled", baddbmm_samples,
      [](const auto& in) {
        auto [beta, alpha] = scales(in[0].dtype());
        return is_floating_point(in[0].dtype())
                   ? in[0].baddbmm(in[1], in[2], beta, alpha)
                   : in[0].baddbmm(in[1], in[2], static_cast<int64_t>(beta),
                                   static_cast<int64_t>(alpha));
      },
      baddbmm_ref(true)));
  return ops;
}

INSTANTIATE_TEST_SUITE_P(Matmul, OpTest, ::testing::ValuesIn(matmul_ops()), test::op_test_name);

using Shape = std::vector<int64_t>;

TEST(Matmul, ResultShapesFollowTorchMatmul) {
  auto shape = [](Shape a, Shape b) {
    return matmul(mk(a, kFloat32, 1), mk(b, kFloat32, 2)).sizes();
  };
  EXPECT_EQ(shape({5}, {5}), Shape{});
  EXPECT_EQ(shape({3, 5}, {5}), (Shape{3}));
  EXPECT_EQ(shape({5}, {5, 2}), (Shape{2}));
  EXPECT_EQ(shape({7, 1, 3, 5}, {4, 5, 2}), (Shape{7, 4, 3, 2}));
  EXPECT_EQ(shape({5}, {7, 4, 5, 2}), (Shape{7, 4, 2}));
  EXPECT_EQ(shape({7, 4, 3, 5}, {5}), (Shape{7, 4, 3}));
  EXPECT_EQ(shape({0, 3, 5}, {5, 2}), (Shape{0, 3, 2}));
}

TEST(Matmul, ResultIsFreshAndContiguous) {
  Tensor a = mk({3, 4}, kFloat32, 1), b = mk({4, 5}, kFloat32, 2);
  Tensor r = mm(a, b);
  EXPECT_TRUE(r.is_contiguous());
  EXPECT_FALSE(r.is_alias_of(a));
  EXPECT_FALSE(r.is_alias_of(b));
  Tensor d = dot(mk({4}, kFloat64, 3), mk({4}, kFloat64, 4));
  EXPECT_EQ(d.dim(), 0);
}

TEST(Matmul, BetaZeroIgnoresNanInSelf) {
  const double nan = std::nan("");
  for (ScalarType dt : {kFloat64, kFloat32, kFloat16, kBFloat16}) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor self = test::from_values({2, 2}, {nan, nan, INFINITY, nan}, dt);
    Tensor a = mk({2, 3}, dt, 1), b = mk({3, 2}, dt, 2);
    auto [rtol, atol] = test::tolerances(dt);
    Reference ref = EinsumRef{"nk,kp->np", dt, 2.0}({a, b});
    EXPECT_TRUE(test::close(addmm(self, a, b, 0, 2), ref.shape, ref.values, rtol, atol));
    EXPECT_TRUE(test::close(addmm(self, a, b, 0.0, 2.0), ref.shape, ref.values, rtol, atol));
    Reference refv = EinsumRef{"nk,k->n", dt}({a, b.select(1, 0)});
    EXPECT_TRUE(test::close(addmv(self.select(0, 0), a, b.select(1, 0), 0), refv.shape, refv.values,
                            rtol, atol));
    Tensor a3 = a.unsqueeze(0), b3 = b.unsqueeze(0);
    EXPECT_TRUE(
        test::close(baddbmm(self.unsqueeze(0), a3, b3, 0, 2), {1, 2, 2}, ref.values, rtol, atol));
    // k == 0: beta == 0 gives zeros, otherwise beta * self.
    Tensor e1 = mk({2, 0}, dt, 3), e2 = mk({0, 2}, dt, 4);
    EXPECT_TRUE(test::close(addmm(self, e1, e2, 0), {2, 2}, {0, 0, 0, 0}, 0, 0));
    Tensor finite = test::from_values({2, 2}, {1, -2, 3, 0.5}, dt);
    EXPECT_TRUE(test::close(addmm(finite, e1, e2, 2), {2, 2}, {2, -4, 6, 1}, 0, 0));
    // beta != 0 propagates NaN from self.
    auto vals = test::values(addmm(self, a, b, 1));
    EXPECT_TRUE(std::isnan(vals[0]));
  }
}

TEST(Matmul, IntegerProductsWrapAround) {
  Tensor a = test::from_values({1, 2}, {100, 27}, kInt8);
  Tensor b = test::from_values({2, 1}, {2, 1}, kInt8);
  EXPECT_EQ(mm(a, b).item<int64_t>(), static_cast<int8_t>(227));
  Tensor u = test::from_values({2}, {200, 100}, kUInt8);
  EXPECT_EQ(dot(u, test::from_values({2}, {1, 1}, kUInt8)).item<int64_t>(), 44);
  const double two62 = 4611686018427387904.0;  // 2^62
  Tensor l = test::from_values({1, 2}, {two62, 1}, kInt64);
  Tensor r = test::from_values({2, 1}, {2, 3}, kInt64);
  EXPECT_EQ(mm(l, r).item<int64_t>(), INT64_MIN + 3);
  Tensor i32 = test::from_values({2}, {65536, 65536}, kInt32);
  EXPECT_EQ(dot(i32, i32).item<int64_t>(), 0);  // 2 * 2^32 wraps to 0
}

TEST(Matmul, HalfPrecisionRoundsOnce) {
  // 1 + 2^-11 + 2^-11 is exact in float32 and rounds to 1 + 2^-10 in float16 once; rounding
  // after each partial sum would give 1.
  const double e = std::ldexp(1.0, -11);
  Tensor a = test::from_values({3}, {1, 1, 1}, kFloat16);
  Tensor b = test::from_values({3}, {1, e, e}, kFloat16);
  EXPECT_EQ(dot(a, b).item<double>(), 1 + 2 * e);
}

TEST(Matmul, SgemmProvidersAgree) {
  Tensor a = mk({64, 70}, kFloat32, 1), b = mk({70, 50}, kFloat32, 2);
  Reference ref = EinsumRef{"nk,kp->np", kFloat32}({a, b});
  for (auto p : {cpu::SgemmProvider::OneDNN, cpu::SgemmProvider::OpenBLAS}) {
    cpu::set_sgemm_provider(p);
    EXPECT_TRUE(test::close(mm(a, b), ref.shape, ref.values, 1e-5, 1e-4));
    Tensor at = a.t().contiguous().t(), bt = b.t().contiguous().t();
    EXPECT_TRUE(test::close(mm(at, bt), ref.shape, ref.values, 1e-5, 1e-4));
  }
  cpu::set_sgemm_provider(cpu::SgemmProvider::Auto);
}

// bfloat16: oneDNN's native bf16 matmul where the CPU has AVX-512 BF16 (Note [GEMM providers]),
// the float32 conversion otherwise (OpenBLAS forced); both round a float sum once.
TEST(Matmul, Bfloat16ProvidersAgree) {
  Tensor a = mk({64, 70}, kBFloat16, 3), b = mk({70, 50}, kBFloat16, 4);
  Reference ref = EinsumRef{"nk,kp->np", kBFloat16}({a, b});
  for (auto p : {cpu::SgemmProvider::Auto, cpu::SgemmProvider::OpenBLAS}) {
    cpu::set_sgemm_provider(p);
    EXPECT_TRUE(test::close(mm(a, b), ref.shape, ref.values, 1e-2, 8e-3));
    Tensor at = a.t().contiguous().t(), bt = b.t().contiguous().t();
    EXPECT_TRUE(test::close(mm(at, bt), ref.shape, ref.values, 1e-2, 8e-3));
    EXPECT_TRUE(test::close(mm(a, bt), ref.shape, ref.values, 1e-2, 8e-3));
  }
  cpu::set_sgemm_provider(cpu::SgemmProvider::Auto);
}

// Output buffers come uninitialised from the allocator: with beta == 0 no provider may read C.
TEST(Matmul, ProvidersDoNotReadCWhenBetaIsZero) {
  const int64_t m = 5, n = 6, k = 7;
  std::vector<float> a(m * k, 1.0f), b(k * n, 2.0f);
  for (auto p : {cpu::SgemmProvider::OneDNN, cpu::SgemmProvider::OpenBLAS}) {
    cpu::set_sgemm_provider(p);
    std::vector<float> c(m * n, std::nanf(""));
    cpu::gemm(false, false, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n);
    for (float v : c) EXPECT_EQ(v, 14.0f);
  }
  cpu::set_sgemm_provider(cpu::SgemmProvider::Auto);
  std::vector<double> da(m * k, 1.0), db(k * n, 2.0), dc(m * n, std::nan(""));
  cpu::gemm(false, true, m, n, k, 1.0, da.data(), k, db.data(), k, 0.0, dc.data(), n);
  for (double v : dc) EXPECT_EQ(v, 14.0);
  std::vector<Half> ha(m * k, Half(1.0f)), hb(k * n, Half(2.0f)), hc(m * n, Half(std::nanf("")));
  cpu::gemm(true, false, m, n, k, 1.0f, ha.data(), m, hb.data(), n, 0.0f, hc.data(), n);
  for (Half v : hc) EXPECT_EQ(static_cast<float>(v), 14.0f);
}

TEST(MatmulErrors, MessagesFollowPyTorch) {
  Tensor m23 = mk({2, 3}, kFloat32, 1), m45 = mk({4, 5}, kFloat32, 2);
  Tensor m34 = mk({3, 4}, kFloat32, 3), d34 = mk({3, 4}, kFloat64, 4);
  Tensor v3 = mk({3}, kFloat32, 5), v4 = mk({4}, kFloat32, 6), s = mk({}, kFloat32, 7);
  Tensor b234 = mk({2, 3, 4}, kFloat32, 8), b345 = mk({3, 4, 5}, kFloat32, 9);
  test::expect_errors<RuntimeError>({
      {"matmul 0-d", [&] { matmul(s, m23); },
       "[matmul] both arguments to matmul need to be at least 1D, but they are 0D and 2D"},
      {"matmul 0-d rhs", [&] { matmul(v3, s); }, "they are 1D and 0D"},
      {"matmul shapes", [&] { matmul(m23, m45); },
       "[matmul] mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"},
      {"matmul 1d.2d shapes", [&] { matmul(v4, m34); },
       "[matmul] mat1 and mat2 shapes cannot be multiplied (1x4 and 3x4)"},
      {"matmul dot sizes", [&] { matmul(v3, v4); }, "[matmul] inconsistent tensor size"},
      {"matmul mv sizes", [&] { matmul(m23, v4); },
       "[matmul] size mismatch, got input (2), mat (2x3), vec (4)"},
      {"matmul batch broadcast", [&] { matmul(b234, b345); },
       "[matmul] The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
       "dimension 0"},
      {"matmul batched inner",
       [&] {
         matmul(b234, mk({2, 3, 5}, kFloat32, 10));
       },
       "[matmul] Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: "
       "[2, 3]."},
      {"matmul dtype", [&] { matmul(m34.t(), d34); },
       "[matmul] expected m1 and m2 to have the same dtype, but got: float != double"},
      {"matmul dot dtype", [&] { matmul(v3, mk({3}, kFloat64, 11)); },
       "[matmul] dot : expected both vectors to have same dtype, but found Float and Double"},
      {"mm shapes", [&] { mm(m23, m45); },
       "[mm] mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"},
      {"mm self not matrix", [&] { mm(v3, m34); }, "[mm] self must be a matrix"},
      {"mm mat2 not matrix", [&] { mm(m34, b234); }, "[mm] mat2 must be a matrix"},
      {"mm dtype", [&] { mm(m23, d34); },
       "[mm] expected m1 and m2 to have the same dtype, but got: float != double"},
      {"mm dtype half",
       [&] {
         mm(mk({2, 2}, kFloat16, 1), mk({2, 2}, kInt64, 2));
       },
       "got: c10::Half != long int"},
      {"bmm batches",
       [&] {
         bmm(b234, mk({3, 4, 5}, kFloat32, 12));
       },
       "[bmm] batch1 and batch2 must have same number of batches, got 2 and 3"},
      {"bmm 3d", [&] { bmm(m23, b234); }, "[bmm] batch1 must be a 3D tensor"},
      {"bmm 3d batch2", [&] { bmm(b234, m45); }, "[bmm] batch2 must be a 3D tensor"},
      {"bmm inner",
       [&] {
         bmm(b234, mk({2, 5, 3}, kFloat32, 13));
       },
       "[bmm] Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: "
       "[2, 5]."},
      {"bmm dtype",
       [&] {
         bmm(b234, mk({2, 4, 5}, kFloat64, 14));
       },
       "[bmm] expected scalar type Float but found Double"},
      {"mv dims", [&] { mv(v3, v3); }, "[mv] vector + matrix @ vector expected, got 1, 1, 1"},
      {"mv sizes", [&] { mv(m23, v4); }, "[mv] size mismatch, got input (2), mat (2x3), vec (4)"},
      {"mv dtype", [&] { mv(m23, mk({3}, kFloat64, 15)); },
       "[mv] addmv input tensors must have the same dtype, but got Double, Float, and Double"},
      {"dot dims", [&] { dot(m23, v3); }, "[dot] 1D tensors expected, but got 2D and 1D tensors"},
      {"dot dtype", [&] { dot(v3, mk({3}, kFloat64, 16)); },
       "[dot] dot : expected both vectors to have same dtype, but found Float and Double"},
      {"dot sizes", [&] { dot(v3, v4); },
       "[dot] inconsistent tensor size, expected tensor [3] and src [4] to have the same number "
       "of elements, but got 3 and 4 elements respectively"},
      {"vdot sizes", [&] { vdot(v3, v4); }, "[vdot] inconsistent tensor size"},
      {"outer 2-d", [&] { outer(m23, v3); },
       "[outer] outer: Expected 1-D argument self, but got 2-D"},
      {"outer 0-d vec2", [&] { outer(v3, s); },
       "[outer] outer: Expected 1-D argument vec2, but got 0-D"},
      {"addmm self shape",
       [&] {
         addmm(v4, m23, mk({3, 5}, kFloat32, 17));
       },
       "[addmm] The expanded size of the tensor (5) must match the existing size (4) at "
       "non-singleton dimension 1.  Target sizes: [2, 5].  Tensor sizes: [4]"},
      {"addmm self dtype",
       [&] {
         addmm(mk({2, 4}, kFloat64, 18), m23, m34);
       },
       "[addmm] self and mat2 must have the same dtype, but got Double and Float"},
      {"addmm mats dtype",
       [&] {
         addmm(mk({3, 4}, kFloat64, 18), m34.t(), d34);
       },
       "[addmm] mat1 and mat2 must have the same dtype, but got Float and Double"},
      {"addmm mat1 dims", [&] { addmm(m34, v3, m34); },
       "[addmm] mat1 must be a matrix, got 1-D tensor"},
      {"addmm shapes", [&] { addmm(m23, m23, m45); },
       "[addmm] mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"},
      {"addmv dims", [&] { addmv(m23, m23, v3); },
       "[addmv] vector + matrix @ vector expected, got 2, 2, 1"},
      {"addmv sizes", [&] { addmv(v3, m23, v3); },
       "[addmv] size mismatch, got input (3), mat (2x3), vec (3)"},
      {"addmv dtype", [&] { addmv(mk({2}, kFloat64, 19), m23, v3); },
       "[addmv] addmv input tensors must have the same dtype, but got Double, Float, and Float"},
      {"baddbmm dims", [&] { baddbmm(b234, m23, b234); }, "[baddbmm] batch1 must be a 3D tensor"},
      {"baddbmm dtype",
       [&] {
         baddbmm(mk({2, 3, 5}, kFloat64, 20), b234, b345);
       },
       "[baddbmm] Input dtypes must be the same, got: input double, batch1: float, batch2: float"},
      {"baddbmm batch2", [&] { baddbmm(b234, b234, b345); },
       "[baddbmm] Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: "
       "[3, 4]."},
      {"baddbmm self",
       [&] {
         baddbmm(mk({2, 3, 4}, kFloat32, 21), b234, mk({2, 4, 5}, kFloat32, 22));
       },
       "[baddbmm] The expanded size of the tensor (5) must match the existing size (4)"},
      {"undefined", [&] { matmul(Tensor(), m23); }, "[matmul] argument 'input' is an undefined"},
  });
  test::expect_errors<TypeError>({
      {"mm bool",
       [&] {
         mm(mk({2, 2}, kBool, 1), mk({2, 2}, kBool, 2));
       },
       "[mm] \"addmm_impl_cpu_\" not implemented for 'Bool'"},
      {"bmm bool",
       [&] {
         bmm(mk({1, 2, 2}, kBool, 1), mk({1, 2, 2}, kBool, 2));
       },
       "[bmm] \"bmm\" not implemented for 'Bool'"},
      {"dot bool", [&] { dot(mk({2}, kBool, 1), mk({2}, kBool, 2)); },
       "[dot] \"dot\" not implemented for 'Bool'"},
      {"addmm bool",
       [&] {
         addmm(mk({2, 2}, kBool, 0), mk({2, 2}, kBool, 1), mk({2, 2}, kBool, 2));
       },
       "[addmm] \"addmm_impl_cpu_\" not implemented for 'Bool'"},
  });
}

// Informational: a 1024^3 float32 product per provider (run with
// --gtest_also_run_disabled_tests --gtest_filter='MatmulBench*').
TEST(MatmulBench, DISABLED_Sgemm1024) {
  set_num_threads(2);
  Tensor a = mk({1024, 1024}, kFloat32, 1), b = mk({1024, 1024}, kFloat32, 2);
  for (auto p : {cpu::SgemmProvider::OneDNN, cpu::SgemmProvider::OpenBLAS}) {
    cpu::set_sgemm_provider(p);
    mm(a, b);  // warm-up: page faults, provider initialisation
    auto t0 = std::chrono::steady_clock::now();
    mm(a, b);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s: %.2f ms, %.1f GFLOP/s\n",
                p == cpu::SgemmProvider::OneDNN ? "oneDNN  " : "OpenBLAS", s * 1e3,
                2.0 * 1024 * 1024 * 1024 / s / 1e9);
  }
  cpu::set_sgemm_provider(cpu::SgemmProvider::Auto);
}

}  // namespace
