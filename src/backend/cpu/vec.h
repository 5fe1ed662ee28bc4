#pragma once
// Note [Vec]: a fixed-width SIMD value of T. The generic version is a plain array whose loops the
// compiler vectorises; float and double have AVX2 specialisations with SLEEF for transcendental
// functions. Kernels and (later) compiler-generated code use the same Vec and functors, so eager
// and compiled results agree.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__AVX2__)
#include <immintrin.h>
#include <sleef.h>
#endif

namespace ember::cpu {

template <typename T>
struct Vec {
  static constexpr int size = 32 / sizeof(T) > 0 ? 32 / sizeof(T) : 1;
  T v[size];

  Vec() = default;
  explicit Vec(T x) { std::fill(v, v + size, x); }
  static Vec load(const T* p) {
    Vec r;
    std::memcpy(r.v, p, sizeof(r.v));
    return r;
  }
  void store(T* p) const { std::memcpy(p, v, sizeof(v)); }
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

// Generic element functions: Vec versions fall back to map; the AVX2 specialisations override.
template <typename T>
Vec<T> vmax(const Vec<T>& a, const Vec<T>& b) {
  return Vec<T>::zip(a, b, [](T x, T y) { return x > y ? x : y; });
}
template <typename T>
Vec<T> vmin(const Vec<T>& a, const Vec<T>& b) {
  return Vec<T>::zip(a, b, [](T x, T y) { return x < y ? x : y; });
}

#if defined(__AVX2__)
template <>
struct Vec<float> {
  static constexpr int size = 8;
  __m256 v;
  Vec() = default;
  Vec(__m256 x) : v(x) {}  // NOLINT
  explicit Vec(float x) : v(_mm256_set1_ps(x)) {}
  static Vec load(const float* p) { return _mm256_loadu_ps(p); }
  void store(float* p) const { _mm256_storeu_ps(p, v); }
  template <typename F>
  Vec map(F f) const {
    alignas(32) float t[8];
    _mm256_store_ps(t, v);
    for (float& x : t) x = f(x);
    return _mm256_load_ps(t);
  }
  friend Vec operator+(const Vec& a, const Vec& b) { return _mm256_add_ps(a.v, b.v); }
  friend Vec operator-(const Vec& a, const Vec& b) { return _mm256_sub_ps(a.v, b.v); }
  friend Vec operator*(const Vec& a, const Vec& b) { return _mm256_mul_ps(a.v, b.v); }
  friend Vec operator/(const Vec& a, const Vec& b) { return _mm256_div_ps(a.v, b.v); }
};
template <>
struct Vec<double> {
  static constexpr int size = 4;
  __m256d v;
  Vec() = default;
  Vec(__m256d x) : v(x) {}  // NOLINT
  explicit Vec(double x) : v(_mm256_set1_pd(x)) {}
  static Vec load(const double* p) { return _mm256_loadu_pd(p); }
  void store(double* p) const { _mm256_storeu_pd(p, v); }
  template <typename F>
  Vec map(F f) const {
    alignas(32) double t[4];
    _mm256_store_pd(t, v);
    for (double& x : t) x = f(x);
    return _mm256_load_pd(t);
  }
  friend Vec operator+(const Vec& a, const Vec& b) { return _mm256_add_pd(a.v, b.v); }
  friend Vec operator-(const Vec& a, const Vec& b) { return _mm256_sub_pd(a.v, b.v); }
  friend Vec operator*(const Vec& a, const Vec& b) { return _mm256_mul_pd(a.v, b.v); }
  friend Vec operator/(const Vec& a, const Vec& b) { return _mm256_div_pd(a.v, b.v); }
};
// NaN-propagating max/min as torch.maximum: (a > b || isnan(a)) ? a : b.
template <>
inline Vec<float> vmax(const Vec<float>& a, const Vec<float>& b) {
  __m256 m = _mm256_max_ps(a.v, b.v);
  __m256 nan = _mm256_cmp_ps(a.v, b.v, _CMP_UNORD_Q);
  return _mm256_blendv_ps(m, _mm256_add_ps(a.v, b.v), nan);
}
template <>
inline Vec<float> vmin(const Vec<float>& a, const Vec<float>& b) {
  __m256 m = _mm256_min_ps(a.v, b.v);
  __m256 nan = _mm256_cmp_ps(a.v, b.v, _CMP_UNORD_Q);
  return _mm256_blendv_ps(m, _mm256_add_ps(a.v, b.v), nan);
}
template <>
inline Vec<double> vmax(const Vec<double>& a, const Vec<double>& b) {
  __m256d m = _mm256_max_pd(a.v, b.v);
  __m256d nan = _mm256_cmp_pd(a.v, b.v, _CMP_UNORD_Q);
  return _mm256_blendv_pd(m, _mm256_add_pd(a.v, b.v), nan);
}
template <>
inline Vec<double> vmin(const Vec<double>& a, const Vec<double>& b) {
  __m256d m = _mm256_min_pd(a.v, b.v);
  __m256d nan = _mm256_cmp_pd(a.v, b.v, _CMP_UNORD_Q);
  return _mm256_blendv_pd(m, _mm256_add_pd(a.v, b.v), nan);
}
#endif

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

/// exp where activations need it: vexp, except for AVX2 float (below), where it is an inlined
/// polynomial (within 2 ulp; results below 2^-125 flush to 0), so that a loop interleaves it.
template <typename T>
Vec<T> vexp_fast(const Vec<T>& a) {
  return vexp(a);
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

#if defined(__AVX2__)
#define EMBER_VEC_SLEEF(vname, ffn, dfn)           \
  template <>                                      \
  inline Vec<float> vname(const Vec<float>& a) {   \
    return ffn(a.v);                               \
  }                                                \
  template <>                                      \
  inline Vec<double> vname(const Vec<double>& a) { \
    return dfn(a.v);                               \
  }
EMBER_VEC_SLEEF(vexp, Sleef_expf8_u10, Sleef_expd4_u10)
EMBER_VEC_SLEEF(vexp2, Sleef_exp2f8_u10, Sleef_exp2d4_u10)
EMBER_VEC_SLEEF(vexpm1, Sleef_expm1f8_u10, Sleef_expm1d4_u10)
EMBER_VEC_SLEEF(vlog, Sleef_logf8_u10, Sleef_logd4_u10)
EMBER_VEC_SLEEF(vlog2, Sleef_log2f8_u10, Sleef_log2d4_u10)
EMBER_VEC_SLEEF(vlog10, Sleef_log10f8_u10, Sleef_log10d4_u10)
EMBER_VEC_SLEEF(vlog1p, Sleef_log1pf8_u10, Sleef_log1pd4_u10)
EMBER_VEC_SLEEF(vsin, Sleef_sinf8_u10, Sleef_sind4_u10)
EMBER_VEC_SLEEF(vcos, Sleef_cosf8_u10, Sleef_cosd4_u10)
EMBER_VEC_SLEEF(vtan, Sleef_tanf8_u10, Sleef_tand4_u10)
EMBER_VEC_SLEEF(vasin, Sleef_asinf8_u10, Sleef_asind4_u10)
EMBER_VEC_SLEEF(vacos, Sleef_acosf8_u10, Sleef_acosd4_u10)
EMBER_VEC_SLEEF(vatan, Sleef_atanf8_u10, Sleef_atand4_u10)
EMBER_VEC_SLEEF(vsinh, Sleef_sinhf8_u10, Sleef_sinhd4_u10)
EMBER_VEC_SLEEF(vcosh, Sleef_coshf8_u10, Sleef_coshd4_u10)
EMBER_VEC_SLEEF(vtanh, Sleef_tanhf8_u10, Sleef_tanhd4_u10)
EMBER_VEC_SLEEF(verf, Sleef_erff8_u10, Sleef_erfd4_u10)
EMBER_VEC_SLEEF(verfc, Sleef_erfcf8_u15, Sleef_erfcd4_u15)
#undef EMBER_VEC_SLEEF
template <>
inline Vec<float> vfma(const Vec<float>& a, const Vec<float>& b, const Vec<float>& c) {
  return _mm256_fmadd_ps(a.v, b.v, c.v);
}
template <>
inline Vec<double> vfma(const Vec<double>& a, const Vec<double>& b, const Vec<double>& c) {
  return _mm256_fmadd_pd(a.v, b.v, c.v);
}
// exp(x) = 2^n exp(r), n = round(x / ln 2), r = x - n ln 2 (ln 2 in two parts) in [-ln2/2, ln2/2],
// exp(r) = 1 + r + r^2 P(r) with Cephes' expf polynomial. x is clamped to [-87.3, 88.8] first
// (NaN passes: max/min return their second operand for NaN), so that n + 126 is a valid biased
// exponent of 2^(n-1) (0 below: the result flushes to 0; above 88.72 the result overflows to inf).
// Adding 1.5 * 2^23 rounds x / ln 2 to an integer held in the low mantissa bits; the doubled
// polynomial (exact: powers of two) makes up for the scale being 2^(n-1).
template <>
inline Vec<float> vexp_fast(const Vec<float>& a) {
  const __m256 x = _mm256_min_ps(_mm256_set1_ps(88.8f), _mm256_max_ps(_mm256_set1_ps(-87.3f), a.v));
  const __m256 magic = _mm256_set1_ps(12582912.0f + 126.0f);
  const __m256 k = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), magic);
  const __m256 n = _mm256_sub_ps(k, magic);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(2 * 1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(2 * 1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(2 * 8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(2 * 4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(2 * 1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(2 * 5.0000001201e-1f));
  const __m256 two = _mm256_set1_ps(2.0f);
  const __m256 y = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_fmadd_ps(r, two, two));
  const __m256 scale = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(k), 23));
  return _mm256_mul_ps(y, scale);
}

// float erf as PyTorch's vectorised GELU kernels compute it (Abramowitz & Stegun 7.1.26,
// absolute error below 1.5e-7, up to about 5.4e-7 after float rounding, near |x| = 0.05): sign(x) *
// (1 - t * P(t) * exp(-x^2)), t = 1 / (1 + 0.3275911 |x|). A fifth of the cost of SLEEF's
// erff8_u10, which the erf op keeps for its accuracy.
template <>
inline Vec<float> verf_fast(const Vec<float>& a) {
  const __m256 neg_zero = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
  const __m256 sign = _mm256_and_ps(neg_zero, a.v);
  const __m256 ax = _mm256_xor_ps(sign, a.v);
  const __m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(_mm256_set1_ps(0.3275911f), ax, one));
  __m256 r = _mm256_fmadd_ps(_mm256_set1_ps(1.061405429f), t, _mm256_set1_ps(-1.453152027f));
  r = _mm256_fmadd_ps(r, t, _mm256_set1_ps(1.421413741f));
  r = _mm256_fmadd_ps(r, t, _mm256_set1_ps(-0.284496736f));
  r = _mm256_fmadd_ps(r, t, _mm256_set1_ps(0.254829592f));
  const __m256 e = vexp_fast(Vec<float>(_mm256_xor_ps(neg_zero, _mm256_mul_ps(a.v, a.v)))).v;
  const __m256 y = _mm256_fmadd_ps(_mm256_xor_ps(neg_zero, _mm256_mul_ps(e, t)), r, one);
  return _mm256_xor_ps(sign, y);
}

template <>
inline Vec<float> vabs(const Vec<float>& a) {
  return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a.v);
}
template <>
inline Vec<double> vabs(const Vec<double>& a) {
  return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a.v);
}
template <>
inline Vec<float> vneg(const Vec<float>& a) {
  return _mm256_xor_ps(_mm256_set1_ps(-0.0f), a.v);
}
template <>
inline Vec<double> vneg(const Vec<double>& a) {
  return _mm256_xor_pd(_mm256_set1_pd(-0.0), a.v);
}
template <>
inline Vec<float> vsqrt(const Vec<float>& a) {
  return _mm256_sqrt_ps(a.v);
}
template <>
inline Vec<double> vsqrt(const Vec<double>& a) {
  return _mm256_sqrt_pd(a.v);
}
template <>
inline Vec<float> vrsqrt(const Vec<float>& a) {
  return _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(a.v));
}
template <>
inline Vec<double> vrsqrt(const Vec<double>& a) {
  return _mm256_div_pd(_mm256_set1_pd(1.0), _mm256_sqrt_pd(a.v));
}
template <>
inline Vec<float> vreciprocal(const Vec<float>& a) {
  return _mm256_div_ps(_mm256_set1_ps(1.0f), a.v);
}
template <>
inline Vec<double> vreciprocal(const Vec<double>& a) {
  return _mm256_div_pd(_mm256_set1_pd(1.0), a.v);
}
#define EMBER_VEC_ROUND(vname, mode)                         \
  template <>                                                \
  inline Vec<float> vname(const Vec<float>& a) {             \
    return _mm256_round_ps(a.v, (mode) | _MM_FROUND_NO_EXC); \
  }                                                          \
  template <>                                                \
  inline Vec<double> vname(const Vec<double>& a) {           \
    return _mm256_round_pd(a.v, (mode) | _MM_FROUND_NO_EXC); \
  }
EMBER_VEC_ROUND(vfloor, _MM_FROUND_TO_NEG_INF)
EMBER_VEC_ROUND(vceil, _MM_FROUND_TO_POS_INF)
EMBER_VEC_ROUND(vround, _MM_FROUND_TO_NEAREST_INT)
EMBER_VEC_ROUND(vtrunc, _MM_FROUND_TO_ZERO)
#undef EMBER_VEC_ROUND

template <>
inline Vec<float> vselect_lt(const Vec<float>& a, const Vec<float>& b, const Vec<float>& x,
                             const Vec<float>& y) {
  return _mm256_blendv_ps(y.v, x.v, _mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ));
}
template <>
inline Vec<double> vselect_lt(const Vec<double>& a, const Vec<double>& b, const Vec<double>& x,
                              const Vec<double>& y) {
  return _mm256_blendv_pd(y.v, x.v, _mm256_cmp_pd(a.v, b.v, _CMP_LT_OQ));
}
#endif

}  // namespace ember::cpu
