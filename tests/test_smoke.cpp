#include <gtest/gtest.h>

#include "ember/ember.h"

TEST(Smoke, Version) { EXPECT_STREQ(ember::version(), "0.1.0"); }
