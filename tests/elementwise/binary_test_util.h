#pragma once
// Helpers for the binary/ternary op tests: broadcasting references computed with plain loops
// over test::values, integer wrap-around as the result dtype stores it, and in-memory rewrites
// of sample inputs (independent of Ember's kernels).
#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "opdb.h"
#include "ops/util.h"

namespace ember::test::binary {

inline std::vector<int64_t> bshape(const std::vector<Tensor>& ts) {
  size_t n = 0;
  for (const auto& t : ts) n = std::max(n, t.sizes().size());
  std::vector<int64_t> r(n, 1);
  for (const auto& t : ts) {
    size_t off = n - t.sizes().size();
    for (size_t i = 0; i < t.sizes().size(); ++i) {
      if (t.sizes()[i] != 1) r[off + i] = t.sizes()[i];
    }
  }
  for (size_t i = 0; i < n; ++i) {
    for (const auto& t : ts) {
      size_t off = n - t.sizes().size();
      if (i >= off && t.sizes()[i - off] == 0) r[i] = 0;
    }
  }
  return r;
}

/// The value a result dtype stores for an exact result v: integers wrap modulo 2^bits.
inline double store_as(ScalarType dt, double v) {
  if (dt == kBool) return v != 0 ? 1 : 0;
  if (dt == kFloat16) return static_cast<float>(Half(static_cast<float>(v)));  // overflow -> inf
  if (dt == kBFloat16) return static_cast<float>(BFloat16(static_cast<float>(v)));
  if (dt == kFloat32) return static_cast<float>(v);
  if (is_floating_point(dt) || std::isnan(v) || std::isinf(v)) return v;
  uint64_t u = static_cast<uint64_t>(static_cast<int64_t>(v));
  switch (dt) {
    case kUInt8:
      return static_cast<uint8_t>(u);
    case kInt8:
      return static_cast<int8_t>(u);
    case kInt16:
      return static_cast<int16_t>(u);
    case kInt32:
      return static_cast<int32_t>(u);
    default:
      return static_cast<double>(static_cast<int64_t>(u));
  }
}

/// Compares values exactly, NaN matching NaN.
inline ::testing::AssertionResult same_values(const Tensor& t, const std::vector<double>& want) {
  auto got = values(t);
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "size " << got.size();
  for (size_t i = 0; i < got.size(); ++i) {
    bool ok = std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i];
    if (!ok)
      return ::testing::AssertionFailure() << "[" << i << "] " << got[i] << " != " << want[i];
  }
  return ::testing::AssertionSuccess();
}

/// Reference of an elementwise op over broadcast inputs: f(values...) per output element.
inline Reference ref_map(const std::vector<Tensor>& ins, ScalarType out_dtype,
                         const std::function<double(const std::vector<double>&)>& f) {
  Reference r{bshape(ins), {}, out_dtype};
  std::vector<std::vector<double>> vals;
  for (const auto& t : ins) vals.push_back(values(t));
  int64_t n = 1;
  for (auto s : r.shape) n *= s;
  const size_t nd = r.shape.size();
  std::vector<int64_t> idx(nd, 0);
  std::vector<double> args(ins.size());
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < ins.size(); ++k) {
      const auto& sz = ins[k].sizes();
      size_t off = nd - sz.size();
      int64_t flat = 0;
      for (size_t d = 0; d < sz.size(); ++d) flat = flat * sz[d] + (sz[d] == 1 ? 0 : idx[off + d]);
      args[k] = vals[k][flat];
    }
    r.values.push_back(store_as(out_dtype, f(args)));
    for (int64_t d = static_cast<int64_t>(nd) - 1; d >= 0; --d) {
      if (++idx[d] < r.shape[d]) break;
      idx[d] = 0;
    }
  }
  return r;
}

/// Rewrites every element of t (through its strides) as f(old value).
inline void rewrite(const Tensor& t, const std::function<double(double)>& f) {
  if (t.numel() == 0 || t.device().is_meta()) return;  // a meta tensor has no values
  char* base = static_cast<char*>(t.data_ptr());
  const auto& sz = t.sizes();
  const auto& st = t.strides();
  std::vector<int64_t> idx(sz.size(), 0);
  auto old = values(t);
  for (int64_t i = 0; i < t.numel(); ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < sz.size(); ++d) off += idx[d] * st[d];
    char* p = base + off * t.element_size();
    double v = f(old[i]);
    switch (t.dtype()) {
      case kBool:
        *reinterpret_cast<bool*>(p) = v != 0;
        break;
      case kUInt8:
        *reinterpret_cast<uint8_t*>(p) = static_cast<uint8_t>(v);
        break;
      case kInt8:
        *reinterpret_cast<int8_t*>(p) = static_cast<int8_t>(v);
        break;
      case kInt16:
        *reinterpret_cast<int16_t*>(p) = static_cast<int16_t>(v);
        break;
      case kInt32:
        *reinterpret_cast<int32_t*>(p) = static_cast<int32_t>(v);
        break;
      case kInt64:
        *reinterpret_cast<int64_t*>(p) = static_cast<int64_t>(v);
        break;
      case kFloat16:
        *reinterpret_cast<Half*>(p) = Half(static_cast<float>(v));
        break;
      case kBFloat16:
        *reinterpret_cast<BFloat16*>(p) = BFloat16(static_cast<float>(v));
        break;
      case kFloat32:
        *reinterpret_cast<float*>(p) = static_cast<float>(v);
        break;
      default:
        *reinterpret_cast<double*>(p) = v;
        break;
    }
    for (int64_t d = static_cast<int64_t>(sz.size()) - 1; d >= 0; --d) {
      if (++idx[d] < sz[d]) break;
      idx[d] = 0;
    }
  }
}

/// Samples with no zero in the second input (integer division ops raise on zero divisors).
inline std::vector<Sample> nonzero_divisor_samples(ScalarType dt) {
  auto samples = elementwise_samples(dt, 2);
  for (auto& s : samples) rewrite(s.inputs[1], [](double v) { return v == 0 ? 3 : v; });
  return samples;
}

inline bool is_int(ScalarType t) { return is_integral(t, true); }
inline int bits_of(ScalarType t) { return static_cast<int>(element_size(t) * 8); }

}  // namespace ember::test::binary
