#include <gtest/gtest.h>
namespace ember { const char* version(); }
TEST(Smoke, Version) { EXPECT_STREQ(ember::version(), "0.1.0"); }
