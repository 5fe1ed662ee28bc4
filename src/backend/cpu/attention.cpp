// Tiled scaled dot-product attention (Note [Tiled attention] in ember/nn/functional/attention.h).
// Forward: for each (batch * head, block of queries) task, stream over blocks of keys keeping a
// running max m, a running sum l and an unnormalised accumulator per query row (online softmax);
// score tiles are GEMMs. Backward (FlashAttention-2 style, recompute-based): one pass over key
// blocks accumulates dK and dV, a second over query blocks accumulates dQ, so no two tasks write
// the same output rows. Memory per task is a few tiles, independent of L and S.
#include "primitives/attention.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "backend/cpu/gemm.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/row_math.h"
#include "backend/cpu/vec.h"
#include "core/shape.h"
#include "ember/core/generator.h"
#include "primitives/random.h"

namespace ember {
namespace {

constexpr int64_t kBlockQ = 64;
constexpr int64_t kBlockK = 128;

/// cpu::gemm for possibly empty operands: k == 0 gives beta * C (zero when beta is 0).
template <typename T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
          const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
    }
    return;
  }
  cpu::gemm(ta, tb, m, n, k, alpha, a, std::max<int64_t>(lda, 1), b, std::max<int64_t>(ldb, 1),
            beta, c, std::max<int64_t>(ldc, 1));
}

struct Dims {
  int64_t B, Hq, Hk, L, S, E, Ev;
  int64_t kv_index(int64_t bh) const {  // q's (batch * Hq + head) -> k/v's batch * Hk + head
    const int64_t b = bh / Hq, h = bh % Hq;
    return b * Hk + h / (Hq / Hk);
  }
};

/// A [B, H, N, W] operand whose rows are contiguous (primitives/attention.h): row i of head bh
/// (batch * H + head) starts at at(bh, i) and rows are ld elements apart (the GEMMs' leading
/// dimension), so a transposed view such as q = x.view(B, L, H, E).transpose(1, 2) is read in
/// place.
struct Rows {
  int64_t sb = 0, sh = 0, ld = 1, H = 1;
  int64_t at(int64_t bh, int64_t i) const { return (bh / H) * sb + (bh % H) * sh + i * ld; }
};

Rows rows_of(const Tensor& t) {
  EMBER_INTERNAL_ASSERT(attention_rows_contiguous(t),
                        "[scaled_dot_product_attention] expects contiguous rows, got strides ",
                        shape_str(t.strides()));
  return {t.stride(0), t.stride(1), t.size(2) > 1 ? t.stride(2) : std::max<int64_t>(t.size(3), 1),
          std::max<int64_t>(t.size(1), 1)};
}

/// Tasks per thread chunk so that a chunk holds enough work to pay for waking a thread: tiny
/// problems stay on the calling thread.
int64_t task_grain(int64_t work_per_task) {
  return std::max<int64_t>(1, (cpu::kGrainSize * 4) / std::max<int64_t>(1, work_per_task));
}

Dims dims_of(const Tensor& q, const Tensor& k, const Tensor& v) {
  return {q.size(0), q.size(1), k.size(1), q.size(2), k.size(2), q.size(3), v.size(3)};
}

// The mask as (bh, i, j) -> element: per-(bh) offsets for the leading dims, strides for i, j.
struct MaskView {
  const char* base = nullptr;
  bool is_bool = false;
  int64_t elem = 0, stride_i = 0, stride_j = 0;
  std::vector<int64_t> offsets;
};

MaskView mask_view(const Tensor& m, int64_t num_bh) {
  MaskView mv;
  mv.base = static_cast<const char*>(m.data_ptr());
  mv.is_bool = m.dtype() == kBool;
  mv.elem = m.element_size();
  const int64_t nd = m.dim();
  mv.stride_i = m.stride(nd - 2);
  mv.stride_j = m.stride(nd - 1);
  mv.offsets.resize(num_bh);
  std::vector<int64_t> idx(nd - 2, 0);
  for (int64_t bh = 0; bh < num_bh; ++bh) {
    int64_t off = 0;
    for (int64_t d = 0; d < nd - 2; ++d) off += idx[d] * m.stride(d);
    mv.offsets[bh] = off;
    for (int64_t d = nd - 3; d >= 0; --d) {
      if (++idx[d] < m.size(d)) break;
      idx[d] = 0;
    }
  }
  return mv;
}

