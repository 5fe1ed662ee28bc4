#pragma once
// Primitives of the random family. Each one fills its output from a Philox stream given by
// (seed, offset) that the op builder reserved from a Generator, so the kernel is a pure function
// of its arguments and the result does not depend on the thread count (Note [Deterministic
// random] in ember/core/generator.h).
//
// Note [Functional randomness]: (seed, offset) is the primitive's last input, an int64 tensor
// [2] on the op's device (ops::philox_state reserves it from a Generator), never a parameter. So
// two draws are the same primitive (equal, same hash), and a captured graph whose state input is
// fed from the generator on every run draws new numbers instead of repeating the captured ones.
// Scaled dot-product attention's dropout takes its state the same way.
#include <string>
#include <vector>

#include "dispatch/primitive.h"

namespace ember {

// clang-format off
EMBER_ENUM(RandomOp, uint8_t,
  Uniform,          // from + (to - from) * U[0, 1)                         (a = from, b = to)
  Normal,           // mean + std * N(0, 1), Box-Muller on pairs of elements (a = mean, b = std)
  Bernoulli,        // U[0, 1) < p, p a number                               (a = p)
  BernoulliTensor,  // U[0, 1) < p[i], p = inputs[0] with the output's shape
  RandomFromTo,     // from + r % range; range 0 means 2^64                  (from, range)
  Randperm          // a Fisher-Yates shuffle of 0..n-1
);
// clang-format on

struct RandomParams {
  double a = 0, b = 0;
  int64_t from = 0;
  uint64_t range = 0;
  EMBER_FIELDS(a, b, from, range)
};

/// A Philox stream: the key and the first block (Note [Functional randomness]).
struct PhiloxState {
  uint64_t seed = 0;
  uint64_t offset = 0;
};
/// Reads a state input (an int64 tensor [2] holding seed and offset): for kernels.
PhiloxState read_philox_state(const Tensor& state, const char* op);

/// sizes and dtype: the output's (the target's, in place); BernoulliTensor's p has those sizes.
/// Inputs: [p (BernoulliTensor),] state; the output lives on the state's device.
struct RandomPrimParams {
  RandomOp op = RandomOp::Uniform;
  RandomParams args;
  std::vector<int64_t> sizes;
  ScalarType dtype = kFloat32;
  EMBER_FIELDS(op, args, sizes, dtype)
};

class Random : public PrimitiveOf<Random, RandomPrimParams, PrimitiveKind::Random> {
 public:
  using PrimitiveOf::PrimitiveOf;
  bool overwrites_target() const override { return true; }
  Random(RandomOp op, RandomParams params, std::vector<int64_t> sizes, ScalarType dtype)
      : PrimitiveOf({op, params, std::move(sizes), dtype}) {}
  EMBER_INFER
  const char* default_name() const override;
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
  RandomOp op() const { return p_.op; }
  const RandomParams& args() const { return p_.args; }

  /// How many 32-bit draws the op consumes for `numel` outputs of `dtype` (`p_dtype`: the
  /// probability tensor's dtype for BernoulliTensor). The op builder reserves this many.
  static uint64_t num_draws(RandomOp op, ScalarType dtype, int64_t numel, uint64_t range = 0,
                            ScalarType p_dtype = kFloat32);
  /// Draws per element: 1, or 2 where an element needs 64 random bits.
  static int lanes_per_element(RandomOp op, ScalarType dtype, uint64_t range = 0,
                               ScalarType p_dtype = kFloat32);
};

}  // namespace ember
