// Kernels for index_select, gather, scatter (and its reductions), index_add/copy/fill, take,
// masked_scatter, bincount and histc (Note [Scatter along a dim] in src/primitives/scatter.h).
#include "primitives/scatter.h"

#include <cmath>
#include <limits>

#include "backend/cpu/dim_rows.h"
#include "backend/cpu/loop.h"
#include "backend/cpu/view_util.h"

namespace ember {
namespace {

using cpu::dim_rows;
using cpu::sizes_1d;
using cpu::strides_1d;

template <typename T>
constexpr bool is_half_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
// The type a 16-bit float computes in; others compute in their own type.
template <typename T>
using op_t = std::conditional_t<is_half_v<T>, float, T>;

// Integer arithmetic wraps as two's complement (PyTorch's), without signed-overflow UB.
template <typename T>
T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else {
    return static_cast<T>(static_cast<op_t<T>>(a) + static_cast<op_t<T>>(b));
  }
}
template <typename T>
T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    return static_cast<T>(static_cast<op_t<T>>(a) * static_cast<op_t<T>>(b));
  }
}
template <typename T>
bool nan_of(T v) {
  if constexpr (std::is_integral_v<T>) {
    return false;
  } else {
    return std::isnan(static_cast<op_t<T>>(v));
  }
}
// max/min that propagate NaN, as scatter_reduce's amax/amin.
template <typename T>
T max_nan(T a, T b) {
  if (nan_of(a) || nan_of(b)) return nan_of(a) ? a : b;
  return static_cast<op_t<T>>(b) > static_cast<op_t<T>>(a) ? b : a;
}
template <typename T>
T min_nan(T a, T b) {
  if (nan_of(a) || nan_of(b)) return nan_of(a) ? a : b;
  return static_cast<op_t<T>>(b) < static_cast<op_t<T>>(a) ? b : a;
}
template <typename T>
T lowest_of() {
  if constexpr (std::is_integral_v<T>) {
    return std::numeric_limits<T>::lowest();
  } else {
    return static_cast<T>(-std::numeric_limits<float>::infinity());
  }
}
template <typename T>
T highest_of() {
  if constexpr (std::is_integral_v<T>) {
    return std::numeric_limits<T>::max();
  } else {
    return static_cast<T>(std::numeric_limits<float>::infinity());
  }
}

void check_bound(int64_t idx, int64_t size, int64_t dim, const char* op) {
  EMBER_CHECK_INDEX(idx >= 0 && idx < size, "[", op, "] index ", idx,
                    " is out of bounds for dimension ", dim, " with size ", size);
}

// Strides of `t` viewed with `shape`'s rank (0-d as 1-d).
std::vector<int64_t> geom_strides(const Tensor& t) { return strides_1d(t); }

}  // namespace

void IndexSelect::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& self = inputs[0];
  const Tensor& index = inputs[1];
  Tensor& out = outputs[0];
  if (out.numel() == 0) return;
  const int64_t size = sizes_1d(self)[p_.dim];
  const int64_t istride = index.dim() == 0 ? 0 : index.strides()[0];
  const void* ibase = index.data_ptr();
  const ScalarType idt = index.dtype();
  auto rows = dim_rows(sizes_1d(out), p_.dim, {geom_strides(out), geom_strides(self)});
  const int64_t os = strides_1d(out)[p_.dim], ss = strides_1d(self)[p_.dim];
  const int64_t n = rows.len;
  // Check every index once before writing anything.
  for (int64_t j = 0; j < n; ++j) {
    const int64_t v = cpu::read_index(ibase, idt, j * istride);
    EMBER_CHECK_INDEX(v >= 0 && v < size, "[index_select] index out of range in self: index ", v,
                      " is out of bounds for dimension ", p_.dim, " with size ", size);
  }
  cpu::visit_element_size(self.element_size(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T* o = static_cast<T*>(out.data_ptr());
    const T* s = static_cast<const T*>(self.data_ptr());
    cpu::for_each_row(rows, [&](int64_t r) {
      const int64_t* off = rows.row(r);
      for (int64_t j = 0; j < n; ++j) {
        o[off[0] + j * os] = s[off[1] + cpu::read_index(ibase, idt, j * istride) * ss];
      }
    });
  });
}

