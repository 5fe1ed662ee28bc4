// all, any (bool or uint8 output, 1/0) and count_nonzero (int64). NaN is non-zero.
#include "backend/cpu/reduce_kernels.h"

namespace ember::cpu::inline EMBER_CPU_CAPABILITY {

namespace {

template <typename T, bool IsAll>
struct AllAnyOp : ReduceOpBase<AllAnyOp<T, IsAll>, T, bool> {
  uint8_t* out;

  bool init() const { return IsAll; }
  void step(bool& a, opmath_t<T> x, int64_t) const {
    if constexpr (IsAll) {
      a = a && x != 0;
    } else {
      a = a || x != 0;
    }
  }
  // Once decided (all: false, any: true) the rest of a run cannot change the answer.
  void run(bool& a, const char* p, int64_t stride, int64_t n, int64_t idx0) const {
    if (a != IsAll) return;
    for (int64_t i = 0; i < n && a == IsAll; ++i) step(a, load_as_opmath<T>(p + i * stride), 0);
    (void)idx0;
  }
  void combine(bool& a, const bool& b) const { a = IsAll ? (a && b) : (a || b); }
  void project(const bool& a, int64_t o) const { out[o] = a ? 1 : 0; }
};

template <typename T>
struct CountNonzeroOp : ReduceOpBase<CountNonzeroOp<T>, T, int64_t> {
  int64_t* out;

  int64_t init() const { return 0; }
  void step(int64_t& a, opmath_t<T> x, int64_t) const { a += x != 0 ? 1 : 0; }
  void combine(int64_t& a, const int64_t& b) const { a += b; }
  void project(const int64_t& a, int64_t o) const { out[o] = a; }
};

}  // namespace

void reduce_logical_family(ReduceOp op, const ReduceGeom& g, const Tensor& x,
                           std::vector<Tensor>& outs) {
  const char* name = reduce_op_name(op);
  const Tensor& out = outs.at(0);
  visit_dtype(x.dtype(), name, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    auto* bytes = static_cast<uint8_t*>(out.data_ptr());
    switch (op) {
      case ReduceOp::All:
        return reduce_kernel(g, AllAnyOp<T, true>{{}, bytes});
      case ReduceOp::Any:
        return reduce_kernel(g, AllAnyOp<T, false>{{}, bytes});
      case ReduceOp::CountNonzero:
        return reduce_kernel(g, CountNonzeroOp<T>{{}, out.template data_ptr<int64_t>()});
      default:
        break;
    }
    EMBER_THROW(RuntimeError, "[", name, "] internal error: not a logical reduction");
  });
}

}  // namespace ember::cpu::inline EMBER_CPU_CAPABILITY
