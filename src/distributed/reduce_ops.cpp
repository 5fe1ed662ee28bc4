// Element-wise reductions for every dtype, in the form custom-reduction hooks take. float16 and
// bfloat16 combine through float (each pairwise step rounds once, as PyTorch's Gloo path does).
#include <ember/core/error.h>

#include <algorithm>

#include "distributed/backend.h"

namespace ember::distributed::detail {
namespace {

template <typename T, typename Op>
void apply(void* c, const void* a, const void* b, size_t n) {
  auto* out = static_cast<T*>(c);
  const auto* x = static_cast<const T*>(a);
  const auto* y = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) out[i] = Op{}(x[i], y[i]);
}

// Arithmetic in the type's computation type: float for the 16-bit floats, int for small ints.
template <typename T>
using Acc = std::conditional_t<
    std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float,
    std::conditional_t<(sizeof(T) < sizeof(int)) && std::is_integral_v<T>, int, T>>;

struct Sum {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>)
      return a || b;
    else
      return static_cast<T>(static_cast<Acc<T>>(a) + static_cast<Acc<T>>(b));
  }
};
struct Prod {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>)
      return a && b;
    else
      return static_cast<T>(static_cast<Acc<T>>(a) * static_cast<Acc<T>>(b));
  }
};
// NaN propagates, as torch.minimum/maximum do.
template <bool kMax>
struct Extreme {
  template <typename T>
  T operator()(T a, T b) const {
    auto x = static_cast<Acc<T>>(a), y = static_cast<Acc<T>>(b);
    if constexpr (!std::is_integral_v<Acc<T>>) {
      if (x != x) return a;
      if (y != y) return b;
    }
    return (kMax ? y > x : y < x) ? b : a;
  }
};
using Min = Extreme<false>;
using Max = Extreme<true>;
struct BAnd {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(a & b);
  }
};
struct BOr {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(a | b);
  }
};
struct BXor {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(a ^ b);
  }
};

}  // namespace

ReduceFn reduce_function(ScalarType dtype, ReduceOp op, const char* api) {
  return visit_dtype(dtype, api, [&](auto tag) -> ReduceFn {
    using T = std::remove_pointer_t<decltype(tag)>;
    switch (op) {
      case ReduceOp::SUM:
      case ReduceOp::AVG:
        return &apply<T, Sum>;
      case ReduceOp::PRODUCT:
        return &apply<T, Prod>;
      case ReduceOp::MIN:
        return &apply<T, Min>;
      case ReduceOp::MAX:
        return &apply<T, Max>;
      case ReduceOp::BAND:
      case ReduceOp::BOR:
      case ReduceOp::BXOR:
        if constexpr (std::is_integral_v<T>) {
          if (op == ReduceOp::BAND) return &apply<T, BAnd>;
          if (op == ReduceOp::BOR) return &apply<T, BOr>;
          return &apply<T, BXor>;
        } else {
          EMBER_THROW(TypeError, "[", api, "] ReduceOp.", reduce_op_name(op),
                      " needs an integer or bool tensor, got ", dtype_name(dtype));
        }
    }
    EMBER_THROW(ValueError, "[", api, "] unknown ReduceOp ", static_cast<int>(op));
  });
}

}  // namespace ember::distributed::detail
