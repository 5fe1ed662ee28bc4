#pragma once
// 16-bit floating types. Arithmetic goes through float: load, compute in float, round once.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>

namespace ember {

namespace detail {
inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float f32_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace detail

/// IEEE 754 binary16 (torch.float16 / kHalf).
struct Half {
  uint16_t x = 0;
  struct from_bits_t {};
  constexpr Half() = default;
  constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  Half(float f) : x(from_float(f)) {}  // NOLINT: implicit like c10::Half
  operator float() const { return to_float(x); }  // NOLINT

  static uint16_t from_float(float f) {
    uint32_t u = detail::f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    u &= 0x7fffffffu;
    if (u >= 0x7f800000u) return static_cast<uint16_t>(sign | (u > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (u >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
    if (u < 0x38800000u) {  // subnormal or zero in half: round via float addition trick
      float a = detail::f32_from_bits(u) + 0.5f;
      return static_cast<uint16_t>(sign | (detail::f32_bits(a) - 0x3f000000u));
    }
    uint32_t mant_odd = (u >> 13) & 1u;
    u += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round to nearest even
    return static_cast<uint16_t>(sign | (u >> 13));
  }
  static float to_float(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (exp == 0x1f) return detail::f32_from_bits(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {
      float v = std::ldexp(static_cast<float>(mant), -24);
      return sign ? -v : v;
    }
    return detail::f32_from_bits(sign | ((exp + 112) << 23) | (mant << 13));
  }
};

/// bfloat16 (torch.bfloat16 / kBFloat16): the top 16 bits of a float, rounded to nearest even.
struct BFloat16 {
  uint16_t x = 0;
  struct from_bits_t {};
  constexpr BFloat16() = default;
  constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  BFloat16(float f) : x(from_float(f)) {}  // NOLINT
  operator float() const { return detail::f32_from_bits(static_cast<uint32_t>(x) << 16); }  // NOLINT

  static uint16_t from_float(float f) {
    uint32_t u = detail::f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(u >> 16);
  }
};

inline std::ostream& operator<<(std::ostream& os, Half h) { return os << static_cast<float>(h); }
inline std::ostream& operator<<(std::ostream& os, BFloat16 h) { return os << static_cast<float>(h); }

}  // namespace ember

namespace std {
template <>
class numeric_limits<ember::Half> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static ember::Half lowest() { return {0xfbffu, ember::Half::from_bits_t{}}; }
  static ember::Half max() { return {0x7bffu, ember::Half::from_bits_t{}}; }
  static ember::Half min() { return {0x0400u, ember::Half::from_bits_t{}}; }
  static ember::Half epsilon() { return {0x1400u, ember::Half::from_bits_t{}}; }
  static ember::Half infinity() { return {0x7c00u, ember::Half::from_bits_t{}}; }
  static ember::Half quiet_NaN() { return {0x7e00u, ember::Half::from_bits_t{}}; }
};
template <>
class numeric_limits<ember::BFloat16> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static ember::BFloat16 lowest() { return {0xff7fu, ember::BFloat16::from_bits_t{}}; }
  static ember::BFloat16 max() { return {0x7f7fu, ember::BFloat16::from_bits_t{}}; }
  static ember::BFloat16 min() { return {0x0080u, ember::BFloat16::from_bits_t{}}; }
  static ember::BFloat16 epsilon() { return {0x3c00u, ember::BFloat16::from_bits_t{}}; }
  static ember::BFloat16 infinity() { return {0x7f80u, ember::BFloat16::from_bits_t{}}; }
  static ember::BFloat16 quiet_NaN() { return {0x7fc0u, ember::BFloat16::from_bits_t{}}; }
};
}  // namespace std
