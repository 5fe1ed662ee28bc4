// Note [Meta device] and Note [Backend]: tensors with metadata and no data; ops run on them by
// inference alone. Expected shapes are PyTorch's results for the same calls on device="meta".
#include <gtest/gtest.h>

#include "ember/ember.h"

namespace ember::test {
namespace {

const TensorOptions kOnMeta = TensorOptions().device(kMeta);

void expect_meta(const Tensor& t, const std::vector<int64_t>& sizes, ScalarType dtype) {
  EXPECT_TRUE(t.device().is_meta()) << t.device();
  EXPECT_EQ(t.sizes(), sizes);
  EXPECT_EQ(t.dtype(), dtype);
}

TEST(MetaDevice, DeviceSpelling) {
  const Device d("meta");
  EXPECT_TRUE(d.is_meta());
  EXPECT_FALSE(d.is_cpu());
  EXPECT_EQ(d.str(), "meta");
  EXPECT_EQ(Device(kMeta).str(), "meta");
  try {
    Device bad("tpu");
    ADD_FAILURE() << "no error";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("cpu, cuda, meta"), std::string::npos) << e.what();
  }
}

TEST(MetaDevice, FactoriesAllocateNoData) {
  const Tensor e = empty({2, 3}, kOnMeta);
  expect_meta(e, {2, 3}, kFloat32);
  EXPECT_EQ(e.strides(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(e.unsafeGetTensorImpl()->storage()->data(), nullptr);
  EXPECT_EQ(e.unsafeGetTensorImpl()->storage()->nbytes(), 24u);  // its size, not allocated
  expect_meta(empty({1 << 20, 1 << 20}, kMeta), {1 << 20, 1 << 20}, kFloat32);  // libtorch's form
  // A size no machine could hold is fine: nothing is allocated.
  expect_meta(zeros({1 << 20, 1 << 20, 1 << 10}, kOnMeta), {1 << 20, 1 << 20, 1 << 10}, kFloat32);
  expect_meta(ones({4}, kOnMeta.dtype(kInt64)), {4}, kInt64);
  expect_meta(full({2}, 7, kOnMeta), {2}, kInt64);  // an integer fill value: int64
  expect_meta(arange(0, 10, 3, kOnMeta), {4}, kInt64);
  expect_meta(linspace(0, 1, 5, kOnMeta), {5}, kFloat32);
  expect_meta(eye(3, kOnMeta), {3, 3}, kFloat32);
  expect_meta(rand({2, 5}, kOnMeta), {2, 5}, kFloat32);
  expect_meta(randint(0, 4, {3}, kOnMeta), {3}, kInt64);
  expect_meta(ember::tensor({1.0, 2.0}, kOnMeta), {2}, kFloat32);
  const Tensor t = ones({3, 4}).t();
  expect_meta(empty_like(t, kOnMeta), {4, 3}, kFloat32);
  EXPECT_EQ(empty_like(t, kOnMeta).strides(), (std::vector<int64_t>{1, 4}));  // preserve_format
  expect_meta(zeros_like(e), {2, 3}, kFloat32);  // *_like keeps the device
  expect_meta(empty_strided({2, 2}, {1, 2}, kOnMeta), {2, 2}, kFloat32);
}

TEST(MetaDevice, OpsRunByInference) {
  const Tensor a = empty({4, 1, 3}, kOnMeta), b = empty({5, 1}, kOnMeta.dtype(kFloat64));
  expect_meta(a + b, {4, 5, 3}, kFloat64);  // broadcast and type promotion
  expect_meta(a * 2, {4, 1, 3}, kFloat32);  // a CPU scalar joins the meta tensor
  expect_meta(a < b, {4, 5, 3}, kBool);
  expect_meta(a.exp(), {4, 1, 3}, kFloat32);
  expect_meta(empty({3}, kOnMeta.dtype(kInt32)).sin(), {3}, kFloat32);  // int -> float
  expect_meta(a.sum(-1), {4, 1}, kFloat32);
  expect_meta(a.sum({0, 2}, true), {1, 1, 1}, kFloat32);
  expect_meta(empty({2, 3}, kOnMeta.dtype(kInt32)).sum(), {}, kInt64);
  expect_meta(a.softmax(2), {4, 1, 3}, kFloat32);
  expect_meta(a.cumsum(0), {4, 1, 3}, kFloat32);
  const Tensor m = empty({7, 4, 5}, kOnMeta), n = empty({5, 6}, kOnMeta);
  expect_meta(m.matmul(n), {7, 4, 6}, kFloat32);
  expect_meta(where(a > 0, a, b), {4, 5, 3}, kFloat64);
  expect_meta(a.clamp(0, 1), {4, 1, 3}, kFloat32);
  expect_meta(a.flip({0}), {4, 1, 3}, kFloat32);
  expect_meta(a.repeat({2, 3, 1, 1}), {2, 12, 1, 3}, kFloat32);
  // Views share the meta storage.
  expect_meta(m.transpose(0, 2), {5, 4, 7}, kFloat32);
  expect_meta(m.view({28, 5}), {28, 5}, kFloat32);
  expect_meta(m.select(1, 2), {7, 5}, kFloat32);
  // In place keeps the tensor and bumps its version.
  Tensor x = empty({2, 2}, kOnMeta);
  const uint32_t v = x._version();
  x.add_(1);
  EXPECT_EQ(x._version(), v + 1);
  expect_meta(x, {2, 2}, kFloat32);
}

// In place on meta: an operand that aliases self, and a result dtype that differs from self's
// (computed into a temporary, which must be on meta too, then copied into self).
TEST(MetaDevice, InPlaceReadsNoData) {
  Tensor x = empty({2, 3}, kOnMeta);
  const uint32_t v = x._version();
  EXPECT_TRUE(x.add_(x).is_same(x));
  EXPECT_TRUE(x.mul_(x.t().t()).is_same(x));
  EXPECT_TRUE(x.lt_(empty({3}, kOnMeta)).is_same(x));  // bool result, float self
  EXPECT_EQ(x._version(), v + 3);
  expect_meta(x, {2, 3}, kFloat32);
}

TEST(MetaDevice, ConversionsAndModules) {
  const Tensor c = ember::tensor({{1.0, 2.0}, {3.0, 4.0}});
  const Tensor m = c.to(kMeta);
  expect_meta(m, {2, 2}, kFloat32);
  expect_meta(c.to(Device(kMeta), kFloat64), {2, 2}, kFloat64);
  expect_meta(m.to(kInt64), {2, 2}, kInt64);
  EXPECT_TRUE(c.to(kCPU).is_same(c));  // same device and dtype: the tensor itself

  nn::Linear lin(3, 2);
  lin->to(Device(kMeta));
  expect_meta(lin->weight, {2, 3}, kFloat32);
  expect_meta(lin->bias, {2}, kFloat32);
  expect_meta(lin->forward(empty({5, 3}, kOnMeta)), {5, 2}, kFloat32);
}

TEST(MetaDevice, PrintsWithoutData) {
  EXPECT_EQ(empty({2, 3}, kOnMeta).toString(), "tensor(..., device='meta', size=(2, 3))");
  EXPECT_EQ(empty({4}, kOnMeta.dtype(kInt64)).toString(),
            "tensor(..., device='meta', size=(4,), dtype=torch.int64)");
}

TEST(MetaDevice, Errors) {
  const Tensor m = empty({2}, kOnMeta);
  try {
    (void)m.data_ptr<float>();
    ADD_FAILURE() << "data_ptr: no error";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("[data_ptr] Cannot access data pointer"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)empty({}, kOnMeta).item<float>(), RuntimeError);
  try {
    (void)m.to(kCPU);
    ADD_FAILURE() << "to(cpu): no error";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("[to] Cannot copy out of meta tensor"), std::string::npos)
        << e.what();
  }
  // A meta tensor with a CPU tensor of one or more dims: PyTorch's device mismatch error.
  try {
    (void)(m + ones({2}));
    ADD_FAILURE() << "mixed devices: no error";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("Expected all tensors to be on the same device, but found "
                                         "at least two devices, meta and cpu!"),
              std::string::npos)
        << e.what();
  }
  float buf[2] = {1, 2};
  EXPECT_THROW(from_blob(buf, {2}, kOnMeta), ValueError);
}

}  // namespace
}  // namespace ember::test
