// Kernels for unique / unique_consecutive (elements or slices along dim 0) and searchsorted.
#include <algorithm>
#include <limits>
#include <numeric>

#include "backend/cpu/dim_rows.h"
#include "backend/cpu/loop.h"
#include "backend/cpu/sort_keys.h"
#include "backend/cpu/view_util.h"
#include "primitives/sort.h"

namespace ember {

using cpu::lt;
using cpu::same;
using cpu::sort_key_t;

const char* Unique::default_name() const {
  if (p_.consecutive) return "unique_consecutive";
  return p_.by_dim ? "unique_dim" : "_unique2";
}

namespace {

// Groups equal keys of `n` items (or rows): sorted order via `perm`, a group starts where
// `differs(prev, cur)`. Writes the per-item group (inverse), and returns group starts in perm.
template <typename Differs>
std::vector<int64_t> group(const std::vector<int64_t>& perm, const Differs& differs,
                           std::vector<int64_t>& inverse) {
  std::vector<int64_t> starts;
  const int64_t n = static_cast<int64_t>(perm.size());
  inverse.assign(n, 0);
  for (int64_t j = 0; j < n; ++j) {
    if (j == 0 || differs(perm[j - 1], perm[j])) starts.push_back(j);
    inverse[perm[j]] = static_cast<int64_t>(starts.size()) - 1;
  }
  return starts;
}

}  // namespace

void Unique::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs[0];
  visit_dtype(x.dtype(), name(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    using K = sort_key_t<T>;
    // Rows: the elements (flat) or, by dim, the slices along dim 0 of a contiguous tensor.
    const int64_t n = p_.by_dim ? cpu::sizes_1d(x)[0] : x.numel();
    const int64_t len = p_.by_dim ? (n == 0 ? 0 : x.numel() / n) : 1;
    std::vector<K> keys;
    keys.reserve(x.numel());
    if (x.numel() > 0) {
      auto loop = cpu::make_loop({x});
      cpu::for_each(
          loop,
          [&](char** p, const int64_t* st, int64_t m) {
            for (int64_t i = 0; i < m; ++i) {
              keys.push_back(static_cast<K>(*reinterpret_cast<const T*>(p[0] + i * st[0])));
            }
          },
          std::numeric_limits<int64_t>::max());
    }
    auto row_lt = [&](int64_t a, int64_t b) {
      for (int64_t t = 0; t < len; ++t) {
        const K u = keys[a * len + t], v = keys[b * len + t];
        if (lt(u, v)) return true;
        if (lt(v, u)) return false;
      }
      return false;
    };
    auto row_differs = [&](int64_t a, int64_t b) {
      for (int64_t t = 0; t < len; ++t) {
        if (!same(keys[a * len + t], keys[b * len + t])) return true;
      }
      return false;
    };
    std::vector<int64_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    if (!p_.consecutive) std::stable_sort(perm.begin(), perm.end(), row_lt);
    std::vector<int64_t> inverse;
    std::vector<int64_t> starts = group(perm, row_differs, inverse);
    const int64_t m = static_cast<int64_t>(starts.size());
    std::vector<int64_t> vshape = {m};
    if (p_.by_dim) vshape.insert(vshape.end(), x.sizes().begin() + 1, x.sizes().end());
    Tensor values = cpu::scratch_tensor(vshape, x.dtype());
    T* vp = static_cast<T*>(values.data_ptr());
    for (int64_t g = 0; g < m; ++g) {
      const int64_t row = perm[starts[g]];
      for (int64_t t = 0; t < len; ++t) vp[g * len + t] = static_cast<T>(keys[row * len + t]);
    }
    std::vector<int64_t> ishape = p_.by_dim ? std::vector<int64_t>{n} : x.sizes();
    Tensor inv = cpu::scratch_tensor(p_.return_inverse ? ishape : std::vector<int64_t>{0}, kInt64);
    if (p_.return_inverse) std::copy(inverse.begin(), inverse.end(), inv.data_ptr<int64_t>());
    Tensor counts = cpu::scratch_tensor({p_.return_counts ? m : 0}, kInt64);
    if (p_.return_counts) {
      int64_t* cp = counts.data_ptr<int64_t>();
      for (int64_t g = 0; g < m; ++g) cp[g] = (g + 1 < m ? starts[g + 1] : n) - starts[g];
    }
    outputs.push_back(values);
    outputs.push_back(inv);
    outputs.push_back(counts);
  });
}

void SearchSorted::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& bd = inputs[0];   // contiguous
  const Tensor& val = inputs[1];  // contiguous
  const bool has_sorter = inputs.size() > 2;
  Tensor& out = outputs[0];
  const int64_t total = val.numel();
  if (total == 0) return;
  const int64_t m = bd.sizes().back();
  const int64_t per_row = bd.dim() == 1 ? total : val.sizes().back();
  const int64_t* sorter = has_sorter ? static_cast<const int64_t*>(inputs[2].data_ptr()) : nullptr;
  const bool right = p_.right;
  const bool i32 = out.dtype() == kInt32;
  visit_dtype(bd.dtype(), name(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    using K = sort_key_t<T>;
    const T* b = static_cast<const T*>(bd.data_ptr());
    const T* v = static_cast<const T*>(val.data_ptr());
    cpu::parallel_for(0, total, cpu::kGrainSize / 16, [&](int64_t lo, int64_t hi) {
      for (int64_t e = lo; e < hi; ++e) {
        const int64_t base = (e / per_row) * m;
        const K x = static_cast<K>(v[e]);
        int64_t start = 0, end = m;
        // As PyTorch's cus_lower_bound / cus_upper_bound (NaN values land at the end).
        while (start < end) {
          const int64_t mid = start + ((end - start) >> 1);
          const K mv = static_cast<K>(b[base + (sorter ? sorter[base + mid] : mid)]);
          const bool go_right = right ? !(mv > x) : !(mv >= x);
          if (go_right) {
            start = mid + 1;
          } else {
            end = mid;
          }
        }
        if (i32) {
          static_cast<int32_t*>(out.data_ptr())[e] = static_cast<int32_t>(start);
        } else {
          static_cast<int64_t*>(out.data_ptr())[e] = start;
        }
      }
    });
  });
}

}  // namespace ember
