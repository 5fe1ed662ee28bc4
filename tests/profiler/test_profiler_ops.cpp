// The profiler over the real op surface: names, call counts and FLOPs of products.
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

TEST(ProfilerOps, CountsAndFlopsOfRealOps) {
  Tensor a = randn({8, 16}), b = randn({16, 4}), c = randn({3, 8, 16}), d = randn({3, 16, 4});
  profiler::profile prof(profiler::ProfileOptions().record_shapes(true).with_flops(true));
  {
    profiler::ProfileGuard guard(prof);
    for (int i = 0; i < 3; ++i) (void)mm(a, b);
    (void)bmm(c, d);
    Tensor s = a + a;
    s = s + 1;
    (void)s.sum();
  }
  auto avg = prof.key_averages();
  const auto* mm_ev = avg.find("aten::mm");
  ASSERT_NE(mm_ev, nullptr) << avg.table();
  EXPECT_EQ(mm_ev->count, 3);
  EXPECT_EQ(mm_ev->flops, 3 * 2 * 8 * 16 * 4);
  const auto* bmm_ev = avg.find("aten::bmm");
  ASSERT_NE(bmm_ev, nullptr) << avg.table();
  EXPECT_EQ(bmm_ev->flops, 2 * 3 * 8 * 16 * 4);
  const auto* add_ev = avg.find("aten::add");
  ASSERT_NE(add_ev, nullptr) << avg.table();
  EXPECT_EQ(add_ev->count, 2);
  EXPECT_NE(avg.find("aten::sum"), nullptr) << avg.table();
  EXPECT_NE(avg.table().find("aten::mm"), std::string::npos);
}
