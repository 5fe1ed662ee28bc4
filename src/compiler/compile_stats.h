#pragma once
// ember::compile's counters (compiler::stats()) for the fronts beside compile.cpp
// (compile_optimizer.cpp).
#include <string>

namespace ember::compiler::detail {

/// A recompile of `who` because of `reason`: counted, and logged under EMBER_LOGS=recompiles.
void count_recompile(const std::string& who, const std::string& reason);
/// A call of a compiled object that ran eagerly.
void count_eager_fallback();

}  // namespace ember::compiler::detail
