// amax, amin, max/min (values and indices), argmax, argmin, aminmax. NaN counts as greater and as
// smaller than every number (it propagates); index ties keep the first occurrence.
#include <limits>

#include "backend/cpu/reduce_kernels.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

namespace {

template <typename V>
constexpr V lowest() {
  using L = std::numeric_limits<V>;
  return L::has_infinity ? -L::infinity() : L::lowest();
}
template <typename V>
constexpr V highest() {
  using L = std::numeric_limits<V>;
  return L::has_infinity ? L::infinity() : L::max();
}

template <typename T>
inline void store_value(char* out, int64_t o, opmath_t<T> v) {
  reinterpret_cast<T*>(out)[o] = cast_to<T>(v);
}

// Whether x replaces a in a vectorisable form: as better(), except that a NaN x also replaces a
// NaN a (any NaN is the answer then). Ties keep a.
template <bool Max, typename V>
inline bool replaces(V x, V a) {
  return (Max ? x > a : x < a) || is_nan(x);
}

template <typename T, bool Max>
struct ExtremeOp : ReduceOpBase<ExtremeOp<T, Max>, T, opmath_t<T>> {
  using A = opmath_t<T>;
  char* out;

  A init() const { return Max ? lowest<A>() : highest<A>(); }
  void step(A& a, A x, int64_t) const { a = better<Max>(x, a) ? x : a; }
  void run(A& a, const char* p, int64_t stride, int64_t n, int64_t idx0) const {
    if (stride == static_cast<int64_t>(sizeof(T))) {
      a = extreme_lanes<Max>(
          n, [p](int64_t i) { return load_as_opmath<T>(p + i * static_cast<int64_t>(sizeof(T))); },
          a);
      return;
    }
    ReduceOpBase<ExtremeOp<T, Max>, T, A>::run(a, p, stride, n, idx0);
  }
  // Columns: a NaN accumulator stays (replaces() is false for a number x), a NaN x wins.
  void vrun(A* acc, const char* p, int64_t row_stride, int64_t n, int64_t len, int64_t) const {
    auto pick = [](A a, A x) { return replaces<Max>(x, a) ? x : a; };
    vertical_by_four<T>(
        acc, p, row_stride, n, len,
        [pick](A a, A x0, A x1, A x2, A x3) { return pick(pick(pick(pick(a, x0), x1), x2), x3); },
        pick);
  }
  void combine(A& a, const A& b) const { step(a, b, 0); }
  void project(const A& a, int64_t o) const { store_value<T>(out, o, a); }
};

template <typename A>
struct ArgAcc {
  A v{};
  int64_t i = -1;
};

// argmax/argmin, and max/min over a dim when `values` is set.
template <typename T, bool Max>
struct ArgOp : ReduceOpBase<ArgOp<T, Max>, T, ArgAcc<opmath_t<T>>> {
  using A = opmath_t<T>;
  char* values;  // may be null
  int64_t* indices;

  ArgAcc<A> init() const { return {}; }
  void step(ArgAcc<A>& a, A x, int64_t idx) const {
    if (a.i < 0 || better<Max>(x, a.v)) {
      a.v = x;
      a.i = idx;
    }
  }
  // b covers later indices than a: on a tie a stays.
  void combine(ArgAcc<A>& a, const ArgAcc<A>& b) const {
    if (b.i >= 0 && (a.i < 0 || better<Max>(b.v, a.v))) a = b;
  }
  void project(const ArgAcc<A>& a, int64_t o) const {
    indices[o] = a.i < 0 ? 0 : a.i;
    if (values != nullptr) store_value<T>(values, o, a.v);
  }
};

template <typename A>
struct MinMaxAcc {
  A mn, mx;
};

template <typename T>
struct AMinMaxOp : ReduceOpBase<AMinMaxOp<T>, T, MinMaxAcc<opmath_t<T>>> {
  using A = opmath_t<T>;
  char* min_out;
  char* max_out;

  MinMaxAcc<A> init() const { return {highest<A>(), lowest<A>()}; }
  void step(MinMaxAcc<A>& a, A x, int64_t) const {
    a.mn = better<false>(x, a.mn) ? x : a.mn;
    a.mx = better<true>(x, a.mx) ? x : a.mx;
  }
  void combine(MinMaxAcc<A>& a, const MinMaxAcc<A>& b) const {
    a.mn = better<false>(b.mn, a.mn) ? b.mn : a.mn;
    a.mx = better<true>(b.mx, a.mx) ? b.mx : a.mx;
  }
  void project(const MinMaxAcc<A>& a, int64_t o) const {
    store_value<T>(min_out, o, a.mn);
    store_value<T>(max_out, o, a.mx);
  }
};

}  // namespace

void reduce_minmax_family(ReduceOp op, const ReduceGeom& g, const Tensor& x,
                          std::vector<Tensor>& outs) {
  const char* name = reduce_op_name(op);
  visit_dtype(x.dtype(), name, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    auto data = [&](size_t k) { return static_cast<char*>(outs.at(k).data_ptr()); };
    auto index_data = [&](size_t k) { return outs.at(k).template data_ptr<int64_t>(); };
    switch (op) {
      case ReduceOp::AMax:
        return reduce_kernel(g, ExtremeOp<T, true>{{}, data(0)});
      case ReduceOp::AMin:
        return reduce_kernel(g, ExtremeOp<T, false>{{}, data(0)});
      case ReduceOp::MaxDim:
        return reduce_kernel(g, ArgOp<T, true>{{}, data(0), index_data(1)});
      case ReduceOp::MinDim:
        return reduce_kernel(g, ArgOp<T, false>{{}, data(0), index_data(1)});
      case ReduceOp::ArgMax:
        return reduce_kernel(g, ArgOp<T, true>{{}, nullptr, index_data(0)});
      case ReduceOp::ArgMin:
        return reduce_kernel(g, ArgOp<T, false>{{}, nullptr, index_data(0)});
      case ReduceOp::AMinMax:
        return reduce_kernel(g, AMinMaxOp<T>{{}, data(0), data(1)});
      default:
        break;
    }
    EMBER_THROW(RuntimeError, "[", name, "] internal error: not a min/max reduction");
  });
}

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY
