// cumsum, cumprod (accumulating as the sums do), cummax, cummin (values and int64 indices; ties
// and NaN take the later index, as PyTorch's), logcumsumexp.
#include <cmath>

#include "backend/cpu/reduce_kernels.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

namespace {

template <typename T, bool IsProd, typename O>
struct CumOp {
  using in_t = T;
  using acc_t = sum_acc_t<T>;
  O* out;

  acc_t init() const { return IsProd ? acc_t(1) : acc_t(0); }
  void step(acc_t& a, opmath_t<T> x, int64_t) const { a = IsProd ? acc_mul(a, x) : acc_add(a, x); }
  void write(const acc_t& a, int64_t o) const { out[o] = cast_to<O>(a); }
};

template <typename A>
struct CumExtremeAcc {
  A v{};
  int64_t i = -1;
};

template <typename T, bool Max>
struct CumExtremeOp {
  using in_t = T;
  using acc_t = CumExtremeAcc<opmath_t<T>>;
  T* values;
  int64_t* indices;

  acc_t init() const { return {}; }
  void step(acc_t& a, opmath_t<T> x, int64_t i) const {
    const bool take = Max ? x >= a.v : x <= a.v;
    if (a.i < 0 || is_nan(x) || (!is_nan(a.v) && take)) {
      a.v = x;
      a.i = i;
    }
  }
  void write(const acc_t& a, int64_t o) const {
    values[o] = cast_to<T>(a.v);
    indices[o] = a.i;
  }
};

template <typename T>
struct LogCumSumExpOp {
  using in_t = T;
  using acc_t = fp_acc_t<T>;
  T* out;

  acc_t init() const { return -std::numeric_limits<acc_t>::infinity(); }
  // log(exp(x) + exp(a)); equal infinities stay as they are, NaN propagates.
  void step(acc_t& a, opmath_t<T> xv, int64_t) const {
    const acc_t x = static_cast<acc_t>(xv);
    const acc_t mn = std::isnan(a) ? a : std::min(x, a);
    const acc_t mx = std::isnan(a) ? a : std::max(x, a);
    if (mn != mx || std::isfinite(mn)) {
      a = std::log1p(std::exp(mn - mx)) + mx;
    } else {
      a = x;
    }
  }
  void write(const acc_t& a, int64_t o) const { out[o] = cast_to<T>(a); }
};

}  // namespace

void scan_family(ScanOp op, const ScanGeom& g, const Tensor& x, std::vector<Tensor>& outs) {
  const char* name = scan_op_name(op);
  visit_dtype(x.dtype(), name, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    char* out = static_cast<char*>(outs.at(0).data_ptr());
    switch (op) {
      case ScanOp::CumSum:
      case ScanOp::CumProd:
        return visit_sum_out<T>(outs[0].dtype(), name, [&](auto* otag) {
          using O = std::remove_pointer_t<decltype(otag)>;
          if (op == ScanOp::CumSum)
            return scan_kernel(g, CumOp<T, false, O>{static_cast<O*>(outs[0].data_ptr())});
          return scan_kernel(g, CumOp<T, true, O>{static_cast<O*>(outs[0].data_ptr())});
        });
      case ScanOp::CumMax:
        return scan_kernel(g, CumExtremeOp<T, true>{reinterpret_cast<T*>(out),
                                                    outs.at(1).template data_ptr<int64_t>()});
      case ScanOp::CumMin:
        return scan_kernel(g, CumExtremeOp<T, false>{reinterpret_cast<T*>(out),
                                                     outs.at(1).template data_ptr<int64_t>()});
      case ScanOp::LogCumSumExp:
        if constexpr (is_fp_v<T>) {
          return scan_kernel(g, LogCumSumExpOp<T>{reinterpret_cast<T*>(out)});
        }
        break;
    }
    EMBER_THROW(TypeError, "[", name, "] \"", name, "_cpu\" not implemented for '",
                dtype_name(x.dtype()), "'");
  });
}

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY
