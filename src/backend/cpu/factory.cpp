// CPU kernels of the factory family (src/primitives/factory.h).
#include "primitives/factory.h"

#include <cmath>
#include <limits>

#include "backend/cpu/parallel.h"

namespace ember {

namespace {

template <typename T>
constexpr bool is_reduced_float = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Converts without undefined behaviour: integers saturate (NaN gives 0), as no PyTorch test
// depends on the wrapped value of an out-of-range float-to-int conversion.
template <typename T>
T saturate_cast(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (is_reduced_float<T>) {
    return T(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else {
    if (std::isnan(v)) return T(0);
    constexpr auto lo = static_cast<double>(std::numeric_limits<T>::lowest());
    constexpr auto hi = static_cast<double>(std::numeric_limits<T>::max());
    if (v <= lo) return std::numeric_limits<T>::lowest();
    if (v >= hi) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  }
}

// The type a sequence is computed in: double for integers and float64, float for the others.
template <typename T>
using step_t =
    std::conditional_t<std::is_same_v<T, double> || std::is_integral_v<T>, double, float>;

// A Scalar as T; floating values saturate (see saturate_cast), integers wrap as C++ narrowing does.
template <typename T>
T scalar_to(const Scalar& s) {
  if (s.isFloatingPoint()) return saturate_cast<T>(s.toDouble());
  return static_cast<T>(s.toLong());
}

template <typename T, typename F>
void fill(Tensor& out, const F& value) {
  T* data = static_cast<T*>(out.data_ptr());
  const int64_t stride = out.dim() == 0 ? 1 : out.stride(0);
  cpu::parallel_for(0, out.numel(), cpu::kGrainSize, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) data[i * stride] = value(i);
  });
}

template <typename T>
void arange(Tensor& out, const Scalar& start, const Scalar& step) {
  if constexpr (std::is_integral_v<T>) {
    // int64 arithmetic, wrapping modulo 2^64 like PyTorch's accumulate type for integers.
    const auto s = static_cast<uint64_t>(start.toLong()), d = static_cast<uint64_t>(step.toLong());
    fill<T>(out, [=](int64_t i) {
      return static_cast<T>(static_cast<int64_t>(s + d * static_cast<uint64_t>(i)));
    });
  } else {
    // PyTorch's CPU accumulate type: double for float32 and float64, float for the 16-bit floats.
    using A = std::conditional_t<is_reduced_float<T>, float, double>;
    const A s = start.to<A>(), d = step.to<A>();
    fill<T>(out, [=](int64_t i) { return saturate_cast<T>(s + d * static_cast<A>(i)); });
  }
}

// PyTorch's linspace kernel: the first half counts up from start, the second down from end, so
// both endpoints are exact. `post` maps the linear value (logspace applies the power).
template <typename T, typename Post>
void linear_sequence(Tensor& out, const Scalar& start_s, const Scalar& end_s, const Post& post) {
  using A = step_t<T>;
  const int64_t steps = out.numel();
  const A start = static_cast<A>(start_s.to<double>());
  const A end = static_cast<A>(end_s.to<double>());
  if (steps == 1) {
    const double v = post(start_s.to<double>());
    fill<T>(out, [v](int64_t) { return saturate_cast<T>(v); });
    return;
  }
  const A step = (end - start) / static_cast<A>(steps - 1);
  const int64_t halfway = steps / 2;
  fill<T>(out, [=](int64_t i) {
    const A v =
        i < halfway ? start + step * static_cast<A>(i) : end - step * static_cast<A>(steps - i - 1);
    return saturate_cast<T>(post(static_cast<double>(v)));
  });
}

}  // namespace

const char* Range::default_name() const {
  switch (p_.op) {
    case RangeOp::Arange:
      return "arange";
    case RangeOp::Linspace:
      return "linspace";
    case RangeOp::Logspace:
      return "logspace";
  }
  return "range";
}

void Range::eval_cpu(const std::vector<Tensor>&, std::vector<Tensor>& outputs) const {
  Tensor& out = outputs[0];
  if (out.numel() == 0) return;
  visit_dtype(out.dtype(), name(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (std::is_same_v<T, bool>) {
      EMBER_THROW(TypeError, "[", name(), "] \"", name(), "_cpu\" not implemented for 'bool'");
    } else {
      switch (p_.op) {
        case RangeOp::Arange:
          arange<T>(out, p_.start, p_.end_or_step);
          break;
        case RangeOp::Linspace:
          // Integer linspace starts from the endpoints converted to T, as PyTorch does.
          if constexpr (std::is_integral_v<T>) {
            linear_sequence<T>(out, Scalar(scalar_to<T>(p_.start)),
                               Scalar(scalar_to<T>(p_.end_or_step)), [](double v) { return v; });
          } else {
            linear_sequence<T>(out, p_.start, p_.end_or_step, [](double v) { return v; });
          }
          break;
        case RangeOp::Logspace: {
          const double base = p_.base;
          if constexpr (std::is_integral_v<T>) {
            linear_sequence<T>(out, Scalar(scalar_to<T>(p_.start)),
                               Scalar(scalar_to<T>(p_.end_or_step)),
                               [base](double v) { return std::pow(base, v); });
          } else {
            linear_sequence<T>(out, p_.start, p_.end_or_step,
                               [base](double v) { return std::pow(base, v); });
          }
          break;
        }
      }
    }
  });
}

}  // namespace ember
