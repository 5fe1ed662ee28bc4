#include "ember/core/generator.h"

namespace ember {

namespace {
// Philox4x32 constants (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3", SC 2011).
constexpr uint32_t kM0 = 0xD2511F53u;
constexpr uint32_t kM1 = 0xCD9E8D57u;
constexpr uint32_t kW0 = 0x9E3779B9u;
constexpr uint32_t kW1 = 0xBB67AE85u;
constexpr int kRounds = 10;
}  // namespace

std::array<uint32_t, 4> Generator::philox(std::array<uint32_t, 4> ctr,
                                          std::array<uint32_t, 2> key) {
  for (int round = 0; round < kRounds; ++round) {
    if (round > 0) {
      key[0] += kW0;
      key[1] += kW1;
    }
    const uint64_t p0 = static_cast<uint64_t>(kM0) * ctr[0];
    const uint64_t p1 = static_cast<uint64_t>(kM1) * ctr[2];
    const auto hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    const auto hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    ctr = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
  }
  return ctr;
}

std::array<uint32_t, 4> Generator::philox(uint64_t key, uint64_t counter) {
  return philox({static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 0u, 0u},
                {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)});
}

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  offset_ = 0;
}

uint64_t Generator::reserve(uint64_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  return reserve_locked(n);
}

uint64_t Generator::reserve_locked(uint64_t n) {
  const uint64_t start = offset_;
  offset_ += n / 4 + (n % 4 != 0);
  return start;
}

Generator& default_generator() {
  static Generator gen;
  return gen;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace ember
