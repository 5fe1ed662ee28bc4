#pragma once
// Vectorised passes over one contiguous row, shared by the softmax kernels and attention's
// online softmax (so both take the same exponentials).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "backend/cpu/vec.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

/// Whether v is a NaN (never, for integers).
template <typename V>
inline bool is_nan(V v) {
  if constexpr (std::is_floating_point_v<V>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

/// Whether x replaces the current extreme m of a max (Max) or min: a NaN m stays; a NaN x wins;
/// otherwise strictly better.
template <bool Max, typename V>
inline bool better(V x, V m) {
  if (is_nan(m)) return false;
  if (is_nan(x)) return true;
  return Max ? x > m : x < m;
}

/// The 32 lanes of a vectorised reduction combined pairwise in a fixed order by op (a sum without
/// one): halves, stage by stage, with constant bounds, which the compiler keeps in registers (a
/// loop over the stage width kept the lanes on the stack, each stage waiting on the last one's
/// stores: ~100 cycles per run, which showed in reductions over short rows).
template <typename A, typename F>
inline A lane_tree(A (&lanes)[32], const F& op) {
  for (int k = 0; k < 16; ++k) lanes[k] = op(lanes[k], lanes[k + 16]);
  for (int k = 0; k < 8; ++k) lanes[k] = op(lanes[k], lanes[k + 8]);
  for (int k = 0; k < 4; ++k) lanes[k] = op(lanes[k], lanes[k + 4]);
  for (int k = 0; k < 2; ++k) lanes[k] = op(lanes[k], lanes[k + 2]);
  return op(lanes[0], lanes[1]);
}
template <typename A>
inline A lane_tree(A (&lanes)[32]) {
  return lane_tree(lanes, [](A a, A b) { return a + b; });
}

/// The maximum (Max) or minimum of a, at(0), ..., at(n - 1), NaN winning: a NaN a stays, any NaN
/// element is the answer, otherwise ties keep the earlier value. Runs of 32 or more go in 32
/// independent lanes (several vector registers, so that the chains overlap), each keeping
/// `x > m ? x : m` (one vmaxps: a NaN x leaves the lane as it is) and, apart, the last NaN it
/// met; the lanes then combine pairwise. Testing each x for NaN inside the lanes' chains made
/// max, and softmax's first pass, compute-bound.
template <bool Max, typename A, typename At>
inline A extreme_lanes(int64_t n, const At& at, A a) {
  constexpr int kLanes = 32;
  const auto pick = [](A x, A m) { return (Max ? x > m : x < m) ? x : m; };
  int64_t i = 0;
  if (n >= kLanes) {
    A lanes[kLanes], nans[kLanes];
    for (int k = 0; k < kLanes; ++k) {
      lanes[k] = at(k);
      nans[k] = is_nan(lanes[k]) ? lanes[k] : A(0);
    }
    for (i = kLanes; i + kLanes <= n; i += kLanes) {
      for (int k = 0; k < kLanes; ++k) {
        const A x = at(i + k);
        lanes[k] = pick(x, lanes[k]);
        nans[k] = is_nan(x) ? x : nans[k];
      }
    }
    // nans holds zeros and NaNs: their sum is NaN exactly when one is (a scan for the last NaN
    // lane compiled to a long serial chain whose cost swung 3x with where the code was placed).
    A m = lane_tree(lanes, [&](A u, A v) { return pick(v, u); });
    if constexpr (std::is_floating_point_v<A>) {
      const A s = lane_tree(nans);
      if (std::isnan(s)) m = s;
    }
    a = better<Max>(m, a) ? m : a;
  }
  for (; i < n; ++i) {
    const A x = at(i);
    a = better<Max>(x, a) ? x : a;
  }
  return a;
}

/// The row's maximum (-inf when empty), NaN if any element is NaN (as PyTorch: NaN propagates to
/// the whole row).
template <typename A>
A row_max(const A* x, int64_t n) {
  return extreme_lanes<true>(
      n, [x](int64_t i) { return x[i]; }, -std::numeric_limits<A>::infinity());
}

/// sum(exp(x - mx)); stores the exponentials to `e` (which may be x) unless it is null. The
/// exponential is vexp_nonpos (x - mx <= 0): the rows' cost is exp.
template <typename A>
A exp_sum(const A* x, A* e, int64_t n, A mx) {
  using V = Vec<A>;
  const V vmx(mx);
  V s0(A(0)), s1(A(0));
  int64_t i = 0;
  for (; i + 2 * V::size <= n; i += 2 * V::size) {
    V a = vexp_nonpos(V::load(x + i) - vmx), b = vexp_nonpos(V::load(x + i + V::size) - vmx);
    if (e) {
      a.store(e + i);
      b.store(e + i + V::size);
    }
    s0 = s0 + a;
    s1 = s1 + b;
  }
  if (i + V::size <= n) {
    V a = vexp_nonpos(V::load(x + i) - vmx);
    if (e) a.store(e + i);
    s1 = s1 + a;
    i += V::size;
  }
  if (i < n) {
    // The tail through one padded vector: -inf lanes add exp(-inf) = 0, and every element takes
    // the same exponential as the body (attention's causal rows are short and ragged).
    A buf[V::size];
    std::fill(buf, buf + V::size, -std::numeric_limits<A>::infinity());
    std::copy(x + i, x + n, buf);
    V a = vexp_nonpos(V::load(buf) - vmx);
    a.store(buf);
    if (e) std::copy(buf, buf + (n - i), e + i);
    s0 = s0 + a;
  }
  return hsum(s0 + s1);
}

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY
