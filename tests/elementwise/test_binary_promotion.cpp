// Type promotion of the binary ops against PyTorch's documented results: torch.promote_types for
// every pair of tensor dtypes, and the category rules for 0-d tensors and wrapped numbers.
#include "elementwise/binary_test_util.h"

namespace ember::test {
namespace {

// c10's promotion lookup table (torch.promote_types), written out for the ten dtypes.
ScalarType promote_ref(ScalarType a, ScalarType b) {
  constexpr ScalarType u1 = kUInt8, i1 = kInt8, i2 = kInt16, i4 = kInt32, i8 = kInt64,
                       f2 = kFloat16, f4 = kFloat32, f8 = kFloat64, b1 = kBool, bf = kBFloat16;
  const ScalarType order[] = {u1, i1, i2, i4, i8, f2, f4, f8, b1, bf};
  static const ScalarType table[10][10] = {
      /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, u1, bf},
      /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, i1, bf},
      /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, i2, bf},
      /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, i4, bf},
      /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, i8, bf},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, f2, f4},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, f4, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
      /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, b1, bf},
      /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, bf, bf},
  };
  auto pos = [&](ScalarType t) { return std::find(std::begin(order), std::end(order), t) - order; };
  return table[pos(a)][pos(b)];
}

Tensor t1(ScalarType dt) { return make_tensor({3}, dt, 1, 3); }
Tensor t0(ScalarType dt) { return make_tensor({}, dt, 1, 3); }

TEST(BinaryPromotion, TensorTensorAllPairsMatchPromoteTypes) {
  for (ScalarType a : all_dtypes()) {
    for (ScalarType b : all_dtypes()) {
      SCOPED_TRACE(std::string(dtype_name(a)) + " op " + dtype_name(b));
      const ScalarType want = promote_ref(a, b);
      EXPECT_EQ(result_type(t1(a), t1(b)), want);
      EXPECT_EQ(ember::mul(t1(a), t1(b)).dtype(), want);
      EXPECT_EQ(ember::maximum(t1(a), t1(b)).dtype(), want);
      // Two 0-d tensors are one category too.
      EXPECT_EQ(result_type(t0(a), t0(b)), want);
      EXPECT_EQ(ember::eq(t1(a), t1(b)).dtype(), kBool);
      EXPECT_EQ(ember::div(t1(a), t1(b)).dtype(), is_floating_point(want) ? want : kFloat32);
    }
  }
}

TEST(BinaryPromotion, DocumentedCategoryCases) {
  struct Row {
    const char* desc;
    Tensor a, b;
    ScalarType want;
  };
  const Row rows[] = {
      // From the type promotion docs (torch.result_type / "Type promotion" note).
      {"int_tensor + 5", t1(kInt32), ops::wrapped_scalar(5), kInt32},
      {"int_tensor + long_zerodim", t1(kInt32), t0(kInt64), kInt32},
      {"long_tensor + int_tensor", t1(kInt64), t1(kInt32), kInt64},
      {"bool_tensor + long_tensor", t1(kBool), t1(kInt64), kInt64},
      {"bool_tensor + uint_tensor", t1(kBool), t1(kUInt8), kUInt8},
      {"float_tensor + double_tensor", t1(kFloat32), t1(kFloat64), kFloat64},
      {"bool_tensor + int_tensor", t1(kBool), t1(kInt32), kInt32},
      {"long_tensor + float_tensor", t1(kInt64), t1(kFloat32), kFloat32},
      {"int8 tensor + 5", t1(kInt8), ops::wrapped_scalar(5), kInt8},
      {"int32 tensor + 2.5", t1(kInt32), ops::wrapped_scalar(2.5), kFloat32},
      {"float16 tensor + 2.5", t1(kFloat16), ops::wrapped_scalar(2.5), kFloat16},
      {"uint8 tensor + int64 0-d", t1(kUInt8), t0(kInt64), kUInt8},
      {"bool tensor + 1", t1(kBool), ops::wrapped_scalar(1), kInt64},
      {"bool tensor + True", t1(kBool), ops::wrapped_scalar(true), kBool},
      {"bool tensor + 2.5", t1(kBool), ops::wrapped_scalar(2.5), kFloat32},
      // A 0-d tensor of a higher kind decides with its own dtype (it is not a Python number).
      {"int32 tensor + float64 0-d", t1(kInt32), t0(kFloat64), kFloat64},
      {"float16 tensor + float64 0-d", t1(kFloat16), t0(kFloat64), kFloat16},
      {"float32 tensor + float64 0-d", t1(kFloat32), t0(kFloat64), kFloat32},
      {"bfloat16 tensor + float16 0-d", t1(kBFloat16), t0(kFloat16), kBFloat16},
      {"int8 tensor + int64 0-d", t1(kInt8), t0(kInt64), kInt8},
      {"bool tensor + int8 0-d", t1(kBool), t0(kInt8), kInt8},
      {"0-d int32 + 0-d float64", t0(kInt32), t0(kFloat64), kFloat64},
      {"0-d int32 + 2.5", t0(kInt32), ops::wrapped_scalar(2.5), kFloat32},
      {"0-d uint8 + 1000", t0(kUInt8), ops::wrapped_scalar(1000), kUInt8},
      {"0-d float64 + 2.5", t0(kFloat64), ops::wrapped_scalar(2.5), kFloat64},
      {"0-d int16 + int64 1-d", t0(kInt16), t1(kInt64), kInt64},
      {"0-d float64 + float16 1-d", t0(kFloat64), t1(kFloat16), kFloat16},
      {"5 + 2.5 (both numbers)", ops::wrapped_scalar(5), ops::wrapped_scalar(2.5), kFloat32},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(result_type(r.a, r.b), r.want) << r.desc;
    EXPECT_EQ(result_type(r.b, r.a), r.want) << r.desc << " (swapped)";
    EXPECT_EQ(ember::add(r.a, r.b).dtype(), r.want) << r.desc;
  }
  // The Scalar overload and the operators treat C++ numbers as Python numbers.
  EXPECT_EQ(result_type(t1(kInt8), Scalar(5)), kInt8);
  EXPECT_EQ(result_type(t1(kInt32), Scalar(2.5)), kFloat32);
  EXPECT_EQ(result_type(t1(kBool), Scalar(1)), kInt64);
  EXPECT_EQ((t1(kInt8) + 5).dtype(), kInt8);
  EXPECT_EQ((t1(kInt32) * 2.5).dtype(), kFloat32);
  EXPECT_EQ((2.5 * t1(kFloat16)).dtype(), kFloat16);
  EXPECT_EQ((t1(kBool) + 1).dtype(), kInt64);
  EXPECT_EQ((t1(kUInt8) + t0(kInt64)).dtype(), kUInt8);
  EXPECT_EQ((3 - t1(kInt16)).dtype(), kInt16);
}

