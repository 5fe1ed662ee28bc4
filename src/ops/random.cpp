// Random sampling: rand/randn/randint/randperm/bernoulli/normal and the in-place samplers. Each op
// validates, reserves its Philox draws under the generator's mutex and dispatches a Random
// primitive that fills the output from (seed, offset) (Note [Deterministic random]).
// multinomial is composed from rand and other ops.
#include "primitives/random.h"

#include <cmath>
#include <limits>
#include <optional>

#include "ember/autograd.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduction.h"
#include "ember/ops/sort.h"
#include "ops/util.h"

namespace ember {

Tensor ops::philox_state(Generator& gen, uint64_t draws, Device device) {
  Tensor state = ops::empty_tensor({2}, kInt64, "random", device);
  std::lock_guard<std::mutex> lock(gen.mutex());
  const uint64_t seed = gen.initial_seed(), offset = gen.reserve_locked(draws);
  // The generator's state leaving it: a graph input, not an op (Note [Functional randomness]).
  if (!device.is_meta()) {
    auto* v = state.data_ptr<int64_t>();
    v[0] = static_cast<int64_t>(seed);
    v[1] = static_cast<int64_t>(offset);
  }
  return state;
}

namespace {

// PyTorch raises from its dtype dispatch ("<kernel>" not implemented for '<dtype>'); Ember
// spells the dtype as its own dtype names do.
void check_floating(ScalarType t, const char* op, const char* kernel) {
  EMBER_CHECK_TYPE(is_floating_point(t) && is_implemented(t), "[", op, "] \"", kernel,
                   "\" not implemented for '", dtype_name(t), "'");
}

// Significand bits of a floating dtype (std::numeric_limits<T>::digits).
// Limits of a dtype, from std::numeric_limits (half.h specialises it for the 16-bit floats).
template <typename F>
auto with_limits(ScalarType t, F f) {
  return visit_dtype(t, "random", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    return f(std::numeric_limits<T>{});
  });
}

int float_digits(ScalarType t) {
  if (!is_floating_point(t)) return 53;
  return with_limits(t, [](auto l) {
    using L = decltype(l);
    if constexpr (std::is_same_v<L, std::numeric_limits<Half>>)
      return 11;
    else if constexpr (std::is_same_v<L, std::numeric_limits<BFloat16>>)
      return 8;
    else
      return L::digits;
  });
}

double dtype_lowest(ScalarType t) {
  return with_limits(t, [](auto l) { return static_cast<double>(decltype(l)::lowest()); });
}

double dtype_max(ScalarType t) {
  return with_limits(t, [](auto l) { return static_cast<double>(decltype(l)::max()); });
}

// The integer range of t: its own for integral types, int64's for floating types.
int64_t int_max(ScalarType t) {
  if (is_floating_point(t)) return std::numeric_limits<int64_t>::max();
  return with_limits(t, [](auto l) { return static_cast<int64_t>(decltype(l)::max()); });
}

int64_t int_lowest(ScalarType t) {
  if (is_floating_point(t)) return std::numeric_limits<int64_t>::min();
  return with_limits(t, [](auto l) { return static_cast<int64_t>(decltype(l)::lowest()); });
}

// v rounded to the floating dtype t and converted back to int64 (saturating at int64's ends).
int64_t round_trip(int64_t v, ScalarType t) {
  double d = static_cast<double>(v);
  if (t == kFloat32) {
    d = static_cast<float>(v);
  } else if (t == kFloat16) {
    d = static_cast<float>(Half(static_cast<float>(v)));
  } else if (t == kBFloat16) {
    d = static_cast<float>(BFloat16(static_cast<float>(v)));
  }
  if (!(d < 9223372036854775808.0)) return std::numeric_limits<int64_t>::max();
  if (d < -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

int floor_log2(uint64_t v) {
  int n = 0;
  while (v >>= 1) ++n;
  return n;
}

// PyTorch's update_from / update_to: move the bounds inwards to values that stay inside
// [from, to) after rounding to a floating dtype.
int64_t update_from(int64_t from, ScalarType t) {
  if (from == std::numeric_limits<int64_t>::max()) return from;
  const int64_t from_plus_1 = round_trip(from + 1, t);
  if (from_plus_1 < from) {
    const int n = floor_log2(static_cast<uint64_t>(std::llabs(from + 1)));
    const int shift = n - float_digits(t) + 1;
    if (shift >= 0 && shift < 63) from = from_plus_1 + (int64_t{1} << shift);
  }
  return from;
}

int64_t update_to(int64_t to, ScalarType t) {
  if (to == std::numeric_limits<int64_t>::min()) return to;
  const int64_t to_minus_1 = round_trip(to - 1, t);
  if (to_minus_1 >= to) {
    const int n = floor_log2(static_cast<uint64_t>(std::llabs(to - 1)));
    const int shift = n - float_digits(t) + 1;
    if (shift >= 0 && shift < 63) to = to_minus_1 - (int64_t{1} << shift);
  }
  return to;
}

void check_from_to_in_range(int64_t from, int64_t to_inc, ScalarType t, const char* op) {
  if (is_floating_point(t)) {
    const double lo = dtype_lowest(t), hi = dtype_max(t);
    const auto f = static_cast<double>(from), ti = static_cast<double>(to_inc);
    EMBER_CHECK(f >= lo && f <= hi, "[", op, "] from is out of bounds for ", dtype_name(t));
    EMBER_CHECK(ti >= lo && ti <= hi, "[", op, "] to - 1 is out of bounds for ", dtype_name(t));
  } else {
    const int64_t lo = int_lowest(t), hi = int_max(t);
    EMBER_CHECK(from >= lo && from <= hi, "[", op, "] from is out of bounds for ", dtype_name(t));
    EMBER_CHECK(to_inc >= lo && to_inc <= hi, "[", op, "] to - 1 is out of bounds for ",
                dtype_name(t));
  }
}

// What a sampler writes: a tensor in place, or a fresh contiguous one that dispatch allocates
// from the Random primitive's inference.
struct Target {
  std::vector<int64_t> sizes;
  ScalarType dtype;
  Tensor* into = nullptr;
  Device device = kCPU;
  static Target fresh(std::vector<int64_t> sizes, ScalarType dtype, Device device = kCPU) {
    return {std::move(sizes), dtype, nullptr, device};
  }
  static Target in_place(Tensor& t) { return {t.sizes(), t.dtype(), &t, t.device()}; }
};

// Fresh tensors of `like`'s sizes (torch.preserve_format): a non-contiguous dense layout is
// allocated by empty_like and written in place.
Target like_target(const Tensor& like, const TensorOptions& options, Tensor& storage) {
  EMBER_CHECK(like.defined(), "[empty_like] the input tensor is undefined");
  if (like.is_contiguous()) {
    const ScalarType dtype = options.has_dtype() ? options.dtype() : like.dtype();
    check_device_available(options.device(), "empty_like");
    ops::check_implemented(dtype, "empty_like");
    return Target::fresh(like.sizes(), dtype,
                         options.has_device() ? options.device() : like.device());
  }
  storage = empty_like(like, options.requires_grad(false));
  return Target::in_place(storage);
}

// A fresh tensor of `size` and the options' dtype (the default float dtype when none is given).
Target fresh(const SymIntList& size, const TensorOptions& options, const char* op) {
  check_device_available(options.device(), op);
  const ScalarType dtype = options.dtype();
  ops::check_implemented(dtype, op);
  std::vector<int64_t> sizes = size.concrete(op);
  checked_numel(sizes, op);
  return Target::fresh(std::move(sizes), dtype, options.device());
}

// Runs `op` into the target after reserving the draws it needs; returns what it wrote.
Tensor run(RandomOp op, RandomParams p, const Target& target, Generator& gen,
           const std::vector<Tensor>& inputs = {}) {
  const int64_t numel = checked_numel(target.sizes, "random");
  if (numel == 0) {
    return target.into ? *target.into
                       : ops::empty_tensor(target.sizes, target.dtype, "random", target.device);
  }
  const ScalarType p_dtype = inputs.empty() ? kFloat32 : inputs[0].dtype();
  const uint64_t draws = Random::num_draws(op, target.dtype, numel, p.range, p_dtype);
  std::vector<Tensor> args = inputs;
  args.push_back(ops::philox_state(gen, draws, target.device));
  Random prim(op, p, target.sizes, target.dtype);
  if (!target.into) return dispatch(prim, args)[0];
  dispatch(in_place(std::move(prim)), args, {*target.into});
  return *target.into;
}

Tensor uniform_impl(const Target& t, double from, double to, Generator& gen, const char* op) {
  check_floating(t.dtype, op, "check_uniform_bounds");
  const double lo = dtype_lowest(t.dtype), hi = dtype_max(t.dtype);
  EMBER_CHECK(from >= lo && from <= hi, "[", op, "] from is out of bounds for ",
              dtype_name(t.dtype));
  EMBER_CHECK(to >= lo && to <= hi, "[", op, "] to is out of bounds for ", dtype_name(t.dtype));
  EMBER_CHECK(from <= to, "[", op,
              "] uniform_ expects to return a [from, to) range, but found from=", from,
              " > to=", to);
  EMBER_CHECK(to - from <= hi, "[", op, "] uniform_ expects to-from <= std::numeric_limits<",
              dtype_name(t.dtype), ">::max(), but found to=", to, " and from=", from,
              " which result in to-from to exceed the limit");
  if (t.into) ops::check_no_internal_overlap(*t.into, op);
  RandomParams p;
  p.a = from;
  p.b = to;
  return run(RandomOp::Uniform, p, t, gen);
}

Tensor normal_impl(const Target& t, double mean, double std, Generator& gen, const char* op) {
  check_floating(t.dtype, op, "normal_kernel_cpu");
  EMBER_CHECK(std >= 0.0, "[", op, "] normal expects std >= 0.0, but found std ", std);
  if (t.into) ops::check_no_internal_overlap(*t.into, op);
  RandomParams p;
  p.a = mean;
  p.b = std;
  return run(RandomOp::Normal, p, t, gen);
}

// PyTorch's random_from_to_impl: [from, to) when `to` is given, else [from, max of the dtype]
// (2^digits for floating dtypes).
Tensor random_impl(const Target& t, int64_t from, std::optional<int64_t> to, Generator& gen,
                   const char* op) {
  const ScalarType dt = t.dtype;
  ops::check_implemented(dt, op);
  uint64_t range = 0;
  if (to.has_value()) {
    int64_t hi = *to;
    EMBER_CHECK(from < hi, "[", op,
                "] random_ expects 'from' to be less than 'to', but got from=", from,
                " >= to=", hi);
    if (is_floating_point(dt)) {
      from = update_from(from, dt);
      hi = update_to(hi, dt);
      EMBER_CHECK(from < hi, "[", op,
                  "] random_ expects 'from' casted to dtype to be less than "
                  "'to' casted to dtype, but got from=",
                  from, " >= to=", hi);
    }
    check_from_to_in_range(from, hi - 1, dt, op);
    range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(from);
  } else if (from != std::numeric_limits<int64_t>::min()) {
    int64_t to_inc = 0;
    if (is_floating_point(dt)) {
      to_inc = int64_t{1} << float_digits(dt);
      from = update_from(from, dt);
      EMBER_CHECK(from < to_inc, "[", op,
                  "] random_ expects 'from' casted to dtype to be less "
                  "than or equal to 'to_inc' casted to dtype, but got from=",
                  from, " > to_inc=", to_inc);
    } else {
      to_inc = int_max(dt);
    }
    check_from_to_in_range(from, to_inc, dt, op);
    range = static_cast<uint64_t>(to_inc) - static_cast<uint64_t>(from) + 1;
  }
  if (t.into) ops::check_no_internal_overlap(*t.into, op);
  RandomParams p;
  p.from = from;
  p.range = range;  // 0 stands for 2^64
  return run(RandomOp::RandomFromTo, p, t, gen);
}

}  // namespace

Tensor& uniform_(Tensor& t, double from, double to, Generator& gen) {
  uniform_impl(Target::in_place(t), from, to, gen, "uniform_");
  return t;
}

Tensor& normal_(Tensor& t, double mean, double std, Generator& gen) {
  normal_impl(Target::in_place(t), mean, std, gen, "normal_");
  return t;
}

Tensor& bernoulli_(Tensor& t, double p, Generator& gen) {
  ops::check_implemented(t.dtype(), "bernoulli_");
  EMBER_CHECK(0 <= p && p <= 1, "[bernoulli_] bernoulli_ expects p to be in [0, 1], but got p=", p);
  ops::check_no_internal_overlap(t, "bernoulli_");
  RandomParams params;
  params.a = p;
  run(RandomOp::Bernoulli, params, Target::in_place(t), gen);
  return t;
}

const Tensor& Tensor::uniform_(double from, double to) const {
  return ember::uniform_(mutable_self(), from, to, default_generator());
}
const Tensor& Tensor::normal_(double mean, double std) const {
  return ember::normal_(mutable_self(), mean, std, default_generator());
}
const Tensor& Tensor::bernoulli_(double p) const {
  return ember::bernoulli_(mutable_self(), p, default_generator());
}
const Tensor& Tensor::random_(int64_t from, std::optional<int64_t> to) const {
  random_impl(Target::in_place(mutable_self()), from, to, default_generator(), "random_");
  return *this;
}

Tensor rand(SymIntList size, Generator& gen, const TensorOptions& options) {
  return ops::with_grad(uniform_impl(fresh(size, options, "rand"), 0, 1, gen, "rand"), options);
}
Tensor rand(SymIntList size, const TensorOptions& options) {
  return rand(size, default_generator(), options);
}

Tensor randn(SymIntList size, Generator& gen, const TensorOptions& options) {
  return ops::with_grad(normal_impl(fresh(size, options, "randn"), 0, 1, gen, "randn"), options);
}
Tensor randn(SymIntList size, const TensorOptions& options) {
  return randn(size, default_generator(), options);
}

Tensor normal(double mean, double std, SymIntList size, const TensorOptions& options) {
  return ops::with_grad(
      normal_impl(fresh(size, options, "normal"), mean, std, default_generator(), "normal"),
      options);
}

Tensor randint(int64_t high, SymIntList size, const TensorOptions& options) {
  return randint(0, high, size, options);
}

Tensor randint(int64_t low, int64_t high, SymIntList size, const TensorOptions& options) {
  const Target t = fresh(size, options.has_dtype() ? options : options.dtype(kInt64), "randint");
  return ops::with_grad(random_impl(t, low, high, default_generator(), "randint"), options);
}

Tensor rand_like(const Tensor& t, const TensorOptions& options) {
  Tensor storage;
  const Target out = like_target(t, options, storage);
  return ops::with_grad(uniform_impl(out, 0, 1, default_generator(), "rand_like"), options);
}

Tensor randn_like(const Tensor& t, const TensorOptions& options) {
  Tensor storage;
  const Target out = like_target(t, options, storage);
  return ops::with_grad(normal_impl(out, 0, 1, default_generator(), "randn_like"), options);
}

Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const TensorOptions& options) {
  Tensor storage;
  const Target out = like_target(t, options, storage);
  return ops::with_grad(random_impl(out, low, high, default_generator(), "randint_like"), options);
}

Tensor randperm(int64_t n, Generator& gen, const TensorOptions& options) {
  EMBER_CHECK(n >= 0, "[randperm] n must be non-negative, got ", n);
  const ScalarType dt = options.has_dtype() ? options.dtype() : kInt64;
  check_device_available(options.device(), "randperm");
  ops::check_implemented(dt, "randperm");
  EMBER_CHECK_TYPE(dt != kBool, "[randperm] \"randperm\" not implemented for 'bool'");
  // PyTorch's check_supported_max_int_with_precision: n - 1 must be representable.
  if (is_integral(dt, false)) {
    EMBER_CHECK(n == 0 || n - 1 <= int_max(dt),
                "[randperm] n is too large for result tensor type: '", dtype_name(dt), "'");
  } else if (dt == kFloat16) {
    EMBER_CHECK(n <= (int64_t{1} << 11) + 1,
                "[randperm] n cannot be greater than 2049 for Half type.");
  } else if (dt == kFloat32) {
    EMBER_CHECK(n <= (int64_t{1} << 24) + 1,
                "[randperm] n cannot be greater than 2^24+1 for Float type.");
  } else if (dt == kFloat64) {
    EMBER_CHECK(n <= (int64_t{1} << 53) + 1,
                "[randperm] n cannot be greater than 2^53+1 for Double type.");
  }
  return ops::with_grad(
      run(RandomOp::Randperm, RandomParams{}, Target::fresh({n}, dt, options.device()), gen),
      options);
}

Tensor randperm(int64_t n, const TensorOptions& options) {
  return randperm(n, default_generator(), options);
}

Tensor bernoulli(const Tensor& p, Generator& gen) {
  EMBER_CHECK(p.defined(), "[bernoulli] the input tensor is undefined");
  check_floating(p.dtype(), "bernoulli", "bernoulli_tensor_cpu_p_");
  return run(RandomOp::BernoulliTensor, RandomParams{}, Target::fresh(p.sizes(), p.dtype()), gen,
             {p});
}

Tensor bernoulli(const Tensor& p) { return bernoulli(p, default_generator()); }

Tensor multinomial(const Tensor& input, int64_t num_samples, bool replacement, Generator& gen) {
  const char* op = "multinomial";
  EMBER_CHECK(input.defined(), "[multinomial] the input tensor is undefined");
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, "[multinomial] prob_dist must be 1 or 2 dim");
  EMBER_CHECK_TYPE(is_floating_point(input.dtype()),
                   "[multinomial] multinomial only supports floating-point dtypes for input, got: ",
                   dtype_name(input.dtype()));
  EMBER_CHECK(num_samples > 0, "[multinomial] cannot sample n_sample <= 0 samples");
  const int64_t k = input.size(-1);
  EMBER_CHECK(replacement || num_samples <= k,
              "[multinomial] cannot sample n_sample > prob_dist.size(-1) samples without "
              "replacement");
  EMBER_CHECK(k <= (int64_t{1} << 24), "[multinomial] number of categories cannot exceed 2^24");
  NoGradGuard no_grad;
  // Rows of weights in double (16-bit and float32 weights sample the same categories).
  Tensor p = (input.dim() == 1 ? input.unsqueeze(0) : input).to(kFloat64);
  const int64_t rows = p.size(0);
  Tensor out;
  if (rows == 0) {
    out = ops::empty_tensor({0, num_samples}, kInt64, op);
  } else {
    EMBER_CHECK((p.amin() >= 0).item<bool>() && (p.amax() < INFINITY).item<bool>(),
                "[multinomial] probability tensor contains either `inf`, `nan` or element < 0");
    EMBER_CHECK((p.sum(-1) > 0).all().item<bool>(),
                "[multinomial] invalid multinomial distribution (sum of probabilities <= 0)");
    if (!replacement || num_samples == 1) {
      // The exponential race: argmax / top-k of p / q with q ~ Exp(1) draws without replacement
      // (PyTorch's algorithm); q is kept above zero so that a zero weight never wins.
      const Tensor q = (-log1p(-rand(p.sizes(), gen, kFloat64))).clamp_min(1e-300);
      const Tensor keys = p / q;
      out = num_samples == 1 ? argmax(keys, -1, true) : std::get<1>(topk(keys, num_samples, -1));
    } else {
      // Inverse CDF: the first category whose cumulative weight exceeds u * total (a zero-weight
      // category never does); the normalised total is exactly 1 and u < 1.
      Tensor cdf = cumsum(p, -1);
      cdf = cdf / cdf.narrow(-1, k - 1, 1);
      out = searchsorted(cdf, rand({rows, num_samples}, gen, kFloat64), false, true);
    }
  }
  return input.dim() == 1 ? out.squeeze(0) : out;
}

Tensor multinomial(const Tensor& input, int64_t num_samples, bool replacement) {
  return multinomial(input, num_samples, replacement, default_generator());
}

Tensor Tensor::multinomial(int64_t num_samples, bool replacement) const {
  return ember::multinomial(*this, num_samples, replacement);
}

}  // namespace ember
