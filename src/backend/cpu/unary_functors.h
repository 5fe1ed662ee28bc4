#pragma once
// Note [Unary functors]: the arithmetic of each floating-point unary op, once. A functor F<T> (T is
// float or double; the 16-bit floats use F<float>) has `T operator()(T)` for one element and
// `Vec<T> vec(const Vec<T>&)` for a SIMD lane group. Eager kernels and (later) compiler-generated
// code call the same functors, so their results agree. Formulas and edge cases follow PyTorch's CPU
// kernels (sign(NaN) is 0, relu(-0.0) is -0.0, logit(1) is inf, ...).
#include <cmath>
#include <limits>

#include "backend/cpu/vec.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

/// sigmoid on lanes as PyTorch writes it, 1 / (1 + exp(-x)): exp(-x) overflows to inf below
/// x = -88.7, giving 0 (and silu(-inf) = -inf / inf = NaN, as PyTorch's). The inlined exp keeps
/// the loop at memory speed.
template <typename T>
Vec<T> vsigmoid(const Vec<T>& x) {
  const Vec<T> one(T(1));
  return one / (one + vexp_fast(vneg(x)));
}

#define EMBER_SIMPLE_FUNCTOR(Name, scalar_expr, vec_expr)           \
  template <typename T>                                             \
  struct Name {                                                     \
    T operator()(T x) const { return static_cast<T>(scalar_expr); } \
    Vec<T> vec(const Vec<T>& x) const { return vec_expr; }          \
  };
EMBER_SIMPLE_FUNCTOR(AbsF, std::abs(x), vabs(x))
EMBER_SIMPLE_FUNCTOR(NegF, -x, vneg(x))
EMBER_SIMPLE_FUNCTOR(ExpF, std::exp(x), vexp(x))
EMBER_SIMPLE_FUNCTOR(Exp2F, std::exp2(x), vexp2(x))
EMBER_SIMPLE_FUNCTOR(Expm1F, std::expm1(x), vexpm1(x))
EMBER_SIMPLE_FUNCTOR(LogF, std::log(x), vlog(x))
EMBER_SIMPLE_FUNCTOR(Log2F, std::log2(x), vlog2(x))
EMBER_SIMPLE_FUNCTOR(Log10F, std::log10(x), vlog10(x))
EMBER_SIMPLE_FUNCTOR(Log1pF, std::log1p(x), vlog1p(x))
EMBER_SIMPLE_FUNCTOR(SqrtF, std::sqrt(x), vsqrt(x))
EMBER_SIMPLE_FUNCTOR(RsqrtF, T(1) / std::sqrt(x), vrsqrt(x))
EMBER_SIMPLE_FUNCTOR(ReciprocalF, T(1) / x, vreciprocal(x))
EMBER_SIMPLE_FUNCTOR(SinF, std::sin(x), vsin(x))
EMBER_SIMPLE_FUNCTOR(CosF, std::cos(x), vcos(x))
EMBER_SIMPLE_FUNCTOR(TanF, std::tan(x), vtan(x))
EMBER_SIMPLE_FUNCTOR(AsinF, std::asin(x), vasin(x))
EMBER_SIMPLE_FUNCTOR(AcosF, std::acos(x), vacos(x))
EMBER_SIMPLE_FUNCTOR(AtanF, std::atan(x), vatan(x))
EMBER_SIMPLE_FUNCTOR(SinhF, std::sinh(x), vsinh(x))
EMBER_SIMPLE_FUNCTOR(CoshF, std::cosh(x), vcosh(x))
EMBER_SIMPLE_FUNCTOR(TanhF, std::tanh(x), vtanh(x))
EMBER_SIMPLE_FUNCTOR(ErfF, std::erf(x), verf(x))
EMBER_SIMPLE_FUNCTOR(ErfcF, std::erfc(x), verfc(x))
EMBER_SIMPLE_FUNCTOR(FloorF, std::floor(x), vfloor(x))
EMBER_SIMPLE_FUNCTOR(CeilF, std::ceil(x), vceil(x))
EMBER_SIMPLE_FUNCTOR(RoundF, std::nearbyint(x), vround(x))
EMBER_SIMPLE_FUNCTOR(TruncF, std::trunc(x), vtrunc(x))
EMBER_SIMPLE_FUNCTOR(FracF, x - std::trunc(x), x - vtrunc(x))
// 1 / (1 + exp(-x)) as PyTorch's sigmoid kernel.
EMBER_SIMPLE_FUNCTOR(SigmoidF, T(1) / (T(1) + std::exp(-x)), vsigmoid(x))
EMBER_SIMPLE_FUNCTOR(SiluF, x / (T(1) + std::exp(-x)), x / (Vec<T>(T(1)) + vexp_fast(vneg(x))))
EMBER_SIMPLE_FUNCTOR(MishF, x* std::tanh(std::log1p(std::exp(x))), x* vtanh(vlog1p(vexp(x))))
// relu(x) = x < 0 ? 0 : x keeps NaN and -0.0, as clamp_min(x, 0).
EMBER_SIMPLE_FUNCTOR(ReluF, x < T(0) ? T(0) : x, vselect_lt(x, Vec<T>(T(0)), Vec<T>(T(0)), x))
// (0 < x) - (x < 0): sign(NaN) = 0 and sign(-0.0) = +0.0, as PyTorch's sign kernel.
EMBER_SIMPLE_FUNCTOR(SignF, T(int(T(0) < x) - int(x < T(0))),
                     vselect_gt(x, Vec<T>(T(0)), Vec<T>(T(1)), Vec<T>(T(0))) -
                         vselect_lt(x, Vec<T>(T(0)), Vec<T>(T(1)), Vec<T>(T(0))))
