#pragma once
// Vectorised passes over one contiguous row, shared by the softmax kernels and attention's
// online softmax (so both take the same exponentials).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "backend/cpu/vec.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

/// The row's maximum (-inf when empty), NaN if any element is NaN (as PyTorch: NaN propagates to
/// the whole row).
template <typename A>
A row_max(const A* x, int64_t n) {
  using V = Vec<A>;
  A mx = -std::numeric_limits<A>::infinity();
  int64_t i = 0;
  if (n >= 2 * V::size) {
    V m0(mx), m1(mx);
    for (; i + 2 * V::size <= n; i += 2 * V::size) {
      m0 = vmax(V::load(x + i), m0);
      m1 = vmax(V::load(x + i + V::size), m1);
    }
    A lanes[V::size];
    vmax(m0, m1).store(lanes);
    for (A v : lanes) mx = (v > mx || std::isnan(v)) ? v : mx;
  }
  for (; i < n; ++i) mx = (x[i] > mx || std::isnan(x[i])) ? x[i] : mx;
  return mx;
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
