// var, std, var_mean, std_mean (Welford / Chan in double), norm (any p), logsumexp (online, with
// a running maximum so that large inputs do not overflow). Floating-point inputs only.
#include <cmath>
#include <limits>

#include "backend/cpu/reduce_kernels.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

namespace {

struct Welford {
  double n = 0, mean = 0, m2 = 0;
};

// Chan et al.'s parallel update: merges the statistics of b (disjoint elements) into a.
inline void welford_combine(Welford& a, const Welford& b) {
  if (b.n == 0) return;
  if (a.n == 0) {
    a = b;
    return;
  }
  const double n = a.n + b.n, delta = b.mean - a.mean;
  a.mean += delta * (b.n / n);
  a.m2 += b.m2 + delta * delta * (a.n * b.n / n);
  a.n = n;
}

enum class VarKind { Var, Std, VarMean, StdMean };

template <typename T, VarKind K>
struct VarOp : ReduceOpBase<VarOp<T, K>, T, Welford> {
  char* out;
  char* mean_out;  // VarMean / StdMean
  double correction;

  Welford init() const { return {}; }
  void step(Welford& a, opmath_t<T> x, int64_t) const {
    const double v = static_cast<double>(x);
    a.n += 1;
    const double d = v - a.mean;
    a.mean += d / a.n;
    a.m2 += d * (v - a.mean);
  }
  // A run: two passes (mean, then squared deviations), merged with Chan's update.
  void run(Welford& a, const char* p, int64_t stride, int64_t n, int64_t) const {
    using V = opmath_t<T>;
    Welford r;
    r.n = static_cast<double>(n);
    r.mean = run_sum<double, T>(p, stride, n, [](V v) { return static_cast<double>(v); }) / r.n;
    const double m = r.mean;
    r.m2 = run_sum<double, T>(p, stride, n, [m](V v) {
      const double d = static_cast<double>(v) - m;
      return d * d;
    });
    welford_combine(a, r);
  }
  void combine(Welford& a, const Welford& b) const { welford_combine(a, b); }
  void project(const Welford& a, int64_t o) const {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    double var = a.n == 0 ? nan : a.m2 / std::max(0.0, a.n - correction);
    if (K == VarKind::Std || K == VarKind::StdMean) var = std::sqrt(var);
    reinterpret_cast<T*>(out)[o] = cast_to<T>(var);
    if (K == VarKind::VarMean || K == VarKind::StdMean) {
      reinterpret_cast<T*>(mean_out)[o] = cast_to<T>(a.n == 0 ? nan : a.mean);
    }
  }
};

enum class PKind { Zero, One, Two, Inf, NegInf, General };

template <typename T, PKind P>
struct NormOp : ReduceOpBase<NormOp<T, P>, T, fp_acc_t<T>> {
  using A = fp_acc_t<T>;
  char* out;
  A p;

  A init() const { return P == PKind::NegInf ? std::numeric_limits<A>::infinity() : A(0); }
  void step(A& a, opmath_t<T> x, int64_t) const {
    const A v = std::abs(static_cast<A>(x));
    if constexpr (P == PKind::Zero) {
      a += x != 0 ? A(1) : A(0);
    } else if constexpr (P == PKind::One) {
      a += v;
    } else if constexpr (P == PKind::Two) {
      a += v * v;
    } else if constexpr (P == PKind::Inf) {
      a = (std::isnan(a) || a >= v) ? a : v;  // NaN propagates
    } else if constexpr (P == PKind::NegInf) {
      a = (std::isnan(a) || a <= v) ? a : v;
    } else {
      a += std::pow(v, p);
    }
  }
  void run(A& a, const char* q, int64_t stride, int64_t n, int64_t idx0) const {
    using V = opmath_t<T>;
    if constexpr (P == PKind::One) {
      a += run_sum<A, T>(q, stride, n, [](V x) { return std::abs(static_cast<A>(x)); });
    } else if constexpr (P == PKind::Two) {
      a += run_sum<A, T>(q, stride, n, [](V x) { return static_cast<A>(x) * static_cast<A>(x); });
    } else {
      ReduceOpBase<NormOp<T, P>, T, A>::run(a, q, stride, n, idx0);
    }
  }
  void combine(A& a, const A& b) const {
    if constexpr (P == PKind::Inf) {
      a = (std::isnan(a) || a >= b) ? a : b;
    } else if constexpr (P == PKind::NegInf) {
      a = (std::isnan(a) || a <= b) ? a : b;
    } else {
      a += b;
    }
  }
  void project(const A& a, int64_t o) const {
    A r = a;
    if constexpr (P == PKind::Two) r = std::sqrt(a);
    if constexpr (P == PKind::General) r = std::pow(a, A(1) / p);
    reinterpret_cast<T*>(out)[o] = cast_to<T>(r);
  }
};

template <typename A>
struct LseAcc {
  A m = -std::numeric_limits<A>::infinity();  // running maximum (NaN once a NaN is seen)
  A s = 0;                                    // sum of exp(x - m)
};

template <typename T>
struct LogSumExpOp : ReduceOpBase<LogSumExpOp<T>, T, LseAcc<fp_acc_t<T>>> {
  using A = fp_acc_t<T>;
  static constexpr A kInf = std::numeric_limits<A>::infinity();
  char* out;