// min(max(x + 3, 0), 6) / 6 with NaN propagating (std::max(NaN, 0) is NaN).
EMBER_SIMPLE_FUNCTOR(HardsigmoidF, std::min(std::max(x + T(3), T(0)), T(6)) / T(6),
                     vmin(vmax(x + Vec<T>(T(3)), Vec<T>(T(0))), Vec<T>(T(6))) / Vec<T>(T(6)))
EMBER_SIMPLE_FUNCTOR(HardswishF, x* std::min(std::max(x + T(3), T(0)), T(6)) / T(6),
                     x* vmin(vmax(x + Vec<T>(T(3)), Vec<T>(T(0))), Vec<T>(T(6))) / Vec<T>(T(6)))
#undef EMBER_SIMPLE_FUNCTOR

/// gelu(x) = x * Phi(x), exactly (erf) or with PyTorch's tanh approximation.
template <typename T>
struct GeluF {
  T operator()(T x) const { return x * T(0.5) * (T(1) + std::erf(x * T(M_SQRT1_2))); }
  Vec<T> vec(const Vec<T>& x) const {
    return x * Vec<T>(T(0.5)) * (Vec<T>(T(1)) + verf_fast(x * Vec<T>(T(M_SQRT1_2))));
  }
};
template <typename T>
struct GeluTanhF {
  static constexpr T kBeta = T(M_SQRT2 * M_2_SQRTPI * 0.5);  // sqrt(2 / pi)
  static constexpr T kKappa = T(0.044715);
  // (1 + tanh(u)) / 2 = sigmoid(2u), which keeps tiny results where 1 + tanh(u) cancels to 0.
  T operator()(T x) const {
    const T inner = kBeta * (x + kKappa * x * x * x);
    return x / (T(1) + std::exp(T(-2) * inner));
  }
  Vec<T> vec(const Vec<T>& x) const {
    const Vec<T> x2 = x * x;
    return x * vsigmoid(Vec<T>(T(2) * kBeta) * vfma(Vec<T>(kKappa) * x2, x, x));
  }
};
// Note [Fused unary backward]: the backward of an activation in one pass over (g, x), or (g, y)
// for the ops whose vjp reads the output, as PyTorch's sigmoid_backward, tanh_backward,
// silu_backward and gelu_backward: a functor with `T operator()(T g, T v)` and `Vec<T> vec(g, v)`
// (the UnaryBackward primitive, src/primitives/unary.h).
template <typename T>
struct SigmoidBackwardF {  // v = y = sigmoid(x)
  T operator()(T g, T y) const { return g * (T(1) - y) * y; }
  Vec<T> vec(const Vec<T>& g, const Vec<T>& y) const { return g * (Vec<T>(T(1)) - y) * y; }
};
template <typename T>
struct TanhBackwardF {  // v = y = tanh(x)
  T operator()(T g, T y) const { return g * (T(1) - y * y); }
  Vec<T> vec(const Vec<T>& g, const Vec<T>& y) const { return g * (Vec<T>(T(1)) - y * y); }
};
/// PyTorch's threshold_backward(g, y, 0): 0 where y <= 0, else g (a NaN y passes g on).
template <typename T>
struct ReluBackwardF {  // v = y = relu(x)
  T operator()(T g, T y) const { return y <= T(0) ? T(0) : g; }
  Vec<T> vec(const Vec<T>& g, const Vec<T>& y) const {
    // y > 0: g; else y < inf (so y <= 0): 0; else (NaN): g.
    const Vec<T> zero(T(0));
    return vselect_lt(zero, y, g,
                      vselect_lt(y, Vec<T>(std::numeric_limits<T>::infinity()), zero, g));
  }
};
/// silu'(x) = s (1 + x (1 - s)), s = sigmoid(x).
template <typename T>
struct SiluBackwardF {
  T operator()(T g, T x) const {
    const T s = T(1) / (T(1) + std::exp(-x));
    return g * s * (T(1) + x * (T(1) - s));
  }
  Vec<T> vec(const Vec<T>& g, const Vec<T>& x) const {
    const Vec<T> one(T(1)), s = vsigmoid(x);
    return g * s * vfma(x, one - s, one);
  }
};
/// gelu'(x) = Phi(x) + x phi(x), with the erf of GeluF.
template <typename T>
struct GeluBackwardF {
  static constexpr T kInvSqrt2Pi = T(0.3989422804014327);
  T operator()(T g, T x) const {
    return g * (T(0.5) * (T(1) + std::erf(x * T(M_SQRT1_2))) +
                x * kInvSqrt2Pi * std::exp(T(-0.5) * x * x));
  }
  Vec<T> vec(const Vec<T>& g, const Vec<T>& x) const {
    const Vec<T> half(T(0.5));
    const Vec<T> cdf = vfma(half, verf_fast(x * Vec<T>(T(M_SQRT1_2))), half);
    const Vec<T> pdf = Vec<T>(kInvSqrt2Pi) * vexp_fast(Vec<T>(T(-0.5)) * x * x);
    return g * vfma(x, pdf, cdf);
  }
};
/// The derivative of GeluTanhF: s + 2 x s (1 - s) u', s = sigmoid(2u) = (1 + tanh(u)) / 2.
template <typename T>
struct GeluTanhBackwardF {
  static constexpr T kBeta = GeluTanhF<T>::kBeta, kKappa = GeluTanhF<T>::kKappa;
  T operator()(T g, T x) const {
    const T t = std::tanh(kBeta * (x + kKappa * x * x * x));
    return g * (T(0.5) * (T(1) + t) +
                T(0.5) * x * (T(1) - t * t) * kBeta * (T(1) + T(3) * kKappa * x * x));
  }
  Vec<T> vec(const Vec<T>& g, const Vec<T>& x) const {
    const Vec<T> one(T(1)), x2 = x * x;
    const Vec<T> s = vsigmoid(Vec<T>(T(2) * kBeta) * vfma(Vec<T>(kKappa) * x2, x, x));
    const Vec<T> du = Vec<T>(T(2) * kBeta) * vfma(Vec<T>(T(3) * kKappa), x2, one);  // 2u'
    return g * vfma(x * s * (one - s), du, s);
  }
};