void Gather::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& self = inputs[0];
  const Tensor& index = inputs[1];
  Tensor& out = outputs[0];
  if (out.numel() == 0) return;
  const int64_t size = sizes_1d(self)[p_.dim];
  auto rows = dim_rows(sizes_1d(index), p_.dim,
                       {geom_strides(out), geom_strides(self), geom_strides(index)});
  const int64_t os = strides_1d(out)[p_.dim], ss = strides_1d(self)[p_.dim];
  const int64_t is = strides_1d(index)[p_.dim];
  const int64_t* ip = static_cast<const int64_t*>(index.data_ptr());
  const int64_t n = rows.len;
  const int64_t dim = p_.dim;
  cpu::visit_element_size(self.element_size(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T* o = static_cast<T*>(out.data_ptr());
    const T* s = static_cast<const T*>(self.data_ptr());
    cpu::for_each_row(rows, [&](int64_t r) {
      const int64_t* off = rows.row(r);
      for (int64_t j = 0; j < n; ++j) {
        const int64_t v = ip[off[2] + j * is];
        check_bound(v, size, dim, "gather");
        o[off[0] + j * os] = s[off[1] + v * ss];
      }
    });
  });
}

void Scatter::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  if (!inplace()) cpu::copy_into(inputs[0], outputs[0]);  // the out-of-place form
  Tensor& self = outputs[0];
  const Tensor& index = inputs[1];  // inputs[0] is self
  const bool has_src = inputs.size() > 2;
  if (index.numel() == 0) return;
  const int64_t size = sizes_1d(self)[p_.dim];
  const bool mean = p_.reduce == ScatterReduce::Mean;
  // Mean counts the contributions per element of self (self itself counts when included).
  Tensor count = mean ? cpu::scratch_tensor(sizes_1d(self), kInt64) : Tensor();
  std::vector<std::vector<int64_t>> strides = {geom_strides(self), geom_strides(index)};
  strides.push_back(has_src ? geom_strides(inputs[2]) : std::vector<int64_t>(strides[0].size(), 0));
  strides.push_back(mean ? count.strides() : std::vector<int64_t>(strides[0].size(), 0));
  auto rows = dim_rows(sizes_1d(index), p_.dim, strides);
  const int64_t ss = strides[0][p_.dim], is = strides[1][p_.dim], vs = strides[2][p_.dim];
  const int64_t cs = strides[3][p_.dim];
  const int64_t* ip = static_cast<const int64_t*>(index.data_ptr());
  const int64_t n = rows.len;
  const int64_t dim = p_.dim;
  const char* op = name();
  // Bounds first, so that an error leaves self untouched.
  cpu::for_each_row(rows, [&](int64_t r) {
    const int64_t* off = rows.row(r);
    for (int64_t j = 0; j < n; ++j) check_bound(ip[off[1] + j * is], size, dim, op);
  });
  int64_t* cp = mean ? static_cast<int64_t*>(count.data_ptr()) : nullptr;
  if (mean) std::fill(cp, cp + count.numel(), p_.include_self ? 1 : 0);
  visit_dtype(self.dtype(), op, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T* s = static_cast<T*>(self.data_ptr());
    const T* src = has_src ? static_cast<const T*>(inputs[2].data_ptr()) : nullptr;
    const T scalar = p_.value ? p_.value->to<T>() : T();
    const ScatterReduce red = p_.reduce;
    T identity{};
    if (red == ScatterReduce::Prod) identity = static_cast<T>(1);
    if (red == ScatterReduce::AMax) identity = lowest_of<T>();
    if (red == ScatterReduce::AMin) identity = highest_of<T>();
    cpu::for_each_row(rows, [&](int64_t r) {
      const int64_t* off = rows.row(r);
      if (!p_.include_self && red != ScatterReduce::None) {
        for (int64_t j = 0; j < n; ++j) s[off[0] + ip[off[1] + j * is] * ss] = identity;
      }
      for (int64_t j = 0; j < n; ++j) {
        const int64_t v = ip[off[1] + j * is];
        T& d = s[off[0] + v * ss];
        const T x = src ? src[off[2] + j * vs] : scalar;
        switch (red) {
          case ScatterReduce::None:
            d = x;
            break;
          case ScatterReduce::Sum:
            d = wrap_add(d, x);
            break;
          case ScatterReduce::Mean:
            d = wrap_add(d, x);
            ++cp[off[3] + v * cs];
            break;
          case ScatterReduce::Prod:
            d = wrap_mul(d, x);
            break;
          case ScatterReduce::AMax:
            d = max_nan(d, x);
            break;
          case ScatterReduce::AMin:
            d = min_nan(d, x);
            break;
        }
      }
    });
    if (!mean) return;
    // Divide by the counts (integers: floor division, as PyTorch's).
    Tensor count_v = cpu::strided_view(count, self.sizes(), contiguous_strides(self.sizes()), 0);
    auto loop = cpu::make_loop({self, count_v});
    cpu::for_each(loop, [&](char** p, const int64_t* st, int64_t m) {
      for (int64_t i = 0; i < m; ++i) {
        T& d = *reinterpret_cast<T*>(p[0] + i * st[0]);
        const int64_t c = *reinterpret_cast<const int64_t*>(p[1] + i * st[1]);
        if (c == 0) continue;
        if constexpr (std::is_same_v<T, bool>) {
          continue;  // a sum of bools is already their "mean" (any)
        } else if constexpr (std::is_integral_v<T>) {
          const int64_t a = static_cast<int64_t>(d);
          int64_t q = a / c;
          if ((a % c != 0) && ((a < 0) != (c < 0))) --q;
          d = static_cast<T>(q);
        } else {
          d = static_cast<T>(static_cast<op_t<T>>(d) / static_cast<op_t<T>>(c));
        }
      }
    });
  });
}

const char* IndexUpdate::default_name() const {
  switch (p_.op) {
    case IndexUpdateOp::Add:
      return inplace() ? "index_add_" : "index_add";
    case IndexUpdateOp::Copy:
      return inplace() ? "index_copy_" : "index_copy";
    case IndexUpdateOp::Fill:
      return inplace() ? "index_fill_" : "index_fill";
  }
  return "index_update";
}

void IndexUpdate::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  if (!inplace()) cpu::copy_into(inputs[0], outputs[0]);  // the out-of-place form
  Tensor& self = outputs[0];
  const Tensor& index = inputs[1];  // inputs[0] is self
  const bool has_src = p_.op != IndexUpdateOp::Fill;
  const int64_t nidx = index.numel();
  if (nidx == 0 || self.numel() == 0) return;
  const int64_t size = sizes_1d(self)[p_.dim];
  const int64_t istride = index.dim() == 0 ? 0 : index.strides()[0];
  const void* ibase = index.data_ptr();
  const ScalarType idt = index.dtype();
  const char* op = name();
  for (int64_t j = 0; j < nidx; ++j) {
    int64_t v = cpu::read_index(ibase, idt, j * istride);
    // index_fill accepts negative indices; index_add and index_copy do not.
    if (p_.op == IndexUpdateOp::Fill && v < 0 && v >= -size) v += size;
    check_bound(v, size, p_.dim, op);
  }
  // Rows over self's shape with dim's size replaced by the index length.
  std::vector<int64_t> shape = sizes_1d(self);
  shape[p_.dim] = nidx;
  std::vector<std::vector<int64_t>> strides = {geom_strides(self)};
  strides.push_back(has_src ? geom_strides(inputs[2]) : std::vector<int64_t>(shape.size(), 0));
  auto rows = dim_rows(shape, p_.dim, strides);
  const int64_t ss = strides[0][p_.dim], vs = strides[1][p_.dim];
  const IndexUpdateOp kind = p_.op;
  visit_dtype(self.dtype(), op, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T* s = static_cast<T*>(self.data_ptr());
    const T* src = has_src ? static_cast<const T*>(inputs[2].data_ptr()) : nullptr;
    const T scalar = p_.scalar.to<T>();
    const bool unit_alpha = p_.scalar.to<double>() == 1.0;
    cpu::for_each_row(rows, [&](int64_t r) {
      const int64_t* off = rows.row(r);
      for (int64_t j = 0; j < nidx; ++j) {
        int64_t v = cpu::read_index(ibase, idt, j * istride);
        if (v < 0) v += size;
        T& d = s[off[0] + v * ss];
        switch (kind) {
          case IndexUpdateOp::Add: {
            const T x = src[off[1] + j * vs];
            d = wrap_add(d, unit_alpha ? x : wrap_mul(x, scalar));
            break;
          }
          case IndexUpdateOp::Copy:
            d = src[off[1] + j * vs];
            break;
          case IndexUpdateOp::Fill:
            d = scalar;
            break;
        }
      }
    });
  });
}

