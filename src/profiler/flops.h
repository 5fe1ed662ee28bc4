#pragma once
// with_flops: FLOP estimates per op, from a table keyed by op name (Primitive::name()).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::profiler::detail {

/// The op's tensor arguments in PyTorch's order (self first for in-place ops) and its outputs
/// after it ran. Returns 0 when the op has no formula or the arguments do not fit it.
int64_t compute_flops(std::string_view op, const std::vector<const Tensor*>& args,
                      const std::vector<Tensor>& outputs);

/// The names in the table, sorted.
std::vector<std::string> flop_ops();

}  // namespace ember::profiler::detail
