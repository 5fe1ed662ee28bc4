// CPU kernels of the random family (src/primitives/random.h).
#include "primitives/random.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

#include "backend/cpu/parallel.h"
#include "backend/cpu/view_util.h"
#include "ember/core/generator.h"
#include "ops/util.h"

namespace ember {

namespace {

constexpr int64_t kRandomGrain = 4096;  // Philox costs ~10 multiplies per four draws

// Draw j of the stream is lane j % 4 of Philox block offset + j / 4. Caches the current block.
class DrawStream {
 public:
  DrawStream(uint64_t seed, uint64_t offset) : seed_(seed), offset_(offset) {}
  uint32_t operator()(uint64_t j) {
    const uint64_t block = j >> 2;
    if (block != cached_) {
      buf_ = Generator::philox(seed_, offset_ + block);
      cached_ = block;
    }
    return buf_[j & 3];
  }
  uint64_t u64(uint64_t j) { return static_cast<uint64_t>((*this)(j)) << 32 | (*this)(j + 1); }

 private:
  uint64_t seed_, offset_;
  uint64_t cached_ = std::numeric_limits<uint64_t>::max();
  std::array<uint32_t, 4> buf_{};
};

template <typename T>
constexpr bool is_reduced_float = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// A sampled value (double, or an exact int64) stored as T: bool is "non-zero", the 16-bit
// floats round through float.
template <typename T, typename V>
T cast_to(V v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (is_reduced_float<T>) {
    return T(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// U[0, 1) with as many random bits as T's significand holds (as PyTorch's uniform_real).
template <typename T>
float uniform_bits(uint32_t r) {
  if constexpr (std::is_same_v<T, Half>) {
    return static_cast<float>(r >> 21) * (1.0f / 2048.0f);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return static_cast<float>(r >> 24) * (1.0f / 256.0f);
  } else {
    return uniform_float(r);
  }
}

double read_as_double(const char* p, ScalarType t) {
  return visit_dtype(t, "bernoulli", [&](auto* tag) -> double {
    using P = std::remove_pointer_t<decltype(tag)>;
    const P v = *reinterpret_cast<const P*>(p);
    if constexpr (is_reduced_float<P>) {
      return static_cast<float>(v);
    } else {
      return static_cast<double>(v);
    }
  });
}

// Fills a contiguous buffer of n elements: out[i] = sample(i, stream).
template <typename T, typename Sample>
void fill_parallel(T* out, int64_t n, const PhiloxState& st, const Sample& sample) {
  cpu::parallel_for(0, n, kRandomGrain, [&](int64_t begin, int64_t end) {
    DrawStream draws(st.seed, st.offset);
    for (int64_t i = begin; i < end; ++i) out[i] = sample(static_cast<uint64_t>(i), draws);
  });
}

template <typename T>
void fill_contiguous(RandomOp op, const RandomParams& p, const PhiloxState& st, T* out, int64_t n,
                     const Tensor* prob) {
  switch (op) {
    case RandomOp::Uniform: {
      if constexpr (std::is_same_v<T, double>) {
        const double from = p.a, span = p.b - p.a;
        fill_parallel(out, n, st, [=](uint64_t i, DrawStream& d) {
          return uniform_double(d(2 * i), d(2 * i + 1)) * span + from;
        });
      } else {
        const auto from = static_cast<float>(p.a), to = static_cast<float>(p.b);
        fill_parallel(out, n, st, [=](uint64_t i, DrawStream& d) {
          return cast_to<T>(uniform_bits<T>(d(i)) * (to - from) + from);
        });
      }
      break;
    }
    case RandomOp::Normal: {
      // Box-Muller: elements 2k and 2k + 1 share two uniforms and take the cosine and sine
      // branches. u1 is moved to (0, 1] so that the logarithm is finite.
      const double mean = p.a, stdev = p.b;
      constexpr bool wide = std::is_same_v<T, double>;
      fill_parallel(out, n, st, [=](uint64_t i, DrawStream& d) {
        const uint64_t k = i / 2;
        double u1, u2;
        if constexpr (wide) {
          u1 = uniform_double(d(4 * k), d(4 * k + 1));
          u2 = uniform_double(d(4 * k + 2), d(4 * k + 3));
        } else {
          u1 = uniform_float(d(2 * k));
          u2 = uniform_float(d(2 * k + 1));
        }
        const double radius = std::sqrt(-2.0 * std::log(1.0 - u1));
        const double theta = 2.0 * std::numbers::pi * u2;
        const double z = (i % 2 == 0) ? radius * std::cos(theta) : radius * std::sin(theta);
        return cast_to<T>(mean + stdev * z);
      });
      break;
    }
    case RandomOp::Bernoulli: {
      const double prob_p = p.a;
      fill_parallel(out, n, st, [=](uint64_t i, DrawStream& d) {
        return cast_to<T>(uniform_double(d(2 * i), d(2 * i + 1)) < prob_p ? 1.0 : 0.0);
      });
      break;
    }
    case RandomOp::BernoulliTensor: {
      const char* pp = static_cast<const char*>(prob->data_ptr());
      const ScalarType pt = prob->dtype();
      const int64_t es = element_size(pt);
      const bool wide = pt == kFloat64;
      fill_parallel(out, n, st, [=](uint64_t i, DrawStream& d) {
        const double pv = read_as_double(pp + static_cast<int64_t>(i) * es, pt);
        EMBER_CHECK(
            pv >= 0 && pv <= 1,
            "[bernoulli] Expected p_in >= 0 && p_in <= 1 to be true, but got false. (p=", pv, ")");
        const double u = wide ? uniform_double(d(2 * i), d(2 * i + 1)) : uniform_float(d(i));
        return cast_to<T>(u < pv ? 1.0 : 0.0);
      });
      break;
    }
    case RandomOp::RandomFromTo: {
      const uint64_t range = p.range;
      const auto from = static_cast<uint64_t>(p.from);
      const bool narrow = range != 0 && range <= (uint64_t{1} << 32);
      fill_parallel(out, n, st, [=](uint64_t i, DrawStream& d) {
        uint64_t r = narrow ? d(i) : d.u64(2 * i);
        if (range != 0) r %= range;
        return cast_to<T>(static_cast<int64_t>(from + r));  // wraps modulo 2^64
      });
      break;
    }
    case RandomOp::Randperm: {
      // Sequential Fisher-Yates: draw pair (2i, 2i + 1) picks the element swapped into slot i.
      std::vector<int64_t> perm(n);
      std::iota(perm.begin(), perm.end(), int64_t{0});
      DrawStream d(st.seed, st.offset);
      for (int64_t i = 0; i + 1 < n; ++i) {
        const uint64_t z = d.u64(2 * static_cast<uint64_t>(i)) % static_cast<uint64_t>(n - i);
        std::swap(perm[i], perm[i + static_cast<int64_t>(z)]);
      }
      for (int64_t i = 0; i < n; ++i) out[i] = cast_to<T>(perm[i]);
      break;
    }
  }
}

}  // namespace

PhiloxState read_philox_state(const Tensor& state, const char* op) {
  EMBER_CHECK_VALUE(
      state.defined() && state.dtype() == kInt64 && state.sizes() == std::vector<int64_t>{2}, "[",
      op, "] expected the generator state as an int64 tensor of shape [2]");
  const auto* v = state.data_ptr<int64_t>();
  return {static_cast<uint64_t>(v[0]), static_cast<uint64_t>(v[state.strides()[0]])};
}

const char* Random::default_name() const {
  switch (p_.op) {
    case RandomOp::Uniform:
      return "uniform_";
    case RandomOp::Normal:
      return "normal_";
    case RandomOp::Bernoulli:
      return "bernoulli_";
    case RandomOp::BernoulliTensor:
      return "bernoulli";
    case RandomOp::RandomFromTo:
      return "random_";
    case RandomOp::Randperm:
      return "randperm";
  }
  return "random";
}

int Random::lanes_per_element(RandomOp op, ScalarType dtype, uint64_t range, ScalarType p_dtype) {
  switch (op) {
    case RandomOp::Uniform:
    case RandomOp::Normal:
      return dtype == kFloat64 ? 2 : 1;
    case RandomOp::Bernoulli:
      return 2;
    case RandomOp::BernoulliTensor:
      return p_dtype == kFloat64 ? 2 : 1;
    case RandomOp::RandomFromTo:
      return (range != 0 && range <= (uint64_t{1} << 32)) ? 1 : 2;
    case RandomOp::Randperm:
      return 2;
  }
  return 2;
}

uint64_t Random::num_draws(RandomOp op, ScalarType dtype, int64_t numel, uint64_t range,
                           ScalarType p_dtype) {
  auto n = static_cast<uint64_t>(numel);
  if (op == RandomOp::Normal) n += n % 2;  // Box-Muller consumes whole pairs
  return n * static_cast<uint64_t>(lanes_per_element(op, dtype, range, p_dtype));
}

void Random::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  Tensor& out = outputs[0];
  if (out.numel() == 0) return;
  const PhiloxState state = read_philox_state(inputs.back(), name());
  // Samples are generated in row-major order into contiguous memory, so element i always gets
  // draw i whatever the output's strides; a strided output receives a copy.
  Tensor target = out.is_contiguous() ? out : ops::empty_tensor(out.sizes(), out.dtype(), name());
  Tensor prob;
  if (p_.op == RandomOp::BernoulliTensor) {
    prob = inputs.at(0);
    if (!prob.is_contiguous() || prob.sizes() != out.sizes()) {
      Tensor c = ops::empty_tensor(out.sizes(), prob.dtype(), name());
      cpu::copy_into(prob, c);
      prob = c;
    }
  }
  visit_dtype(out.dtype(), name(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    fill_contiguous<T>(p_.op, p_.args, state, static_cast<T*>(target.data_ptr()), target.numel(),
                       &prob);
  });
  if (!target.is_same(out)) cpu::copy_into(target, out);
}

}  // namespace ember