void Take::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& self = inputs[0];  // 1-D
  const Tensor& index = inputs[1];
  Tensor& out = outputs[0];
  if (out.numel() == 0) return;
  const int64_t numel = self.numel();
  const int64_t stride = self.strides()[0];
  auto loop = cpu::make_loop({out, index});
  // Bounds first (serially), then the copy.
  cpu::for_each(
      loop,
      [&](char** p, const int64_t* st, int64_t m) {
        for (int64_t i = 0; i < m; ++i) {
          const int64_t v = *reinterpret_cast<const int64_t*>(p[1] + i * st[1]);
          EMBER_CHECK_INDEX(v >= -numel && v < numel, "[take] out of range: tried to access index ",
                            v, " on a tensor of ", numel, " elements.");
        }
      },
      std::numeric_limits<int64_t>::max());
  cpu::visit_element_size(self.element_size(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* s = static_cast<const T*>(self.data_ptr());
    cpu::for_each(loop, [&](char** p, const int64_t* st, int64_t m) {
      for (int64_t i = 0; i < m; ++i) {
        int64_t v = *reinterpret_cast<const int64_t*>(p[1] + i * st[1]);
        if (v < 0) v += numel;
        *reinterpret_cast<T*>(p[0] + i * st[0]) = s[v * stride];
      }
    });
  });
}

void MaskedScatter::eval_cpu(const std::vector<Tensor>& inputs,
                             std::vector<Tensor>& outputs) const {
  if (!inplace()) cpu::copy_into(inputs[0], outputs[0]);  // the out-of-place form
  Tensor& self = outputs[0];
  const Tensor& mask = inputs[1];    // bool, self's shape (inputs[0] is self)
  const Tensor& source = inputs[2];  // 1-D, self's dtype
  const int64_t avail = source.numel();
  const int64_t sstride = avail > 0 ? source.strides()[0] : 0;
  auto loop = cpu::make_loop({self, mask});
  // The number of true mask elements must not exceed the source's size.
  int64_t need = 0;
  cpu::for_each(
      loop,
      [&](char** p, const int64_t* st, int64_t m) {
        for (int64_t i = 0; i < m; ++i) need += *reinterpret_cast<const bool*>(p[1] + i * st[1]);
      },
      std::numeric_limits<int64_t>::max());
  EMBER_CHECK(need <= avail,
              "[masked_scatter_] Number of elements of source < number of ones in mask");
  cpu::visit_element_size(self.element_size(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* s = avail > 0 ? static_cast<const T*>(source.data_ptr()) : nullptr;
    int64_t k = 0;
    // Serial: the k-th true position takes the k-th source element.
    cpu::for_each(
        loop,
        [&](char** p, const int64_t* st, int64_t m) {
          for (int64_t i = 0; i < m; ++i) {
            if (*reinterpret_cast<const bool*>(p[1] + i * st[1])) {
              *reinterpret_cast<T*>(p[0] + i * st[0]) = s[(k++) * sstride];
            }
          }
        },
        std::numeric_limits<int64_t>::max());
  });
}

void Bincount::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs[0];
  const bool weighted = inputs.size() > 1;
  const int64_t n = x.numel();
  const int64_t xs = n > 0 ? x.strides()[0] : 0;
  visit_dtype(x.dtype(), "bincount", [&](auto* tag) {
    using I = std::remove_pointer_t<decltype(tag)>;
    if constexpr (std::is_integral_v<I> && !std::is_same_v<I, bool>) {
      const I* xp = static_cast<const I*>(x.data_ptr());
      int64_t hi = -1;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t v = static_cast<int64_t>(xp[i * xs]);
        EMBER_CHECK(v >= 0, "[bincount] bincount only supports 1-d non-negative integral inputs.");
        hi = std::max(hi, v);
      }
      EMBER_CHECK(hi < std::numeric_limits<int64_t>::max(), "[bincount] the input value ", hi,
                  " needs more bins than int64 can count: the result size overflows int64");
      const int64_t len = std::max(hi + 1, p_.minlength);
      const ScalarType odt = weighted ? inputs[1].dtype() : kInt64;
      Tensor out = cpu::scratch_tensor({len}, odt, "bincount");
      visit_dtype(odt, "bincount", [&](auto* otag) {
        using O = std::remove_pointer_t<decltype(otag)>;
        if constexpr (std::is_same_v<O, int64_t> || std::is_same_v<O, float> ||
                      std::is_same_v<O, double>) {
          O* o = static_cast<O*>(out.data_ptr());
          std::fill(o, o + len, O(0));
          const O* w = weighted ? static_cast<const O*>(inputs[1].data_ptr()) : nullptr;
          const int64_t ws = weighted && n > 0 ? inputs[1].strides()[0] : 0;
          for (int64_t i = 0; i < n; ++i)
            o[static_cast<int64_t>(xp[i * xs])] += w ? w[i * ws] : O(1);
        }
      });
      outputs.push_back(out);
    }
  });
  EMBER_INTERNAL_ASSERT(!outputs.empty(), "bincount kernel dtype");
}

void Histc::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs[0];
  Tensor& out = outputs[0];
  std::vector<int64_t> counts(p_.bins, 0);
  auto loop = cpu::make_loop({x});
  visit_dtype(x.dtype(), "histc", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (!std::is_integral_v<T>) {
      using A = op_t<T>;
      double range_lo = p_.min, range_hi = p_.max;
      if (range_lo == range_hi && x.numel() > 0) {  // the data's range; NaN propagates
        range_lo = std::numeric_limits<double>::infinity();
        range_hi = -range_lo;
        bool nan = false;
        cpu::for_each(
            loop,
            [&](char** p, const int64_t* st, int64_t m) {
              for (int64_t i = 0; i < m; ++i) {
                const double v = static_cast<double>(*reinterpret_cast<const T*>(p[0] + i * st[0]));
                nan = nan || std::isnan(v);
                range_lo = std::min(range_lo, v);
                range_hi = std::max(range_hi, v);
              }
            },
            std::numeric_limits<int64_t>::max());
        if (nan) range_lo = range_hi = std::numeric_limits<double>::quiet_NaN();
      }
      if (range_lo == range_hi) {
        range_lo -= 1;
        range_hi += 1;
      }
      Histc::check_range(range_lo, range_hi);
      const A lo = static_cast<A>(range_lo), hi = static_cast<A>(range_hi);
      const int64_t bins = p_.bins;
      cpu::for_each(
          loop,
          [&](char** p, const int64_t* st, int64_t m) {
            for (int64_t i = 0; i < m; ++i) {
              const A v = static_cast<A>(*reinterpret_cast<const T*>(p[0] + i * st[0]));
              if (!(v >= lo && v <= hi)) continue;  // outside, or NaN
              int64_t pos = static_cast<int64_t>((v - lo) * static_cast<A>(bins) / (hi - lo));
              pos = std::min(std::max<int64_t>(pos, 0), bins - 1);
              ++counts[pos];
            }
          },
          std::numeric_limits<int64_t>::max());
      T* o = static_cast<T*>(out.data_ptr());
      for (int64_t b = 0; b < bins; ++b) o[b] = static_cast<T>(static_cast<A>(counts[b]));
    }
  });
}

}  // namespace ember