template <typename T>
struct Ctx {
  Dims d;
  AttentionParams p;
  const MaskView* mask = nullptr;  // null: no mask
  PhiloxState rng;                 // the dropout stream (dropout_p > 0)
  Rows q, k, v, o, dO;             // the operands' rows (o: the output, dO: its gradient)
};

/// The context of a call on q, k, v and the output o (and its gradient dO in the backward).
template <typename T>
Ctx<T> make_ctx(const AttentionParams& p, const Tensor& q, const Tensor& k, const Tensor& v,
                const Tensor& o, const Tensor* dO) {
  return {dims_of(q, k, v),          p, nullptr, {}, rows_of(q), rows_of(k), rows_of(v), rows_of(o),
          dO ? rows_of(*dO) : Rows{}};
}

/// Scores tile s[nq x nj] for rows i0.. and keys j0..: the explicit mask applied (causality is
/// each row's limit, causal_limit).
template <typename T>
void mask_tile(T* s, int64_t nq, int64_t nj, int64_t i0, int64_t j0, int64_t bh, const Ctx<T>& c) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  const MaskView& m = *c.mask;
  for (int64_t r = 0; r < nq; ++r) {
    const int64_t i = i0 + r;
    T* row = s + r * nj;
    const char* mrow = m.base + (m.offsets[bh] + i * m.stride_i + j0 * m.stride_j) * m.elem;
    if (m.is_bool) {
      const bool* mb = reinterpret_cast<const bool*>(mrow);
      for (int64_t j = 0; j < nj; ++j) {
        if (!mb[j * m.stride_j]) row[j] = kNegInf;
      }
    } else {
      const T* mt = reinterpret_cast<const T*>(mrow);
      for (int64_t j = 0; j < nj; ++j) row[j] += mt[j * m.stride_j];
    }
  }
}

/// Multiplies the tile by keep / (1 - p) (the regenerated dropout mask).
template <typename T>
void dropout_tile(T* s, int64_t nq, int64_t nj, int64_t i0, int64_t j0, int64_t bh,
                  const Ctx<T>& c) {
  const double p = c.p.dropout_p;
  const T scale = static_cast<T>(1.0 / (1.0 - p));
  const float keep_below = static_cast<float>(1.0 - p);
  for (int64_t r = 0; r < nq; ++r) {
    const uint64_t base = static_cast<uint64_t>((bh * c.d.L + i0 + r) * c.d.S + j0);
    std::array<uint32_t, 4> block{};
    uint64_t cur = ~uint64_t(0);
    for (int64_t j = 0; j < nj; ++j) {
      const uint64_t n = base + static_cast<uint64_t>(j);
      if (n / 4 != cur) {
        cur = n / 4;
        block = Generator::philox(c.rng.seed, c.rng.offset + cur);
      }
      const bool keep = uniform_float(block[n % 4]) < keep_below;
      s[r * nj + j] = keep ? s[r * nj + j] * scale : T(0);
    }
  }
}

/// Columns of row i (global) in the key tile starting at j0 that are not masked by causality:
/// keys j <= i. Without a causal mask, the whole tile.
template <typename T>
int64_t causal_limit(int64_t i, int64_t j0, int64_t nj, const Ctx<T>& c) {
  return c.p.is_causal ? std::clamp<int64_t>(i + 1 - j0, 0, nj) : nj;
}

// Rows [i0, i0 + nq) of head bh: the online-softmax forward.
template <typename T>
void forward_block(const T* q, const T* k, const T* v, T* out, T* lse, int64_t bh, int64_t i0,
                   int64_t nq, const Ctx<T>& c, std::vector<T>& s, std::vector<T>& acc,
                   std::vector<T>& m, std::vector<T>& l) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  const Dims& d = c.d;
  const T* Q = q + c.q.at(bh, i0);
  const int64_t kv = d.kv_index(bh);
  const T* K = k + c.k.at(kv, 0);
  const T* V = v + c.v.at(kv, 0);
  std::fill(acc.begin(), acc.begin() + nq * d.Ev, T(0));
  std::fill(m.begin(), m.begin() + nq, kNegInf);
  std::fill(l.begin(), l.begin() + nq, T(0));
  for (int64_t j0 = 0; j0 < d.S; j0 += kBlockK) {
    if (c.p.is_causal && j0 > i0 + nq - 1) break;
    const int64_t nj = std::min(kBlockK, d.S - j0);
    gemm(false, true, nq, nj, d.E, static_cast<T>(c.p.scale), Q, c.q.ld, K + j0 * c.k.ld, c.k.ld,
         T(0), s.data(), nj);
    // Causal limits are handled per row below; only an explicit mask is written into the tile.
    if (c.mask != nullptr) mask_tile(s.data(), nq, nj, i0, j0, bh, c);
    for (int64_t r = 0; r < nq; ++r) {
      T* row = s.data() + r * nj;
      const int64_t lim = causal_limit(i0 + r, j0, nj, c);
      std::fill(row + lim, row + nj, T(0));
      const T mx = cpu::row_max(row, lim);  // NaN scores keep the row NaN, as the math does
      const T mnew = std::isnan(mx) ? mx : std::max(m[r], mx);
      if (mnew == kNegInf) {  // every key so far is masked out
        std::fill(row, row + lim, T(0));
        continue;
      }
      const T alpha = std::exp(m[r] - mnew);
      const T sum = cpu::exp_sum(row, row, lim, mnew);
      l[r] = l[r] * alpha + sum;
      if (alpha != T(1)) {
        T* a = acc.data() + r * d.Ev;
        for (int64_t e = 0; e < d.Ev; ++e) a[e] *= alpha;
      }
      m[r] = mnew;
    }
    if (c.p.dropout_p > 0) dropout_tile(s.data(), nq, nj, i0, j0, bh, c);
    gemm(false, false, nq, d.Ev, nj, T(1), s.data(), nj, V + j0 * c.v.ld, c.v.ld, T(1), acc.data(),
         d.Ev);
  }
  for (int64_t r = 0; r < nq; ++r) {
    T* o = out + c.o.at(bh, i0 + r);
    const T* a = acc.data() + r * d.Ev;
    // A fully masked row: zeros, as PyTorch's safe softmax.
    const T inv = l[r] > T(0) ? T(1) / l[r] : T(0);
    for (int64_t e = 0; e < d.Ev; ++e) o[e] = a[e] * inv;
    lse[bh * d.L + i0 + r] = l[r] > T(0) ? m[r] + std::log(l[r]) : kNegInf;
  }
}

template <typename T>
void forward(const std::vector<Tensor>& in, std::vector<Tensor>& out, const AttentionParams& p) {
  Ctx<T> c = make_ctx<T>(p, in[0], in[1], in[2], out[0], nullptr);
  if (p.dropout_p > 0) c.rng = read_philox_state(in.back(), "scaled_dot_product_attention");
  const Dims& d = c.d;
  MaskView mv;
  if (p.has_mask) {
    mv = mask_view(in[3], d.B * d.Hq);
    c.mask = &mv;
  }
  const int64_t nqb = (d.L + kBlockQ - 1) / kBlockQ;
  const int64_t tasks = d.B * d.Hq * nqb;
  if (tasks == 0) return;
  T* o = out[0].data_ptr<T>();
  T* lse = out[1].data_ptr<T>();
  if (d.S == 0 || d.Ev == 0) {  // no keys: zeros (every row fully masked)
    std::fill(o, o + out[0].numel(), T(0));
    std::fill(lse, lse + out[1].numel(), -std::numeric_limits<T>::infinity());
    return;
  }
  const T* q = in[0].data_ptr<T>();
  const T* k = in[1].data_ptr<T>();
  const T* v = in[2].data_ptr<T>();
  const int64_t grain = task_grain(std::min(kBlockQ, d.L) * d.S * (d.E + d.Ev));
  cpu::parallel_for(0, tasks, grain, [&](int64_t b, int64_t e) {
    std::vector<T> s(kBlockQ * kBlockK), acc(kBlockQ * d.Ev), m(kBlockQ), l(kBlockQ);
    for (int64_t t = b; t < e; ++t) {
      const int64_t bh = t / nqb, i0 = (t % nqb) * kBlockQ;
      forward_block(q, k, v, o, lse, bh, i0, std::min(kBlockQ, d.L - i0), c, s, acc, m, l);
    }
  });
}

// Recomputes P (probabilities) into `pr` and dS into `ds` for one tile, given dO rows and V.
// pr receives P with dropout applied (what multiplied V), ds the score gradient (unscaled).
template <typename T>
void backward_tile(const T* Q, const T* K, const T* V, const T* dO, const T* lse, const T* D,
                   int64_t bh, int64_t i0, int64_t nq, int64_t j0, int64_t nj, const Ctx<T>& c,
                   T* pr, T* ds) {
  const Dims& d = c.d;
  gemm(false, true, nq, nj, d.E, static_cast<T>(c.p.scale), Q, c.q.ld, K + j0 * c.k.ld, c.k.ld,
       T(0), ds, nj);
  if (c.mask != nullptr) mask_tile(ds, nq, nj, i0, j0, bh, c);
  for (int64_t r = 0; r < nq; ++r) {
    const T lr = lse[r];
    T* prow = pr + r * nj;
    const int64_t lim =
        lr == -std::numeric_limits<T>::infinity() ? 0 : causal_limit(i0 + r, j0, nj, c);
    cpu::exp_sum(ds + r * nj, prow, lim, lr);
    std::fill(prow + lim, prow + nj, T(0));
  }
  // dP = dO V^T (into ds), with the dropout mask; dS = P * (dP - D).
  gemm(false, true, nq, nj, d.Ev, T(1), dO, c.dO.ld, V + j0 * c.v.ld, c.v.ld, T(0), ds, nj);
  if (c.p.dropout_p > 0) dropout_tile(ds, nq, nj, i0, j0, bh, c);
  for (int64_t r = 0; r < nq; ++r) {
    for (int64_t j = 0; j < nj; ++j) ds[r * nj + j] = pr[r * nj + j] * (ds[r * nj + j] - D[r]);
  }
  if (c.p.dropout_p > 0) dropout_tile(pr, nq, nj, i0, j0, bh, c);
}

