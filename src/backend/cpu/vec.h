#pragma once
// Note [Vec]: a fixed-width SIMD value of T. The generic version is a plain array whose loops the
// compiler vectorises; float and double have AVX-512 or AVX2 specialisations with SLEEF for
// transcendental functions. Kernels and (later) compiler-generated code use the same Vec and
// functors, so eager and compiled results agree.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "backend/cpu/capability.h"

// The widest instruction set the translation unit is compiled for picks the specialisations:
// AVX-512 (F, DQ, BW, VL: ATen's "avx512" capability) or AVX2 with FMA; one body below serves both,
// spelled through EMBER_MM (the intrinsic prefix).
#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#define EMBER_VEC_AVX512 1
#define EMBER_VEC_BYTES 64
#elif defined(__AVX2__) && defined(__FMA__)
#define EMBER_VEC_AVX2 1
#define EMBER_VEC_BYTES 32
#else
#define EMBER_VEC_BYTES 32
#endif
#if defined(EMBER_VEC_AVX512) || defined(EMBER_VEC_AVX2)
#define EMBER_VEC_SIMD 1
// GCC 12 warns inside avx512fintrin.h's intrinsics (the _mm512_undefined_* passthrough they all
// use, GCC bug 105593: "may be used" or, depending on inlining, "is used uninitialized"); the
// warning is located in the header, so silencing it around the include silences only that.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#include <sleef.h>
#endif

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

template <typename T>
struct Vec {
  static constexpr int size = EMBER_VEC_BYTES / sizeof(T) > 0 ? EMBER_VEC_BYTES / sizeof(T) : 1;
  T v[size];

  Vec() = default;
  explicit Vec(T x) { std::fill(v, v + size, x); }
  static Vec load(const T* p) {
    Vec r;
    std::memcpy(r.v, p, sizeof(r.v));
    return r;
  }
  void store(T* p) const { std::memcpy(p, v, sizeof(v)); }
  // Note [Streaming stores]: a plain store here.
  static constexpr bool kStreams = false;
  void stream(T* p) const { store(p); }
  template <typename F>
  Vec map(F f) const {
    Vec r;
    for (int i = 0; i < size; ++i) r.v[i] = f(v[i]);
    return r;
  }
  template <typename F>
  static Vec zip(const Vec& a, const Vec& b, F f) {
    Vec r;
    for (int i = 0; i < size; ++i) r.v[i] = f(a.v[i], b.v[i]);
    return r;
  }
  friend Vec operator+(const Vec& a, const Vec& b) {
    return zip(a, b, [](T x, T y) { return T(x + y); });
  }
  friend Vec operator-(const Vec& a, const Vec& b) {
    return zip(a, b, [](T x, T y) { return T(x - y); });
  }
  friend Vec operator*(const Vec& a, const Vec& b) {
    return zip(a, b, [](T x, T y) { return T(x * y); });
  }
  friend Vec operator/(const Vec& a, const Vec& b) {
    return zip(a, b, [](T x, T y) { return T(x / y); });
  }
};

// Generic element functions: Vec versions fall back to map; the SIMD specialisations override.
// max/min propagate NaN as torch.maximum (x != x only for a NaN).
template <typename T>
Vec<T> vmax(const Vec<T>& a, const Vec<T>& b) {
  return Vec<T>::zip(a, b, [](T x, T y) { return (x != x || y != y) ? T(x + y) : x > y ? x : y; });
}
template <typename T>
Vec<T> vmin(const Vec<T>& a, const Vec<T>& b) {
  return Vec<T>::zip(a, b, [](T x, T y) { return (x != x || y != y) ? T(x + y) : x < y ? x : y; });
}

#if defined(EMBER_VEC_SIMD)
#if defined(EMBER_VEC_AVX512)
#define EMBER_MM(op) _mm512_##op
#define EMBER_MM_PS __m512
#define EMBER_MM_PD __m512d
#define EMBER_MM_SI __m512i
#define EMBER_MM_CAST_PS_SI _mm512_castps_si512
#define EMBER_MM_CAST_SI_PS _mm512_castsi512_ps
// r = pred(a, b) ? x : y, lane-wise
#define EMBER_MM_SELECT(sfx, a, b, pred, x, y) \
  _mm512_mask_blend_##sfx(_mm512_cmp_##sfx##_mask(a, b, pred), y, x)
#define EMBER_MM_ROUND(sfx, a, mode) _mm512_roundscale_##sfx(a, mode)
#else
#define EMBER_MM(op) _mm256_##op
#define EMBER_MM_PS __m256
#define EMBER_MM_PD __m256d
#define EMBER_MM_SI __m256i
#define EMBER_MM_CAST_PS_SI _mm256_castps_si256
#define EMBER_MM_CAST_SI_PS _mm256_castsi256_ps
#define EMBER_MM_SELECT(sfx, a, b, pred, x, y) \
  _mm256_blendv_##sfx(y, x, _mm256_cmp_##sfx(a, b, pred))
#define EMBER_MM_ROUND(sfx, a, mode) _mm256_round_##sfx(a, mode)
#endif

#define EMBER_VEC_SPECIALISE(T, R, sfx)                                                        \
  template <>                                                                                  \
  struct Vec<T> {                                                                              \
    static constexpr int size = EMBER_VEC_BYTES / sizeof(T);                                   \
    R v;                                                                                       \
    Vec() = default;                                                                           \
    Vec(R x) : v(x) {} /* NOLINT */                                                            \
    explicit Vec(T x) : v(EMBER_MM(set1_##sfx)(x)) {}                                          \
    static Vec load(const T* p) { return EMBER_MM(loadu_##sfx)(p); }                           \
    void store(T* p) const { EMBER_MM(storeu_##sfx)(p, v); }                                   \
    /* A non-temporal store to p, aligned to the Vec's width (Note [Streaming stores]). */     \
    static constexpr bool kStreams = true;                                                     \
    void stream(T* p) const { EMBER_MM(stream_##sfx)(p, v); }                                  \
    template <typename F>                                                                      \
    Vec map(F f) const {                                                                       \
      alignas(EMBER_VEC_BYTES) T t[size];                                                      \
      EMBER_MM(store_##sfx)(t, v);                                                             \
      for (T & x : t) x = f(x);                                                                \
      return EMBER_MM(load_##sfx)(t);                                                          \
    }                                                                                          \
    friend Vec operator+(const Vec& a, const Vec& b) { return EMBER_MM(add_##sfx)(a.v, b.v); } \
    friend Vec operator-(const Vec& a, const Vec& b) { return EMBER_MM(sub_##sfx)(a.v, b.v); } \
    friend Vec operator*(const Vec& a, const Vec& b) { return EMBER_MM(mul_##sfx)(a.v, b.v); } \
    friend Vec operator/(const Vec& a, const Vec& b) { return EMBER_MM(div_##sfx)(a.v, b.v); } \
  };                                                                                           \
  /* NaN-propagating max/min as torch.maximum: (a > b || isnan(a)) ? a : b. */                 \
  template <>                                                                                  \
  inline Vec<T> vmax(const Vec<T>& a, const Vec<T>& b) {                                       \
    return EMBER_MM_SELECT(sfx, a.v, b.v, _CMP_UNORD_Q, EMBER_MM(add_##sfx)(a.v, b.v),         \
                           EMBER_MM(max_##sfx)(a.v, b.v));                                     \
  }                                                                                            \
  template <>                                                                                  \
  inline Vec<T> vmin(const Vec<T>& a, const Vec<T>& b) {                                       \
    return EMBER_MM_SELECT(sfx, a.v, b.v, _CMP_UNORD_Q, EMBER_MM(add_##sfx)(a.v, b.v),         \
                           EMBER_MM(min_##sfx)(a.v, b.v));                                     \
  }
EMBER_VEC_SPECIALISE(float, EMBER_MM_PS, ps)
EMBER_VEC_SPECIALISE(double, EMBER_MM_PD, pd)
#undef EMBER_VEC_SPECIALISE
#endif

/// Note [Streaming stores]: an output of kStreamingBytes or more is written with non-temporal
/// stores where a run is aligned to the vector width: it would not stay in cache anyway, and such
/// a store skips reading each line before writing it (a third of an elementwise op's memory
/// traffic). Only the kind of store changes, never a value. Runs split among threads start at
/// multiples of kRunAlign elements (Note [Thread-independent runs] in parallel.h), so a run of
/// an aligned output stays aligned. Used by the eager elementwise loops (kernel.h) and by
/// generated pointwise kernels.
constexpr int64_t kStreamingBytes = int64_t{32} << 20;

/// Whether an output of `numel` elements of T is big enough to stream.
template <typename T>
bool streams_output(int64_t numel) {
  return Vec<T>::kStreams && numel * static_cast<int64_t>(sizeof(T)) >= kStreamingBytes;
}
/// Whether p is aligned for Vec<T>::stream.
template <typename T>
bool stream_aligned(const T* p) {
  return reinterpret_cast<uintptr_t>(p) % sizeof(Vec<T>) == 0;
}

/// Orders the streamed stores before what follows (an sfence; nothing where stores are plain).
inline void stream_fence() {
#if defined(EMBER_VEC_SIMD)
  _mm_sfence();
#endif
}

// ---- Element functions for unary kernels (Note [Vec]). The generic versions map the <cmath>
// function over the lanes; the AVX2 float/double specialisations below use SLEEF (u10: within
// 1 ulp) or single instructions. Both follow IEEE semantics for NaN, infinities and -0.0.
#define EMBER_VEC_MAP_FN(vname, expr)                       \
  template <typename T>                                     \
  Vec<T> vname(const Vec<T>& a) {                           \
    return a.map([](T x) { return static_cast<T>(expr); }); \
  }
EMBER_VEC_MAP_FN(vabs, std::abs(x))
EMBER_VEC_MAP_FN(vneg, -x)
EMBER_VEC_MAP_FN(vsqrt, std::sqrt(x))
EMBER_VEC_MAP_FN(vrsqrt, T(1) / std::sqrt(x))
EMBER_VEC_MAP_FN(vreciprocal, T(1) / x)
EMBER_VEC_MAP_FN(vfloor, std::floor(x))
EMBER_VEC_MAP_FN(vceil, std::ceil(x))
EMBER_VEC_MAP_FN(vround, std::nearbyint(x))  // half to even, as torch.round
EMBER_VEC_MAP_FN(vtrunc, std::trunc(x))
EMBER_VEC_MAP_FN(vexp, std::exp(x))
EMBER_VEC_MAP_FN(vexp2, std::exp2(x))
EMBER_VEC_MAP_FN(vexpm1, std::expm1(x))
EMBER_VEC_MAP_FN(vlog, std::log(x))
EMBER_VEC_MAP_FN(vlog2, std::log2(x))
EMBER_VEC_MAP_FN(vlog10, std::log10(x))
EMBER_VEC_MAP_FN(vlog1p, std::log1p(x))
EMBER_VEC_MAP_FN(vsin, std::sin(x))
EMBER_VEC_MAP_FN(vcos, std::cos(x))
EMBER_VEC_MAP_FN(vtan, std::tan(x))
EMBER_VEC_MAP_FN(vasin, std::asin(x))
EMBER_VEC_MAP_FN(vacos, std::acos(x))
EMBER_VEC_MAP_FN(vatan, std::atan(x))
EMBER_VEC_MAP_FN(vsinh, std::sinh(x))
EMBER_VEC_MAP_FN(vcosh, std::cosh(x))
EMBER_VEC_MAP_FN(vtanh, std::tanh(x))
EMBER_VEC_MAP_FN(verf, std::erf(x))
EMBER_VEC_MAP_FN(verfc, std::erfc(x))
#undef EMBER_VEC_MAP_FN

/// erf where GELU needs it: verf, except for AVX2 float (below), where it is PyTorch's faster,
/// less accurate vectorised form.
template <typename T>
Vec<T> verf_fast(const Vec<T>& a) {
  return verf(a);
}

/// The sum of a Vec's lanes, in lane order.
template <typename T>
T hsum(const Vec<T>& v) {
  T lanes[Vec<T>::size];
  v.store(lanes);
  T s = 0;
  for (int k = 0; k < Vec<T>::size; ++k) s += lanes[k];
  return s;
}

/// exp where activations need it: vexp, except for float with AVX2 or AVX-512 (below), where it
/// is an inlined polynomial (within 1 ulp; AVX2 flushes results below 2^-125 to 0), so that a loop
/// interleaves it.
template <typename T>
Vec<T> vexp_fast(const Vec<T>& a) {
  return vexp(a);
}
/// vexp_fast for x <= 0 (or NaN), where no result overflows: softmax's exp(x - max) and the
/// exponential of log_softmax's outputs; cheaper where vexp_fast is the inlined polynomial.
template <typename T>
Vec<T> vexp_nonpos(const Vec<T>& a) {
  return vexp_fast(a);
}
/// a * b + c, fused where the vector unit has FMA.
template <typename T>
Vec<T> vfma(const Vec<T>& a, const Vec<T>& b, const Vec<T>& c) {
  return a * b + c;
}

/// Lane-wise (a < b) ? x : y and (a > b) ? x : y; a comparison with NaN is false.
template <typename T>
Vec<T> vselect_lt(const Vec<T>& a, const Vec<T>& b, const Vec<T>& x, const Vec<T>& y) {
  Vec<T> r;
  for (int i = 0; i < Vec<T>::size; ++i) r.v[i] = a.v[i] < b.v[i] ? x.v[i] : y.v[i];
  return r;
}
template <typename T>
Vec<T> vselect_gt(const Vec<T>& a, const Vec<T>& b, const Vec<T>& x, const Vec<T>& y) {
  return vselect_lt(b, a, x, y);
}

#if defined(EMBER_VEC_SIMD)
// SLEEF's vector functions for this width: Sleef_<fn>f<lanes>_<ulp> and Sleef_<fn>d<lanes>_<ulp>.
#define EMBER_VEC_CAT_(a, b, c, d, e) a##b##c##d##e
#define EMBER_VEC_CAT(a, b, c, d, e) EMBER_VEC_CAT_(a, b, c, d, e)
#define EMBER_VEC_SLEEF(vname, fn, ulp)                                    \
  template <>                                                              \
  inline Vec<float> vname(const Vec<float>& a) {                           \
    return EMBER_VEC_CAT(Sleef_, fn, f, EMBER_VEC_FLOAT_LANES, ulp)(a.v);  \
  }                                                                        \
  template <>                                                              \
  inline Vec<double> vname(const Vec<double>& a) {                         \
    return EMBER_VEC_CAT(Sleef_, fn, d, EMBER_VEC_DOUBLE_LANES, ulp)(a.v); \
  }
#if defined(EMBER_VEC_AVX512)
#define EMBER_VEC_FLOAT_LANES 16
#define EMBER_VEC_DOUBLE_LANES 8
#else
#define EMBER_VEC_FLOAT_LANES 8
#define EMBER_VEC_DOUBLE_LANES 4
#endif
EMBER_VEC_SLEEF(vexp, exp, _u10)
EMBER_VEC_SLEEF(vexp2, exp2, _u10)
EMBER_VEC_SLEEF(vexpm1, expm1, _u10)
EMBER_VEC_SLEEF(vlog, log, _u10)
EMBER_VEC_SLEEF(vlog2, log2, _u10)
EMBER_VEC_SLEEF(vlog10, log10, _u10)
EMBER_VEC_SLEEF(vlog1p, log1p, _u10)
EMBER_VEC_SLEEF(vsin, sin, _u10)
EMBER_VEC_SLEEF(vcos, cos, _u10)
EMBER_VEC_SLEEF(vtan, tan, _u10)
EMBER_VEC_SLEEF(vasin, asin, _u10)
EMBER_VEC_SLEEF(vacos, acos, _u10)
EMBER_VEC_SLEEF(vatan, atan, _u10)
EMBER_VEC_SLEEF(vsinh, sinh, _u10)
EMBER_VEC_SLEEF(vcosh, cosh, _u10)
EMBER_VEC_SLEEF(vtanh, tanh, _u10)
EMBER_VEC_SLEEF(verf, erf, _u10)
EMBER_VEC_SLEEF(verfc, erfc, _u15)
#undef EMBER_VEC_SLEEF
#undef EMBER_VEC_FLOAT_LANES
#undef EMBER_VEC_DOUBLE_LANES
#undef EMBER_VEC_CAT
#undef EMBER_VEC_CAT_

// Functions of one or two instructions, for float (ps) and double (pd).
#define EMBER_VEC_INSN(T, sfx)                                                                   \
  template <>                                                                                    \
  inline Vec<T> vfma(const Vec<T>& a, const Vec<T>& b, const Vec<T>& c) {                        \
    return EMBER_MM(fmadd_##sfx)(a.v, b.v, c.v);                                                 \
  }                                                                                              \
  template <>                                                                                    \
  inline Vec<T> vabs(const Vec<T>& a) {                                                          \
    return EMBER_MM(andnot_##sfx)(EMBER_MM(set1_##sfx)(T(-0.0)), a.v);                           \
  }                                                                                              \
  template <>                                                                                    \
  inline Vec<T> vneg(const Vec<T>& a) {                                                          \
    return EMBER_MM(xor_##sfx)(EMBER_MM(set1_##sfx)(T(-0.0)), a.v);                              \
  }                                                                                              \
  template <>                                                                                    \
  inline Vec<T> vsqrt(const Vec<T>& a) {                                                         \
    return EMBER_MM(sqrt_##sfx)(a.v);                                                            \
  }                                                                                              \
  template <>                                                                                    \
  inline Vec<T> vrsqrt(const Vec<T>& a) {                                                        \
    return EMBER_MM(div_##sfx)(EMBER_MM(set1_##sfx)(T(1)), EMBER_MM(sqrt_##sfx)(a.v));           \
  }                                                                                              \
  template <>                                                                                    \
  inline Vec<T> vreciprocal(const Vec<T>& a) {                                                   \
    return EMBER_MM(div_##sfx)(EMBER_MM(set1_##sfx)(T(1)), a.v);                                 \
  }                                                                                              \
  template <>                                                                                    \
  inline Vec<T> vfloor(const Vec<T>& a) {                                                        \
    return EMBER_MM_ROUND(sfx, a.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);                  \
  }                                                                                              \
  template <>                                                                                    \
  inline Vec<T> vceil(const Vec<T>& a) {                                                         \
    return EMBER_MM_ROUND(sfx, a.v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);                  \
  }                                                                                              \
  template <>                                                                                    \
  inline Vec<T> vround(const Vec<T>& a) {                                                        \
    return EMBER_MM_ROUND(sfx, a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);              \
  }                                                                                              \
  template <>                                                                                    \
  inline Vec<T> vtrunc(const Vec<T>& a) {                                                        \
    return EMBER_MM_ROUND(sfx, a.v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);                     \
  }                                                                                              \
  template <>                                                                                    \
  inline Vec<T> vselect_lt(const Vec<T>& a, const Vec<T>& b, const Vec<T>& x, const Vec<T>& y) { \
    return EMBER_MM_SELECT(sfx, a.v, b.v, _CMP_LT_OQ, x.v, y.v);                                 \
  }
EMBER_VEC_INSN(float, ps)
EMBER_VEC_INSN(double, pd)
#undef EMBER_VEC_INSN

// exp(x) = 2^n exp(r), n = round(x / ln 2), r = x - n ln 2 (ln 2 in two parts) in [-ln2/2, ln2/2],
// exp(r) = 1 + r + r^2 P(r) with Cephes' expf polynomial. Adding 1.5 * 2^23 rounds x / ln 2 to an
// integer held in the low mantissa bits. x is clamped first (NaN passes: max/min return their
// second operand for NaN); the upper clamp (above 88.72 the result overflows to inf) is left out
// where x <= 0 is known (kNonPositive: softmax's x - max, log_softmax's outputs).
//  - AVX-512: 2^n is applied by vscalefps, so results go down to the subnormals (0 below -104).
//  - AVX2: 2^(n-1) is built from n + 126 as a biased exponent, x clamped to [-87.3, 88.8] (results
//    below 2^-125 flush to 0); the doubled polynomial (exact: powers of two) makes up for it.
// Both give the same bits wherever the AVX2 result is not flushed.
namespace detail {
template <bool kNonPositive>
inline EMBER_MM_PS exp_poly(EMBER_MM_PS a) {
  using R = EMBER_MM_PS;
  const auto c = [](float v) { return EMBER_MM(set1_ps)(v); };
#if defined(EMBER_VEC_AVX512)
  constexpr float kLow = -104.0f, kScale = 1.0f, kBias = 0.0f;
#else
  constexpr float kLow = -87.3f, kScale = 2.0f, kBias = 126.0f;
#endif
  R x = EMBER_MM(max_ps)(c(kLow), a);
  if constexpr (!kNonPositive) x = EMBER_MM(min_ps)(c(88.8f), x);
  const R magic = c(12582912.0f + kBias);
  const R k = EMBER_MM(fmadd_ps)(x, c(1.44269504088896341f), magic);
  const R n = EMBER_MM(sub_ps)(k, magic);
  R r = EMBER_MM(fnmadd_ps)(n, c(0.693359375f), x);
  r = EMBER_MM(fnmadd_ps)(n, c(-2.12194440e-4f), r);
  R p = c(kScale * 1.9875691500e-4f);
  p = EMBER_MM(fmadd_ps)(p, r, c(kScale * 1.3981999507e-3f));
  p = EMBER_MM(fmadd_ps)(p, r, c(kScale * 8.3334519073e-3f));
  p = EMBER_MM(fmadd_ps)(p, r, c(kScale * 4.1665795894e-2f));
  p = EMBER_MM(fmadd_ps)(p, r, c(kScale * 1.6666665459e-1f));
  p = EMBER_MM(fmadd_ps)(p, r, c(kScale * 5.0000001201e-1f));
  const R y =
      EMBER_MM(fmadd_ps)(p, EMBER_MM(mul_ps)(r, r), EMBER_MM(fmadd_ps)(r, c(kScale), c(kScale)));
#if defined(EMBER_VEC_AVX512)
  return _mm512_scalef_ps(y, n);
#else
  const R scale = EMBER_MM_CAST_SI_PS(EMBER_MM(slli_epi32)(EMBER_MM_CAST_PS_SI(k), 23));
  return EMBER_MM(mul_ps)(y, scale);
#endif
}
}  // namespace detail

template <>
inline Vec<float> vexp_fast(const Vec<float>& a) {
  return detail::exp_poly<false>(a.v);
}
template <>
inline Vec<float> vexp_nonpos(const Vec<float>& a) {
  return detail::exp_poly<true>(a.v);
}

// float erf as PyTorch's vectorised GELU kernels compute it (Abramowitz & Stegun 7.1.26,
// absolute error below 1.5e-7, up to about 5.4e-7 after float rounding, near |x| = 0.05): sign(x) *
// (1 - t * P(t) * exp(-x^2)), t = 1 / (1 + 0.3275911 |x|). A fifth of the cost of SLEEF's
// erff_u10, which the erf op keeps for its accuracy.
template <>
inline Vec<float> verf_fast(const Vec<float>& a) {
  using R = EMBER_MM_PS;
  const auto c = [](float v) { return EMBER_MM(set1_ps)(v); };
  const R neg_zero = c(-0.0f), one = c(1.0f);
  const R sign = EMBER_MM(and_ps)(neg_zero, a.v);
  const R ax = EMBER_MM(xor_ps)(sign, a.v);
  const R t = EMBER_MM(div_ps)(one, EMBER_MM(fmadd_ps)(c(0.3275911f), ax, one));
  R r = EMBER_MM(fmadd_ps)(c(1.061405429f), t, c(-1.453152027f));
  r = EMBER_MM(fmadd_ps)(r, t, c(1.421413741f));
  r = EMBER_MM(fmadd_ps)(r, t, c(-0.284496736f));
  r = EMBER_MM(fmadd_ps)(r, t, c(0.254829592f));
  const R e = vexp_fast(Vec<float>(EMBER_MM(xor_ps)(neg_zero, EMBER_MM(mul_ps)(a.v, a.v)))).v;
  const R y = EMBER_MM(fmadd_ps)(EMBER_MM(xor_ps)(neg_zero, EMBER_MM(mul_ps)(e, t)), r, one);
  return EMBER_MM(xor_ps)(sign, y);
}
#endif

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY
