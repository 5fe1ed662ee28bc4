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
  friend Vec operator+(const Vec& a, const Vec& b) { return zip(a, b, [](T x, T y) { return T(x + y); }); }
  friend Vec operator-(const Vec& a, const Vec& b) { return zip(a, b, [](T x, T y) { return T(x - y); }); }
  friend Vec operator*(const Vec& a, const Vec& b) { return zip(a, b, [](T x, T y) { return T(x * y); }); }
  friend Vec operator/(const Vec& a, const Vec& b) { return zip(a, b, [](T x, T y) { return T(x / y); }); }
};

// Generic element functions: Vec versions fall back to map; the AVX2 specialisations override.
template <typename T> Vec<T> vmax(const Vec<T>& a, const Vec<T>& b) {
  return Vec<T>::zip(a, b, [](T x, T y) { return x > y ? x : y; });
}
template <typename T> Vec<T> vmin(const Vec<T>& a, const Vec<T>& b) {
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
template <> inline Vec<float> vmax(const Vec<float>& a, const Vec<float>& b) {
  __m256 m = _mm256_max_ps(a.v, b.v);
  __m256 nan = _mm256_cmp_ps(a.v, b.v, _CMP_UNORD_Q);
  return _mm256_blendv_ps(m, _mm256_add_ps(a.v, b.v), nan);
}
template <> inline Vec<float> vmin(const Vec<float>& a, const Vec<float>& b) {
  __m256 m = _mm256_min_ps(a.v, b.v);
  __m256 nan = _mm256_cmp_ps(a.v, b.v, _CMP_UNORD_Q);
  return _mm256_blendv_ps(m, _mm256_add_ps(a.v, b.v), nan);
}
template <> inline Vec<double> vmax(const Vec<double>& a, const Vec<double>& b) {
  __m256d m = _mm256_max_pd(a.v, b.v);
  __m256d nan = _mm256_cmp_pd(a.v, b.v, _CMP_UNORD_Q);
  return _mm256_blendv_pd(m, _mm256_add_pd(a.v, b.v), nan);
}
template <> inline Vec<double> vmin(const Vec<double>& a, const Vec<double>& b) {
  __m256d m = _mm256_min_pd(a.v, b.v);
  __m256d nan = _mm256_cmp_pd(a.v, b.v, _CMP_UNORD_Q);
  return _mm256_blendv_pd(m, _mm256_add_pd(a.v, b.v), nan);
}
#endif

}  // namespace ember::cpu
