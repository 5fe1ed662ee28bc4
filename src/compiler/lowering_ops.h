#pragma once
// What the code generator knows about each primitive it fuses (Note [Lowering]): whether a call
// can be generated (its op, dtypes and parameters), and the C++ expression that computes it with
// the eager kernels' functors (backend/cpu/unary_functors.h, binary_functors.h), so that compiled
// and eager results agree. Everything else runs as a call of its primitive.
//
// Note [16-bit kernels]: bfloat16 and float16 values are loaded into float and computed with the
// float functors, as eager's kernels compute them (compute_t, opmath_t), and each op's result is
// rounded to its 16-bit dtype, as eager's kernels round every op's output when storing it; so a
// fused chain gives what the chain of eager ops gives, without the intermediate buffers. Stores
// write the rounded values. Integer add, sub, mul, maximum and minimum wrap as eager's do.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dispatch/primitive.h"

namespace ember::compiler {

/// A scalar constant of the graph (a fill of a fresh tensor, converted by copies): folded into
/// the generated code as a literal.
struct ConstValue {
  ScalarType dtype = kFloat32;
  double f = 0;
  int64_t i = 0;
  bool b = false;
};
/// `value` as a constant of `dtype` (a 16-bit float's value rounded as eager's fill rounds it);
/// nullopt for a dtype the generator does not handle.
std::optional<ConstValue> fill_value(const Scalar& value, ScalarType dtype);
/// `c` converted to `dtype` as the copy kernel converts (nullopt where that is not exact C++).
std::optional<ConstValue> convert(const ConstValue& c, ScalarType dtype);
/// A C++ expression of type ctype(c.dtype) with c's value.
std::string literal(const ConstValue& c);

/// The floating dtypes, the 16-bit ones included.
bool is_float(ScalarType t);
/// bfloat16 and float16: stored in 16 bits, computed in float (Note [16-bit kernels]).
bool is_reduced_float(ScalarType t);
/// The dtype values of `t` are computed in: float for the 16-bit floats, else t itself.
ScalarType compute_dtype(ScalarType t);
/// The C++ element type of a dtype the generator handles, as stored ("float", "bool",
/// "ember::BFloat16").
const char* ctype(ScalarType t);
/// The C++ type of a value of dtype `t` in generated code: ctype(compute_dtype(t)).
const char* vtype(ScalarType t);

/// Whether a call of `prim` on inputs of `in` dtypes giving `out` is generated as a pointwise
/// expression.
bool pointwise_supported(const Primitive& prim, const std::vector<ScalarType>& in, ScalarType out);
/// Whether a Reduce call is generated (sum, mean, prod, amax, amin and the variance family of
/// float32/float64, in their own dtype).
bool reduce_supported(const Primitive& prim, ScalarType in);

/// The C++ expression of a pointwise call on `args` (expressions of the inputs' dtypes `in`),
/// lane-wise on Vec<T> when `vector` (T the single float type of the kernel), else on scalars;
/// nullopt when it has no vector form.
std::optional<std::string> pointwise_expr(const Primitive& prim,
                                          const std::vector<std::string>& args,
                                          const std::vector<ScalarType>& in, ScalarType out,
                                          bool vector);

}  // namespace ember::compiler
