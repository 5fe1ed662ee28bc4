// Consumer of an installed Ember: the code cache compiles a unit that includes the kernel
// headers, which an installed libember finds in <includedir>/ember/kernels (Note [Code cache]).
// The unit refuses to compile against any other copy (the source tree's).
#include <cmath>
#include <cstdio>
#include <exception>

#include "compiler/codecache.h"  // from the source tree: the code cache has no public header

int main() {
  const ember::compiler::SourceUnit unit{"package_exp", R"(
#if !__has_include("ember/kernels/backend/cpu/vec.h")
#error "the kernel headers do not come from the installed prefix"
#endif
#include "backend/cpu/binary_functors.h"
#include "backend/cpu/unary_functors.h"
#include "backend/cpu/vec.h"
extern "C" float package_exp(float x) { return ember::cpu::ExpF<float>{}(x); }
)"};
  try {
    auto lib = ember::compiler::load_source(unit);
    auto fn = reinterpret_cast<float (*)(float)>(lib->symbol("package_exp"));
    const float got = fn(1.5f);
    std::printf("generated exp(1.5) = %.7g from %s\n", got, lib->library_path().c_str());
    if (std::fabs(got - std::exp(1.5f)) > 1e-6f) {
      std::fprintf(stderr, "expected %.7g\n", std::exp(1.5f));
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
