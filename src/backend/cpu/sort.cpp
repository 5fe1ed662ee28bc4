// Kernels for sort, topk, kthvalue, median, nanmedian, mode: one row along dim at a time.
// Note [NaN order] in src/primitives/sort.h.
#include "primitives/sort.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "backend/cpu/dim_rows.h"
#include "backend/cpu/loop.h"
#include "backend/cpu/sort_keys.h"

namespace ember {

const char* sort_op_name(SortOp op) {
  switch (op) {
    case SortOp::Sort:
      return "sort";
    case SortOp::TopK:
      return "topk";
    case SortOp::KthValue:
      return "kthvalue";
    case SortOp::Median:
      return "median";
    case SortOp::NanMedian:
      return "nanmedian";
    case SortOp::Mode:
      return "mode";
  }
  return "sort";
}

namespace {

using cpu::gt;
using cpu::isnan_k;
using cpu::lt;
using cpu::same;
using cpu::sort_key_t;

template <typename K>
struct Item {
  K v;
  int64_t i;
};
// Total orders: by key, then by index (the lower index first).
template <typename K>
bool asc(const Item<K>& a, const Item<K>& b) {
  return lt(a.v, b.v) || (!lt(b.v, a.v) && a.i < b.i);
}
template <typename K>
bool desc(const Item<K>& a, const Item<K>& b) {
  return gt(a.v, b.v) || (!gt(b.v, a.v) && a.i < b.i);
}

// Orders one row's items for `op` (the algorithms depend on the key type only, so the 16-bit
// floats share float's code). Returns how many leading items are the result: n (sort), k (topk)
// or 1 (the reductions, whose item is moved to the front).
template <typename K>
int64_t select_row(SortOp op, bool descending, int64_t k, std::vector<Item<K>>& items) {
  const int64_t n = static_cast<int64_t>(items.size());
  switch (op) {
    case SortOp::Sort:
      // Stable on the key alone: ties keep input order.
      if (descending) {
        std::stable_sort(items.begin(), items.end(),
                         [](const Item<K>& a, const Item<K>& c) { return gt(a.v, c.v); });
      } else {
        std::stable_sort(items.begin(), items.end(),
                         [](const Item<K>& a, const Item<K>& c) { return lt(a.v, c.v); });
      }
      return n;
    case SortOp::TopK:
      std::partial_sort(items.begin(), items.begin() + k, items.end(),
                        descending ? desc<K> : asc<K>);
      return k;
    case SortOp::KthValue:
      std::nth_element(items.begin(), items.begin() + (k - 1), items.end(), asc<K>);
      items[0] = items[k - 1];
      return 1;
    case SortOp::Median:
    case SortOp::NanMedian: {
      int64_t nans = 0, first_nan = -1;
      for (int64_t j = 0; j < n; ++j) {
        if (isnan_k(items[j].v)) {
          if (first_nan < 0) first_nan = j;
          ++nans;
        }
      }
      // median: a row with NaN gives its first NaN; nanmedian: all-NaN rows give NaN too.
      if (first_nan >= 0 && (op == SortOp::Median || nans == n)) {
        items[0] = items[first_nan];
        return 1;
      }
      const int64_t m = (n - nans - 1) / 2;
      std::nth_element(items.begin(), items.begin() + m, items.end(), asc<K>);
      items[0] = items[m];
      return 1;
    }
    case SortOp::Mode: {
      std::stable_sort(items.begin(), items.end(),
                       [](const Item<K>& a, const Item<K>& c) { return lt(a.v, c.v); });
      int64_t best = 0, best_at = 0, run = 0;
      for (int64_t j = 0; j < n; ++j) {
        ++run;
        if (j == n - 1 || !same(items[j].v, items[j + 1].v)) {
          if (run > best) {
            best = run;
            best_at = j;  // the last (largest) index of the value
          }
          run = 0;
        }
      }
      items[0] = items[best_at];
      return 1;
    }
  }
  return 0;
}

template <typename T>
void sort_select_rows(const SortSelect& p, const Tensor& x, std::vector<Tensor>& outs) {
  using K = sort_key_t<T>;
  const int64_t dim = p.dim();
  const SortOp op = p.op();
  const bool reduced = op != SortOp::Sort && op != SortOp::TopK;
  // Sort/TopK outputs keep the rank; the others are indexed by row number.
  std::vector<std::vector<int64_t>> strides = {cpu::strides_1d(x)};
  if (!reduced) strides.push_back(cpu::strides_1d(outs[0]));
  auto rows = cpu::dim_rows(cpu::sizes_1d(x), dim, strides);
  const int64_t n = rows.len;
  const int64_t xs = strides[0][dim];
  const int64_t os = reduced ? 0 : strides[1][dim];
  const T* xp = static_cast<const T*>(x.data_ptr());
  T* vp = static_cast<T*>(outs[0].data_ptr());
  int64_t* ip = static_cast<int64_t*>(outs[1].data_ptr());
  const int64_t grain = std::max<int64_t>(1, cpu::kGrainSize / std::max<int64_t>(n, 1) / 8);
  cpu::parallel_for(0, rows.nrows, grain, [&](int64_t b, int64_t e) {
    std::vector<Item<K>> items(n);
    for (int64_t r = b; r < e; ++r) {
      const int64_t* off = rows.row(r);
      for (int64_t j = 0; j < n; ++j) items[j] = {static_cast<K>(xp[off[0] + j * xs]), j};
      const int64_t count = select_row<K>(op, p.descending(), p.k(), items);
      for (int64_t j = 0; j < count; ++j) {
        const int64_t o = reduced ? r : off[1] + j * os;
        vp[o] = static_cast<T>(items[j].v);
        ip[o] = items[j].i;
      }
    }
  });
}

}  // namespace

void SortSelect::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs[0];
  if (x.numel() == 0 || outputs[0].numel() == 0) return;
  visit_dtype(x.dtype(), name(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    sort_select_rows<T>(*this, x, outputs);
  });
}

}  // namespace ember