TEST(BinaryPromotion, WrappedFloatsFollowTheDefaultDtype) {
  set_default_dtype(kFloat64);
  EXPECT_EQ(result_type(t1(kInt32), Scalar(2.5)), kFloat64);
  EXPECT_EQ(ember::div(t1(kInt32), t1(kInt32)).dtype(), kFloat64);
  EXPECT_EQ(result_type(t1(kFloat32), Scalar(2.5)), kFloat32);
  set_default_dtype(kFloat32);
  EXPECT_EQ(result_type(t1(kInt32), Scalar(2.5)), kFloat32);
}

TEST(BinaryPromotion, CanCast) {
  for (ScalarType from : all_dtypes()) {
    for (ScalarType to : all_dtypes()) {
      // torch.can_cast: no float -> integral (bool included), no non-bool -> bool.
      bool want =
          !(is_floating_point(from) && !is_floating_point(to)) && !(from != kBool && to == kBool);
      EXPECT_EQ(can_cast(from, to), want) << dtype_name(from) << " -> " << dtype_name(to);
    }
  }
  EXPECT_TRUE(can_cast(kFloat64, kFloat16));
  EXPECT_TRUE(can_cast(kInt64, kUInt8));
  EXPECT_FALSE(can_cast(kFloat32, kInt32));
  EXPECT_FALSE(can_cast(kInt32, kBool));
}

TEST(BinaryPromotion, MixedDtypesComputeInThePromotedType) {
  // int64 tensor * 0.5 computes in float32, not int64 (which would give 0).
  Tensor a = from_values({3}, {1, 2, 3}, kInt64);
  Tensor r = a * 0.5;
  EXPECT_EQ(r.dtype(), kFloat32);
  EXPECT_EQ(values(r), (std::vector<double>{0.5, 1, 1.5}));
  // uint8 + int8 -> int16: 200 + (-100) = 100, no uint8 wrap.
  Tensor u = from_values({1}, {200}, kUInt8), s = from_values({1}, {-100}, kInt8);
  EXPECT_EQ(values(u + s), std::vector<double>{100});
  EXPECT_EQ((u + s).dtype(), kInt16);
  // uint8 + 100 stays uint8 and wraps: 200 + 100 = 44.
  EXPECT_EQ(values(u + 100), std::vector<double>{44});
  // Comparisons compare in the promoted type: int 1 vs 1.5 -> not equal.
  EXPECT_EQ(values(ember::eq(from_values({2}, {1, 2}, kInt32), 1.5)), (std::vector<double>{0, 0}));
  EXPECT_EQ(values(ember::lt(from_values({2}, {1, 2}, kInt32), 1.5)), (std::vector<double>{1, 0}));
  // float16 + float64 0-d: computed in float16 (2049 rounds to 2048 in half).
  Tensor h = from_values({1}, {2048}, kFloat16);
  EXPECT_EQ(values(h + from_values({}, {1}, kFloat64)), std::vector<double>{2048});
}

}  // namespace
}  // namespace ember::test