template <typename T>
void backward(const std::vector<Tensor>& in, std::vector<Tensor>& out, const AttentionParams& p) {
  // inputs: grad_out, q, k, v, out, lse[, mask]
  Ctx<T> c = make_ctx<T>(p, in[1], in[2], in[3], in[4], &in[0]);
  const Rows rdq = rows_of(out[0]), rdk = rows_of(out[1]), rdv = rows_of(out[2]);
  if (p.dropout_p > 0)
    c.rng = read_philox_state(in.back(), "scaled_dot_product_attention_backward");
  const Dims& d = c.d;
  MaskView mv;
  if (p.has_mask) {
    mv = mask_view(in[6], d.B * d.Hq);
    c.mask = &mv;
  }
  T* dq = out[0].data_ptr<T>();
  T* dk = out[1].data_ptr<T>();
  T* dv = out[2].data_ptr<T>();
  std::fill(dq, dq + out[0].numel(), T(0));
  std::fill(dk, dk + out[1].numel(), T(0));
  std::fill(dv, dv + out[2].numel(), T(0));
  if (out[0].numel() == 0 || d.S == 0) return;
  const T* dO = in[0].data_ptr<T>();
  const T* q = in[1].data_ptr<T>();
  const T* k = in[2].data_ptr<T>();
  const T* v = in[3].data_ptr<T>();
  const T* o = in[4].data_ptr<T>();
  const T* lse = in[5].data_ptr<T>();
  // D[row] = dO[row] . O[row]
  const int64_t rows = d.B * d.Hq * d.L;
  std::vector<T> D(rows);
  cpu::parallel_for(0, rows, std::max<int64_t>(1, cpu::kGrainSize / std::max<int64_t>(1, d.Ev)),
                    [&](int64_t b, int64_t e) {
                      for (int64_t r = b; r < e; ++r) {
                        const T* dOr = dO + c.dO.at(r / d.L, r % d.L);
                        const T* orow = o + c.o.at(r / d.L, r % d.L);
                        T acc = 0;
                        for (int64_t x = 0; x < d.Ev; ++x) acc += dOr[x] * orow[x];
                        D[r] = acc;
                      }
                    });
  const int64_t nqb = (d.L + kBlockQ - 1) / kBlockQ, nkb = (d.S + kBlockK - 1) / kBlockK;
  const int64_t group = d.Hq / d.Hk;
  const T scale = static_cast<T>(p.scale);
  // Pass 1: dK, dV per (batch, kv head, key block), summed over the heads of its group.
  const int64_t work = std::min(kBlockQ, d.L) * std::min(kBlockK, d.S) * (d.E + d.Ev);
  cpu::parallel_for(0, d.B * d.Hk * nkb, task_grain(work * group * nqb), [&](int64_t b, int64_t e) {
    std::vector<T> pr(kBlockQ * kBlockK), ds(kBlockQ * kBlockK);
    for (int64_t t = b; t < e; ++t) {
      const int64_t kvbh = t / nkb, j0 = (t % nkb) * kBlockK, nj = std::min(kBlockK, d.S - j0);
      const int64_t batch = kvbh / d.Hk, hk = kvbh % d.Hk;
      const T* K = k + c.k.at(kvbh, 0);
      const T* V = v + c.v.at(kvbh, 0);
      T* dK = dk + rdk.at(kvbh, j0);
      T* dV = dv + rdv.at(kvbh, j0);
      for (int64_t h = hk * group; h < (hk + 1) * group; ++h) {
        const int64_t bh = batch * d.Hq + h;
        for (int64_t i0 = 0; i0 < d.L; i0 += kBlockQ) {
          const int64_t nq = std::min(kBlockQ, d.L - i0);
          if (p.is_causal && i0 + nq - 1 < j0) continue;
          const int64_t row0 = bh * d.L + i0;
          const T* Q = q + c.q.at(bh, i0);
          const T* dOb = dO + c.dO.at(bh, i0);
          backward_tile(Q, K, V, dOb, lse + row0, D.data() + row0, bh, i0, nq, j0, nj, c, pr.data(),
                        ds.data());
          gemm(true, false, nj, d.Ev, nq, T(1), pr.data(), nj, dOb, c.dO.ld, T(1), dV, rdv.ld);
          gemm(true, false, nj, d.E, nq, scale, ds.data(), nj, Q, c.q.ld, T(1), dK, rdk.ld);
          // A single key block: this task alone writes these dQ rows, so it adds its share now
          // and pass 2 (which would recompute the same tiles) is skipped.
          if (nkb == 1)
            gemm(false, false, nq, d.E, nj, scale, ds.data(), nj, K, c.k.ld, T(1),
                 dq + rdq.at(bh, i0), rdq.ld);
        }
      }
    }
  });
  if (nkb == 1) return;
  // Pass 2: dQ per (batch * head, query block).
  cpu::parallel_for(0, d.B * d.Hq * nqb, task_grain(work * nkb), [&](int64_t b, int64_t e) {
    std::vector<T> pr(kBlockQ * kBlockK), ds(kBlockQ * kBlockK);
    for (int64_t t = b; t < e; ++t) {
      const int64_t bh = t / nqb, i0 = (t % nqb) * kBlockQ, nq = std::min(kBlockQ, d.L - i0);
      const int64_t kv = d.kv_index(bh), row0 = bh * d.L + i0;
      const T* K = k + c.k.at(kv, 0);
      const T* V = v + c.v.at(kv, 0);
      for (int64_t j0 = 0; j0 < d.S; j0 += kBlockK) {
        if (p.is_causal && j0 > i0 + nq - 1) break;
        const int64_t nj = std::min(kBlockK, d.S - j0);
        backward_tile(q + c.q.at(bh, i0), K, V, dO + c.dO.at(bh, i0), lse + row0, D.data() + row0,
                      bh, i0, nq, j0, nj, c, pr.data(), ds.data());
        gemm(false, false, nq, d.E, nj, scale, ds.data(), nj, K + j0 * c.k.ld, c.k.ld, T(1),
             dq + rdq.at(bh, i0), rdq.ld);
      }
    }
  });
}

}  // namespace

EMBER_CPU_KERNEL(ScaledDotProductAttention, inputs, outputs) {
  switch (inputs[0].dtype()) {
    case kFloat32:
      return forward<float>(inputs, outputs, p_);
    case kFloat64:
      return forward<double>(inputs, outputs, p_);
    default:
      EMBER_THROW(TypeError, "[", name(), "] not implemented for '", dtype_name(inputs[0].dtype()),
                  "'");
  }
}

EMBER_CPU_KERNEL(ScaledDotProductAttentionBackward, inputs, outputs) {
  switch (inputs[1].dtype()) {
    case kFloat32:
      return backward<float>(inputs, outputs, p_);
    case kFloat64:
      return backward<double>(inputs, outputs, p_);
    default:
      EMBER_THROW(TypeError, "[", name(), "] not implemented for '", dtype_name(inputs[1].dtype()),
                  "'");
  }
}

}  // namespace ember
