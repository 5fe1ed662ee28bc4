// sum, nansum, mean, nanmean, prod. Accumulation: int64 (wrapping) for bool and integers, float
// for the 16-bit floats, double for float and double; the result is rounded once to the output.
#include "backend/cpu/reduce_kernels.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

namespace {

enum class SumKind { Sum, NanSum, Mean, Prod };

template <typename T, SumKind K, typename O>
struct SumLikeOp : ReduceOpBase<SumLikeOp<T, K, O>, T, sum_acc_t<T>> {
  using A = sum_acc_t<T>;
  O* out;
  int64_t count;  // elements per output (mean)

  A init() const { return K == SumKind::Prod ? A(1) : A(0); }
  void step(A& a, opmath_t<T> x, int64_t) const {
    if constexpr (K == SumKind::Prod) {
      a = acc_mul(a, x);
    } else {
      if constexpr (K == SumKind::NanSum) {
        if (is_nan(x)) return;
      }
      a = acc_add(a, x);
    }
  }
  static constexpr bool kPlainFpSum = (K == SumKind::Sum || K == SumKind::Mean) && is_fp_v<T>;
  void run(A& a, const char* p, int64_t stride, int64_t n, int64_t idx0) const {
    if constexpr (kPlainFpSum) {
      if (stride == static_cast<int64_t>(sizeof(T))) {
        a += run_sum<A, T>(p, stride, n, [](opmath_t<T> v) { return static_cast<A>(v); });
        return;
      }
    }
    ReduceOpBase<SumLikeOp<T, K, O>, T, A>::run(a, p, stride, n, idx0);
  }
  void vrun(A* acc, const char* p, int64_t row_stride, int64_t n, int64_t len, int64_t idx0) const {
    if constexpr (kPlainFpSum) {
      // Four rows added together, then into the column's accumulator.
      using V = opmath_t<T>;
      vertical_by_four<T>(
          acc, p, row_stride, n, len,
          [](A a, V x0, V x1, V x2, V x3) {
            return a + ((static_cast<A>(x0) + static_cast<A>(x1)) +
                        (static_cast<A>(x2) + static_cast<A>(x3)));
          },
          [](A a, V x) { return a + static_cast<A>(x); });
    } else {
      ReduceOpBase<SumLikeOp<T, K, O>, T, A>::vrun(acc, p, row_stride, n, len, idx0);
    }
  }
  void combine(A& a, const A& b) const { a = K == SumKind::Prod ? acc_mul(a, b) : acc_add(a, b); }
  void project(const A& a, int64_t o) const {
    if constexpr (K == SumKind::Mean) {
      out[o] = cast_to<O>(a / static_cast<A>(count));
    } else {
      out[o] = cast_to<O>(a);
    }
  }
};

template <typename A>
struct MeanAcc {
  A sum = 0;
  int64_t n = 0;
};

template <typename T>
struct NanMeanOp : ReduceOpBase<NanMeanOp<T>, T, MeanAcc<sum_acc_t<T>>> {
  using A = sum_acc_t<T>;
  T* out;

  MeanAcc<A> init() const { return {}; }
  void step(MeanAcc<A>& a, opmath_t<T> x, int64_t) const {
    if (is_nan(x)) return;
    a.sum += static_cast<A>(x);
    ++a.n;
  }
  void combine(MeanAcc<A>& a, const MeanAcc<A>& b) const {
    a.sum += b.sum;
    a.n += b.n;
  }
  void project(const MeanAcc<A>& a, int64_t o) const {
    out[o] = cast_to<T>(a.sum / static_cast<A>(a.n));
  }
};

}  // namespace

void reduce_sum_family(ReduceOp op, const ReduceGeom& g, const Tensor& x,
                       std::vector<Tensor>& outs) {
  const char* name = reduce_op_name(op);
  visit_dtype(x.dtype(), name, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    visit_sum_out<T>(outs.at(0).dtype(), name, [&](auto* otag) {
      using O = std::remove_pointer_t<decltype(otag)>;
      O* out = static_cast<O*>(outs[0].data_ptr());
      switch (op) {
        case ReduceOp::Sum:
          return reduce_kernel(g, SumLikeOp<T, SumKind::Sum, O>{{}, out, g.red_numel});
        case ReduceOp::NanSum:
          return reduce_kernel(g, SumLikeOp<T, SumKind::NanSum, O>{{}, out, g.red_numel});
        case ReduceOp::Prod:
          return reduce_kernel(g, SumLikeOp<T, SumKind::Prod, O>{{}, out, g.red_numel});
        case ReduceOp::Mean:
        case ReduceOp::NanMean:
          if constexpr (is_fp_v<T>) {
            if (op == ReduceOp::Mean) {
              return reduce_kernel(g, SumLikeOp<T, SumKind::Mean, O>{{}, out, g.red_numel});
            }
            return reduce_kernel(g, NanMeanOp<T>{{}, out});
          }
          break;
        default:
          break;
      }
      EMBER_THROW(RuntimeError, "[", name, "] internal error: unsupported input dtype ",
                  dtype_name(x.dtype()));
    });
  });
}

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY
