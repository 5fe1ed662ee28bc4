// Fused softmax / log_softmax rows. The input is contiguous and viewed as [outer, n, inner]:
// inner == 1 (the last dim) runs vectorised along the row; otherwise a block of `inner` columns
// is reduced together so that memory is read in order.
#include "primitives/softmax.h"

#include <cmath>
#include <limits>
#include <vector>

#include "backend/cpu/parallel.h"
#include "backend/cpu/vec.h"

namespace ember {
namespace {

// One contiguous row of n: out = softmax(in) or log_softmax(in), computed in Acc.
template <typename T, typename Acc>
void softmax_row(const T* in, T* out, int64_t n, bool log, Acc* buf) {
  Acc mx = -std::numeric_limits<Acc>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    Acc v = static_cast<Acc>(in[i]);
    buf[i] = v;
    mx = (v > mx || std::isnan(v)) ? v : mx;
  }
  // All -inf: exp(-inf - -inf) would be NaN, as PyTorch gives; keep that by not special-casing.
  using V = cpu::Vec<Acc>;
  const V vmx(mx);
  Acc sum = 0;
  int64_t i = 0;
  if constexpr (std::is_same_v<Acc, float> || std::is_same_v<Acc, double>) {
    V vsum(Acc(0));
    for (; i + V::size <= n; i += V::size) {
      V e = cpu::vexp(V::load(buf + i) - vmx);
      if (!log) e.store(buf + i);
      vsum = vsum + e;
    }
    Acc lanes[V::size];
    vsum.store(lanes);
    for (int k = 0; k < V::size; ++k) sum += lanes[k];
  }
  for (; i < n; ++i) {
    Acc e = std::exp(buf[i] - mx);
    if (!log) buf[i] = e;
    sum += e;
  }
  if (log) {
    const Acc lse = mx + std::log(sum);
    for (int64_t j = 0; j < n; ++j) out[j] = static_cast<T>(buf[j] - lse);
  } else {
    const Acc inv = Acc(1) / sum;
    for (int64_t j = 0; j < n; ++j) out[j] = static_cast<T>(buf[j] * inv);
  }
}

// A [n, inner] slab: softmax along n for each of the inner columns.
template <typename T, typename Acc>
void softmax_slab(const T* in, T* out, int64_t n, int64_t inner, bool log, Acc* mx, Acc* sum) {
  for (int64_t c = 0; c < inner; ++c) {
    mx[c] = -std::numeric_limits<Acc>::infinity();
    sum[c] = 0;
  }
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t c = 0; c < inner; ++c) {
      Acc v = static_cast<Acc>(in[r * inner + c]);
      mx[c] = (v > mx[c] || std::isnan(v)) ? v : mx[c];
    }
  }
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t c = 0; c < inner; ++c)
      sum[c] += std::exp(static_cast<Acc>(in[r * inner + c]) - mx[c]);
  }
  for (int64_t c = 0; c < inner; ++c) sum[c] = log ? mx[c] + std::log(sum[c]) : Acc(1) / sum[c];
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t c = 0; c < inner; ++c) {
      Acc v = static_cast<Acc>(in[r * inner + c]);
      out[r * inner + c] = static_cast<T>(log ? v - sum[c] : std::exp(v - mx[c]) * sum[c]);
    }
  }
}

template <typename T>
void softmax_kernel(const Tensor& x, Tensor& y, int64_t dim, bool log) {
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const auto& sz = x.sizes();
  int64_t outer = 1, inner = 1;
  const int64_t n = sz.empty() ? 1 : sz[dim];
  for (int64_t d = 0; d < dim; ++d) outer *= sz[d];
  for (int64_t d = dim + 1; d < static_cast<int64_t>(sz.size()); ++d) inner *= sz[d];
  if (outer * inner * n == 0) return;
  const T* in = x.data_ptr<T>();
  T* out = y.data_ptr<T>();
  const int64_t grain = std::max<int64_t>(1, cpu::kGrainSize / std::max<int64_t>(1, n * inner));
  cpu::parallel_for(0, outer, grain, [&](int64_t b, int64_t e) {
    if (inner == 1) {
      std::vector<Acc> buf(n);
      for (int64_t o = b; o < e; ++o)
        softmax_row<T, Acc>(in + o * n, out + o * n, n, log, buf.data());
    } else {
      std::vector<Acc> mx(inner), sum(inner);
      for (int64_t o = b; o < e; ++o) {
        softmax_slab<T, Acc>(in + o * n * inner, out + o * n * inner, n, inner, log, mx.data(),
                             sum.data());
      }
    }
  });
}

}  // namespace

void Softmax::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs[0];
  Tensor& y = outputs[0];
  switch (x.dtype()) {
    case kFloat32:
      return softmax_kernel<float>(x, y, p_.dim, p_.log);
    case kFloat64:
      return softmax_kernel<double>(x, y, p_.dim, p_.log);
    case kFloat16:
      return softmax_kernel<Half>(x, y, p_.dim, p_.log);
    case kBFloat16:
      return softmax_kernel<BFloat16>(x, y, p_.dim, p_.log);
    default:
      EMBER_THROW(TypeError, "[", name(), "] \"", name(),
                  "_lastdim_kernel_impl\" not implemented for '", dtype_name(x.dtype()), "'");
  }
}

}  // namespace ember