  LseAcc<A> init() const { return {}; }
  void step(LseAcc<A>& a, opmath_t<T> xv, int64_t) const {
    const A x = static_cast<A>(xv);
    if (std::isnan(a.m) || x == -kInf) return;
    if (std::isnan(x)) {
      a.m = x;
    } else if (x <= a.m) {
      if (a.m != kInf) a.s += std::exp(x - a.m);
    } else {
      a.s = a.s * std::exp(a.m - x) + 1;
      a.m = x;
    }
  }
  // A run: its maximum, then the sum of exp(x - max) (exp in the input's precision).
  void run(LseAcc<A>& a, const char* p, int64_t stride, int64_t n, int64_t) const {
    using V = opmath_t<T>;
    LseAcc<A> r;
    V m = -std::numeric_limits<V>::infinity();
    bool nan = false;
    for (int64_t i = 0; i < n; ++i) {
      const V x = load_as_opmath<T>(p + i * stride);
      nan = nan || std::isnan(x);
      m = x > m ? x : m;
    }
    if (nan) {
      r.m = std::numeric_limits<A>::quiet_NaN();
    } else if (m == std::numeric_limits<V>::infinity()) {
      r = {kInf, 1};
    } else if (m != -std::numeric_limits<V>::infinity()) {
      r.m = static_cast<A>(m);
      r.s = run_sum<A, T>(p, stride, n, [m](V x) { return static_cast<A>(std::exp(x - m)); });
    }
    combine(a, r);
  }
  void combine(LseAcc<A>& a, const LseAcc<A>& b) const {
    if (std::isnan(a.m) || b.m == -kInf) return;
    if (std::isnan(b.m) || a.m == -kInf) {
      a = b;
    } else if (a.m == kInf || b.m == kInf) {
      a.m = kInf;
      a.s = 1;
    } else {
      const A m = std::max(a.m, b.m);
      a.s = a.s * std::exp(a.m - m) + b.s * std::exp(b.m - m);
      a.m = m;
    }
  }
  void project(const LseAcc<A>& a, int64_t o) const {
    const A r = (std::isnan(a.m) || std::isinf(a.m)) ? a.m : a.m + std::log(a.s);
    reinterpret_cast<T*>(out)[o] = cast_to<T>(r);
  }
};

template <typename T>
void norm_kernel(const ReduceGeom& g, char* out, double p) {
  using A = fp_acc_t<T>;
  const A pa = static_cast<A>(p);
  if (p == 0) return reduce_kernel(g, NormOp<T, PKind::Zero>{{}, out, pa});
  if (p == 1) return reduce_kernel(g, NormOp<T, PKind::One>{{}, out, pa});
  if (p == 2) return reduce_kernel(g, NormOp<T, PKind::Two>{{}, out, pa});
  if (std::isinf(p) && p > 0) return reduce_kernel(g, NormOp<T, PKind::Inf>{{}, out, pa});
  if (std::isinf(p)) return reduce_kernel(g, NormOp<T, PKind::NegInf>{{}, out, pa});
  return reduce_kernel(g, NormOp<T, PKind::General>{{}, out, pa});
}

}  // namespace

void reduce_stats_family(ReduceOp op, const ReduceGeom& g, const Tensor& x,
                         std::vector<Tensor>& outs, double param) {
  const char* name = reduce_op_name(op);
  visit_dtype(x.dtype(), name, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (is_fp_v<T>) {
      char* out = static_cast<char*>(outs.at(0).data_ptr());
      char* second = outs.size() > 1 ? static_cast<char*>(outs[1].data_ptr()) : nullptr;
      switch (op) {
        case ReduceOp::Var:
          return reduce_kernel(g, VarOp<T, VarKind::Var>{{}, out, second, param});
        case ReduceOp::Std:
          return reduce_kernel(g, VarOp<T, VarKind::Std>{{}, out, second, param});
        case ReduceOp::VarMean:
          return reduce_kernel(g, VarOp<T, VarKind::VarMean>{{}, out, second, param});
        case ReduceOp::StdMean:
          return reduce_kernel(g, VarOp<T, VarKind::StdMean>{{}, out, second, param});
        case ReduceOp::Norm:
          return norm_kernel<T>(g, out, param);
        case ReduceOp::LogSumExp:
          return reduce_kernel(g, LogSumExpOp<T>{{}, out});
        default:
          break;
      }
    }
    EMBER_THROW(TypeError, "[", name, "] \"", name, "_cpu\" not implemented for '",
                dtype_name(x.dtype()), "'");
  });
}

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY
