#pragma once
// Counter-based Philox4x32-10 random numbers. Note [Deterministic random]: element i of a
// sampling op draws from counter (offset + i / 4) lane i % 4, so results never depend on how the
// work is split among threads. An element that needs 64 bits (float64 samples, wide integer
// ranges) takes two consecutive lanes: element i uses draws 2i and 2i + 1. The op reserves its
// draws under the generator's mutex before the kernel runs, so the kernel only needs
// (seed, offset): see src/primitives/random.h.
#include <array>
#include <cstdint>
#include <mutex>

namespace ember {

class Generator {
 public:
  explicit Generator(uint64_t seed = 67280421310721ULL) { manual_seed(seed); }
  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const { return seed_; }
  /// Reserves `n` 32-bit draws (rounded up to whole Philox blocks) and returns the starting block
  /// counter. Sampling kernels then compute block (start + k) independently.
  uint64_t reserve(uint64_t n);
  /// reserve() for a caller that already holds mutex().
  uint64_t reserve_locked(uint64_t n);
  uint64_t offset() const { return offset_; }
  void set_offset(uint64_t o) { offset_ = o; }
  /// The serialisable state: {seed, offset}.
  std::array<uint64_t, 2> get_state() const { return {seed_, offset_}; }
  void set_state(const std::array<uint64_t, 2>& s) { seed_ = s[0]; offset_ = s[1]; }
  std::mutex& mutex() { return mutex_; }

  /// Philox4x32-10: four 32-bit outputs for (key = seed, counter = block).
  /// The 64-bit counter is the low half of Philox's 128-bit counter; the key is the seed split in
  /// two 32-bit words (low word first).
  static std::array<uint32_t, 4> philox(uint64_t key, uint64_t counter);
  /// The full-width form, as in the Random123 known-answer tests: counter words c0..c3, key k0, k1.
  static std::array<uint32_t, 4> philox(std::array<uint32_t, 4> counter,
                                        std::array<uint32_t, 2> key);

 private:
  uint64_t seed_ = 0;
  uint64_t offset_ = 0;  // in Philox blocks of four 32-bit values
  std::mutex mutex_;
};

/// The default CPU generator used by rand/randn/... when none is passed.
Generator& default_generator();
/// torch.manual_seed.
void manual_seed(uint64_t seed);

/// Uniform float in [0, 1) from 24 random bits; double from 53 bits (two draws).
inline float uniform_float(uint32_t r) { return static_cast<float>(r >> 8) * (1.0f / 16777216.0f); }
inline double uniform_double(uint32_t hi, uint32_t lo) {
  uint64_t v = (static_cast<uint64_t>(hi) << 32 | lo) >> 11;
  return static_cast<double>(v) * (1.0 / 9007199254740992.0);
}

}  // namespace ember
