// Note [CPU capability] (src/backend/cpu/capability.h): the vectorised kernels are built for
// several instruction sets and the best the CPU has is chosen once; EMBER_CPU_CAPABILITY forces
// one. tests/CMakeLists.txt runs this suite and the kernel suites again with each built
// capability forced, and with an invalid value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember {
namespace {

bool cpu_supports(const std::string& cap) {
  __builtin_cpu_init();
  if (cap == "AVX512") {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
           cpu_supports("AVX2");
  }
  if (cap == "AVX2") {
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
           __builtin_cpu_supports("f16c");
  }
  return cap == "DEFAULT";
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return s;
}

TEST(CpuCapability, ChosenAsTheEnvironmentAndTheCpuSay) {
  const std::vector<std::string> built = get_built_cpu_capabilities();
  ASSERT_FALSE(built.empty());
  EXPECT_EQ(built.front(), "DEFAULT");
  std::string best = "DEFAULT";
  for (const std::string& c : built)
    if (cpu_supports(c)) best = c;
  const char* env = std::getenv("EMBER_CPU_CAPABILITY");
  std::string want = best;
  if (env && *env) {
    const std::string forced = upper(env);
    bool is_built = false;
    for (const std::string& c : built) is_built = is_built || c == forced;
    if (is_built && cpu_supports(forced)) want = forced;  // otherwise: the best, with a warning
  }
  EXPECT_EQ(get_cpu_capability(), want) << "EMBER_CPU_CAPABILITY=" << (env ? env : "(unset)");
}

// Every capability computes the same function: a float64 reference on values that exercise the
// vectorised bodies, their tails and the special values.
TEST(CpuCapability, KernelsAgreeWithFloat64) {
  std::vector<double> v;
  for (int i = 0; i < 67; ++i) v.push_back(-9.0 + 0.27 * i);
  v.insert(v.end(), {0.0, -0.0, 1e-30, -1e-30, 88.0, -88.0, 100.0, -100.0});
  const Tensor x64 = tensor(v, kFloat64);
  const Tensor x = x64.to(kFloat32);
  // References in double with <cmath>, on the float inputs exactly, rounded to float.
  std::vector<double> xs;
  for (double a : v) xs.push_back(static_cast<float>(a));
  const auto ref = [&](double (*f)(double)) {
    std::vector<float> out;
    for (double a : xs) out.push_back(static_cast<float>(f(a)));
    return tensor(out, kFloat32);
  };
  testing::assert_close(x.exp(), ref([](double a) { return std::exp(a); }));
  testing::assert_close(x.tanh(), ref([](double a) { return std::tanh(a); }));
  testing::assert_close(x.sigmoid(), ref([](double a) { return 1 / (1 + std::exp(-a)); }));
  testing::assert_close(x.floor(), ref([](double a) { return std::floor(a); }));
  testing::assert_close(x.round(), ref([](double a) { return std::nearbyint(a); }));
  double mx = xs[0], total = 0, exp_total = 0;
  for (double a : xs) mx = std::max(mx, a), total += a;
  for (double a : xs) exp_total += std::exp(a - mx);
  std::vector<float> softmax;
  for (double a : xs) softmax.push_back(static_cast<float>(std::exp(a - mx) / exp_total));
  testing::assert_close(x.softmax(0), tensor(softmax, kFloat32));
  testing::assert_close(x.sum(), tensor(static_cast<float>(total), kFloat32));
  std::vector<double> e;
  for (double a : v) e.push_back(std::exp(a));
  testing::assert_close(x64.exp(), tensor(e, kFloat64));
  const Tensor with_nan = tensor({1.0f, NAN, -2.0f, 3.0f, 0.5f, 7.0f, -1.0f, 2.0f, 9.0f}, kFloat32);
  const Tensor m = with_nan.maximum(full({9}, 0.75f));
  EXPECT_TRUE(std::isnan(m[1].item<float>()));
  EXPECT_EQ(m[0].item<float>(), 1.0f);
  EXPECT_EQ(m[2].item<float>(), 0.75f);
  EXPECT_TRUE(std::isnan(with_nan.amax().item<float>()));
}

}  // namespace
}  // namespace ember
