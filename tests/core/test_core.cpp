#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "ops/util.h"

using namespace ember;

TEST(DType, PromoteTypesTable) {
  // Rows from PyTorch's documented torch.promote_types results.
  struct Row { ScalarType a, b, r; };
  const Row rows[] = {
      {kBool, kBool, kBool},        {kBool, kUInt8, kUInt8},     {kUInt8, kInt8, kInt16},
      {kUInt8, kInt16, kInt16},     {kInt8, kInt64, kInt64},     {kInt32, kFloat16, kFloat16},
      {kFloat16, kBFloat16, kFloat32}, {kBFloat16, kFloat32, kFloat32}, {kInt64, kFloat32, kFloat32},
      {kFloat32, kFloat64, kFloat64}, {kBool, kFloat64, kFloat64}, {kUInt8, kInt64, kInt64},
      {kBFloat16, kInt64, kBFloat16}, {kInt16, kInt32, kInt32},
  };
  for (const auto& r : rows) {
    EXPECT_EQ(promote_types(r.a, r.b), r.r) << dtype_name(r.a) << " + " << dtype_name(r.b);
    EXPECT_EQ(promote_types(r.b, r.a), r.r) << dtype_name(r.b) << " + " << dtype_name(r.a);
  }
  EXPECT_THROW(promote_types(kFloat32, kComplexFloat), TypeError);
}

TEST(Half, RoundTripAndRounding) {
  // Every finite half value converts to float and back unchanged.
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    Half h(static_cast<uint16_t>(bits), Half::from_bits_t{});
    float f = h;
    if (std::isnan(f)) continue;
    EXPECT_EQ(Half(f).x, h.x) << bits;
  }
  EXPECT_EQ(Half(65520.0f).x, 0x7c00u);  // rounds to inf
  EXPECT_EQ(static_cast<float>(Half(1.0f + 1.0f / 2048)), 1.0f);  // ties to even
  EXPECT_EQ(static_cast<float>(BFloat16(1.0f + 1.0f / 256)), 1.0f);
  EXPECT_EQ(static_cast<float>(BFloat16(3.0f)), 3.0f);
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(NAN))));
}

TEST(Device, Parse) {
  EXPECT_TRUE(Device("cpu").is_cpu());
  Device d("cuda:0");
  EXPECT_TRUE(d.is_cuda());
  EXPECT_EQ(d.index(), 0);
  EXPECT_THROW(Device("tpu"), RuntimeError);
  EXPECT_THROW(Device("cuda:x"), RuntimeError);
  EXPECT_THROW(check_device_available(d, "empty"), NotImplementedError);
}

TEST(Allocator, StatsTrackLiveBytes) {
  reset_peak_memory_stats();
  auto before = memory_stats();
  {
    Tensor t = ops::empty_tensor({1024, 256}, kFloat32);
    auto during = memory_stats();
    EXPECT_GE(during.allocated - before.allocated, 1024 * 256 * 4);
    EXPECT_GE(during.peak_allocated, during.allocated);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % 64, 0u);
  }
  auto after = memory_stats();
  EXPECT_EQ(after.allocated, before.allocated);
  EXPECT_GE(after.reserved, after.allocated);
}

TEST(Tensor, CopyConvertsAndBroadcasts) {
  Tensor a = ops::empty_tensor({2, 3}, kFloat32);
  a.fill_(2.5);
  Tensor b = a.to(kInt32);
  EXPECT_EQ(b.dtype(), kInt32);
  EXPECT_EQ(b.tolist<int32_t>(), std::vector<int32_t>(6, 2));
  Tensor row = ops::empty_tensor({3}, kFloat64);
  row.fill_(-1);
  a.copy_(row);
  EXPECT_EQ(a.tolist<float>(), std::vector<float>(6, -1.0f));
  EXPECT_EQ(a._version(), 2u);
  Tensor wrong = ops::empty_tensor({4}, kFloat64);
  EXPECT_THROW(a.copy_(wrong), RuntimeError);
  EXPECT_THROW(a.item<float>(), RuntimeError);
  EXPECT_THROW(a.data_ptr<double>(), TypeError);
}

TEST(Tensor, FillRejectsValuesThatOverflowTheDtype) {
  // PyTorch: "value cannot be converted to type at::Half without overflow".
  Tensor h = ops::empty_tensor({3}, kFloat16);
  EXPECT_THROW(h.fill_(1e300), RuntimeError);
  Tensor i8 = ops::empty_tensor({3}, kInt8);
  EXPECT_THROW(i8.fill_(300), RuntimeError);
  i8.fill_(-128);
  EXPECT_EQ(i8.tolist<int8_t>(), std::vector<int8_t>(3, -128));
  h.fill_(std::numeric_limits<double>::infinity());  // inf and nan are representable
  EXPECT_TRUE(std::isinf(static_cast<float>(h.tolist<Half>()[0])));
  try {
    i8.fill_(1000);
    ADD_FAILURE() << "fill_(1000) on int8 did not throw";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("[fill_]"), std::string::npos) << e.what();
  }
}

// Note [Version counters]: a tensor's counter lives in its storage, so every tensor on that
// storage sees the others' writes; set_data moves a tensor to another storage with a counter of
// its own that keeps the value, and does not keep the old storage alive.
TEST(Tensor, VersionCounterLivesInTheStorage) {
  Tensor a = ops::empty_tensor({4}, kFloat32);
  TensorImpl* ai = a.unsafeGetTensorImpl();
  // A second tensor built by hand on a's storage (no view op in between).
  auto alias = std::make_shared<TensorImpl>(ai->storage(), kFloat32, std::vector<int64_t>{2},
                                            std::vector<int64_t>{1}, 2);
  const uint32_t v0 = a._version();
  a.fill_(1.0);
  EXPECT_EQ(a._version(), v0 + 1);
  EXPECT_EQ(alias->version(), v0 + 1) << "a tensor on the same storage sees the write";

  int freed = 0;
  float buf[3] = {1, 2, 3};
  Tensor b = from_blob(buf, {3}, [&](void*) { ++freed; });
  b.fill_(0.0);
  b.fill_(5.0);
  ASSERT_EQ(b._version(), 2u);
  Tensor other = ops::empty_tensor({3}, kFloat32);
  const uint32_t other_v = other._version();
  b.unsafeGetTensorImpl()->set_data(*other.unsafeGetTensorImpl());
  EXPECT_EQ(freed, 1) << "set_data kept the old storage alive through its version counter";
  EXPECT_EQ(b._version(), 2u) << "set_data keeps the tensor's version";
  b.fill_(7.0);
  EXPECT_EQ(b._version(), 3u);
  EXPECT_EQ(other._version(), other_v) << "the moved tensor's counter is its own";
  EXPECT_EQ(other.tolist<float>(), std::vector<float>(3, 7.0f));  // the data is shared
}