/// logit(x) = log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps >= 0.
template <typename T>
struct LogitF {
  T eps;  // negative: no clamping
  T operator()(T x) const {
    if (eps >= T(0)) x = x < eps ? eps : (x > T(1) - eps ? T(1) - eps : x);
    return x == T(1) ? std::numeric_limits<T>::infinity() : std::log(x / (T(1) - x));
  }
  Vec<T> vec(const Vec<T>& x) const {
    Vec<T> v = x;
    if (eps >= T(0)) {
      Vec<T> lo(eps), hi(T(1) - eps);
      v = vselect_lt(v, lo, lo, v);
      v = vselect_gt(v, hi, hi, v);
    }
    return vlog(v / (Vec<T>(T(1)) - v));
  }
};

/// softplus(x) = log1p(exp(beta x)) / beta, or x where beta x > threshold.
template <typename T>
struct SoftplusF {
  T beta, threshold;
  T operator()(T x) const {
    T bx = x * beta;
    return bx > threshold ? x : std::log1p(std::exp(bx)) / beta;
  }
  Vec<T> vec(const Vec<T>& x) const {
    Vec<T> bx = x * Vec<T>(beta);
    return vselect_gt(bx, Vec<T>(threshold), x, vlog1p(vexp(bx)) / Vec<T>(beta));
  }
};

/// elu(x) = x > 0 ? scale x : alpha scale (exp(input_scale x) - 1).
template <typename T>
struct EluF {
  T alpha, scale, input_scale;
  T operator()(T x) const {
    return x <= T(0) ? std::expm1(x * input_scale) * (alpha * scale) : x * scale;
  }
  Vec<T> vec(const Vec<T>& x) const {
    Vec<T> neg = vexpm1(x * Vec<T>(input_scale)) * Vec<T>(alpha * scale);
    return vselect_gt(x, Vec<T>(T(0)), x * Vec<T>(scale), neg);
  }
};

template <typename T>
struct LeakyReluF {
  T slope;
  T operator()(T x) const { return x > T(0) ? x : x * slope; }
  Vec<T> vec(const Vec<T>& x) const { return vselect_gt(x, Vec<T>(T(0)), x, x * Vec<T>(slope)); }
};

/// clamp(x, lo, hi) with NaN propagating, as hardtanh / clamp.
template <typename T>
struct HardtanhF {
  T lo, hi;
  T operator()(T x) const { return std::min(std::max(x, lo), hi); }
  Vec<T> vec(const Vec<T>& x) const { return vmin(vmax(x, Vec<T>(lo)), Vec<T>(hi)); }
};

