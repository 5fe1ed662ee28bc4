// Note [Backend] and Note [Allocators]: the CPU backend's kernel table covers every primitive
// kind, and storages take their memory from the allocator registered for their device.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <vector>

#include "backend/cpu/kernels.h"
#include "dispatch/backend.h"
#include "ember/ember.h"

namespace ember::test {
namespace {

TEST(Backend, CpuHasAKernelForEveryKind) {
  const Backend& cpu = backend_for(kCPU, "test");
  EXPECT_EQ(cpu.device(), kCPU);
  ASSERT_FALSE(all_primitive_kinds().empty());
  for (PrimitiveKind kind : all_primitive_kinds()) {
    EXPECT_NE(cpu::kernel_for(kind), nullptr) << primitive_kind_name(kind);
    EXPECT_TRUE(cpu.supports(*make_primitive(kind))) << primitive_kind_name(kind);
  }
  EXPECT_EQ(cpu::kernel_for(static_cast<PrimitiveKind>(255)), nullptr);
}

TEST(Backend, DevicesWithoutABackendRaise) {
  EXPECT_THROW(backend_for(Device(kCUDA, 0), "test"), NotImplementedError);
  EXPECT_EQ(backend_for(kMeta, "test").allocator(), nullptr);
  EXPECT_EQ(backend_for(kCPU, "test").allocator(), get_allocator(kCPU));
  EXPECT_EQ(get_allocator(kCUDA), nullptr);
}

// Counts what passes through it and serves from malloc.
class CountingAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes) override {
    void* p = std::malloc(nbytes == 0 ? 1 : nbytes);
    live[p] = nbytes;
    ++allocations;
    return p;
  }
  void deallocate(void* p, size_t nbytes) override {
    auto it = live.find(p);
    ASSERT_NE(it, live.end());
    EXPECT_EQ(it->second, nbytes);  // given back with the size it was allocated with
    live.erase(it);
    std::free(p);
  }
  std::map<void*, size_t> live;
  int allocations = 0;
};

// Registers an allocator for the CPU for its lifetime, then restores the previous one.
struct AllocatorScope {
  explicit AllocatorScope(Allocator* a) : previous(get_allocator(kCPU)) { set_allocator(kCPU, a); }
  ~AllocatorScope() { set_allocator(kCPU, previous); }
  Allocator* previous;
};

TEST(Backend, StoragesUseTheirDevicesAllocator) {
  CountingAllocator counting;
  Tensor kept = ones({2, 3});  // from the caching allocator: freed there after the swap
  {
    AllocatorScope scope(&counting);
    EXPECT_EQ(backend_for(kCPU, "test").allocator(), &counting);
    Tensor a = ones({4, 5});
    Tensor b = (a * 2 + kept.sum()).sum(0);
    EXPECT_EQ(a.unsafeGetTensorImpl()->storage()->allocator(), &counting);
    EXPECT_TRUE(a.unsafeGetTensorImpl()->storage()->owned());
    EXPECT_GE(counting.allocations, 3);
    EXPECT_EQ(counting.live.count(a.data_ptr()), 1u);
    EXPECT_EQ(counting.live[a.data_ptr()], 4u * 5u * sizeof(float));
    EXPECT_FLOAT_EQ(b[0].item<float>(), 4 * (2 + 6.0f));
  }
  // The tensors made under the scope were released there, each with its own size.
  EXPECT_TRUE(counting.live.empty());
  EXPECT_EQ(kept.sum().item<float>(), 6.0f);

  Tensor meta = empty({3}, TensorOptions().device(kMeta));
  EXPECT_EQ(meta.unsafeGetTensorImpl()->storage()->allocator(), nullptr);
  std::vector<float> data = {1, 2, 3};
  Tensor blob = from_blob(data.data(), {3});
  EXPECT_EQ(blob.unsafeGetTensorImpl()->storage()->allocator(), nullptr);
  EXPECT_FALSE(blob.unsafeGetTensorImpl()->storage()->owned());
}

}  // namespace
}  // namespace ember::test
