// Choosing the CPU capability (Note [CPU capability]).
#include "backend/cpu/capability.h"

#include <cstdlib>
#include <iostream>
#include <string_view>

#include "ember/core/parallel.h"

namespace ember::cpu {
namespace {

bool cpu_has(Capability c) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  switch (c) {
    case Capability::Avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
             cpu_has(Capability::Avx2);
    case Capability::Avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("f16c");
    case Capability::Default:
      return true;
  }
  return false;
#else
  return c == Capability::Default;
#endif
}

Capability choose() {
  const std::vector<Capability> built = built_capabilities();
  Capability best = Capability::Default;
  for (Capability c : built) {
    if (cpu_has(c)) best = c;
  }
  const char* env = std::getenv("EMBER_CPU_CAPABILITY");
  if (!env || !*env) return best;
  const std::string_view want(env);
  for (Capability c : {Capability::Default, Capability::Avx2, Capability::Avx512}) {
    if (want != capability_name(c)) continue;
    bool is_built = false;
    for (Capability b : built) is_built = is_built || b == c;
    if (is_built && cpu_has(c)) return c;
    std::cerr << "[W] EMBER_CPU_CAPABILITY=" << want << ": "
              << (is_built ? "this CPU does not support it" : "this build has no kernels for it")
              << "; using " << capability_name(best) << "\n";
    return best;
  }
  std::cerr << "[W] ignoring invalid value for EMBER_CPU_CAPABILITY: '" << want
            << "' (expected default, avx2 or avx512); using " << capability_name(best) << "\n";
  return best;
}

}  // namespace

Capability capability() {
  static const Capability chosen = choose();
  return chosen;
}

const char* capability_name(Capability c) {
  switch (c) {
    case Capability::Default:
      return "default";
    case Capability::Avx2:
      return "avx2";
    case Capability::Avx512:
      return "avx512";
  }
  return "?";
}

std::vector<Capability> built_capabilities() {
  std::vector<Capability> built{Capability::Default};
#ifdef EMBER_CPU_HAVE_AVX2
  built.push_back(Capability::Avx2);
#endif
#ifdef EMBER_CPU_HAVE_AVX512
  built.push_back(Capability::Avx512);
#endif
  return built;
}

}  // namespace ember::cpu

namespace ember {

namespace {
std::string upper(const char* s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return out;
}
}  // namespace

std::string get_cpu_capability() { return upper(cpu::capability_name(cpu::capability())); }

std::vector<std::string> get_built_cpu_capabilities() {
  std::vector<std::string> out;
  for (cpu::Capability c : cpu::built_capabilities()) out.push_back(upper(cpu::capability_name(c)));
  return out;
}

}  // namespace ember