/// round(x, decimals) for decimals > 0 (ten_pow = 10^d) and decimals < 0 (ten_pow = 10^-d), as
/// PyTorch: nearbyint(x * 10^d) / 10^d, or nearbyint(x / 10^-d) * 10^-d, in the compute type.
template <typename T>
struct RoundMulF {
  T ten_pow;
  T operator()(T x) const { return std::nearbyint(x * ten_pow) / ten_pow; }
  Vec<T> vec(const Vec<T>& x) const { return x.map(*this); }
};
template <typename T>
struct RoundDivF {
  T ten_pow;
  T operator()(T x) const { return std::nearbyint(x / ten_pow) * ten_pow; }
  Vec<T> vec(const Vec<T>& x) const { return x.map(*this); }
};

template <typename T>
struct NanToNumF {
  T nan, posinf, neginf;
  Vec<T> vec(const Vec<T>& x) const { return x.map(*this); }
  T operator()(T x) const {
    if (std::isnan(x)) return nan;
    if (x == std::numeric_limits<T>::infinity()) return posinf;
    if (x == -std::numeric_limits<T>::infinity()) return neginf;
    return x;
  }
};

/// erfinv in double: Giles' single-precision approximation ("Approximating the erfinv function",
/// 2010) refined by Newton steps on erf (|y| <= 0.5) or on log(erfc) (|y| > 0.5, where 1 - |y| is
/// exact and the step stays well conditioned up to y = 1 - 2^-53).
inline double erfinv_double(double y) {
  const double ay = std::fabs(y);
  if (!(ay <= 1.0)) return std::numeric_limits<double>::quiet_NaN();
  if (ay == 1.0) return std::copysign(std::numeric_limits<double>::infinity(), y);
  double w = -std::log((1.0 - ay) * (1.0 + ay));
  double p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double x = p * ay;
  if (ay <= 0.5) {
    for (int i = 0; i < 3; ++i) x -= (std::erf(x) - ay) / (M_2_SQRTPI * std::exp(-x * x));
  } else {
    const double q = 1.0 - ay;
    for (int i = 0; i < 3; ++i) {
      double c = std::erfc(x);
      x += (std::log(c) - std::log(q)) * c / (M_2_SQRTPI * std::exp(-x * x));
    }
  }
  return std::copysign(x, y);
}

template <typename T>
struct ErfinvF {
  T operator()(T x) const { return static_cast<T>(erfinv_double(static_cast<double>(x))); }
  Vec<T> vec(const Vec<T>& x) const { return x.map(*this); }
};

/// Functors whose vector body costs more than moving their bytes (SLEEF's functions, erf, exp
/// in full precision): their loops keep plain stores, which measured faster there than streaming
/// ones (gelu on 16M floats: 5.0 vs 5.4 ms at 2 threads); the others stream a big output (Note
/// [Streaming stores] in vec.h: add 25% faster).
template <template <typename> class F>
constexpr bool kComputeBound = false;
#define EMBER_COMPUTE_BOUND(F) \
  template <>                  \
  constexpr bool kComputeBound<F> = true;
EMBER_COMPUTE_BOUND(ExpF)
EMBER_COMPUTE_BOUND(Exp2F)
EMBER_COMPUTE_BOUND(Expm1F)
EMBER_COMPUTE_BOUND(LogF)
EMBER_COMPUTE_BOUND(Log2F)
EMBER_COMPUTE_BOUND(Log10F)
EMBER_COMPUTE_BOUND(Log1pF)
EMBER_COMPUTE_BOUND(SinF)
EMBER_COMPUTE_BOUND(CosF)
EMBER_COMPUTE_BOUND(TanF)
EMBER_COMPUTE_BOUND(AsinF)
EMBER_COMPUTE_BOUND(AcosF)
EMBER_COMPUTE_BOUND(AtanF)
EMBER_COMPUTE_BOUND(SinhF)
EMBER_COMPUTE_BOUND(CoshF)
EMBER_COMPUTE_BOUND(TanhF)
EMBER_COMPUTE_BOUND(ErfF)
EMBER_COMPUTE_BOUND(ErfcF)
EMBER_COMPUTE_BOUND(MishF)
EMBER_COMPUTE_BOUND(GeluF)
EMBER_COMPUTE_BOUND(GeluTanhF)
EMBER_COMPUTE_BOUND(GeluBackwardF)
EMBER_COMPUTE_BOUND(GeluTanhBackwardF)
EMBER_COMPUTE_BOUND(LogitF)
EMBER_COMPUTE_BOUND(SoftplusF)
EMBER_COMPUTE_BOUND(EluF)
EMBER_COMPUTE_BOUND(ErfinvF)
#undef EMBER_COMPUTE_BOUND

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY
