#pragma once
// Helpers shared by the reduction op builders (src/ops/reduction*.cpp).
#include <string>
#include <tuple>
#include <vector>

#include "ops/util.h"
#include "primitives/reduction.h"

namespace ember::ops {

/// Reduced dims (wrapped, distinct; an empty list means every dim) and the output shape.
struct ReduceShape {
  std::vector<int64_t> dims;
  std::vector<SymInt> shape;  // symbolic for a traced dynamic input (Note [Symbolic shapes])
  bool keepdim = false;
};
ReduceShape reduce_shape(const Tensor& x, const IntList& dim, bool keepdim, const char* op);

/// Dispatches Reduce(op) on x, whose outputs (inferred) have `dtypes` and rs.shape; `name` (if
/// given) is the public op's name.
std::vector<Tensor> run_reduce(ReduceOp op, const Tensor& x, const ReduceShape& rs,
                               const std::vector<ScalarType>& dtypes, double param = 0,
                               const char* name = nullptr);
inline Tensor run_reduce1(ReduceOp op, const Tensor& x, const ReduceShape& rs, ScalarType dtype,
                          double param = 0, const char* name = nullptr) {
  return run_reduce(op, x, rs, {dtype}, param, name)[0];
}

/// "Long (torch.int64)": PyTorch's name, then Ember's, so that messages name both.
std::string type_str(ScalarType t);
/// "'Long' (torch.int64)", for "... not implemented for 'Long'" messages.
std::string quoted_type(ScalarType t);

/// The input converted to `dtype` when a dtype argument asks for it (PyTorch casts first).
Tensor cast_for_dtype_arg(const Tensor& x, const std::optional<ScalarType>& dtype, const char* op);

/// PyTorch's check for max/min/amax/argmax/aminmax of an empty tensor along `dims`
/// (IndexError "<fn>: Expected reduction dim 1 to have non-zero size.").
void zero_numel_check_dims(const Tensor& x, const std::vector<int64_t>& dims, const char* op,
                           const char* fn);

}  // namespace ember::ops
