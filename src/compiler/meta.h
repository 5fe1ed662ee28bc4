#pragma once
// Between the graph's public ValueMeta and dispatch's TensorMeta (Note [Inference]), and the
// allocation of a tensor from recorded metadata.
#include <map>
#include <string>

#include "dispatch/primitive.h"
#include "ember/fx/graph.h"

namespace ember::fx::detail {

inline TensorMeta to_tensor_meta(const ValueMeta& m) {
  return {m.sizes, m.strides, m.dtype, m.device};
}

/// A new tensor with `m`'s sizes, strides, dtype and device (values uninitialised); symbolic
/// sizes take their symbols' `values` (Note [Symbolic shapes]).
Tensor allocate(const ValueMeta& m, const char* op, const std::map<std::string, int64_t>& values = {});

/// FX's short dtype names: "f32", "i64", "b8", ...
const char* short_dtype_name(ScalarType t);

}  // namespace ember::fx::detail
