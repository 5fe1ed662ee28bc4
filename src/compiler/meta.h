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

/// Whether a value's sizes or strides hold symbols (Note [Symbolic shapes]).
inline bool is_symbolic(const ValueMeta& m) {
  for (const SymInt& s : m.sizes) {
    if (s.is_symbolic()) return true;
  }
  for (const SymInt& s : m.strides) {
    if (s.is_symbolic()) return true;
  }
  return false;
}

/// A new tensor with `m`'s sizes, strides, dtype and device (values uninitialised); symbolic
/// sizes take their symbols' `values` (Note [Symbolic shapes]).
Tensor allocate(const ValueMeta& m, const char* op,
                const std::map<std::string, int64_t>& values = {});

/// Whether a parameter of `prim` is a symbolic size (Note [Symbolic shapes]).
bool has_symbolic_params(const Primitive& prim);

/// FX's short dtype names: "f32", "i64", "b8", ...
const char* short_dtype_name(ScalarType t);

}  // namespace ember::fx::detail
